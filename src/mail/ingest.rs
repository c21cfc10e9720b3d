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
use crate::mail::host::{
    Ack, ContactRole, GameHost, HostError, Identity, MasterCommand, Role, SignOnCheck, SignOnError,
};
use crate::mail::inbound::{cap, parse_headers_only, parse_message, BodyLine, Inbound, Silence};
use crate::mail::password::{hash_password, verify_password};
use crate::mail::reply::{
    format_deadline, format_duration, header_safe, reply_references, reply_subject, MailKind, OutgoingMail,
};
use crate::mail::settings::MailSettings;
use crate::text::{count, plural};

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

/// The problem lines one acknowledgement lists; the rest are counted, so a message of junk
/// gets a short answer.
pub const MAX_PROBLEMS_LISTED: usize = 50;

/// The exit code asking the MTA to deliver the message again later (sysexits EX_TEMPFAIL).
pub const EX_TEMPFAIL: i32 = 75;

/// Where ingested messages are kept and remembered. The store's spool implements it for
/// real; [`MemoryIntake`] in memory.
///
/// Taking a message is in two steps, so that a crash in between loses nothing: a
/// [`claim`](Intake::claim) while the message is carried out, and
/// [`complete`](Intake::complete) once its reply and every mail it causes are owed. A
/// claim that never completed (the process died) is taken again by the next delivery of
/// the message, or by [`recover`] from the spooled copy.
pub trait Intake: Sync {
    /// A message being carried out.
    type Claim;
    /// Keep the raw message durably; the id it is kept under.
    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, String>;
    /// Claim a message key for the message spooled as `spooled`: `None` when the message
    /// was already taken and completed. Of two concurrent claims of one key, one waits
    /// for the other (or its death) and then gets `None` (or the claim).
    fn claim(&self, key: &str, spooled: &str) -> Result<Option<Self::Claim>, String>;
    /// Owe `mails` and then mark the message done, each durably. The id of the owed batch,
    /// if any mail was owed.
    fn complete(
        &self,
        claim: Self::Claim,
        mails: &[OutgoingMail],
        now: DateTime<Utc>,
    ) -> Result<Option<String>, String>;
    /// Hold back the answers (mails of kind [`MailKind::Reply`]) past the limit of
    /// answers to one address ([`crate::mail::limit`]). Default: no limit.
    fn limit_answers(&self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, String> {
        let _ = (mails, now);
        Ok(0)
    }
    /// Give a claim back without completing it: the message changed nothing and must be
    /// read again at its next delivery (or by [`recover`]).
    fn give_back(&self, claim: Self::Claim) -> Result<(), String> {
        drop(claim);
        Ok(())
    }
    /// When the message of `claim` was first kept in the spool: the time it counts as
    /// received, however late it is carried out (a redelivery, a recovery). `None`:
    /// unknown (now).
    fn received(&self, _claim: &Self::Claim) -> Option<DateTime<Utc>> {
        None
    }
    /// Claims left incomplete by a process that died, each with its spooled message.
    fn abandoned(&self) -> Result<Vec<Abandoned<Self::Claim>>, String> {
        Ok(Vec::new())
    }
}

/// A claim a dead process left incomplete, taken again, and its spooled message.
pub type Abandoned<C> = (C, Vec<u8>);

/// An [`Intake`] in memory, for tests and dry runs. `fail_spool` simulates a full disk.
#[derive(Debug, Default)]
pub struct MemoryIntake {
    pub spooled: Mutex<Vec<Vec<u8>>>,
    pub claimed: Mutex<HashSet<String>>,
    /// The mails owed by completed messages.
    pub owed: Mutex<Vec<OutgoingMail>>,
    pub fail_spool: AtomicBool,
    /// The answers sent per address ([`crate::mail::limit`]).
    pub answered: Mutex<crate::mail::limit::Answered>,
}

impl Intake for MemoryIntake {
    type Claim = String;

    fn spool(&self, raw: &[u8], _now: DateTime<Utc>) -> Result<String, String> {
        if self.fail_spool.load(Ordering::SeqCst) {
            return Err("spool write failed (simulated)".into());
        }
        let mut spooled = self.spooled.lock().map_err(|_| "spool lock poisoned".to_string())?;
        spooled.push(raw.to_vec());
        Ok(format!("mem-{}", spooled.len()))
    }

    fn claim(&self, key: &str, _spooled: &str) -> Result<Option<String>, String> {
        // Nothing in memory outlives the process, so a claim is complete when taken.
        let mut claimed = self.claimed.lock().map_err(|_| "claim lock poisoned".to_string())?;
        Ok(claimed.insert(key.to_string()).then(|| key.to_string()))
    }

    fn complete(&self, _claim: String, mails: &[OutgoingMail], _now: DateTime<Utc>) -> Result<Option<String>, String> {
        self.owed.lock().map_err(|_| "owed lock poisoned".to_string())?.extend(mails.iter().cloned());
        Ok(None)
    }

    fn give_back(&self, claim: String) -> Result<(), String> {
        self.claimed.lock().map_err(|_| "claim lock poisoned".to_string())?.remove(&claim);
        Ok(())
    }

    fn limit_answers(&self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, String> {
        Ok(self.answered.lock().map_err(|_| "answered lock poisoned".to_string())?.admit(mails, now))
    }
}

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
        Err(reason) => {
            return IngestOutcome { disposition: Disposition::Retry { reason }, mails: Vec::new(), owed: None }
        }
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
        Err(reason) => {
            return IngestOutcome { disposition: Disposition::Retry { reason }, mails: Vec::new(), owed: None }
        }
    };
    carry_out(&inbound, &key, claim, host, intake, settings, now)
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
) -> Result<Vec<IngestOutcome>, String> {
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
    IngestOutcome { disposition, mails: reply_to(&inbound, body).into_iter().collect(), owed: None }
}

