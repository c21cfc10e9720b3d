//! The integration tests: one binary, one module per area.
mod map_files;
mod store;
