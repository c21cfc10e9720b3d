//! The integration tests: one binary, one module per area.
mod cli_game;
mod datc;
mod datc_common;
mod datc_phases;
mod game_engine;
mod grammar;
mod judge_dir;
mod mail;
mod mail_judge;
mod mail_results;
mod map_files;
mod orders_position;
mod resolve;
mod shadow;
mod shadow_game;
mod standard_game;
mod store;