fn opening(settings: &MailSettings) -> String {
    format!("This is the judge at {}, answering your message.\n\n", settings.address)
}

fn reply_to(inbound: &Inbound, body: String) -> Option<OutgoingMail> {
    Some(OutgoingMail {
        to: inbound.answer_to()?.to_string(),
        subject: reply_subject(inbound.subject.as_deref()),
        body,
        in_reply_to: inbound.message_id.clone(),
        references: reply_references(&inbound.references, inbound.message_id.as_deref()),
        kind: MailKind::Reply,
        attachments: Vec::new(),
    })
}

fn answer(
    inbound: &Inbound,
    script: &Script,
    closing: usize,
    tag: &str,
    host: &mut impl GameHost,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> IngestOutcome {
    let mut body = opening(settings);
    let mut mails = Vec::new();
    let mut games = Vec::new();
    let mut changed_games = Vec::new();
    let mut unavailable = 0;

    // What needs no sign-on (list, join, observe, takeover, ...) is answered first.
    let (lobby_changed, lobby_retry) =
        crate::mail::lobby::answer(&script.lobby, tag, inbound.answer_to(), host, now, &mut body);
    if lobby_retry {
        unavailable += 1;
    }
    changed_games.extend(lobby_changed);

    let placed_something = !script.blocks.is_empty() || !script.lobby.is_empty();
    if !script.stray.is_empty() && placed_something {
        let _ = writeln!(body, "Lines outside a SIGNON block were ignored:");
        for line in script.stray.iter().take(5) {
            let _ = writeln!(body, "  line {}: {}", line.number, quote(&line.text));
        }
        if script.stray.len() > 5 {
            let _ = writeln!(body, "  ... and {} more", script.stray.len() - 5);
        }
        body.push('\n');
    }
    if inbound.attachments > 0 {
        let _ = writeln!(
            body,
            "{} ignored: write your orders in the message itself.\n",
            count(inbound.attachments, "attachment", "attachments")
        );
    }

    let mut budget = Budget { press: MAX_PRESS, listings: MAX_LISTINGS };
    for (index, block) in script.blocks.iter().take(MAX_SIGNONS).enumerate() {
        let mut section = String::new();
        let placed = place(block, inbound, host, now, &mut section, &mut mails);
        if matches!(placed, Placed::Unavailable) {
            unavailable += 1;
        }
        if let Placed::Yes(identity) = placed {
            let tag = format!("{tag}#{}", index + 1);
            let (changed, failed) = apply(block, &identity, &tag, host, now, &mut budget, &mut section, &mut mails);
            unavailable += failed;
            if !games.contains(&identity.game) {
                games.push(identity.game.clone());
            }
            if changed && !changed_games.contains(&identity.game) {
                changed_games.push(identity.game.clone());
            }
            let sender = inbound.answer_to().unwrap_or("");
            if let Some(registered) = identity.address.as_deref() {
                if changed && !registered.eq_ignore_ascii_case(sender) {
                    mails.push(copy_to_registered(registered, sender, &identity, &section));
                }
            }
        }
        body.push_str(&section);
        body.push('\n');
    }

    if let Some(first) = script.blocks.get(MAX_SIGNONS) {
        let unread = script.blocks.len() - MAX_SIGNONS;
        let _ = writeln!(
            body,
            "The {} from line {} on {} not read: the judge reads at most {MAX_SIGNONS} \
             per message. Nothing in {them} was done; send {them} in another message.\n",
            count(unread, "SIGNON block", "SIGNON blocks"),
            first.line,
            plural(unread, "was", "were"),
            them = plural(unread, "it", "them"),
        );
    }
    if script.blocks.is_empty() && script.lobby.is_empty() {
        let _ = writeln!(
            body,
            "No SIGNON line was found, so nothing was done. Every message to the judge starts \
             with one, e.g. `SIGNON france@mygame yourpassword`.\n"
        );
    }
    if (script.blocks.is_empty() && script.lobby.is_empty()) || script.help || wants_help(script) {
        body.push_str(HELP);
    }

    unread_notes(inbound, closing, &mut body);

    if unavailable > 0 && changed_games.is_empty() {
        // The judge could not reach a game and nothing was done: the mail server keeps the
        // message and delivers it again; the player hears only if that never works.
        return IngestOutcome {
            disposition: Disposition::Retry { reason: "a game's files could not be reached just now".into() },
            mails: Vec::new(),
            owed: None,
        };
    }
    let disposition = if !changed_games.is_empty() {
        Disposition::Applied { games: changed_games }
    } else if !games.is_empty() {
        Disposition::SignedOn { games }
    } else {
        Disposition::Unplaced
    };
    if let Some(reply) = reply_to(inbound, body) {
        mails.insert(0, reply);
    }
    hide_secrets(script, &mut mails);
    IngestOutcome { disposition, mails, owed: None }
}

/// One line for each kind of text not read: the earlier message below a reply header,
/// quoted lines, and a signature or closing after the orders.
fn unread_notes(inbound: &Inbound, closing: usize, body: &mut String) {
    let mut notes = Vec::new();
    if let Some(line) = inbound.earlier_message {
        notes.push(format!("the earlier message quoted from line {line} on"));
    }
    if inbound.quoted > 0 {
        notes.push(format!("{} (starting with >)", count(inbound.quoted, "quoted line", "quoted lines")));
    }
    let after = inbound.signature + closing;
    if after > 0 {
        notes.push(format!("{} after your orders (a signature or closing)", count(after, "line", "lines")));
    }
    if !notes.is_empty() {
        let _ = writeln!(body, "Not read: {}.", notes.join("; "));
    }
}

/// The passwords a message gave (in SIGNON lines and `password` commands): never echoed.
/// Every one of them is replaced in every mail it caused, subject and body.
fn hide_secrets(script: &Script, mails: &mut [OutgoingMail]) {
    const HIDDEN: &str = "********";
    let mut secrets: Vec<&str> = script.lobby.iter().filter_map(|item| item.secret()).collect();
    for block in &script.blocks {
        if let Ok(signon) = &block.signon {
            secrets.push(&signon.password);
        }
        for item in &block.items {
            if let Item::Password { new, .. } = item {
                secrets.push(new);
            }
        }
    }
    // Very short secrets would hide ordinary words; no password the judge sets is that short.
    secrets.retain(|s| s.chars().count() >= 4);
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    for mail in mails {
        for secret in &secrets {
            if mail.body.contains(secret) {
                mail.body = mail.body.replace(secret, HIDDEN);
            }
            if mail.subject.contains(secret) {
                mail.subject = mail.subject.replace(secret, HIDDEN);
            }
        }
    }
}

/// Where the closing of a message begins: a signature without `-- ` ("Sent from my
/// iPhone"), a closing line ("Thanks,", "Best regards") or a legal disclaimer, with
/// nothing after it that looks like an order or a command. Its lines are not read
/// (counted in the reply instead of listed as problems). `lines.len()` when there is none,
/// or when it would fall inside a press message (press keeps its text whole).
pub fn closing_start(lines: &[BodyLine]) -> usize {
    let Some(start) = lines.iter().position(|l| is_closing_line(&l.text)) else { return lines.len() };
    let start = (start..lines.len())
        .find(|&i| is_closing_line(&lines[i].text) && !lines[i..].iter().any(|l| looks_like_order(&l.text)))
        .unwrap_or(lines.len());
    if start == lines.len() {
        return start;
    }
    let mut in_press = false;
    for line in &lines[..start] {
        let first = line.text.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        match first.as_str() {
            "press" | "broadcast" => in_press = true,
            "endpress" | "signon" | "signoff" => in_press = false,
            _ => {}
        }
    }
    if in_press {
        lines.len()
    } else {
        start
    }
}

/// A line that opens a closing: a farewell, a client's "sent from" line, a disclaimer.
fn is_closing_line(text: &str) -> bool {
    const FAREWELLS: &[&str] = &[
        "thanks",
        "thank you",
        "thanks a lot",
        "many thanks",
        "thx",
        "cheers",
        "regards",
        "best",
        "best regards",
        "kind regards",
        "warm regards",
        "best wishes",
        "all the best",
        "yours",
        "yours truly",
        "sincerely",
        "take care",
        "bye",
        "ciao",
        "merci",
        "cordialement",
        "bien à vous",
        "amitiés",
        "bises",
        "grüße",
        "viele grüße",
        "liebe grüße",
        "mfg",
        "saludos",
        "un saludo",
        "gracias",
        "saluti",
        "groeten",
        "met vriendelijke groet",
    ];
    const SENT_FROM: &[&str] = &[
        "sent from ",
        "sent with ",
        "sent via ",
        "get outlook for",
        "envoyé de mon",
        "envoyé depuis",
        "von meinem",
        "enviado desde",
        "inviato da",
        "verzonden vanaf",
    ];
    const DISCLAIMER: &[&str] =
        &["confidential", "intended recipient", "intended solely", "disclaimer", "privileged", "legally protected"];
    let lower = text.trim().to_lowercase();
    let bare = lower.trim_end_matches([',', '.', '!', ' ', '-']);
    FAREWELLS.contains(&bare)
        || SENT_FROM.iter().any(|p| lower.starts_with(p))
        || DISCLAIMER.iter().any(|w| lower.contains(w))
}

/// Whether a line looks like an order or a command rather than a name or prose: it
/// starts with a unit (`A`, `F`, `Army`, `Fleet`), a board or power heading, an
/// adjustment, or a command word.
fn looks_like_order(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else { return false };
    let first = first.trim_end_matches(':').to_ascii_lowercase();
    matches!(
        first.as_str(),
        "a" | "f" | "army" | "fleet" | "board" | "build" | "remove" | "disband" | "waive" | "retreat"
    ) || crate::mail::command::is_command_word(&first)
        || text.contains("->")
}

fn wants_help(script: &Script) -> bool {
    script.blocks.iter().flat_map(|b| &b.items).any(|i| matches!(i, Item::Help { .. } | Item::Malformed { .. }))
}

/// What one message may still ask for.
struct Budget {
    press: usize,
    listings: usize,
}

/// What became of a block's SIGNON.
enum Placed {
    Yes(Identity),
    No,
    /// The game's files could not be reached just now: worth retrying.
    Unavailable,
}

/// Check a block's SIGNON; the identity if it holds. Writes the verdict either way. A
/// wrong password is recorded; the one that closes the role's sign-on tells its master.
fn place(
    block: &Block,
    inbound: &Inbound,
    host: &mut impl GameHost,
    now: DateTime<Utc>,
    out: &mut String,
    mails: &mut Vec<OutgoingMail>,
) -> Placed {
    let signon = match &block.signon {
        Ok(s) => s,
        Err(form) => {
            let _ =
                writeln!(out, "line {}: SIGNON not understood: {form}. Nothing in this block was done.", block.line);
            return Placed::No;
        }
    };
    let shown = format!("SIGNON {}@{}", cap(&signon.who, 40), cap(&signon.game, 40));
    let record = match host.sign_on(&signon.game, &signon.who) {
        Ok(r) => r,
        Err(SignOnError::NoSuchGame) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): there is no game `{}` here. Nothing was done.",
                block.line,
                cap(&signon.game, 40)
            );
            return Placed::No;
        }
        Err(SignOnError::Unavailable) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): the judge could not open game `{}` just now; the game master is told. \
                 Nothing was done: send this again later.",
                block.line,
                cap(&signon.game, 40)
            );
            return Placed::No;
        }
        Err(SignOnError::TryLater) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): the judge could not reach game `{}` just now; the game master is told. \
                 Nothing was done.",
                block.line,
                cap(&signon.game, 40)
            );
            return Placed::Unavailable;
        }
        Err(SignOnError::NoSuchSeat { seats: powers }) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): game `{}` has no `{}`; who may sign on: {} or master. Nothing was done.",
                block.line,
                cap(&signon.game, 40),
                cap(&signon.who, 40),
                powers.join(", ")
            );
            return Placed::No;
        }
    };
    let who = &record.identity;
    let Some(hash) = record.password_hash.as_deref() else {
        // The master's own password is set by whoever keeps the judge (`mail password`).
        let from = if who.role == Role::Master { "whoever runs the judge" } else { "the game master" };
        let _ = writeln!(
            out,
            "{shown} (line {}): no password is set for {} in {} yet; {from} sends it. Nothing was done.",
            block.line, who.role, who.game
        );
        return Placed::No;
    };
    let window = Duration::minutes(LOCKOUT_WINDOW_MINUTES);
    // Counted and checked under the game's lock, so that messages delivered at once never
    // check more than the limit between them.
    let mut check = || verify_password(&signon.password, hash);
    match host.check_sign_on(who, now, now - window, LOCKOUT_FAILURES, &mut check) {
        Ok(SignOnCheck::Right) => {}
        Ok(SignOnCheck::Closed { failures }) => {
            let opens = failures[failures.len().saturating_sub(LOCKOUT_FAILURES)] + window;
            let _ = writeln!(
                out,
                "{shown} (line {}): sign-on as {} in {} is closed after {LOCKOUT_FAILURES} wrong passwords; \
                 it opens again at {}. The password was not checked and nothing was done.",
                block.line,
                who.role,
                who.game,
                format_deadline(opens, who.timezone)
            );
            return Placed::No;
        }
        Ok(SignOnCheck::Wrong { failures }) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): wrong password for {} in {}. Nothing was done. If you have lost it, ask {}.",
                block.line,
                who.role,
                who.game,
                if who.role == Role::Master { "whoever runs the judge (`mail password`)" } else { "the game master" }
            );
            if failures.len() >= LOCKOUT_FAILURES {
                let opens = failures[failures.len() - LOCKOUT_FAILURES] + window;
                let _ = writeln!(
                    out,
                    "That makes {} wrong passwords within {LOCKOUT_WINDOW_MINUTES} minutes: sign-on as {} in {} \
                     is closed until {}, and no password is checked for it until then.",
                    failures.len(),
                    who.role,
                    who.game,
                    format_deadline(opens, who.timezone)
                );
                // Failures are counted and recorded one at a time under the lock: exactly
                // one reaches the limit.
                if failures.len() == LOCKOUT_FAILURES {
                    mails.extend(lockout_notices(host, who, inbound, opens));
                }
            }
            return Placed::No;
        }
        Err(e) => {
            let _ = writeln!(out, "{shown} (line {}): {e}. Nothing was done.", block.line);
            return if e.is_try_later() { Placed::Unavailable } else { Placed::No };
        }
    }
    let _ = writeln!(out, "{shown} (line {}): signed on as {} in {}.\n", block.line, who.role, who.game);
    Placed::Yes(record.identity)
}

