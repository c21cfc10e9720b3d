//! shadowjudge: a play-by-email judge for Shadow Worlds Diplomacy, standard Diplomacy and
//! small turn-based games.
//!
//! Two sides: the judge's frame and the games on it. The frame, from the bottom (each
//! layer names only those below it): [`text`]; [`span`] (lengths of time as people
//! write them); [`phase`], [`answer`] (what a message or turn file caused, and its one
//! rendering), [`dice`] (verifiable rolls) and [`store`]
//! (game directories); [`turn`] (the contract every small game implements); [`game`]
//! (every game on disk behind one contract); [`mail`]; [`site`]; [`host`] (games served
//! to mail); [`cli`]. The games: [`diplomacy`] (Diplomacy's own code, from its map to its
//! pictures) and [`games`] (the small games). See ARCHITECTURE.md for the whole picture.
pub mod answer;
pub mod cli;
pub mod dice;
pub mod diplomacy;
pub mod game;
pub mod games;
pub mod host;
pub mod mail;
pub mod phase;
pub mod site;
pub mod span;
pub mod store;
pub mod text;
pub mod turn;
