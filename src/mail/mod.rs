//! The mail layer: a message in, the player answered; results and notices out.
//!
//! - [`inbound`]: one RFC 5322 message decoded, quoted text and signatures dropped, and
//!   the mail that must never be answered recognized (auto-replies, bounces, lists, loops).
//! - [`command`]: the SIGNON blocks and commands of a body.
//! - [`host`]: the [`GameHost`] trait, all mail knows of games.
//! - [`password`]: argon2 hashes for sign-on passwords.
//! - [`ingest`](mod@ingest): keep, read, place, apply, answer one message; poll a Maildir.
//! - [`lobby`]: what a message may do without signing on (list, join, observe, takeover).
//! - [`limit`]: at most 20 answers an hour to one address (`answered.json`).
//! - [`reply`]: outgoing mail as data, header sanitizing, deadlines in the reader's zone.
//! - [`send`]: lettre transports (SMTP, sendmail, .eml files) and the results mailing.
//! - [`deadline`]: schedules and the pure tick planner (reminders, late notices, outages).
//! - [`settings`]: the `[mail]` table of the judge's TOML.
//! - [`error`]: [`MailError`], what went wrong with the mail layer's own files.
//! - [`home`]: the judge directory (judge.toml, games/, spool/, outbox/, tick.json).
//!
//! The game side of [`GameHost`] is [`crate::host::JudgeHost`].
//!
//! This layer never adjudicates and never reads a game's files: everything about games
//! goes through [`GameHost`]. It never sends mail while ingesting: ingest returns the mails
//! and the caller sends them.

pub mod command;
pub mod deadline;
pub mod error;
pub mod home;
pub mod host;
pub mod inbound;
pub mod ingest;
pub mod limit;
pub mod lobby;
pub mod owed;
pub mod password;
pub mod reply;
pub mod send;
pub mod settings;

pub use error::MailError;
pub use host::GameHost;
pub use ingest::{ingest, poll_maildir, IngestOutcome};
pub use settings::MailSettings;