/// The notice to a game's master that a role's sign-on is closed until `opens`.
fn lockout_notices(host: &impl GameHost, who: &Identity, inbound: &Inbound, opens: DateTime<Utc>) -> Vec<OutgoingMail> {
    let sender = inbound.answer_to().unwrap_or("an unknown sender");
    let new_password = match &who.role {
        Role::Master => format!(
            "If you have lost your password, whoever runs the judge sets a new one with \
             `shadowjudge mail password {} master`.",
            who.game
        ),
        Role::Seat(p) => format!(
            "If the player has lost the password, whoever runs the judge sets and mails a new one \
             with `shadowjudge mail password {} {} --mail`.",
            who.game,
            p.to_lowercase()
        ),
    };
    host.contacts(&who.game)
        .into_iter()
        .filter(|c| c.role == ContactRole::Master)
        .map(|c| OutgoingMail {
            to: c.address.clone(),
            subject: header_safe(&format!("{}: sign-on as {} closed", who.game, who.role), 120),
            body: format!(
                "{LOCKOUT_FAILURES} messages signed on as {} in {} with a wrong password within \
                 {LOCKOUT_WINDOW_MINUTES} minutes, the last from {}. Sign-on as {} is closed until {}: \
                 until then no password is checked for it.\n\n\
                 {} If someone is guessing, nothing more is needed.\n",
                who.role,
                who.game,
                header_safe(sender, 254),
                who.role,
                format_deadline(opens, c.timezone),
                new_password
            ),
            in_reply_to: None,
            references: Vec::new(),
            kind: MailKind::Generated,
            attachments: Vec::new(),
        })
        .collect()
}

