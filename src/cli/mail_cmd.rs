//! The mail commands: `mail ingest` (an MTA pipe), `mail poll` (a Maildir), `mail tick`
//! (cron) and `mail password` (the game master hands out passwords).
//!
//! Every one works on a judge directory (`--judge DIR` or `SHADOWJUDGE_HOME`; the layout
//! is in [`crate::mail::home`]). `mail ingest` is written for the MTA: once a message is
//! in the spool it exits 0 whatever happens next (an internal error is logged to stderr,
//! the message stays in the spool), and it exits 75 (EX_TEMPFAIL, "try again later") when
//! the message could not be kept, or changed nothing because a game could not be opened,
//! so no mail is lost and none is bounced by a bug. What went wrong is also written to
//! `judge.log`, since an MTA pipe shows its output to no one.

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use clap::Subcommand;

use super::{now, CliError};
use crate::host::{deliver, set_password_at, tick_judge_with, JudgeHost};
use crate::mail::error::MailError;
use crate::mail::home::{JudgeHome, HOME_VAR};
use crate::mail::host::Role;
use crate::mail::ingest::{Intake, StoreClaim, StoreIntake, EX_TEMPFAIL};
use crate::mail::owed::Owed;
use crate::mail::password::{generate_password, hash_password};
use crate::mail::reply::{MailKind, OutgoingMail};
use crate::mail::send::{Mailer, SendError};
use crate::mail::{ingest, poll_maildir, IngestOutcome};
use crate::store::SpoolId;
use crate::text::count;

#[derive(clap::Args, Debug)]
pub struct MailArgs {
    /// The judge directory (judge.toml, games/, spool/, outbox/); default: $SHADOWJUDGE_HOME.
    #[arg(long, global = true, value_name = "DIR")]
    judge: Option<PathBuf>,
    #[command(subcommand)]
    command: MailCommand,
}

#[derive(Subcommand, Debug)]
enum MailCommand {
    /// Take one message on standard input, for an MTA pipe. Exits 0 once the message is
    /// kept, 75 (try again later) when it cannot be kept.
    Ingest,
    /// Take every message in a Maildir's new/ and move it to cur/.
    Poll {
        /// The Maildir (with new/ and cur/).
        #[arg(long, value_name = "DIR")]
        maildir: PathBuf,
    },
    /// Run from cron every few minutes: reminders, late notices, processing at the
    /// deadline; an outage holds the game and tells its master. Safe to run twice.
    Tick,
    /// Give a power, a player, an observer or the master a new password: printed, or mailed
    /// with --mail.
    Password {
        /// The game's name (its directory under JUDGE/games).
        game: String,
        /// A power (`france`, `fra`, `f`...), a small game's player (`ann`), an observer's
        /// address, or `master`.
        who: String,
        /// Mail the password to the address on file instead of printing it.
        #[arg(long)]
        mail: bool,
    },
}

pub fn run(a: MailArgs) -> Result<ExitCode, CliError> {
    let root = judge_dir(a.judge)?;
    match a.command {
        MailCommand::Ingest => Ok(ingest_stdin(&root)),
        MailCommand::Poll { maildir } => poll(&root, &maildir),
        MailCommand::Tick => tick(&root),
        MailCommand::Password { game, who, mail } => password(&root, &game, &who, mail),
    }
}

pub(crate) fn judge_dir(given: Option<PathBuf>) -> Result<PathBuf, CliError> {
    given.or_else(|| std::env::var_os(HOME_VAR).map(PathBuf::from)).ok_or_else(|| {
        CliError::Usage(format!(
            "no judge directory: give --judge DIR or set {HOME_VAR} (see README, Playing by email)"
        ))
    })
}

/// The host for mail from players: it may create games for the masters judge.toml names.
fn lobby_host(home: &JudgeHome) -> JudgeHost {
    JudgeHost::new(home.games_dir()).with_lobby(crate::host::LobbySettings {
        masters: home.config.masters.clone(),
        deadlines: Some(home.config.deadlines.clone()),
    })
}

fn open_home(root: &Path) -> Result<JudgeHome, CliError> {
    JudgeHome::open(root).map_err(|e| CliError::Io(e.to_string()))
}

/// Send one mail through the judge's transport; a failure is logged here and returned.
fn send_one(mailer: &mut Mailer<'_>, mail: &OutgoingMail) -> Result<(), SendError> {
    mailer.send(mail).inspect_err(|e| eprintln!("error: mail to {} not sent: {e}", mail.to))
}

