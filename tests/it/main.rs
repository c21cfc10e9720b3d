//! The integration tests: one binary, one module per area.
mod grammar;
mod map_files;
mod shadow;
mod store;
