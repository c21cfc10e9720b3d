//! What the mail layer needs from whatever hosts the games: the [`GameHost`] trait and
//! the plain data it returns (the game's own words for seats, receipts and contacts come
//! from [`crate::game::by_mail`]). [`crate::host::JudgeHost`] implements it over the real
//! games; tests implement it in memory. Mail never reaches into a game any other way.
//!
//! The host never sees a clear password for sign-on: it hands back the stored hash and
//! mail verifies it ([`crate::mail::password`]), so a host cannot get the check wrong.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

pub use crate::answer::{Nouns, Receipt, Refusal, Taken};
pub use crate::game::by_mail::{Contact, ContactRole, PlayerCommand, PressDelivery, PressTo, Role, SeatRecord};

/// What a host error says when the operating system refused a read, write or lock of the
/// game's files (not the judge user's files, say): the message is retried, not answered.
pub const TRY_LATER: &str = "the judge could not reach this game's files just now; the game master is told";

/// What a player is told when a game's files cannot be read: no path, no cause.
pub const UNAVAILABLE: &str = "the judge could not open this game just now; the game master is told";

/// A signed-on identity within one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The game's canonical name.
    pub game: String,
    pub role: Role,
    /// The address the game has on file for this role.
    pub address: Option<String>,
    /// The zone deadlines are shown in, besides UTC.
    pub timezone: Option<Tz>,
}

/// What the host knows of a sign-on before the password is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignOnRecord {
    pub identity: Identity,
    /// The argon2 hash of the role's password; `None` when none was set yet.
    pub password_hash: Option<String>,
}

/// What became of a sign-on attempt ([`GameHost::check_sign_on`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignOnCheck {
    /// Closed: the limit of failures within the window was reached and the password was
    /// not checked; the failures counted, oldest first.
    Closed { failures: Vec<DateTime<Utc>> },
    /// The password was right.
    Right,
    /// The password was wrong, and recorded; the failures within the window with it,
    /// oldest first.
    Wrong { failures: Vec<DateTime<Utc>> },
}

/// Why a sign-on names nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignOnError {
    NoSuchGame,
    /// The game exists but has no such seat (a power, a small game's player); the seats
    /// it does have.
    NoSuchSeat {
        seats: Vec<String>,
    },
    /// The game exists but the judge cannot open it now (its files are damaged or
    /// unreadable); the host has told the master and the log why.
    Unavailable,
    /// The operating system refused a read, write or lock of the game's files (they
    /// belong to another user, say): the message is given back to the MTA to retry.
    TryLater,
}

/// A host-side failure, as the player is told it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// Refused, in words for the player (their own mistake, or what the game allows).
    #[error("{0}")]
    Refused(String),
    /// The game's files are damaged or unreadable: the master and the log get the cause.
    #[error("{UNAVAILABLE}")]
    Unavailable,
    /// The operating system refused the game's files just now (unreadable or not
    /// writable), not anything the player did: the message is retried.
    #[error("{TRY_LATER}")]
    TryLater,
    /// The message item was carried out when the message was first read, before the
    /// judge was interrupted: the store refused to do it twice, and nothing changed now.
    #[error("done when this message was first read (the judge was interrupted before it answered).")]
    DoneBefore,
}

impl HostError {
    /// Whether the message must be retried (see [`HostError::TryLater`]).
    pub fn is_try_later(&self) -> bool {
        matches!(self, HostError::TryLater)
    }
}

/// A game master's command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MasterCommand {
    /// Adjudicate the current phase now, missing orders or not.
    Process,
    /// Move the deadline this much later.
    Extend {
        by: crate::game::schedule::Span,
    },
    Pause,
    Resume,
    /// Early processing on or off for this game.
    Early {
        on: bool,
    },
    /// Hand a power to a new player at this address.
    Replace {
        power: String,
        address: String,
    },
    /// `refuse absence france`: the power's absences not over yet no longer move a
    /// deadline.
    RefuseAbsence {
        power: String,
    },
    /// Give a vacant power to whoever asked to take it over.
    Approve {
        power: String,
    },
    /// The results the phase would have if processed now: to the master only, nothing kept.
    Preview,
}

/// Everything mail needs from a game host.
pub trait GameHost {
    /// Whether a game of that name exists (names are compared as the host sees fit).
    fn game_exists(&self, game: &str) -> bool;

    /// Find the role a SIGNON names: `who` is as written (`france`, `fra`, `f`, or
    /// `master`). The host resolves abbreviations.
    fn sign_on(&self, game: &str, who: &str) -> Result<SignOnRecord, SignOnError>;

