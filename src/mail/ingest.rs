//! One inbound message, start to finish: keep it, read it, place it, apply it, answer it.
//!
//! The order of things is the point of this module:
//! 1. a message over the size limit is refused politely (headers only are read) and not kept;
//! 2. otherwise the raw bytes go to the spool first ([`Intake::spool`]); if that fails the
//!    outcome is [`Disposition::Retry`] and nothing else happens, so the MTA can try again;
//! 3. mail that must get no reply (auto-replies, bounces, lists, loops) stops here;
//! 4. the message is claimed by its Message-ID (or its hash) so a second delivery of the
//!    same message is applied zero times;
//! 5. each SIGNON block is checked (game, role, password) and only then applied;
//! 6. one reply goes back to the sender, with a copy to the role's registered address if
//!    the sender is someone else (a forged or new From never goes unnoticed).
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
pub trait Intake: Sync {
    /// Keep the raw message durably; the id it is kept under.
    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, String>;
    /// Claim a message key: `true` the first time it is claimed, `false` ever after.
    /// Atomic: of two concurrent claims of one key, exactly one gets `true`.
    fn claim(&self, key: &str) -> Result<bool, String>;
}

/// An [`Intake`] in memory, for tests and dry runs. `fail_spool` simulates a full disk.
#[derive(Debug, Default)]
pub struct MemoryIntake {
    pub spooled: Mutex<Vec<Vec<u8>>>,
    pub claimed: Mutex<HashSet<String>>,
    pub fail_spool: AtomicBool,
}

impl Intake for MemoryIntake {
    fn spool(&self, raw: &[u8], _now: DateTime<Utc>) -> Result<String, String> {
        if self.fail_spool.load(Ordering::SeqCst) {
            return Err("spool write failed (simulated)".into());
        }
        let mut spooled = self.spooled.lock().map_err(|_| "spool lock poisoned".to_string())?;
        spooled.push(raw.to_vec());
        Ok(format!("mem-{}", spooled.len()))
    }

