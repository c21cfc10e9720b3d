//! Why a command on a game could not be carried out: the one error of the game frame,
//! whatever the game and whichever store keeps it.

use crate::game::journal;
use crate::store::StoreError;

/// Why a game command could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Map(#[from] crate::diplomacy::map::MapError),
    #[error("{0}")]
    Invalid(String),
    #[error("the judge is still waiting for orders from {}; use --force to adjudicate at the deadline", .0.join(", "))]
    NotReady(Vec<String>),
    /// A small game still awaits input: what, in the game's own words, and from whom.
    #[error("the judge is still waiting for {0}; use --force to go on now, as at the deadline")]
    Awaiting(String),
    #[error("the game is over")]
    Over,
    #[error("{0}")]
    Replay(#[from] journal::ReplayError),
    /// The game's files are there but do not make a game (a missing or mismatched part).
    #[error("{0}")]
    Damaged(String),
}

impl GameError {
    /// Whether the error is the judge's or the files' (damaged, unreadable), not the
    /// user's: players are told only that the game could not be opened, the master and
    /// the log get the cause.
    pub fn is_internal(&self) -> bool {
        !self.is_carried_out()
            && matches!(self, GameError::Store(_) | GameError::Replay(_) | GameError::Damaged(_) | GameError::Map(_))
    }

    /// Whether the store refused the change because the message item being carried out
    /// had already made it, before an interruption ([`StoreError::CarriedOut`]).
    pub fn is_carried_out(&self) -> bool {
        matches!(self, GameError::Store(StoreError::CarriedOut { .. }))
    }
}