/// Carry out a placed block's items; whether anything was changed, and how many items
/// failed because a game could not be opened just now.
// The message-wide state (tag, budget, output) is passed apart so each stays borrowable.
#[allow(clippy::too_many_arguments)]
fn apply(
    block: &Block,
    identity: &Identity,
    tag: &str,
    host: &mut impl GameHost,
    now: DateTime<Utc>,
    budget: &mut Budget,
    out: &mut String,
    mails: &mut Vec<OutgoingMail>,
) -> (bool, usize) {
    let mut who = identity.clone();
    let mut changed = false;
    let mut failed = 0;
    let mut count = |e: &HostError| {
        if e.is_try_later() {
            failed += 1;
        }
    };
    // One change of `wait` per message: the last `wait` or `nowait` line wins, so a
    // message of many cannot write many journal entries.
    let last_wait = block.items.iter().rposition(|i| matches!(i, Item::Wait { .. }));
    for (index, item) in block.items.iter().enumerate() {
        // Every journal entry this item makes carries its tag, so that the message carried
        // out again after a crash does not do it twice: submissions and press are then
        // answered as the first time without being kept again (the host sees to it);
        // other changes are answered as done before.
        let tag = format!("{tag}.{}", index + 1);
        if matches!(
            item,
            Item::Master { .. }
                | Item::Password { .. }
                | Item::Timezone { .. }
                | Item::Player { .. }
                | Item::Resign { .. }
        ) && host.done_before(&who.game, &tag)
        {
            let line = match item {
                Item::Master { line, .. }
                | Item::Password { line, .. }
                | Item::Timezone { line, .. }
                | Item::Player { line, .. }
                | Item::Resign { line, .. } => *line,
                _ => block.line,
            };
            changed = true;
            let _ = writeln!(
                out,
                "line {line}: done when this message was first read (the judge was interrupted before it answered)."
            );
            continue;
        }
        host.carry_out(Some(tag));
        match item {
            Item::Orders(lines) => {
                let master_lines = who.role == Role::Master && host.plays_turn_lines(&who.game);
                if !matches!(who.role, Role::Seat(_)) && !master_lines {
                    let _ = writeln!(
                        out,
                        "line {}: the game master has no orders to give; not a command: {}",
                        lines[0].number,
                        quote(&lines[0].text)
                    );
                    continue;
                }
                let text: String = lines.iter().map(|l| format!("{}\n", l.text)).collect();
                match host.submit_orders(&who, &text, now) {
                    Ok(ack) => {
                        // Nothing accepted, nothing kept: the game is as it was.
                        changed |= !ack.accepted.is_empty();
                        render_ack(&who.role, &ack, lines, out);
                    }
                    Err(e) => {
                        count(&e);
                        let what = if host.plays_turn_lines(&who.game) { "Turn" } else { "Orders" };
                        let _ = writeln!(out, "{what} not taken: {e}");
                    }
                }
            }
            Item::Status { line } | Item::History { line } if budget.listings == 0 => {
                let _ =
                    writeln!(out, "line {line}: not answered: at most {MAX_LISTINGS} status or history per message.");
            }
            Item::Status { .. } => {
                budget.listings -= 1;
                write_result(out, "Status", host.status(&who).inspect_err(&mut count))
            }
            Item::History { .. } => {
                budget.listings -= 1;
                write_result(out, "History", host.history(&who).inspect_err(&mut count))
            }
            Item::Press { line, .. } if budget.press == 0 => {
                let _ = writeln!(out, "line {line}: press not sent: at most {MAX_PRESS} press messages per message.");
            }
            Item::Wait { line, wait } if Some(index) != last_wait => {
                let word = if *wait { "wait" } else { "nowait" };
                let last = match last_wait.and_then(|i| block.items.get(i)) {
                    Some(Item::Wait { line, .. }) => *line,
                    _ => *line,
                };
                let _ = writeln!(
                    out,
                    "line {line}: {word}: replaced by line {last} (only the last `wait` or `nowait` counts)."
                );
            }
            Item::Wait { line, wait } => match host.set_wait(&who, *wait, now) {
                Ok(text) => {
                    changed = true;
                    let _ = writeln!(out, "line {line}: {text}");
                }
                Err(e) => {
                    let _ = writeln!(out, "line {line}: not done: {e}");
                }
            },
            Item::Press { line, to, text, closed } => {
                if !closed {
                    let _ = writeln!(out, "line {line}: press without ENDPRESS: it runs to the end of the block.");
                }
                if text.trim().is_empty() {
                    let _ = writeln!(out, "line {line}: empty press, not sent.");
                    continue;
                }
                budget.press -= 1;
                match host.press(&who, to, text, now) {
                    Ok(delivery) => {
                        changed = true;
                        let _ = writeln!(
                            out,
                            "Press sent ({}) to {}.",
                            delivery.to_label,
                            crate::text::count(delivery.addresses.len(), "reader", "readers")
                        );
                        for address in &delivery.addresses {
                            mails.push(OutgoingMail {
                                to: address.clone(),
                                subject: header_safe(&format!("{}: press from {}", who.game, delivery.from_label), 120),
                                body: format!(
                                    "Press from {} ({}):\n\n{}",
                                    delivery.from_label, delivery.to_label, text
                                ),
                                in_reply_to: None,
                                references: Vec::new(),
                                kind: MailKind::Generated,
                                attachments: Vec::new(),
                            });
                        }
                    }
                    Err(e) => {
                        count(&e);
                        let _ = writeln!(out, "line {line}: press not sent: {e}");
                    }
                }
            }
            Item::Password { line, new } => match hash_password(new) {
                Ok(hash) => match host.set_password(&who, &hash, now) {
                    Ok(()) => {
                        changed = true;
                        let _ =
                            writeln!(out, "line {line}: password changed. Use the new one from your next message on.");
                    }
                    Err(e) => {
                        count(&e);
                        let _ = writeln!(out, "line {line}: password not changed: {e}");
                    }
                },
                Err(e) => {
                    let _ = writeln!(out, "line {line}: password not changed: {e}");
                }
            },
            Item::Timezone { line, zone } => match host.set_timezone(&who, *zone, now) {
                Ok(()) => {
                    changed = true;
                    who.timezone = Some(*zone);
                    let _ = writeln!(out, "line {line}: time zone set to {}.", zone.name());
                }
                Err(e) => {
                    count(&e);
                    let _ = writeln!(out, "line {line}: time zone not changed: {e}");
                }
            },
            Item::Pictures { line, on } => match host.set_pictures(&who, *on, now) {
                Ok(()) => {
                    changed = true;
                    let what = if *on { "with" } else { "without" };
                    let _ = writeln!(out, "line {line}: your results mails now come {what} the map pictures.");
                }
                Err(e) => {
                    let _ = writeln!(out, "line {line}: map pictures not changed: {e}");
                }
            },
            Item::Master { line, command } => {
                if who.role != Role::Master {
                    let _ = writeln!(out, "line {line}: only the game master may do that; nothing done.");
                    continue;
                }
                let done = answer_line(out, *line, host.master(&who, command, now), &mut count);
                // A preview changes nothing.
                changed |= done && *command != MasterCommand::Preview;
            }
            Item::Player { line, .. } if who.role == Role::Master => {
                let _ = writeln!(
                    out,
                    "line {line}: the game master plays no power: only powers vote or announce absences."
                );
            }
            Item::Player { line, command } => {
                changed |= answer_line(out, *line, host.player(&who, command, now), &mut count);
            }
            Item::Resign { line, seat } => {
                changed |= answer_line(out, *line, host.resign(&who, seat, now), &mut count);
            }
            Item::Help { .. } => {}
            Item::Malformed { line, text, problem } => {
                let _ = writeln!(out, "line {line}: {}: {problem}", quote(text));
            }
        }
    }
    host.carry_out(None);
    if let Some(at) = host.deadline(&who.game) {
        let _ = writeln!(out, "Deadline: {}", format_deadline(at, who.timezone));
        if at > now {
            let _ = writeln!(out, "          (in {})", format_duration(at - now));
        } else {
            // In the grace period, or the tick has not run yet: still taken until then.
            let _ =
                writeln!(out, "          (passed; what arrives before the judge processes the game is still taken)");
        }
    }
    (changed, failed)
}

