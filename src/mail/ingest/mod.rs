//! One inbound message, start to finish: keep it, read it, place it, apply it, answer it.
//!
//! The order of things is the point of this module:
//! 1. a message over the size limit is refused politely (headers only are read) and not kept;
//! 2. otherwise the raw bytes go to the spool first ([`Intake::spool`]); if that fails the
//!    outcome is [`Disposition::Retry`] and nothing else happens, so the MTA can try again;
//! 3. mail that must get no reply (auto-replies, bounces, lists, loops) stops here;
//! 4. the message is claimed by its Message-ID and a digest of its body (or, without an
//!    id, a digest of it all): a second delivery of the same message waits for the first
//!    and applies nothing once the first completed, and another message reusing the id is
//!    not taken for it;
//! 5. each SIGNON block is checked (game, role, password) and only then applied, each item
//!    under a tag that its journal entries record, so that a message carried out again
//!    after a crash does nothing twice; only the first [`MAX_SIGNONS`] blocks of a message
//!    are read, a role with [`LOCKOUT_FAILURES`] wrong passwords within
//!    [`LOCKOUT_WINDOW_MINUTES`] is not checked at all until the window has passed (its
//!    master is told when that starts), and a message sends at most [`MAX_PRESS`] press
//!    messages and [`MAX_LISTINGS`] listings;
//! 6. one reply goes back to the sender, with a copy to the role's registered address if
//!    the sender is someone else (a forged or new From never goes unnoticed);
//! 7. the reply and every other mail the message causes are owed (the intake keeps them
//!    durably), and only then is the claim complete. A process killed before that leaves
//!    the claim open: the redelivery, or [`recover`] at the next tick, carries it out again.
//!
//! Mail is never sent from here: the outcome carries the mails, the caller sends them.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

use crate::mail::command::{parse_script, Block, Item, Script, HELP};
use crate::mail::error::MailError;
use crate::mail::host::{ContactRole, GameHost, HostError, Identity, MasterCommand, Role, SignOnCheck, SignOnError};
use crate::mail::inbound::{cap, parse_headers_only, parse_message, BodyLine, Inbound, Silence};
use crate::mail::password::{hash_password, verify_password};
use crate::mail::reply::{
    format_deadline, format_duration, header_safe, reply_references, reply_subject, MailKind, OutgoingMail,
};
use crate::mail::settings::MailSettings;
use crate::text::{count, plural};

mod answer;
mod apply;
mod intake;
mod place;
mod poll;

use answer::{answer, opening, reply_to};
use apply::{apply, copy_to_registered, quote};
use place::{place, Budget, Placed};

pub use answer::closing_start;
pub use intake::{Abandoned, Intake, MemoryIntake, StoreClaim, StoreIntake};
pub use poll::{poll_maildir, Polled};

/// The SIGNON blocks read per message; the rest are answered with one line and not read.
/// Each costs a password check, so this bounds the guessing one message can do.
pub const MAX_SIGNONS: usize = 5;
/// Wrong passwords for one role of one game within [`LOCKOUT_WINDOW_MINUTES`] that close
/// its sign-on.
pub const LOCKOUT_FAILURES: usize = 5;
/// The window, in minutes, in which [`LOCKOUT_FAILURES`] failures close a role's sign-on;
/// it opens again when the oldest of them is this old.
pub const LOCKOUT_WINDOW_MINUTES: i64 = 60;
/// The press messages one message may send; the rest are not sent.
pub const MAX_PRESS: usize = 5;
/// The `status` and `history` listings one message may ask for; the rest are not given.
pub const MAX_LISTINGS: usize = 5;
/// The order (or turn) lines one message may give, in all its blocks; the rest are not
/// read. A power of 34 centers on two boards gives 68 orders; a message of copies of one
/// line gets a short answer and a small journal entry.
pub const MAX_ORDER_LINES: usize = 300;
/// The line numbers a summary of like lines names; the rest are counted.
const MAX_LINES_NAMED: usize = 5;

/// The problem lines one acknowledgement lists; the rest are counted, so a message of junk
/// gets a short answer.
pub const MAX_PROBLEMS_LISTED: usize = 50;

