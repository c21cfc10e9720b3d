//! The integration tests: one binary, one module per area.
mod datc;
mod datc_phases;
mod grammar;
mod mail;
mod mail_judge;
mod map_files;
mod orders_position;
mod shadow;
mod store;