/// The answer to one line that the host carries out with a sentence: the sentence, or
/// "not done" and why (counted when it may pass if tried later). Whether it was done.
fn answer_line(
    out: &mut String,
    line: usize,
    result: Result<String, HostError>,
    count: &mut impl FnMut(&HostError),
) -> bool {
    match result {
        Ok(text) => {
            let _ = writeln!(out, "line {line}: {}", text.trim_end());
            true
        }
        Err(e) => {
            count(&e);
            let _ = writeln!(out, "line {line}: not done: {e}");
            false
        }
    }
}

fn write_result(out: &mut String, title: &str, result: Result<String, crate::mail::host::HostError>) {
    match result {
        Ok(text) => {
            let _ = writeln!(out, "{title}:\n{}\n", text.trim_end());
        }
        Err(e) => {
            let _ = writeln!(out, "{title} not available: {e}");
        }
    }
}

/// The host numbers lines within the text it was given; the player numbers them within
/// the message. Translate, and quote the line itself.
fn render_ack(role: &Role, ack: &Ack, lines: &[BodyLine], out: &mut String) {
    let at = |host_line: usize| lines.get(host_line.wrapping_sub(1));
    // The words of the game: Diplomacy orders, or a small game's turn lines.
    let (head, none, complete, still) = if ack.turn_lines {
        ("Turn from", "no line taken", "Nothing is awaited now.", "Awaited now")
    } else {
        ("Orders for", "no orders understood", "Every unit has an order.", "Still without orders")
    };
    let _ = writeln!(out, "{head} {}, {}:", role, ack.phase);
    if ack.accepted.is_empty() {
        let _ = writeln!(out, "  {none}");
    }
    for order in &ack.accepted {
        if order.line == 0 {
            // What a small game's turn made happen: under the line that did it.
            let _ = writeln!(out, "            {}", order.order);
            continue;
        }
        let number = at(order.line).map(|l| l.number).unwrap_or(order.line);
        let _ = writeln!(out, "  line {number:>3}: {}", order.order);
    }
    if !ack.problems.is_empty() {
        let _ = writeln!(out, "Problems (these lines were not taken):");
        for p in ack.problems.iter().take(MAX_PROBLEMS_LISTED) {
            match at(p.line) {
                Some(l) => {
                    let _ = writeln!(out, "  line {:>3}: {}: {}", l.number, quote(&l.text), p.message);
                }
                None => {
                    let _ = writeln!(out, "  {}", p.message);
                }
            }
            if let Some(hint) = &p.hint {
                let _ = writeln!(out, "            hint: {hint}");
            }
        }
        if ack.problems.len() > MAX_PROBLEMS_LISTED {
            let _ = writeln!(
                out,
                "  ... and {} more lines not taken, not listed.",
                ack.problems.len() - MAX_PROBLEMS_LISTED
            );
        }
    }
    if ack.missing.is_empty() {
        let _ = writeln!(out, "{}", ack.complete.unwrap_or(complete));
    } else {
        let _ = writeln!(out, "{still}: {}", ack.missing.join(", "));
    }
}