    fn claim(&self, key: &str) -> Result<bool, String> {
        let mut claimed = self.claimed.lock().map_err(|_| "claim lock poisoned".to_string())?;
        Ok(claimed.insert(key.to_string()))
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
pub fn ingest(
    raw: &[u8],
    host: &mut impl GameHost,
    intake: &impl Intake,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> IngestOutcome {
    if raw.len() > settings.max_message_bytes {
        return too_large(raw, settings);
    }
    if let Err(reason) = intake.spool(raw, now) {
        return IngestOutcome { disposition: Disposition::Retry { reason }, mails: Vec::new() };
    }
    let inbound = parse_message(raw);
    if let Some(silence) = inbound.silence.clone() {
        return IngestOutcome { disposition: Disposition::Silent(silence), mails: Vec::new() };
    }
    let key = match &inbound.message_id {
        Some(id) => format!("id:{id}"),
        None => format!("sha256:{:x}", Sha256::digest(raw)),
    };
    match intake.claim(&key) {
        Ok(true) => {}
        Ok(false) => return IngestOutcome { disposition: Disposition::Duplicate { key }, mails: Vec::new() },
        Err(reason) => return IngestOutcome { disposition: Disposition::Retry { reason }, mails: Vec::new() },
    }
    let script = parse_script(&inbound.lines);
    answer(&inbound, &script, host, settings, now)
}

fn too_large(raw: &[u8], settings: &MailSettings) -> IngestOutcome {
    let inbound = parse_headers_only(raw);
    let disposition = Disposition::TooLarge { bytes: raw.len() };
    if inbound.silence.is_some() {
        return IngestOutcome { disposition, mails: Vec::new() };
    }
    let mut body = opening(settings);
    let _ = writeln!(
        body,
        "Your message was {} KB, more than the {} KB this judge reads, so it was not read and \
         nothing was changed. Please send your orders as plain text, without attachments.",
        raw.len() / 1024,
        settings.max_message_bytes / 1024
    );
    IngestOutcome { disposition, mails: reply_to(&inbound, body).into_iter().collect() }
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

    for block in &script.blocks {
        let mut section = String::new();
        if let Some(identity) = place(block, host, &mut section) {
            let changed = apply(block, &identity, host, now, &mut section, &mut mails);
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
    IngestOutcome { disposition, mails }
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
    host: &mut impl GameHost,
    now: DateTime<Utc>,
    out: &mut String,
    mails: &mut Vec<OutgoingMail>,
) -> bool {
    let mut who = identity.clone();
    let mut changed = false;
    for item in &block.items {
        match item {
            Item::Orders(lines) => {
                let master_lines = who.role == Role::Master && host.takes_master_lines(&who.game);
                if !matches!(who.role, Role::Power(_)) && !master_lines {
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
                        changed = true;
                        render_ack(&who.role, &ack, lines, out);
                    }
                    Err(e) => {
                        let _ = writeln!(out, "Orders not taken: {e}");
                    }
                }
            }
            Item::Status { .. } => write_result(out, "Status", host.status(&who)),
            Item::History { .. } => write_result(out, "History", host.history(&who)),
            Item::Press { line, to, text, closed } => {
                if !closed {
                    let _ = writeln!(out, "line {line}: press without ENDPRESS: it runs to the end of the block.");
                }
                if text.trim().is_empty() {
                    let _ = writeln!(out, "line {line}: empty press, not sent.");
                    continue;
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
                                attachments: Vec::new(),
                            });
                        }
                    }
                    Err(e) => {
                        let _ = writeln!(out, "line {line}: press not sent: {e}");
                    }
                }
            }
            Item::Password { line, new } => match hash_password(new) {
                Ok(hash) => match host.set_password(&who, &hash) {
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
            Item::Timezone { line, zone } => match host.set_timezone(&who, *zone) {
                Ok(()) => {
                    changed = true;
                    who.timezone = Some(*zone);
                    let _ = writeln!(out, "line {line}: time zone set to {}.", zone.name());
                }
                Err(e) => {
                    let _ = writeln!(out, "line {line}: time zone not changed: {e}");
                }
            },
            Item::Pictures { line, on } => match host.set_pictures(&who, *on) {
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
        }
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

/// The real [`Intake`]: raw messages in the store's [`Spool`](crate::store::Spool), and
/// claims as empty marker files created exclusively under `claims/` (one per message key,
/// named by its SHA-256), so that of two processes taking one message only one applies it.
#[derive(Debug)]
pub struct StoreIntake {
    spool: crate::store::Spool,
    claims: PathBuf,
}

impl StoreIntake {
    /// Open (creating them if missing) `dir/spool` and `dir/claims`.
    pub fn open(dir: &Path) -> Result<StoreIntake, String> {
        let spool = crate::store::Spool::open(dir.join("spool")).map_err(|e| e.to_string())?;
        let claims = dir.join("claims");
        std::fs::create_dir_all(&claims).map_err(|e| format!("{}: {e}", claims.display()))?;
        Ok(StoreIntake { spool, claims })
    }

    /// The spool, for a master's replay of kept messages.
    pub fn spool(&self) -> &crate::store::Spool {
        &self.spool
    }
}

impl Intake for StoreIntake {
    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, String> {
        self.spool.put(now, raw).map(|id| id.to_string()).map_err(|e| e.to_string())
    }

    fn claim(&self, key: &str) -> Result<bool, String> {
        let path = self.claims.join(format!("{:x}", Sha256::digest(key.as_bytes())));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => {
                // The claim must outlive a crash, or a redelivery would apply twice.
                file.sync_all().map_err(|e| format!("{}: {e}", path.display()))?;
                std::fs::File::open(&self.claims)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| format!("{}: {e}", self.claims.display()))?;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }
}
