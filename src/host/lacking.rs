//! What a game does not have, said once for every game in the frame's words
//! ([`Lacking`]). The contract offers press, votes and absences, map pictures and seats by
//! mail as capabilities a game has or has not ([`GameSession::press`],
//! [`votes`](GameSession::votes), [`pictures`](GameSession::pictures),
//! [`seats`](GameSession::seats)); where the one a command needs is missing, this is what
//! its sender is told, whatever the game.

use crate::game::any::{GameError, GameSession, Lacking, Pictures, Press, ReportVolume, SeatChange, Seats, Votes};

/// The game's press, or why there is none.
pub(super) fn press(g: &mut dyn GameSession) -> Result<&mut dyn Press, GameError> {
    g.press().ok_or_else(|| Lacking::Press.into())
}

/// The game's votes and absences, or why there are none (`lacking`: what the command
/// needed of them).
pub(super) fn votes(g: &mut dyn GameSession, lacking: Lacking) -> Result<&mut dyn Votes, GameError> {
    g.votes().ok_or_else(|| lacking.into())
}

/// The game's map pictures, or why there are none.
pub(super) fn pictures(g: &mut dyn GameSession) -> Result<&mut dyn Pictures, GameError> {
    g.pictures().ok_or_else(|| Lacking::Pictures.into())
}

/// The game's choice of reports by mail, or why there is none.
pub(super) fn reports(g: &mut dyn GameSession) -> Result<&mut dyn ReportVolume, GameError> {
    g.reports().ok_or_else(|| Lacking::Reports.into())
}

/// The game's seats by mail, or why `change` cannot be made.
pub(super) fn seats<'g>(g: &'g mut dyn GameSession, change: &SeatChange<'_>) -> Result<&'g mut dyn Seats, GameError> {
    g.seats().ok_or_else(|| Lacking::seats_for(change).into())
}
