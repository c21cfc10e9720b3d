//! One inbound message, start to finish: keep it, read it, place it, apply it, answer it.
//!
//! The order of things is the point of this module:
//! 1. a message over the size limit is refused politely (headers only are read) and not kept;
//! 2. otherwise the raw bytes go to the spool first ([`Intake::spool`]); if that fails the
//!    outcome is [`Disposition::Retry`] and nothing else happens, so the MTA can try again;
//! 3. mail that must get no reply (auto-replies, bounces, lists, loops) stops here;
//! 4. the message is claimed by its Message-ID (or its hash): a second delivery waits for
//!    the first, and applies nothing once the first completed;
//! 5. each SIGNON block is checked (game, role, password) and only then applied, each item
//!    under a tag that its journal entries record, so that a message carried out again
//!    after a crash does nothing twice;
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

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::mail::command::{parse_script, Block, Item, Script, HELP};
use crate::mail::host::{Ack, GameHost, Identity, Role, SignOnError};
use crate::mail::inbound::{cap, parse_headers_only, parse_message, BodyLine, Inbound, Silence};
use crate::mail::password::{hash_password, verify_password};
use crate::mail::reply::{
    format_deadline, format_duration, header_safe, reply_references, reply_subject, MailKind, OutgoingMail,
};
use crate::mail::settings::MailSettings;

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
    /// At least one block signed on; these games were acted on.
    Applied { games: Vec<String> },
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
        return too_large(raw, settings);
    }
    let spooled = match intake.spool(raw, now) {
        Ok(id) => id,
        Err(reason) => {
            return IngestOutcome { disposition: Disposition::Retry { reason }, mails: Vec::new(), owed: None }
        }
    };
    let inbound = parse_message(raw);
    if let Some(silence) = inbound.silence.clone() {
        return IngestOutcome { disposition: Disposition::Silent(silence), mails: Vec::new(), owed: None };
    }
    let key = message_key(&inbound, raw);
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

/// The key a message is claimed by: its Message-ID, or the hash of the whole message.
fn message_key(inbound: &Inbound, raw: &[u8]) -> String {
    match &inbound.message_id {
        Some(id) => format!("id:{id}"),
        None => format!("sha256:{:x}", Sha256::digest(raw)),
    }
}

/// Apply a claimed message, owe its mails and complete the claim. If the mails cannot be
/// owed, the claim stays open (the message is carried out again, without doing anything
/// twice, by its redelivery or [`recover`]) and the outcome asks for a retry.
fn carry_out<I: Intake>(
    inbound: &Inbound,
    key: &str,
    claim: I::Claim,
    host: &mut impl GameHost,
    intake: &I,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> IngestOutcome {
    let script = parse_script(&inbound.lines);
    let tag = format!("{:.16x}", Sha256::digest(key.as_bytes()));
    let mut outcome = answer(inbound, &script, &tag, host, settings, now);
    outcome.mails.extend(host.take_mails());
    match intake.complete(claim, &outcome.mails, now) {
        Ok(owed) => outcome.owed = owed,
        Err(reason) => {
            outcome.disposition = Disposition::Retry { reason: format!("the answer could not be kept: {reason}") };
            outcome.mails.clear();
        }
    }
    outcome
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
        let key = message_key(&inbound, &raw);
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
    if inbound.silence.is_some() {
        return IngestOutcome { disposition, mails: Vec::new(), owed: None };
    }
    let mut body = opening(settings);
    let _ = writeln!(
        body,
        "Your message was {} KB, more than the {} KB this judge reads, so it was not read and \
         nothing was changed. Please send your orders as plain text, without attachments.",
        raw.len() / 1024,
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
    })
}