/// A line of the player's, quoted in the reply. A line that looks like a mistyped sign-on
/// or password command (`signin ...`, `login ...`, `pass ...`) is cut after its second
/// word, so a password in it is never echoed.
fn quote(text: &str) -> String {
    let t = text.trim();
    let first = t.split_whitespace().next().unwrap_or("").to_lowercase();
    if ["sign", "log", "pass", "pw"].iter().any(|p| first.starts_with(p)) {
        let shown: Vec<&str> = t.split_whitespace().take(2).collect();
        return format!("`{} ...`", visible(&cap(&shown.join(" "), 100)));
    }
    format!("`{}`", visible(&cap(t, 100)))
}

/// Control characters (binary junk in a message) written as `\u{..}`, as the problem
/// messages write them, never raw into a reply.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\t' { c.escape_unicode().to_string() } else { c.to_string() })
        .collect()
}

fn copy_to_registered(registered: &str, sender: &str, who: &Identity, section: &str) -> OutgoingMail {
    OutgoingMail {
        to: registered.to_string(),
        subject: header_safe(&format!("{}: a message signed on as {}", who.game, who.role), 120),
        body: format!(
            "A message from {} signed on as {} in {} with the right password. \
             If this was not you, change your password and tell the game master.\n\n{}",
            if sender.is_empty() { "an unknown sender" } else { sender },
            who.role,
            who.game,
            section
        ),
        in_reply_to: None,
        references: Vec::new(),
        kind: MailKind::Generated,
        attachments: Vec::new(),
    }
}

