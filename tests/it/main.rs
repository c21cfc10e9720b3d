//! The integration tests: one binary, one module per area.
mod datc;
mod map_files;
