//! A game on disk, whatever it plays (ARCHITECTURE.md, `game`).
//!
//! `any` is the contract every game is reached through and opens the right store;
//! `session` is Diplomacy's store (the engine over the journal, then the state cache) and
//! `journal` rebuilds any state from its entries; `turn_session` is the turn games' store.
//! What both stores need is here once: `error` (`GameError`), `glance` (the tick's cache
//! of an idle game), `schedule` (deadlines, the early/wait rule), `seating` (joins,
//! observers, a change of player), `settings`, `by_mail`, `public`.
pub mod any;
pub mod by_mail;
pub mod conformance;
pub mod error;
pub mod glance;
pub mod journal;
pub mod public;
pub mod roster;
pub mod schedule;
pub mod script;
pub mod seating;
pub mod session;
pub mod settings;
pub mod state_patch;
pub mod status;
pub mod turn_session;