/// One Maildir file, and what became of it.
#[derive(Debug)]
pub struct Polled {
    pub file: PathBuf,
    pub outcome: IngestOutcome,
}

/// Ingest every message in `dir/new`, oldest name first, and move each one taken to
/// `dir/cur` (marked seen). A message that must be retried stays in `new` for the next
/// poll. The caller sends the mails of each outcome.
///
/// Polls of one Maildir take turns: each holds `dir/.shadowjudge-poll.lock` while it
/// reads. A file another reader took meanwhile (a mail client, a poll that does not
/// lock) is skipped; a file that cannot be moved to `cur` once read is still answered,
/// and applies only once whoever reads it again (its Message-ID is claimed).
pub fn poll_maildir(
    dir: &Path,
    host: &mut impl GameHost,
    intake: &impl Intake,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> std::io::Result<Vec<Polled>> {
    use fs4::fs_std::FileExt;
    let new = dir.join("new");
    let cur = dir.join("cur");
    std::fs::create_dir_all(&cur)?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".shadowjudge-poll.lock"))?;
    FileExt::lock_exclusive(&lock)?;
    let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(&new)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.file_name())
        .filter(|n| !n.to_string_lossy().starts_with('.'))
        .collect();
    names.sort();
    let mut polled = Vec::new();
    for name in names {
        let path = new.join(&name);
        let raw = match std::fs::read(&path) {
            Ok(raw) => raw,
            // Gone (another reader took it) or unreadable now: the next poll sees it again.
            Err(_) => continue,
        };
        let outcome = ingest(&raw, host, intake, settings, now);
        let file = if outcome.must_retry() {
            path
        } else {
            let mut seen = name.to_string_lossy().into_owned();
            if !seen.contains(":2,") {
                seen.push_str(":2,S");
            }
            let target = cur.join(seen);
            // Moved already by another reader, or not movable: the answer is owed anyway.
            match std::fs::rename(&path, &target) {
                Ok(()) => target,
                Err(_) => path,
            }
        };
        polled.push(Polled { file, outcome });
    }
    drop(lock);
    Ok(polled)
}

/// The real [`Intake`]: raw messages in the store's [`Spool`](crate::store::Spool); claims
/// under `claims/`, one pair of files per message key (named by its SHA-256): `<hash>.taking`
/// while the message is carried out (it names the spooled copy, and its taker holds an
/// exclusive lock on it, which the system releases when the taker dies), then `<hash>`
/// once the message is done; the mails it owes go to [`Owed`](crate::mail::owed::Owed)
/// before that.
#[derive(Debug)]
pub struct StoreIntake {
    root: PathBuf,
    spool: crate::store::Spool,
    claims: PathBuf,
    owed: crate::mail::owed::Owed,
}

/// A claim held by this process: the locked `.taking` file.
#[derive(Debug)]
pub struct StoreClaim {
    file: std::fs::File,
    taking: PathBuf,
    done: PathBuf,
    /// The spooled copy the claim names: the first one kept of this message.
    spooled: String,
}

impl StoreIntake {
    /// Open (creating them if missing) `dir/spool`, `dir/claims` and `dir/owed`.
    pub fn open(dir: &Path) -> Result<StoreIntake, String> {
        let spool = crate::store::Spool::open(dir.join("spool")).map_err(|e| e.to_string())?;
        let claims = dir.join("claims");
        crate::store::create_private_dir(&claims).map_err(|e| e.to_string())?;
        let owed = crate::mail::owed::Owed::open(dir)?;
        Ok(StoreIntake { root: dir.to_path_buf(), spool, claims, owed })
    }

    /// The spool, for a master's replay of kept messages.
    pub fn spool(&self) -> &crate::store::Spool {
        &self.spool
    }