/// Owe `mails` (one durable batch) and add the batch to `batches`; if they cannot be
/// kept, say so (they are sent once, now, all the same).
fn owe(home: &JudgeHome, owed: &Owed, mails: &[OutgoingMail], batches: &mut Vec<SpoolId>, now: DateTime<Utc>) {
    match owed.owe(now, mails) {
        Ok(id) => batches.extend(id),
        Err(e) => {
            let what = count(mails.len(), "mail", "mails");
            eprintln!("shadowjudge: {what} could not be kept to send later: {e}");
            home.log(now, &format!("{what} could not be kept to send later: {e}"));
            let mut mailer = Mailer::new(&home.config.mail, now);
            for m in mails {
                let _ = send_one(&mut mailer, m);
            }
        }
    }
}

/// Send the results owed in the games `host` adjudicated and the owed batches named
/// (see [`deliver`]); the lines say what was done.
fn deliver_now(
    home: &JudgeHome,
    host: &JudgeHost,
    owed: &Owed,
    batches: &[SpoolId],
    now: DateTime<Utc>,
) -> Vec<String> {
    let mut mailer = Mailer::new(&home.config.mail, now);
    deliver(host, owed, Some(batches), now, &mut |m| send_one(&mut mailer, m))
}

/// The problems met with games while serving (damaged or unreadable files): said on
/// standard error, appended to `judge.log`, and returned as notices for the games'
/// masters. How many there were.
fn report_problems(home: &JudgeHome, host: &JudgeHost, now: DateTime<Utc>, mails: &mut Vec<OutgoingMail>) -> usize {
    let problems = host.take_problems();
    for p in &problems {
        let game = if p.game.is_empty() { "judge".to_string() } else { format!("game {}", p.game) };
        eprintln!("shadowjudge: {game}: {}", p.cause);
        home.log(now, &format!("{game}: {}", p.cause));
    }
    mails.extend(host.problem_notices(&problems));
    problems.len()
}

/// An intake that remembers whether the message reached the spool, so a failure after
/// that point is known to lose nothing.
struct Tracked<'a> {
    inner: &'a StoreIntake,
    spooled: AtomicBool,
}

impl Intake for Tracked<'_> {
    type Claim = StoreClaim;

    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, MailError> {
        let id = Intake::spool(self.inner, raw, now)?;
        self.spooled.store(true, Ordering::SeqCst);
        Ok(id)
    }

    fn claim(&self, key: &str, spooled: &str) -> Result<Option<StoreClaim>, MailError> {
        self.inner.claim(key, spooled)
    }

    fn limit_answers(&self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, MailError> {
        self.inner.limit_answers(mails, now)
    }

    fn complete(
        &self,
        claim: StoreClaim,
        mails: &[OutgoingMail],
        now: DateTime<Utc>,
    ) -> Result<Option<String>, MailError> {
        self.inner.complete(claim, mails, now)
    }

    fn give_back(&self, claim: StoreClaim) -> Result<(), MailError> {
        self.inner.give_back(claim)
    }

    fn received(&self, claim: &StoreClaim) -> Option<DateTime<Utc>> {
        self.inner.received(claim)
    }

    fn abandoned(&self) -> Result<Vec<ingest::Abandoned<StoreClaim>>, MailError> {
        self.inner.abandoned()
    }
}

