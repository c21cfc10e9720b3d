//! Diplomacy's own code, one game on the judge's frame: the geography, the orders, the
//! adjudication of one board, the Shadow Worlds variant, the state and the phase machine,
//! the results and the pictures. The frame (store, game sessions, mail, host, command line)
//! reaches it through `game::session::diplomacy` and `game::any::diplomacy`; the small games never do.
//!
//! Lowest first (each names only those before it): [`map`]; [`order`]; [`judge`];
//! [`variant`]; [`position`] and [`state`]; [`report`]; [`engine`]; [`picture`], above
//! the frame's `game`, since it draws from Diplomacy's journal.
pub mod engine;
pub mod judge;
pub mod kind;
pub mod map;
pub mod order;
pub mod picture;
pub mod position;
pub mod report;
pub mod state;
pub mod variant;
