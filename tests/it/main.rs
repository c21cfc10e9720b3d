//! The integration tests: one binary, one module per area.
mod cli_game;
mod datc;
mod datc_phases;
mod grammar;
mod map_files;
mod shadow;
mod standard_game;
mod store;
