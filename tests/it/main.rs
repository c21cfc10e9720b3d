//! The integration tests: one binary, one module per area.
mod datc_phases;
mod map_files;
