//! The game: phases, positions, settings and the phase machine.
pub mod phase;
pub mod position;
