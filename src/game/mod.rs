//! The game: phases, positions, settings, the phase machine and the game on disk.
//!
//! `engine` decides (pure); `session` puts the engine over the store (journal first, then
//! the state cache); `journal` rebuilds any state from the journal.
pub mod any;
pub mod by_mail;
pub mod conformance;
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

/// Phases live below every layer that names them ([`crate::phase`]); this path stays for
/// the code that reached them here.
pub use crate::phase;

/// The turn-game contract moved to [`crate::turn`]; this path stays until every caller
/// names it there.
pub use crate::turn;