fn answer(
    inbound: &Inbound,
    script: &Script,
    tag: &str,
    host: &mut impl GameHost,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> IngestOutcome {
    let mut body = opening(settings);
    let mut mails = Vec::new();
    let mut games = Vec::new();

    if !script.stray.is_empty() && !script.blocks.is_empty() {
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
        let _ =
            writeln!(body, "{} attachment(s) ignored: write your orders in the message itself.\n", inbound.attachments);
    }

    for (index, block) in script.blocks.iter().enumerate() {
        let mut section = String::new();
        if let Some(identity) = place(block, host, &mut section) {
            let tag = format!("{tag}#{}", index + 1);
            let changed = apply(block, &identity, &tag, host, now, &mut section, &mut mails);
            if !games.contains(&identity.game) {
                games.push(identity.game.clone());
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

    if script.blocks.is_empty() {
        let _ = writeln!(
            body,
            "No SIGNON line was found, so nothing was done. Every message to the judge starts \
             with one, e.g. `SIGNON france@mygame yourpassword`.\n"
        );
    }
    if script.blocks.is_empty() || script.help || wants_help(script) {
        body.push_str(HELP);
    }

    let disposition = if games.is_empty() { Disposition::Unplaced } else { Disposition::Applied { games } };
    if let Some(reply) = reply_to(inbound, body) {
        mails.insert(0, reply);
    }
    IngestOutcome { disposition, mails, owed: None }
}

fn wants_help(script: &Script) -> bool {
    script.blocks.iter().flat_map(|b| &b.items).any(|i| matches!(i, Item::Help { .. } | Item::Malformed { .. }))
}

/// Check a block's SIGNON; the identity if it holds. Writes the verdict either way.
fn place(block: &Block, host: &impl GameHost, out: &mut String) -> Option<Identity> {
    let signon = match &block.signon {
        Ok(s) => s,
        Err(form) => {
            let _ =
                writeln!(out, "line {}: SIGNON not understood: {form}. Nothing in this block was done.", block.line);
            return None;
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
            return None;
        }
        Err(SignOnError::Unavailable) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): the judge could not open game `{}` just now; the game master is told. \
                 Nothing was done: send this again later.",
                block.line,
                cap(&signon.game, 40)
            );
            return None;
        }
        Err(SignOnError::NoSuchPower { powers }) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): game `{}` has no power `{}`; its powers are {}. Nothing was done.",
                block.line,
                cap(&signon.game, 40),
                cap(&signon.who, 40),
                powers.join(", ")
            );
            return None;
        }
    };
    let who = &record.identity;
    let Some(hash) = record.password_hash.as_deref() else {
        let _ = writeln!(
            out,
            "{shown} (line {}): no password is set for {} in {} yet; the game master sends it. Nothing was done.",
            block.line, who.role, who.game
        );
        return None;
    };
    if !verify_password(&signon.password, hash) {
        let _ = writeln!(
            out,
            "{shown} (line {}): wrong password for {} in {}. Nothing was done. If you have lost it, ask the game master.",
            block.line, who.role, who.game
        );
        return None;
    }
    let _ = writeln!(out, "{shown} (line {}): signed on as {} in {}.\n", block.line, who.role, who.game);
    Some(record.identity)
}

/// Carry out a placed block's items; whether anything was changed.
fn apply(
    block: &Block,
    identity: &Identity,
    tag: &str,
    host: &mut impl GameHost,
    now: DateTime<Utc>,
    out: &mut String,
    mails: &mut Vec<OutgoingMail>,
) -> bool {
    let mut who = identity.clone();
    let mut changed = false;
    for (index, item) in block.items.iter().enumerate() {
        // Every journal entry this item makes carries its tag, so that the message carried
        // out again after a crash does not do it twice: submissions and press are then
        // answered as the first time without being kept again (the host sees to it);
        // other changes are answered as done before.
        let tag = format!("{tag}.{}", index + 1);
        if matches!(item, Item::Master { .. } | Item::Password { .. } | Item::Timezone { .. })
            && host.done_before(&who.game, &tag)
        {
            let line = match item {
                Item::Master { line, .. } | Item::Password { line, .. } | Item::Timezone { line, .. } => *line,
                _ => block.line,
            };
            changed = true;
            let _ = writeln!(
                out,
                "line {line}: done when this message was first read (the judge was interrupted before it answered)."
            );
            continue;
        }
        crate::store::with_message(&tag, || match item {
            Item::Orders(lines) => {
                let master_lines = who.role == Role::Master && host.takes_master_lines(&who.game);
                if !matches!(who.role, Role::Power(_)) && !master_lines {
                    let _ = writeln!(
                        out,
                        "line {}: the game master has no orders to give; not a command: {}",
                        lines[0].number,
                        quote(&lines[0].text)
                    );
                    return;
                }
                let text: String = lines.iter().map(|l| format!("{}\n", l.text)).collect();
                match host.submit_orders(&who, &text, now) {
                    Ok(ack) => {
                        changed = true;
                        render_ack(&who.role, &ack, lines, out);
                    }
                    Err(e) => {
                        let _ = writeln!(out, "Orders not taken: {e}");
                    }
                }
            }
            Item::Status { .. } => write_result(out, "Status", host.status(&who)),
            Item::Wait { line, wait } => match host.set_wait(&who, *wait, now) {
                Ok(text) => {
                    changed = true;
                    let _ = writeln!(out, "line {line}: {text}");
                }
                Err(e) => {
                    let _ = writeln!(out, "line {line}: not done: {e}");
                }
            },
            Item::History { .. } => write_result(out, "History", host.history(&who)),
            Item::Press { line, to, text, closed } => {
                if !closed {
                    let _ = writeln!(out, "line {line}: press without ENDPRESS: it runs to the end of the block.");
                }
                if text.trim().is_empty() {
                    let _ = writeln!(out, "line {line}: empty press, not sent.");
                    return;
                }
                match host.press(&who, to, text, now) {
                    Ok(delivery) => {
                        changed = true;
                        let _ = writeln!(
                            out,
                            "Press sent ({}) to {} reader(s).",
                            delivery.to_label,
                            delivery.addresses.len()
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
                            });
                        }
                    }
                    Err(e) => {
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
                    let _ = writeln!(out, "line {line}: time zone not changed: {e}");
                }
            },
            Item::Master { line, command } => {
                if who.role != Role::Master {
                    let _ = writeln!(out, "line {line}: only the game master may do that; nothing done.");
                    return;
                }
                match host.master(&who, command, now) {
                    Ok(text) => {
                        changed = true;
                        let _ = writeln!(out, "line {line}: {}", text.trim_end());
                    }
                    Err(e) => {
                        let _ = writeln!(out, "line {line}: not done: {e}");
                    }
                }
            }
            Item::Help { .. } => {}
            Item::Malformed { line, text, problem } => {
                let _ = writeln!(out, "line {line}: {}: {problem}", quote(text));
            }
        });
    }
    if let Some(at) = host.deadline(&who.game) {
        let _ = writeln!(out, "Deadline: {}", format_deadline(at, who.timezone));
        if at > now {
            let _ = writeln!(out, "          (in {})", format_duration(at - now));
        }
    }
    changed
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
    let _ = writeln!(out, "Orders for {}, {}:", role, ack.phase);
    if ack.accepted.is_empty() {
        let _ = writeln!(out, "  no orders understood");
    }
    for order in &ack.accepted {
        let number = at(order.line).map(|l| l.number).unwrap_or(order.line);
        let _ = writeln!(out, "  line {number:>3}: {}", order.order);
    }
    if !ack.problems.is_empty() {
        let _ = writeln!(out, "Problems (these lines were not taken):");
        for p in &ack.problems {
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
    }
    if ack.missing.is_empty() {
        let _ = writeln!(out, "Every unit has an order.");
    } else {
        let _ = writeln!(out, "Still without orders: {}", ack.missing.join(", "));
    }
}

