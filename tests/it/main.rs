//! The integration tests: one binary, one module per area.
mod mail;
mod map_files;