fn ingest_stdin(root: &Path) -> ExitCode {
    let retry = |why: String| {
        let line = format!("mail ingest: {why}; the message was not kept, deliver it again later");
        eprintln!("shadowjudge {line}");
        // The judge directory may be all that works: its log is where the keeper looks.
        JudgeHome::log_at(root, now(), &line);
        ExitCode::from(EX_TEMPFAIL as u8)
    };
    // A judge directory that cannot be used (a bad judge.toml) takes nothing: the mail
    // server keeps the message and delivers it again once the keeper has mended it.
    let home = match JudgeHome::open(root) {
        Ok(h) => h,
        Err(e) => return retry(e.to_string()),
    };
    // Read no more than one byte past the limit: enough to know the message is too large.
    let limit = home.config.mail.max_message_bytes;
    let mut raw = Vec::new();
    let mut stdin = std::io::stdin().lock();
    if let Err(e) = (&mut stdin).take(limit as u64 + 1).read_to_end(&mut raw) {
        return retry(format!("reading standard input: {e}"));
    }
    // A message too large is not kept, but its true size is what the log says: the rest
    // is read (the mail server expects it taken) and counted.
    let mut size = raw.len() as u64;
    if raw.len() > limit {
        match std::io::copy(&mut stdin, &mut std::io::sink()) {
            Ok(rest) => size += rest,
            Err(e) => return retry(format!("reading standard input: {e}")),
        }
    }
    drop(stdin);
    let store = match home.intake() {
        Ok(i) => i,
        Err(e) => return retry(e.to_string()),
    };
    let intake = Tracked { inner: &store, spooled: AtomicBool::new(false) };
    let now = now();
    let mut host = lobby_host(&home);
    let outcome: std::thread::Result<IngestOutcome> =
        catch_unwind(AssertUnwindSafe(|| ingest(&raw, &mut host, &intake, &home.config.mail, now)));
    let mut outcome = match outcome {
        Ok(o) => o,
        Err(_) if intake.spooled.load(Ordering::SeqCst) => {
            eprintln!("shadowjudge mail ingest: internal error after the message was kept in the spool; not retried");
            return ExitCode::SUCCESS;
        }
        Err(_) => return retry("internal error before the message was kept".into()),
    };
    if let ingest::Disposition::TooLarge { bytes } = &mut outcome.disposition {
        *bytes = usize::try_from(size).unwrap_or(usize::MAX);
    }
    let mut batches = Vec::new();
    match outcome.owed.as_deref() {
        Some(id) => batches.extend(SpoolId::parse(id)),
        None => owe(&home, store.owed(), &outcome.mails, &mut batches, now),
    }
    let mut notices = Vec::new();
    report_problems(&home, &host, now, &mut notices);
    owe(&home, store.owed(), &notices, &mut batches, now);
    let delivered = deliver_now(&home, &host, store.owed(), &batches, now);
    let summary = if delivered.is_empty() {
        outcome.disposition.to_string()
    } else {
        format!("{}; {}", outcome.disposition, delivered.join("; "))
    };
    eprintln!("shadowjudge mail ingest: {summary}");
    if outcome.must_retry() {
        // With a .forward, standard error goes nowhere anyone reads: the log keeps it.
        home.log(now, &format!("mail ingest: {summary}"));
    }
    ExitCode::from(outcome.exit_code() as u8)
}

fn poll(root: &Path, maildir: &Path) -> Result<ExitCode, CliError> {
    let home = open_home(root)?;
    let intake = home.intake().map_err(|e| CliError::Io(e.to_string()))?;
    let now = now();
    let mut host = lobby_host(&home);
    let polled = poll_maildir(maildir, &mut host, &intake, &home.config.mail, now)
        .map_err(|e| CliError::Io(format!("{}: {e}", maildir.display())))?;
    let mut batches = Vec::new();
    for p in &polled {
        println!("{}: {}", p.file.display(), p.outcome.disposition);
        match p.outcome.owed.as_deref() {
            Some(id) => batches.extend(SpoolId::parse(id)),
            None => owe(&home, intake.owed(), &p.outcome.mails, &mut batches, now),
        }
    }
    let mut notices = Vec::new();
    report_problems(&home, &host, now, &mut notices);
    owe(&home, intake.owed(), &notices, &mut batches, now);
    for line in deliver_now(&home, &host, intake.owed(), &batches, now) {
        println!("{line}");
    }
    let retry = polled.iter().filter(|p| p.outcome.must_retry()).count();
    println!("{} read, {retry} left in new/ for the next poll.", count(polled.len(), "message", "messages"));
    Ok(ExitCode::SUCCESS)
}

