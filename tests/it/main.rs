//! The integration tests: one binary, one module per area.
mod datc;
mod datc_phases;
mod grammar;
mod map_files;
mod resolve;
mod shadow;
mod store;
