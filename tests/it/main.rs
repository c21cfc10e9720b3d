//! The integration tests: one binary, one module per area.
mod datc;
mod datc_phases;
mod grammar;
mod map_files;
mod shadow;
mod shadow_game;
mod store;
