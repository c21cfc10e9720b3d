//! The game: phases, positions, settings, the phase machine and the game on disk.
//!
//! `engine` decides (pure); `session` puts the engine over the store (journal first, then
//! the state cache); `journal` rebuilds any state from the journal.
pub mod diplomacy_turn;
pub mod engine;
pub mod host;
pub mod journal;
pub mod phase;
pub mod position;
pub mod schedule;
pub mod script;
pub mod session;
pub mod settings;
pub mod state;
pub mod turn;
pub mod turn_host;
pub mod turn_session;