    /// Remove the spooled messages kept before `cutoff` (by the time in their names);
    /// how many were removed. Names that carry no time are left alone.
    pub fn prune(&self, cutoff: DateTime<Utc>) -> Result<usize, String> {
        let mut removed = 0;
        for id in self.spool.list().map_err(|e| e.to_string())? {
            let Some((stamp, _)) = id.as_str().rsplit_once('-') else { continue };
            let Ok(at) = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S%.fZ") else { continue };
            if at.and_utc() < cutoff {
                match self.spool.remove(&id) {
                    Ok(()) => removed += 1,
                    // Another tick removed it first.
                    Err(_) if !self.spool.path_of(&id).exists() => {}
                    Err(e) => return Err(e.to_string()),
                }
            }
        }
        Ok(removed)
    }

    /// The mail owed.
    pub fn owed(&self) -> &crate::mail::owed::Owed {
        &self.owed
    }

    fn sync_claims(&self) -> Result<(), String> {
        std::fs::File::open(&self.claims)
            .and_then(|d| d.sync_all())
            .map_err(|e| format!("{}: {e}", self.claims.display()))
    }

    /// Lock an open `.taking` file and look at it: `None` when the message is done
    /// (the file is removed), else the claim.
    fn hold(&self, file: std::fs::File, taking: PathBuf, wait: bool) -> Result<Option<StoreClaim>, String> {
        use fs4::fs_std::FileExt;
        let at = |e: std::io::Error| format!("{}: {e}", taking.display());
        if wait {
            FileExt::lock_exclusive(&file).map_err(at)?;
        } else if !FileExt::try_lock_exclusive(&file).map_err(at)? {
            return Ok(None);
        }
        let done = taking.with_extension("");
        if done.exists() {
            let _ = std::fs::remove_file(&taking);
            return Ok(None);
        }
        Ok(Some(StoreClaim { file, taking, done, spooled: String::new() }))
    }
}

impl Intake for StoreIntake {
    type Claim = StoreClaim;

    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, String> {
        self.spool.put(now, raw).map(|id| id.to_string()).map_err(|e| e.to_string())
    }

    fn received(&self, claim: &StoreClaim) -> Option<DateTime<Utc>> {
        crate::store::SpoolId::parse(&claim.spooled)?.kept_at()
    }

    fn limit_answers(&self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, String> {
        crate::mail::limit::Answered::admit_in(&self.root, mails, now)
    }

    fn claim(&self, key: &str, spooled: &str) -> Result<Option<StoreClaim>, String> {
        use std::io::Write;
        let name = format!("{:x}", Sha256::digest(key.as_bytes()));
        if self.claims.join(&name).exists() {
            return Ok(None);
        }
        let taking = self.claims.join(format!("{name}.taking"));
        let at = |e: std::io::Error| format!("{}: {e}", taking.display());
        let file = crate::store::open_private(&taking).map_err(at)?;
        // Waits for a live taker; a dead one's lock is gone.
        let Some(mut claim) = self.hold(file, taking.clone(), true)? else { return Ok(None) };
        // A claim a dead taker left names the copy kept when the message first came: keep
        // it, so the message counts as received then, not at its redelivery.
        let before = std::fs::read_to_string(&taking).unwrap_or_default();
        let first = crate::store::SpoolId::parse(before.trim()).filter(|id| self.spool.read(id).is_ok());
        match first {
            Some(id) => claim.spooled = id.to_string(),
            None => {
                claim.file.set_len(0).map_err(at)?;
                claim.file.write_all(spooled.as_bytes()).map_err(at)?;
                claim.file.sync_all().map_err(at)?;
                self.sync_claims()?;
                claim.spooled = spooled.to_string();
            }
        }
        Ok(Some(claim))
    }

    fn complete(
        &self,
        claim: StoreClaim,
        mails: &[OutgoingMail],
        now: DateTime<Utc>,
    ) -> Result<Option<String>, String> {
        let owed = self.owed.owe(now, mails)?;
        let done = crate::store::open_private(&claim.done).map_err(|e| format!("{}: {e}", claim.done.display()))?;
        // The claim must outlive a crash, or a redelivery would be carried out again.
        done.sync_all().map_err(|e| format!("{}: {e}", claim.done.display()))?;
        self.sync_claims()?;
        let _ = std::fs::remove_file(&claim.taking);
        drop(claim);
        Ok(owed.map(|id| id.to_string()))
    }

    fn abandoned(&self) -> Result<Vec<Abandoned<StoreClaim>>, String> {
        let entries = std::fs::read_dir(&self.claims).map_err(|e| format!("{}: {e}", self.claims.display()))?;
        let mut names: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "taking"))
            .collect();
        names.sort();
        let mut found = Vec::new();
        for taking in names {
            let Ok(file) = std::fs::OpenOptions::new().read(true).write(true).open(&taking) else { continue };
            // Skip one that a live process holds.
            let Some(claim) = self.hold(file, taking.clone(), false)? else { continue };
            let spooled = std::fs::read_to_string(&taking).map_err(|e| format!("{}: {e}", taking.display()))?;
            let raw = crate::store::SpoolId::parse(spooled.trim()).and_then(|id| self.spool.read(&id).ok());
            match raw {
                Some(raw) => found.push((StoreClaim { spooled: spooled.trim().to_string(), ..claim }, raw)),
                // Its taker died before it named the message, so before it did anything:
                // the message's redelivery takes it.
                None => {
                    let _ = std::fs::remove_file(&taking);
                }
            }
        }
        Ok(found)
    }
}
