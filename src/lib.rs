//! shadowjudge: a play-by-email judge for Shadow Worlds Diplomacy, standard Diplomacy and
//! small turn-based games.
//!
//! The layers, from the bottom: [`map`] (geography), [`order`] (order types and grammar),
//! [`judge`] (pure adjudication), [`game`] (the phase machine), [`variant`] (Shadow
//! Worlds), [`report`] (results), [`store`] (game directories), [`mail`], [`cli`]. Beside
//! Diplomacy: [`dice`] (verifiable rolls), [`game::turn`] (the contract every game
//! implements) and [`games`] (the small games). See ARCHITECTURE.md for the whole picture.
pub mod cli;
pub mod dice;
pub mod game;
pub mod games;
pub mod judge;
pub mod mail;
pub mod map;
pub mod order;
pub mod picture;
pub mod report;
pub mod store;
pub mod variant;
