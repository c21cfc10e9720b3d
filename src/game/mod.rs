//! A game on disk, whatever it plays (ARCHITECTURE.md, `game`).
//!
//! `any` is the contract every game is made and reached through; `session` keeps a game
//! on disk, one `Session` type over two kinds (`session::diplomacy`, `session::turn`), and
//! `journal` rebuilds a Diplomacy state from its entries. Below the session, once for
//! every game: `error` (`GameError`), `glance` (the tick's cache of an idle game),
//! `schedule` (deadlines, the early/wait rule), `seating` (the rules of joins, observers and
//! a change of player), `settings`, `by_mail`, `public`.
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