/// The exit code asking the MTA to deliver the message again later (sysexits EX_TEMPFAIL).
pub const EX_TEMPFAIL: i32 = 75;

/// What became of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// It could not be kept: the MTA should deliver it again later.
    Retry { reason: String },
    /// Too large to read; refused (with a short reply unless it must get none).
    TooLarge { bytes: usize },
    /// It must get no reply and was not acted on.
    Silent(Silence),
    /// The same message was already taken.
    Duplicate { key: String },
    /// No block could be placed (no SIGNON, unknown game, bad password): nothing changed.
    Unplaced,
    /// Signed on to these games, but nothing in them changed (only `status`, refused
    /// commands, orders in an attachment, or nothing at all).
    SignedOn { games: Vec<String> },
    /// At least one block signed on and changed something; these games were acted on.
    Applied { games: Vec<String> },
}

impl std::fmt::Display for Disposition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Disposition::Retry { reason } => write!(f, "not taken, to be delivered again ({reason})"),
            Disposition::TooLarge { bytes } => write!(f, "refused: too large ({bytes} bytes)"),
            Disposition::Silent(why) => write!(f, "not answered: {why}"),
            Disposition::Duplicate { .. } => f.write_str("already taken (a second delivery)"),
            Disposition::Unplaced => f.write_str("answered; no sign-on held, nothing changed"),
            Disposition::SignedOn { games } => write!(f, "signed on to {}; nothing changed", games.join(", ")),
            Disposition::Applied { games } => write!(f, "applied to {}", games.join(", ")),
        }
    }
}

/// The result of [`ingest`]: what happened and the mails to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IngestOutcome {
    pub disposition: Disposition,
    pub mails: Vec<OutgoingMail>,
    /// The batch the intake owes `mails` in (to send it), when it owed them; `None` when
    /// the caller must owe them itself (a refusal of a message too large to keep).
    pub owed: Option<String>,
}

impl IngestOutcome {
    /// Whether the message must be delivered again.
    pub fn must_retry(&self) -> bool {
        matches!(self.disposition, Disposition::Retry { .. })
    }

    /// The process exit code for an MTA pipe: [`EX_TEMPFAIL`] for a retry, else 0.
    pub fn exit_code(&self) -> i32 {
        if self.must_retry() {
            EX_TEMPFAIL
        } else {
            0
        }
    }
}