fn quote(text: &str) -> String {
    format!("`{}`", cap(text.trim(), 100))
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
pub fn poll_maildir(
    dir: &Path,
    host: &mut impl GameHost,
    intake: &impl Intake,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> std::io::Result<Vec<Polled>> {
    let new = dir.join("new");
    let cur = dir.join("cur");
    std::fs::create_dir_all(&cur)?;
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
            // Gone (another poller took it) or unreadable now: the next poll sees it again.
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
            std::fs::rename(&path, &target)?;
            target
        };
        polled.push(Polled { file, outcome });
    }
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
}

impl StoreIntake {
    /// Open (creating them if missing) `dir/spool`, `dir/claims` and `dir/owed`.
    pub fn open(dir: &Path) -> Result<StoreIntake, String> {
        let spool = crate::store::Spool::open(dir.join("spool")).map_err(|e| e.to_string())?;
        let claims = dir.join("claims");
        std::fs::create_dir_all(&claims).map_err(|e| format!("{}: {e}", claims.display()))?;
        let owed = crate::mail::owed::Owed::open(dir)?;
        Ok(StoreIntake { spool, claims, owed })
    }

    /// The spool, for a master's replay of kept messages.
    pub fn spool(&self) -> &crate::store::Spool {
        &self.spool
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
        Ok(Some(StoreClaim { file, taking, done }))
    }
}

impl Intake for StoreIntake {
    type Claim = StoreClaim;

    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, String> {
        self.spool.put(now, raw).map(|id| id.to_string()).map_err(|e| e.to_string())
    }

    fn claim(&self, key: &str, spooled: &str) -> Result<Option<StoreClaim>, String> {
        use std::io::Write;
        let name = format!("{:x}", Sha256::digest(key.as_bytes()));
        if self.claims.join(&name).exists() {
            return Ok(None);
        }
        let taking = self.claims.join(format!("{name}.taking"));
        let at = |e: std::io::Error| format!("{}: {e}", taking.display());
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&taking)
            .map_err(at)?;
        // Waits for a live taker; a dead one's lock is gone.
        let Some(mut claim) = self.hold(file, taking.clone(), true)? else { return Ok(None) };
        claim.file.set_len(0).map_err(at)?;
        claim.file.write_all(spooled.as_bytes()).map_err(at)?;
        claim.file.sync_all().map_err(at)?;
        self.sync_claims()?;
        Ok(Some(claim))
    }

    fn complete(
        &self,
        claim: StoreClaim,
        mails: &[OutgoingMail],
        now: DateTime<Utc>,
    ) -> Result<Option<String>, String> {
        let owed = self.owed.owe(now, mails)?;
        let done = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&claim.done)
            .map_err(|e| format!("{}: {e}", claim.done.display()))?;
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
                Some(raw) => found.push((claim, raw)),
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