    /// Check a sign-on attempt of this role, all of it under the game's lock, so that
    /// messages delivered at once never check more than `limit` passwords between them:
    /// the failures later than `after` are counted; at `limit` or more the sign-on is
    /// closed and `check` is not called; else `check` says whether the password is right,
    /// and a wrong one is recorded at `now`. The host never sees the password, only the
    /// verdict. It may forget failures older than a day.
    fn check_sign_on(
        &mut self,
        who: &Identity,
        now: DateTime<Utc>,
        after: DateTime<Utc>,
        limit: usize,
        check: &mut dyn FnMut() -> bool,
    ) -> Result<SignOnCheck, HostError>;

    /// Submit a power's orders (the whole text of its order lines) and say what was
    /// understood. Text that is not an order is the host's to report as a problem.
    fn submit_orders(&mut self, who: &Identity, text: &str, now: DateTime<Utc>) -> Result<Receipt, HostError>;

    /// What the game offers (the master's lines go to it where it takes them) and the
    /// words its seats and input are named in; a game not found offers Diplomacy's.
    fn offers(&self, game: &str) -> crate::games::Offers;

    /// The game's state as this role may see it, as text.
    fn status(&self, who: &Identity, now: DateTime<Utc>) -> Result<String, HostError>;

    /// Past results as this role may see them, as text.
    fn history(&self, who: &Identity) -> Result<String, HostError>;

    /// Check and record a press message; the host decides who receives it.
    fn press(
        &mut self,
        who: &Identity,
        to: &PressTo,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<PressDelivery, HostError>;

    /// Store a new password hash for this role.
    fn set_password(&mut self, who: &Identity, password_hash: &str, now: DateTime<Utc>) -> Result<(), HostError>;

    /// Store the role's time zone.
    fn set_timezone(&mut self, who: &Identity, zone: Tz, now: DateTime<Utc>) -> Result<(), HostError>;

    /// Whether the role's results mails carry the map pictures (a game without pictures
    /// refuses).
    fn set_pictures(&mut self, who: &Identity, on: bool, now: DateTime<Utc>) -> Result<(), HostError>;

    /// Which of a small game's reports a player is mailed.
    fn set_reports(
        &mut self,
        who: &Identity,
        reports: crate::game::by_mail::Reports,
        now: DateTime<Utc>,
    ) -> Result<(), HostError>;

    /// Carry out a master's command; the text says what was done. Only called for
    /// [`Role::Master`].
    fn master(&mut self, who: &Identity, command: &MasterCommand, now: DateTime<Utc>) -> Result<String, HostError>;

    /// The current deadline, if the game has one.
    fn deadline(&self, game: &str) -> Option<DateTime<Utc>>;

    /// Everyone who receives results: players, observers and the master.
    fn contacts(&self, game: &str) -> Vec<Contact>;

    /// A player's vote or absence ([`PlayerCommand`]); the text says what now holds. Mails
    /// it causes for others go to [`GameHost::take_mails`] (a game without them refuses).
    fn player(&mut self, who: &Identity, command: &PlayerCommand, now: DateTime<Utc>) -> Result<String, HostError>;

    /// A power asks that the phase wait for its deadline (`wait`), or takes that back; the
    /// text says what now holds.
    fn set_wait(&mut self, who: &Identity, wait: bool, now: DateTime<Utc>) -> Result<String, HostError>;

    /// From now on, the inbound message item `tag` is being carried out (`None`: none):
    /// every change the host makes to a game is journaled with it, so that the message
    /// carried out again after a crash does not do anything twice.
    fn carry_out(&mut self, tag: Option<String>);

    /// Mails the commands so far made for others (a new player's password after
    /// `replace`); they are owed with the message's reply.
    fn take_mails(&mut self) -> Vec<crate::mail::reply::OutgoingMail>;

    /// `list`: the judge's games, one line each; `list NAME`: that game in full.
    fn list_games(&self, game: Option<&str>) -> Result<String, HostError>;

    /// A command that needs no sign-on, from `sender`: join, leave, observe, takeover,
    /// create. The text says what was done; mails for others go to
    /// [`GameHost::take_mails`].
    fn lobby(
        &mut self,
        sender: &str,
        request: &crate::mail::lobby::LobbyRequest,
        now: DateTime<Utc>,
    ) -> Result<String, HostError>;

    /// The password hash `email` joined the open game `game` with, if it did.
    fn joined_hash(&self, game: &str, email: &str) -> Option<String>;

    /// `resign SEAT` from a signed-on player: the seat is vacant. The text says what was
    /// done; the notices go to [`GameHost::take_mails`].
    fn resign(&mut self, who: &Identity, seat: &str, now: DateTime<Utc>) -> Result<String, HostError>;
}