/// Take one raw message: keep it, read it, apply what it asks, and say what to answer.
pub fn ingest<I: Intake>(
    raw: &[u8],
    host: &mut impl GameHost,
    intake: &I,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> IngestOutcome {
    if raw.len() > settings.max_message_bytes {
        let mut outcome = too_large(raw, settings);
        let _ = intake.limit_answers(&mut outcome.mails, now);
        return outcome;
    }
    let spooled = match intake.spool(raw, now) {
        Ok(id) => id,
        Err(e) => return retry(e),
    };
    let inbound = parse_message(raw);
    if let Some(silence) = inbound.silence_for(&settings.address) {
        return IngestOutcome { disposition: Disposition::Silent(silence), mails: Vec::new(), owed: None };
    }
    let key = claim_key(raw, inbound.message_id.as_deref());
    let claim = match intake.claim(&key, &spooled) {
        Ok(Some(claim)) => claim,
        Ok(None) => {
            return IngestOutcome { disposition: Disposition::Duplicate { key }, mails: Vec::new(), owed: None }
        }
        Err(e) => return retry(e),
    };
    carry_out(&inbound, &key, claim, host, intake, settings, now)
}

/// A message that could not be kept or claimed: the MTA delivers it again.
fn retry(e: MailError) -> IngestOutcome {
    IngestOutcome { disposition: Disposition::Retry { reason: e.to_string() }, mails: Vec::new(), owed: None }
}

/// Apply a claimed message, owe its mails and complete the claim. If the mails cannot be
/// owed, the claim stays open (the message is carried out again, without doing anything
/// twice, by its redelivery or [`recover`]) and the outcome asks for a retry. A message
/// that changed nothing and must be retried gives its claim back.
fn carry_out<I: Intake>(
    inbound: &Inbound,
    key: &str,
    claim: I::Claim,
    host: &mut impl GameHost,
    intake: &I,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> IngestOutcome {
    // The message counts as received when it was first kept, however late it is carried
    // out (a redelivery after a crash, a recovery by the tick).
    let now = intake.received(&claim).filter(|t| *t <= now).unwrap_or(now);
    let keep = closing_start(&inbound.lines);
    let closing = inbound.lines[keep..].iter().filter(|l| !l.text.trim().is_empty()).count();
    let script = parse_script(&inbound.lines[..keep]);
    let tag = format!("{:.16x}", Sha256::digest(key.as_bytes()));
    let mut outcome = answer(inbound, &script, closing, &tag, host, settings, now);
    outcome.mails.extend(host.take_mails());
    if outcome.must_retry() {
        if let Err(reason) = intake.give_back(claim) {
            outcome.disposition =
                Disposition::Retry { reason: format!("{reason} (and the claim could not be given back)") };
        }
        return outcome;
    }
    // Only mail that signed on nowhere is limited: an automatic responder never can (no
    // answer repeats a password), and a player's answers are their own. A guard that
    // cannot be read or kept holds nothing back.
    if outcome.disposition == Disposition::Unplaced {
        let _ = intake.limit_answers(&mut outcome.mails, now);
    }
    match intake.complete(claim, &outcome.mails, now) {
        Ok(owed) => outcome.owed = owed,
        Err(reason) => {
            outcome.disposition = Disposition::Retry { reason: format!("the answer could not be kept: {reason}") };
            outcome.mails.clear();
        }
    }
    outcome
}

/// The key a message is claimed by: its Message-ID and a digest of its body, so that a
/// redelivery (the same body, perhaps more `Received:` headers) is one message and two
/// different messages that share a Message-ID are two. Without a Message-ID, the digest
/// of the whole message.
pub fn claim_key(raw: &[u8], message_id: Option<&str>) -> String {
    match message_id {
        Some(id) => format!("id:{id}:body-sha256:{:x}", Sha256::digest(body_of(raw))),
        None => format!("sha256:{:x}", Sha256::digest(raw)),
    }
}

/// The bytes after the header section (after the first empty line); all of it if none.
fn body_of(raw: &[u8]) -> &[u8] {
    let mut start = 0;
    while start < raw.len() {
        let end = raw[start..].iter().position(|&b| b == b'\n').map_or(raw.len(), |i| start + i + 1);
        let line = &raw[start..end];
        if line == b"\n" || line == b"\r\n" {
            return &raw[end..];
        }
        start = end;
    }
    raw
}

/// Carry out again every message whose claim a dead process left incomplete (from its
/// spooled copy): what it already did is not done twice, and it is answered. Run by
/// `mail tick` and `mail poll`, so a message is answered even if it is never redelivered.
pub fn recover<I: Intake>(
    host: &mut impl GameHost,
    intake: &I,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> Result<Vec<IngestOutcome>, MailError> {
    let mut outcomes = Vec::new();
    for (claim, raw) in intake.abandoned()? {
        let inbound = parse_message(&raw);
        let key = claim_key(&raw, inbound.message_id.as_deref());
        // A message that made the judge fail must not stop the tick: its claim stays
        // open (and is tried again at the next tick), the others go on.
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            carry_out(&inbound, &key, claim, host, intake, settings, now)
        }));
        outcomes.push(done.unwrap_or_else(|_| IngestOutcome {
            disposition: Disposition::Retry { reason: format!("internal error carrying out {key}") },
            mails: Vec::new(),
            owed: None,
        }));
    }
    Ok(outcomes)
}

fn too_large(raw: &[u8], settings: &MailSettings) -> IngestOutcome {
    let inbound = parse_headers_only(raw);
    let disposition = Disposition::TooLarge { bytes: raw.len() };
    if inbound.silence_for(&settings.address).is_some() {
        return IngestOutcome { disposition, mails: Vec::new(), owed: None };
    }
    let mut body = opening(settings);
    let _ = writeln!(
        body,
        "Your message was larger than the {} KB this judge reads, so it was not read and \
         nothing was changed. Please send your orders as plain text, without attachments.",
        settings.max_message_bytes / 1024
    );
    IngestOutcome { disposition, mails: reply_to(&inbound, body, false).into_iter().collect(), owed: None }
}
