//! shadowjudge: a play-by-email judge for Shadow Worlds Diplomacy, standard Diplomacy and
//! small turn-based games.
//!
//! The layers, from the bottom (each names only those below it): [`map`], [`phase`],
//! [`dice`] (verifiable rolls) and [`store`] (game directories); [`order`] (order types
//! and grammar); [`judge`] (pure adjudication); [`variant`] (Shadow Worlds); [`report`]
//! (results); [`turn`] (the contract every game implements); [`games`] (the small games);
//! [`game`] (Diplomacy's phase machine, and the turn games on disk); [`mail`]; [`host`]
//! (games served to mail); [`cli`]. See ARCHITECTURE.md for the whole picture.
pub mod cli;
pub mod dice;
pub mod game;
pub mod games;
pub mod host;
pub mod judge;
pub mod mail;
pub mod map;
pub mod order;
pub mod phase;
pub mod picture;
pub mod report;
pub mod site;
pub mod store;
pub mod text;
pub mod turn;
pub mod variant;