fn tick(root: &Path) -> Result<ExitCode, CliError> {
    let home = open_home(root)?;
    let now = now();
    let mut mailer = Mailer::new(&home.config.mail, now);
    let mut host = JudgeHost::new(home.games_dir());
    let done = tick_judge_with(&home, &mut host, now, &mut |m| send_one(&mut mailer, m))
        .map_err(|e| CliError::Io(e.to_string()))?;
    for line in &done {
        println!("{line}");
    }
    let days = home.config.mail.keep_spool_days;
    let pruned = home
        .intake()
        .map_err(|e| e.to_string())
        .and_then(|i| i.prune(now - chrono::Duration::days(days.into())).map_err(|e| e.to_string()));
    match pruned {
        Ok(0) => {}
        Ok(n) => {
            println!("spool: {} older than {} removed", count(n, "message", "messages"), count(days, "day", "days"))
        }
        Err(e) => {
            eprintln!("shadowjudge mail tick: the spool could not be pruned: {e}");
            home.log(now, &format!("mail tick: the spool could not be pruned: {e}"));
        }
    }
    let mut notices = Vec::new();
    let problems = report_problems(&home, &host, now, &mut notices);
    if !notices.is_empty() {
        let intake = home.intake().map_err(|e| CliError::Io(e.to_string()))?;
        let mut batches = Vec::new();
        owe(&home, intake.owed(), &notices, &mut batches, now);
        for line in deliver_now(&home, &host, intake.owed(), &batches, now) {
            println!("{line}");
        }
    }
    if problems > 0 {
        // Cron mails a failing job's output to its owner: the judge's keeper hears of it.
        eprintln!(
            "shadowjudge mail tick: {} could not be read; see above and judge.log",
            count(problems, "game", "games")
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn password(root: &Path, game: &str, who: &str, mail: bool) -> Result<ExitCode, CliError> {
    let home = open_home(root)?;
    let host = JudgeHost::new(home.games_dir());
    let (name, path) = host
        .game_dir(game)
        .ok_or_else(|| CliError::Usage(format!("there is no game `{game}` in {}", root.display())))?;
    let password = generate_password(10);
    let hash = hash_password(&password).map_err(|e| CliError::Io(e.to_string()))?;
    let (role, address) = set_password_at(&path, who, &hash, now()).map_err(|e| CliError::Usage(e.to_string()))?;
    let signon = match &role {
        Role::Master => format!("SIGNON master@{name} {password}"),
        Role::Seat(p) => format!("SIGNON {}@{name} {password}", p.to_ascii_lowercase()),
        Role::Observer(_) => format!("SIGNON observer@{name} {password}   (from the address that observes)"),
    };
    if !mail {
        println!("New password for {role} in {name}: {password}");
        println!("They sign on with: {signon}");
        return Ok(ExitCode::SUCCESS);
    }
    let Some(address) = address else {
        println!("New password for {role} in {name}: {password}");
        return Err(CliError::Usage(format!("{role} has no address on file, so the password was not mailed")));
    };
    // A small game's player sends turn lines, a Diplomacy power orders, the master commands.
    let (whose, what) = match &role {
        Role::Master => (
            format!("The game master's password for {name}"),
            "your commands (`process`, `extend TIME`, ...)".to_string(),
        ),
        Role::Seat(p) => {
            (format!("Your password for {name} ({p})"), format!("your {}", crate::game::any::offers(&path).words.input))
        }
        Role::Observer(_) => (format!("Your observer's password for {name}"), String::new()),
    };
    let then = if what.is_empty() {
        "Then `status`, `history`, `help`, or press (`press to all`, your text, `endpress`) if the game lets \
         observers send it."
            .to_string()
    } else {
        format!("Then {what}, one per line, or `status`, or `help`.")
    };
    let body = format!(
        "{whose} was set on the judge.\n\
         Start every message to this judge with:\n\n  {signon}\n\n\
         {then}\n\
         To choose your own password, add a line `password NEWPASSWORD`.\n"
    );
    let letter = OutgoingMail {
        to: address.clone(),
        subject: format!("{name}: your password"),
        body,
        in_reply_to: None,
        references: Vec::new(),
        kind: MailKind::Generated,
        attachments: Vec::new(),
    };
    let now = now();
    let intake = home.intake().map_err(|e| CliError::Io(e.to_string()))?;
    let mut batches = Vec::new();
    owe(&home, intake.owed(), &[letter], &mut batches, now);
    let mut mailer = Mailer::new(&home.config.mail, now);
    let sent = intake.owed().send(Some(&batches), now, &mut |m| send_one(&mut mailer, m));
    match sent {
        Ok(d) if d.sent == 1 => {
            println!("New password for {role} in {name} mailed to {address}.");
            Ok(ExitCode::SUCCESS)
        }
        Ok(d) if d.waiting == 1 => {
            println!("New password for {role} in {name}: {password}");
            println!("It could not be mailed to {address} now; `mail tick` mails it when the mail server takes it.");
            Ok(ExitCode::SUCCESS)
        }
        Ok(_) => {
            println!("New password for {role} in {name}: {password}");
            Err(CliError::Io(format!("the password was set, but the mail server refused mail to {address}")))
        }
        Err(e) => {
            println!("New password for {role} in {name}: {password}");
            Err(CliError::Io(format!("the password was set but could not be mailed to {address}: {e}")))
        }
    }
}
