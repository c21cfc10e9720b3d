//! [`JudgeHost`]: the mail layer's [`GameHost`] over real game directories
//! (`JUDGE/games/<name>/`), and the deadline tick over the same games.
//!
//! It is a layer of its own, above both `game` and `mail`, because it is the game side of
//! the mail layer's trait: mail keeps its promise never to open a game's files, and
//! everything here goes through [`GameSession`], whatever the game plays and whichever
//! store keeps it (the game's lock, the journal first, then the state). Each call opens
//! the game afresh, so any number of hosts, threads and processes may serve one game at
//! once: the store's lock orders the writes.
//!
//! Commands that produce mail for others (a new player's password after `replace`, the
//! tick's reminders) put it in [`JudgeHost::take_mails`]; the caller sends it with the
//! replies. Results are different: a step journals that its results are owed
//! ([`GameSession::owed`]), and [`JudgeHost::mail_results`] mails what is owed, through
//! a sender the caller gives, and records it per address. A crash between the two only
//! delays the results to the next `mail tick`, which mails whatever is still owed.
//! Nothing here reads the clock or opens a transport.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;

use crate::game::any::{self, Board, Clock, GameError, GameSession, MailingOutcome, OwedMail};
use crate::mail::deadline::{plan_tick, tick_mails, turn_tick_mails, GameClock, TickLog};
use crate::mail::home::{HomeError, JudgeHome};
use crate::mail::host::{
    Ack, Contact, ContactRole, GameHost, HostError, Identity, MasterCommand, PlayerCommand, PressDelivery, PressTo,
    Role, SignOnCheck, SignOnError, SignOnRecord,
};
use crate::mail::owed::Owed;
use crate::mail::password::{generate_password, hash_password};
use crate::mail::reply::{format_deadline, header_safe, Attachment, MailKind, OutgoingMail};
use crate::mail::send::{results_mails, PhaseResults, SendError};
use crate::text::{count, plural};
use lacking::Lacking;

pub mod site;

/// The games of one judge directory, as mail sees them.
#[derive(Debug)]
pub struct JudgeHost {
    games: PathBuf,
    mails: Vec<OutgoingMail>,
    /// Games this host adjudicated, whose results the caller should mail now.
    adjudicated: Vec<String>,
    /// The inbound message item being carried out (see [`GameHost::carry_out`]).
    carrying_out: Option<String>,
    /// The problems met while serving (damaged or unreadable files), until the caller
    /// takes them ([`JudgeHost::take_problems`]). In a cell because `GameHost`'s readers
    /// take `&self`.
    problems: RefCell<Vec<Problem>>,
    /// Who may create games by mail, and the policy they start with.
    lobby: LobbySettings,
}

mod lacking;
mod life;
pub use life::LobbySettings;

/// Hands one mail to the transport (the caller's: SMTP, sendmail, files, or a test's).
pub type Sender<'a> = dyn FnMut(&OutgoingMail) -> Result<(), SendError> + 'a;

pub use crate::mail::host::{TRY_LATER, UNAVAILABLE};

/// Whether a game error may pass by itself or by the keeper's hand without the player
/// doing anything: the operating system refused a read, write or lock.
fn is_temporary(e: &GameError) -> bool {
    matches!(e, GameError::Store(crate::store::StoreError::Io { .. }))
}

/// A failure that is the judge's, not the player's: the game's files are damaged or
/// unreadable. Players are told [`UNAVAILABLE`]; the cause goes to the log and the master.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub game: String,
    pub cause: String,
}

/// Whether a game error is the judge's (damaged or unreadable files) and whether the
/// operating system refused the files just now: what the player is told.
fn player_words(e: &GameError) -> HostError {
    if e.is_internal() {
        if is_temporary(e) {
            HostError::TryLater
        } else {
            HostError::Unavailable
        }
    } else {
        HostError::Refused(e.to_string())
    }
}

/// A game name as mail may give it: letters, digits, `-`, `_`, `.`, not starting with a
/// dot, so it can never name anything outside the games directory.
fn plausible_name(name: &str) -> bool {
    crate::mail::home::check_game_name(name).is_ok()
}

impl JudgeHost {
    /// A host for the games under `games_dir` (`JUDGE/games`).
    pub fn new(games_dir: impl Into<PathBuf>) -> JudgeHost {
        JudgeHost {
            games: games_dir.into(),
            mails: Vec::new(),
            adjudicated: Vec::new(),
            carrying_out: None,
            problems: RefCell::new(Vec::new()),
            lobby: LobbySettings::default(),
        }
    }

    /// Record an internal problem with a game (`""`: the judge's own).
    fn record_problem(&self, game: &str, cause: String) {
        self.problems.borrow_mut().push(Problem { game: game.to_string(), cause });
    }

    /// The problems recorded since the last call.
    pub fn take_problems(&self) -> Vec<Problem> {
        std::mem::take(&mut *self.problems.borrow_mut())
    }

    /// How a game error reaches a player: their own mistakes as they are, the judge's as
    /// [`UNAVAILABLE`] (the cause recorded for the master and the log).
    fn player_error(&self, game: &str, e: GameError) -> HostError {
        self.note_internal(game, &e);
        player_words(&e)
    }

    fn host_error<'a>(&'a self, game: &'a str) -> impl Fn(GameError) -> HostError + 'a {
        move |e| self.player_error(game, e)
    }

    /// A change that stands but left something to repair (a `state.json` not rewritten):
    /// the master and the log hear of it; the player's answer is the change itself.
    fn note_warnings(&self, game: &str, g: &dyn GameSession) {
        for w in g.warnings() {
            self.record_problem(game, w.clone());
        }
    }

    /// A failure of the judge's own (the game's files damaged or unreadable) goes to the
    /// master and the log, whoever met it.
    fn note_internal(&self, game: &str, e: &GameError) {
        if e.is_internal() {
            self.record_problem(game, e.to_string());
        }
    }

    /// The games this host adjudicated so far (their results are owed): what the caller
    /// passes to [`mail_results`](Self::mail_results) after a message.
    pub fn adjudicated(&self) -> &[String] {
        &self.adjudicated
    }

    /// Mails the commands so far produced for others; the caller sends them.
    pub fn take_mails(&mut self) -> Vec<OutgoingMail> {
        std::mem::take(&mut self.mails)
    }

    /// Mails to the masters of games with problems (one per game), saying what went
    /// wrong. A game whose master cannot be read gets none (the log has it).
    pub fn problem_notices(&self, problems: &[Problem]) -> Vec<OutgoingMail> {
        let mut mails: Vec<OutgoingMail> = Vec::new();
        let mut done: Vec<&str> = Vec::new();
        for p in problems {
            if done.contains(&p.game.as_str()) {
                continue;
            }
            done.push(&p.game);
            let Some((name, path)) = self.game_dir(&p.game) else { continue };
            let Ok(dir) = crate::store::GameDir::open_for_reading(&path) else { continue };
            let Ok(raw) = dir.read_settings::<toml::Table>() else { continue };
            let Some(address) = raw.get("master").and_then(|m| m.get("email")).and_then(|e| e.as_str()) else {
                continue;
            };
            let causes: Vec<&str> = problems.iter().filter(|q| q.game == p.game).map(|q| q.cause.as_str()).collect();
            mails.push(OutgoingMail {
                to: address.to_string(),
                subject: header_safe(&format!("{name}: the judge could not open the game"), 120),
                body: format!(
                    "The judge could not open {name} while serving mail; players were told only that\n\
                     the game could not be opened. What went wrong:\n\n{}\n",
                    causes.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n")
                ),
                in_reply_to: None,
                references: Vec::new(),
                kind: MailKind::Generated,
                attachments: Vec::new(),
            });
        }
        mails
    }

    /// Mails to the masters of the games where these addresses (refused for good by the
    /// mail server) play, observe or are the master: one per game, naming them. A master's
    /// own failing address gets none (the log has it).
    pub fn refusal_notices(&self, refused: &[(String, String)]) -> Vec<OutgoingMail> {
        let mut mails = Vec::new();
        if refused.is_empty() {
            return mails;
        }
        for name in self.game_names() {
            let contacts = self.contacts(&name);
            let Some(master) = contacts.iter().find(|c| c.role == ContactRole::Master) else { continue };
            let here: Vec<String> = refused
                .iter()
                .filter(|(a, _)| !a.eq_ignore_ascii_case(&master.address))
                .filter_map(|(a, why)| {
                    let c = contacts.iter().find(|c| c.address.eq_ignore_ascii_case(a))?;
                    let who = match &c.role {
                        ContactRole::Player(p) => format!("the player of {p}"),
                        ContactRole::Observer => "an observer".to_string(),
                        ContactRole::Master => "the master".to_string(),
                    };
                    Some(format!("  {a} ({who}): {why}"))
                })
                .collect();
            if here.is_empty() {
                continue;
            }
            mails.push(OutgoingMail {
                to: master.address.clone(),
                subject: header_safe(&format!("{name}: mail to a player was refused"), 120),
                body: format!(
                    "The mail server refused the judge's mail to these addresses for good, so the judge\n\
                     will not try that mail again. Check the address (`replace` gives a power to a new\n\
                     address). You are told once per address.\n\n{}\n",
                    here.join("\n")
                ),
                in_reply_to: None,
                references: Vec::new(),
                kind: MailKind::Generated,
                attachments: Vec::new(),
            });
        }
        mails
    }

    /// The names of every game (directories holding a `game.toml`), sorted. A games
    /// directory that cannot be read is recorded as a problem (see [`JudgeHost::take_problems`]).
    pub fn game_names(&self) -> Vec<String> {
        let entries = match std::fs::read_dir(&self.games) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                self.record_problem("", format!("{}: {e}", self.games.display()));
                return Vec::new();
            }
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().join("game.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| plausible_name(n))
            .collect();
        names.sort();
        names
    }

    /// A game's directory by name; an exact match first, else the one that matches
    /// without regard to case. `None` for names that cannot be games.
    pub fn game_dir(&self, name: &str) -> Option<(String, PathBuf)> {
        if !plausible_name(name) {
            return None;
        }
        let exact = self.games.join(name);
        if exact.join("game.toml").is_file() {
            return Some((name.to_string(), exact));
        }
        let found = self.game_names().into_iter().find(|n| n.eq_ignore_ascii_case(name))?;
        let path = self.games.join(&found);
        Some((found, path))
    }

    /// Note that a game owes mail now (the caller mails it after the message).
    fn owes_mail(&mut self, name: String) {
        if !self.adjudicated.contains(&name) {
            self.adjudicated.push(name);
        }
    }

    /// Open a game by name (no lock held; each change takes it).
    fn open(&self, game: &str) -> Result<(String, Box<dyn GameSession>), GameError> {
        let (name, path) =
            self.game_dir(game).ok_or_else(|| GameError::Invalid(format!("there is no game `{game}`")))?;
        let g = any::open_read_only(&path)?;
        Ok((name, g))
    }

    /// [`open`](Self::open), errors as the player sees them.
    fn read(&self, game: &str) -> Result<Box<dyn GameSession>, HostError> {
        self.open(game).map(|(_, g)| g).map_err(self.host_error(game))
    }

    /// Make a change to a game; warnings of a change that stands go to the master.
    fn change<T>(
        &self,
        game: &str,
        change: impl FnOnce(&mut dyn GameSession) -> Result<T, GameError>,
    ) -> Result<T, HostError> {
        let mut g = self.read(game)?;
        g.carry_out(self.carrying_out.clone());
        let out = change(g.as_mut()).map_err(self.host_error(game))?;
        self.note_warnings(game, g.as_ref());
        Ok(out)
    }

    /// Process the step under way now (missing input or not); its results are owed to
    /// every player, observer and the master (see [`mail_results`](Self::mail_results)).
    /// With `expected` (a phase code, or a small game's step), only if the game is still
    /// there. Returns what was done, in a line.
    pub fn process(&mut self, game: &str, expected: Option<&str>, now: DateTime<Utc>) -> Result<String, GameError> {
        let (name, mut g) = self.open(game)?;
        let text = g.process(expected, now)?;
        self.note_warnings(&name, g.as_ref());
        self.owes_mail(name);
        Ok(text)
    }

    /// Mail the results still owed in `games` (every game when `None`), oldest first, each
    /// mail through `send`, and record who had them. With `wait`, wait for another run
    /// mailing the same game to finish (then mail what it left); without, leave that game
    /// to it. One line per game where something was mailed or went wrong.
    pub fn mail_results(
        &self,
        games: Option<&[String]>,
        wait: bool,
        now: DateTime<Utc>,
        send: &mut Sender<'_>,
    ) -> Vec<String> {
        let names = games.map(<[String]>::to_vec).unwrap_or_else(|| self.game_names());
        let mut done = Vec::new();
        for name in names {
            let Some((name, path)) = self.game_dir(&name) else { continue };
            if any::glance(&path).is_some_and(|g| !g.owed) {
                continue;
            }
            if let Err(e) = self.mail_game_results(&name, &path, wait, now, send, &mut done) {
                done.push(format!("{name}: results not mailed: {e}"));
            }
        }
        done
    }

    fn mail_game_results(
        &self,
        name: &str,
        path: &Path,
        wait: bool,
        now: DateTime<Utc>,
        send: &mut Sender<'_>,
        done: &mut Vec<String>,
    ) -> Result<(), GameError> {
        // A look without any lock first: most of the time nothing is owed.
        let g = any::open_read_only(path)?;
        if g.owed()?.is_empty() {
            return Ok(());
        }
        let Some(_mailing) = g.lock_mailing(wait)? else {
            done.push(format!("{name}: results being mailed by another run; left to it"));
            return Ok(());
        };
        // Read again under the mailing lock: the other run may have mailed them.
        let mut g = any::open_read_only(path)?;
        let pictures_off = g.pictures().and_then(|p| p.board()).map(|b| b.pictures_off).unwrap_or_default();
        for owed in g.owed()? {
            let pictures = match g.pictures().and_then(|p| p.board()) {
                Some(board) => results_pictures(&board, owed.seq).unwrap_or_else(|e| {
                    // The results go out all the same, without the picture.
                    done.push(format!("{name}: results of {}: map picture not drawn: {e}", owed.step));
                    self.record_problem(name, format!("map picture of {} not drawn: {e}", owed.step));
                    Vec::new()
                }),
                None => Vec::new(),
            };
            let outcome = Self::mail_owed(g.as_ref(), &owed, &pictures, &pictures_off, send);
            let title = &owed.title;
            let all = outcome.sent.len() + outcome.retry.len() + outcome.undeliverable.len();
            let mut line = if all == 0 {
                format!("{name}: {title}: no one to mail them to")
            } else {
                format!("{name}: {title} mailed to {} of {}", outcome.sent.len(), count(all, "address", "addresses"))
            };
            if !outcome.retry.is_empty() {
                line.push_str(&format!("; to mail again at the next tick: {}", outcome.retry.join(", ")));
            }
            if !outcome.undeliverable.is_empty() {
                line.push_str(&format!("; not addresses, given up: {}", outcome.undeliverable.join(", ")));
            }
            done.push(line);
            // A retry that changed nothing need not be written again.
            let unchanged = owed.only_to.is_some() && outcome.sent.is_empty() && outcome.undeliverable.is_empty();
            if unchanged {
                continue;
            }
            if let Err(e) = g.record_mailed(owed.seq, &outcome, now) {
                done.push(format!("{name}: {title} not recorded as mailed, so they will go out again: {e}"));
                break;
            }
        }
        Ok(())
    }

    /// Mail one step's owed results; what became of each address. Every reader gets the
    /// pictures unless they are a player who turned them off (`map off`).
    fn mail_owed(
        g: &dyn GameSession,
        owed: &OwedMail,
        pictures: &[Attachment],
        pictures_off: &[String],
        send: &mut Sender<'_>,
    ) -> MailingOutcome {
        let mut recipients = any::recipients(g.contacts());
        if let Some(only) = &owed.only_to {
            recipients.retain(|c| only.iter().any(|a| a.eq_ignore_ascii_case(&c.address)));
            // Owed to an address that is no longer in the game: mailed all the same.
            for a in only {
                if !recipients.iter().any(|c| c.address.eq_ignore_ascii_case(a)) {
                    recipients.push(Contact { role: ContactRole::Observer, address: a.clone(), timezone: None });
                }
            }
        }
        let game = g.name();
        let results =
            PhaseResults { game: &game, phase: &owed.step, report: &owed.text, next_deadline: owed.next_deadline };
        let mut outcome = MailingOutcome::default();
        for mut mail in results_mails(&results, &recipients) {
            if !pictures_off.iter().any(|a| a.eq_ignore_ascii_case(&mail.to)) {
                mail.attachments = pictures.to_vec();
            }
            match send(&mail) {
                Ok(()) => outcome.sent.push(mail.to),
                Err(e) if e.is_permanent() => outcome.undeliverable.push(mail.to),
                Err(_) => outcome.retry.push(mail.to),
            }
        }
        outcome
    }

    /// One tick over every game: plan with each game's own deadline policy and its log,
    /// act (go on early, process, remind, late notice, outage notice), and record it in
    /// `logs`. The mails go to [`take_mails`](Self::take_mails); the lines returned say
    /// what was done.
    pub fn tick(&mut self, now: DateTime<Utc>, logs: &mut BTreeMap<String, TickLog>) -> Vec<String> {
        let mut done = Vec::new();
        for name in self.game_names() {
            let log = logs.entry(name.clone()).or_default();
            let path = self.games.join(&name);
            if idle_at_a_glance(&name, &path, now, log) {
                continue;
            }
            let mut g = match any::open_read_only(&path) {
                Ok(g) => g,
                Err(e) => {
                    done.push(format!("{name}: not read: {e}"));
                    self.record_problem(&name, e.to_string());
                    continue;
                }
            };
            match g.go_on_early(now) {
                Ok(Some(text)) => {
                    done.push(format!("{name}: {text}"));
                    self.note_warnings(&name, g.as_ref());
                    self.owes_mail(name.clone());
                    // The step that follows is planned from the next tick, once its
                    // results are out: no reminder goes ahead of them.
                    match g.clock() {
                        Some(c) => log.record(now, &Self::view(&name, &c), &[]),
                        None => log.last_tick = Some(now),
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e) => {
                    done.push(format!("{name}: not processed early: {e}"));
                    self.note_internal(&name, &e);
                }
            }
            let Some(clock) = g.clock() else {
                g.keep_glance(None);
                // Paused, run by hand or over: nothing to do, but the tick did look, so a
                // later deadline is not mistaken for one that passed during an outage.
                log.last_tick = Some(now);
                continue;
            };
            let view = Self::view(&name, &clock);
            let mut actions = plan_tick(now, &view, log, &clock.policy);
            if actions.iter().any(|a| matches!(a, crate::mail::deadline::TickAction::Process)) {
                match g.late_extension(&clock.step, now) {
                    Ok(Some(outcome)) => {
                        // Extended, not processed: the next ticks plan from the new deadline.
                        actions.retain(|a| !matches!(a, crate::mail::deadline::TickAction::Process));
                        done.push(format!("{name}: {}", outcome.said));
                        self.note_warnings(&name, g.as_ref());
                        self.notify(outcome);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        done.push(format!("{name}: not extended: {e}"));
                        self.note_internal(&name, &e);
                    }
                }
            }
            if actions.is_empty() {
                g.keep_glance(Some(&clock));
                log.record(now, &view, &actions);
                continue;
            }
            for action in &actions {
                use crate::mail::deadline::TickAction;
                match action {
                    // The game as this tick read it; the store checks the step again under
                    // its lock.
                    TickAction::Process => match g.process(Some(&clock.step), now) {
                        Ok(text) => {
                            done.push(format!("{name}: {text}"));
                            self.note_warnings(&name, g.as_ref());
                            self.owes_mail(name.clone());
                        }
                        Err(e) => {
                            done.push(format!("{name}: not processed: {e}"));
                            self.note_internal(&name, &e);
                        }
                    },
                    TickAction::Remind { power, .. } => done.push(format!("{name}: reminded {power}")),
                    TickAction::LateNotice { power, .. } => done.push(format!("{name}: late notice to {power}")),
                    TickAction::OutageSuspected { .. } => {
                        done.push(format!("{name}: deadline passed during an outage; held, the master was told"))
                    }
                }
            }
            let contacts = g.contacts();
            self.mails.extend(match &clock.awaited {
                Some(what) => turn_tick_mails(&name, now, &actions, &contacts, what, &clock.defaults),
                None => tick_mails(&name, now, &actions, &contacts, &clock.defaults),
            });
            log.record(now, &view, &actions);
        }
        done
    }

    /// What the tick planner sees of a game's clock.
    fn view<'a>(name: &'a str, clock: &'a Clock) -> GameClock<'a> {
        GameClock {
            game: name,
            phase: &clock.step,
            deadline: clock.deadline,
            paused: false,
            missing: &clock.missing,
            started: clock.started,
        }
    }

    /// Owe a command's notices as mails (with the message's reply); what to answer.
    fn notify(&mut self, outcome: any::Outcome) -> String {
        for notice in outcome.notices {
            for to in notice.to {
                self.mails.push(OutgoingMail {
                    to,
                    subject: header_safe(&notice.subject, 120),
                    body: notice.body.clone(),
                    in_reply_to: None,
                    references: Vec::new(),
                    kind: MailKind::Generated,
                    attachments: Vec::new(),
                });
            }
        }
        outcome.said
    }

    /// Hand a seat to a new player at `address` with a fresh password, mailed to them.
    fn replace(&mut self, game: &str, seat: &str, address: &str, now: DateTime<Utc>) -> Result<String, HostError> {
        if !address.contains('@') || address.contains(|c: char| c.is_whitespace() || c.is_control()) {
            return Err(HostError::Refused(format!("`{}` is not an email address", header_safe(address, 80))));
        }
        let password = generate_password(10);
        let hash = hash_password(&password).map_err(|e| HostError::Refused(e.to_string()))?;
        let (seat_name, game_name, old) = self.change(game, |g| {
            let old = g.seat(seat).ok().and_then(|r| r.address);
            Ok((g.replace(seat, address, &hash, now)?, g.name(), old))
        })?;
        // The player who had the seat hears of it, without the new player's address.
        let old = old.filter(|o| !o.eq_ignore_ascii_case(address));
        let old_told = old.is_some();
        if let Some(old) = old {
            self.mails.push(OutgoingMail {
                to: old,
                subject: header_safe(&format!("{game_name}: you no longer play {seat_name}"), 120),
                body: format!(
                    "The game master of {game_name} has given the seat of {seat_name} to another player.\n\
                     Your password for it no longer signs on. Thank you for playing.\n"
                ),
                in_reply_to: None,
                references: Vec::new(),
                kind: MailKind::Generated,
                attachments: Vec::new(),
            });
        }
        self.mails.push(OutgoingMail {
            to: address.to_string(),
            subject: header_safe(&format!("{game_name}: you now play {seat_name}"), 120),
            body: format!(
                "The game master of {game_name} has given you the seat of {seat_name}.\n\
                 Sign on to the judge with:\n\n  SIGNON {}@{game_name} {password}\n\n\
                 Reply with `status` after that line to see the game.\n",
                seat_name.to_ascii_lowercase()
            ),
            in_reply_to: None,
            references: Vec::new(),
            kind: MailKind::Generated,
            attachments: Vec::new(),
        });
        let told = if old_told { " The player before has been told." } else { "" };
        Ok(format!("{seat_name} is now played by {address}; a new password was mailed there.{told}"))
    }
}

/// Whether the game's glance ([`any::Glance`], kept by an earlier tick) shows that
/// nothing is due at `now`: no deadline (paused, over), or a deadline that the plan leaves
/// alone and no early processing. Then the log is kept as a full look would keep it.
/// `false` when there is no fresh glance or something may be due: open the game in full.
fn idle_at_a_glance(name: &str, path: &Path, now: DateTime<Utc>, log: &mut TickLog) -> bool {
    let Some(glance) = any::glance(path) else { return false };
    let (Some(deadline), false) = (glance.deadline, glance.over) else {
        log.last_tick = Some(now);
        return true;
    };
    if glance.early && deadline > now {
        return false;
    }
    let phase = glance.phase.code();
    // The glance does not know when the phase began: a reminder it plans sends the tick
    // to the game itself, which knows.
    let clock =
        GameClock { game: name, phase: &phase, deadline, paused: false, missing: &glance.missing, started: None };
    if !plan_tick(now, &clock, log, &glance.deadlines).is_empty() {
        return false;
    }
    log.record(now, &clock, &[]);
    true
}

/// Everything one `mail tick` does over the judge directory `home`: under the tick lock,
/// carry out the messages an interrupted run left half-done, plan and act for every game
/// ([`JudgeHost::tick`]), then [`deliver`] everything owed in any game and the judge
/// (results, replies, reminders, notices; what just happened and what earlier runs could
/// not send), and record the tick in `tick.json`. Returns what was done, line by line.
/// Running it twice does nothing twice.
pub fn tick_judge(home: &JudgeHome, now: DateTime<Utc>, send: &mut Sender<'_>) -> Result<Vec<String>, HomeError> {
    tick_judge_with(home, &mut JudgeHost::new(home.games_dir()), now, send)
}

/// [`tick_judge`] through `host`, which keeps the problems met (damaged or unreadable
/// game files) for the caller to report ([`JudgeHost::take_problems`]).
pub fn tick_judge_with(
    home: &JudgeHome,
    host: &mut JudgeHost,
    now: DateTime<Utc>,
    send: &mut Sender<'_>,
) -> Result<Vec<String>, HomeError> {
    let lock = home.lock_tick()?;
    let mut logs = lock.read()?;
    let intake = home.intake()?;
    let mut done = Vec::new();
    match crate::mail::ingest::recover(host, &intake, &home.config.mail, now) {
        Ok(outcomes) => {
            let (left, taken): (Vec<_>, Vec<_>) = outcomes.into_iter().partition(|o| o.must_retry());
            if !taken.is_empty() {
                done.push(format!(
                    "{} an interrupted run had not finished {} carried out again and answered.",
                    count(taken.len(), "message", "messages"),
                    plural(taken.len(), "was", "were")
                ));
            }
            for o in left {
                if let crate::mail::ingest::Disposition::Retry { reason } = o.disposition {
                    done.push(format!(
                        "a message an interrupted run had not finished is left for the next tick: {reason}"
                    ));
                }
            }
        }
        Err(e) => done.push(format!("messages an interrupted run had not finished not read: {e}")),
    }
    done.extend(host.tick(now, &mut logs));
    // Owe the tick's mails before anything is sent and before the log says the tick did
    // its work.
    let batch = match intake.owed().owe(now, &host.take_mails()) {
        Ok(_) => None,
        Err(e) => Some(format!("reminders and notices could not be kept to send later: {e}")),
    };
    done.extend(batch);
    done.extend(deliver(host, intake.owed(), None, now, send));
    if let Some(site) = &home.config.site {
        done.extend(refresh_site_lines(home, &site.dir));
    }
    lock.write(&logs)?;
    Ok(done)
}

/// The tick's refresh of the public site, in lines for its log.
fn refresh_site_lines(home: &JudgeHome, dir: &Path) -> Vec<String> {
    match site::refresh_site(&home.games_dir(), dir, &home.root().join(site::SITE_RECORD)) {
        Ok(run) => {
            let mut lines = run.problems;
            if !run.drawn.is_empty() {
                lines.push(format!("site: {} drawn again", count(run.drawn.len(), "game", "games")));
            }
            lines
        }
        Err(e) => vec![format!("site not written: {e}")],
    }
}

/// Send what is owed: the results owed in the games `host` adjudicated (every game when
/// `batches` is `None`), then the owed mail batches named (every one when `None`).
/// A mail refused for good marks its address failing ([`Owed`]) and, the first time, owes
/// and sends a notice to the master of every game the address plays in. One line per
/// thing done or gone wrong.
pub fn deliver(
    host: &JudgeHost,
    owed: &Owed,
    batches: Option<&[crate::store::SpoolId]>,
    now: DateTime<Utc>,
    send: &mut Sender<'_>,
) -> Vec<String> {
    let mut done = Vec::new();
    let mut refused: Vec<(String, String)> = Vec::new();
    // Every mail of this run, results and owed mail alike, for the summary line.
    let (mut sent, mut waiting, mut gone) = (0, 0, 0);
    {
        let mut noting = |m: &OutgoingMail| {
            let r = send(m).inspect_err(|e| {
                if e.is_permanent() {
                    refused.push((m.to.clone(), e.to_string()));
                }
            });
            match &r {
                Ok(()) => sent += 1,
                Err(e) if e.is_permanent() => gone += 1,
                Err(_) => waiting += 1,
            }
            r
        };
        let games = batches.map(|_| host.adjudicated());
        if games.is_none_or(|g| !g.is_empty()) {
            done.extend(host.mail_results(games, games.is_some(), now, &mut noting));
        }
    }
    let mut newly = match owed.note_refusals(&refused, now) {
        Ok(newly) => newly,
        Err(e) => {
            done.push(format!("failing addresses not recorded: {e}"));
            Vec::new()
        }
    };
    match owed.send(batches, now, send) {
        Ok(d) => {
            sent += d.sent;
            waiting += d.waiting;
            gone += d.refused.len();
            newly.extend(d.newly_failing);
        }
        Err(e) => done.push(format!("owed mail not sent: {e}")),
    }
    let notices = host.refusal_notices(&newly);
    if !notices.is_empty() {
        match owed.owe(now, &notices) {
            Ok(id) => {
                let ids: Vec<_> = id.into_iter().collect();
                match owed.send(Some(&ids), now, send) {
                    Ok(d) => {
                        done.push(format!(
                            "{} of {} of refused mail sent to game masters.",
                            d.sent,
                            count(notices.len(), "notice", "notices")
                        ));
                        sent += d.sent;
                        waiting += d.waiting;
                        gone += d.refused.len();
                    }
                    Err(e) => done.push(format!("notices of refused mail not sent: {e}")),
                }
            }
            Err(e) => done.push(format!("notices of refused mail not kept: {e}")),
        }
    }
    if sent + waiting + gone > 0 {
        done.push(format!(
            "{} sent, {waiting} to try again later, {gone} refused for good.",
            count(sent, "mail", "mails")
        ));
    }
    done
}

fn who_label(who: &Identity) -> String {
    match &who.role {
        Role::Seat(p) => p.clone(),
        Role::Master => "master".into(),
    }
}

/// The side file of a game that keeps its failed sign-ons, per role.
pub const SIGNONS_FILE: &str = "signons.json";

/// `signons.json`: the times of recent failed sign-ons, per role (`France`, `master`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FailedSignOns {
    failed: BTreeMap<String, Vec<DateTime<Utc>>>,
}

impl JudgeHost {
    fn read_failed_sign_ons(&self, game: &str, path: &Path) -> FailedSignOns {
        let read =
            crate::store::GameDir::open_for_reading(path).and_then(|d| d.read_side::<FailedSignOns>(SIGNONS_FILE));
        match read {
            Ok(found) => found.unwrap_or_default(),
            Err(e) => {
                // Damaged: the master hears of it; the record starts again.
                self.record_problem(game, e.to_string());
                FailedSignOns::default()
            }
        }
    }
}

impl GameHost for JudgeHost {
    fn game_exists(&self, game: &str) -> bool {
        self.game_dir(game).is_some()
    }

    fn check_sign_on(
        &mut self,
        who: &Identity,
        now: DateTime<Utc>,
        after: DateTime<Utc>,
        limit: usize,
        check: &mut dyn FnMut() -> bool,
    ) -> Result<SignOnCheck, HostError> {
        let (name, path) =
            self.game_dir(&who.game).ok_or_else(|| HostError::Refused(format!("no game `{}`", who.game)))?;
        let internal = |e: crate::store::StoreError| {
            let temporary = matches!(e, crate::store::StoreError::Io { .. });
            self.record_problem(&name, e.to_string());
            if temporary {
                HostError::TryLater
            } else {
                HostError::Unavailable
            }
        };
        let dir = crate::store::GameDir::open_for_reading(&path).map_err(internal)?;
        // Held from the count to the record, so no two checks of one game overlap.
        let lock = dir.lock().map_err(internal)?;
        let mut record = self.read_failed_sign_ons(&name, &path);
        let label = who_label(who);
        let in_window = |record: &FailedSignOns| -> Vec<DateTime<Utc>> {
            record.failed.get(&label).into_iter().flatten().copied().filter(|t| *t > after).collect()
        };
        let failures = in_window(&record);
        if failures.len() >= limit {
            return Ok(SignOnCheck::Closed { failures });
        }
        if check() {
            return Ok(SignOnCheck::Right);
        }
        let day_ago = now - Duration::days(1);
        for times in record.failed.values_mut() {
            times.retain(|t| *t > day_ago);
        }
        record.failed.retain(|_, times| !times.is_empty());
        let times = record.failed.entry(label.clone()).or_default();
        times.push(now);
        times.sort();
        // A day of failures is plenty to decide a lockout; never let the file grow without end.
        let excess = times.len().saturating_sub(100);
        times.drain(..excess);
        lock.write_side(SIGNONS_FILE, &record).map_err(internal)?;
        Ok(SignOnCheck::Wrong { failures: in_window(&record) })
    }

    fn sign_on(&self, game: &str, who: &str) -> Result<SignOnRecord, SignOnError> {
        let (name, path) = self.game_dir(game).ok_or(SignOnError::NoSuchGame)?;
        let g = any::open_read_only(&path).map_err(|e| {
            let temporary = is_temporary(&e);
            self.record_problem(&name, e.to_string());
            if temporary {
                SignOnError::TryLater
            } else {
                SignOnError::Unavailable
            }
        })?;
        let seat = g.seat(who).map_err(|seats| SignOnError::NoSuchSeat { seats })?;
        Ok(SignOnRecord {
            identity: Identity { game: name, role: seat.role, address: seat.address, timezone: seat.timezone },
            password_hash: seat.password_hash,
        })
    }

    fn submit_orders(&mut self, who: &Identity, text: &str, now: DateTime<Utc>) -> Result<Ack, HostError> {
        let (ack, went_on) = self.change(&who.game, |g| g.receive(&who.role, text, now))?;
        if went_on {
            self.owes_mail(who.game.clone());
        }
        Ok(ack)
    }

    fn plays_turn_lines(&self, game: &str) -> bool {
        self.game_dir(game).is_some_and(|(_, path)| any::plays_turn_lines(&path))
    }

    fn status(&self, who: &Identity) -> Result<String, HostError> {
        Ok(self.read(&who.game)?.status_for(&who.role, who.timezone))
    }

    fn history(&self, who: &Identity) -> Result<String, HostError> {
        self.read(&who.game)?.recent_history(&who.role).map_err(self.host_error(&who.game))
    }

    fn press(
        &mut self,
        who: &Identity,
        to: &PressTo,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<PressDelivery, HostError> {
        self.change(&who.game, |g| lacking::press(g)?.send(&who.role, to, text, now))
    }

    fn set_password(&mut self, who: &Identity, password_hash: &str, now: DateTime<Utc>) -> Result<(), HostError> {
        self.change(&who.game, |g| g.set_particulars(&who.role, Some(password_hash), None, now))
    }

    fn set_pictures(&mut self, who: &Identity, on: bool, now: DateTime<Utc>) -> Result<(), HostError> {
        self.change(&who.game, |g| lacking::pictures(g)?.set_pictures(&who.role, on, now))
    }

    fn set_timezone(&mut self, who: &Identity, zone: Tz, now: DateTime<Utc>) -> Result<(), HostError> {
        self.change(&who.game, |g| g.set_particulars(&who.role, None, Some(zone.name()), now))
    }

    fn master(&mut self, who: &Identity, command: &MasterCommand, now: DateTime<Utc>) -> Result<String, HostError> {
        if who.role != Role::Master {
            return Err(HostError::Refused("only the game master may do that".into()));
        }
        let game = who.game.as_str();
        match command {
            MasterCommand::Process => self.process(game, None, now).map_err(self.host_error(game)),
            MasterCommand::Extend { by } => {
                // From the deadline if it is still ahead, else from now: an extension after
                // the deadline passed (an outage) gives the players real time.
                let at = self.change(game, |g| {
                    let base = g.deadline().filter(|d| *d > now).unwrap_or(now);
                    let at = base + by.duration();
                    g.set_deadline(Some(at), now)?;
                    Ok(at)
                })?;
                Ok(format!("Deadline extended by {} to {}.", by.words(), format_deadline(at, who.timezone)))
            }
            MasterCommand::Pause => {
                self.change(game, |g| g.set_deadline(None, now))?;
                Ok("Game paused: no deadline until `resume`.".into())
            }
            MasterCommand::Resume => {
                let at = self.change(game, |g| {
                    let at = g.scheduled_deadline(now)?;
                    g.set_deadline(Some(at), now)?;
                    Ok(at)
                })?;
                Ok(format!("Game resumed. New deadline: {}.", format_deadline(at, who.timezone)))
            }
            MasterCommand::Replace { power, address } => self.replace(game, power, address, now),
            MasterCommand::RefuseAbsence { power } => {
                let outcome =
                    self.change(game, |g| lacking::votes(g, Lacking::Absences)?.refuse_absence(power, now))?;
                Ok(self.notify(outcome))
            }
            MasterCommand::Approve { power } => self.approve(game, power, now),
            MasterCommand::Preview => self.preview(game),
            MasterCommand::Early { on } => {
                let (said, went_on) = self.change(game, |g| g.set_early(*on, now))?;
                if went_on {
                    self.owes_mail(game.to_string());
                }
                Ok(said)
            }
        }
    }

    fn deadline(&self, game: &str) -> Option<DateTime<Utc>> {
        self.read(game).ok()?.deadline()
    }

    fn player(&mut self, who: &Identity, command: &PlayerCommand, now: DateTime<Utc>) -> Result<String, HostError> {
        let outcome = self.change(&who.game, |g| {
            lacking::votes(g, Lacking::Votes)?.player_command(&who.role, command, who.timezone, now)
        })?;
        Ok(self.notify(outcome))
    }

    fn set_wait(&mut self, who: &Identity, wait: bool, now: DateTime<Utc>) -> Result<String, HostError> {
        let (said, went_on) = self.change(&who.game, |g| g.set_wait(&who.role, wait, now))?;
        if went_on {
            self.owes_mail(who.game.clone());
        }
        Ok(said)
    }

    fn done_before(&self, game: &str, tag: &str) -> bool {
        self.read(game).is_ok_and(|g| g.has_message(tag))
    }

    fn carry_out(&mut self, tag: Option<String>) {
        self.carrying_out = tag;
    }

    fn take_mails(&mut self) -> Vec<OutgoingMail> {
        JudgeHost::take_mails(self)
    }

    fn contacts(&self, game: &str) -> Vec<Contact> {
        self.read(game).map(|g| g.contacts()).unwrap_or_default()
    }

    fn list_games(&self, game: Option<&str>) -> Result<String, HostError> {
        self.list_text(game)
    }

    fn lobby(
        &mut self,
        sender: &str,
        request: &crate::mail::lobby::LobbyRequest,
        now: DateTime<Utc>,
    ) -> Result<String, HostError> {
        self.lobby_request(sender, request, now)
    }

    fn joined_hash(&self, game: &str, email: &str) -> Option<String> {
        self.read(game).ok()?.seats()?.joined_hash(email)
    }

    fn resign(&mut self, who: &Identity, seat: &str, now: DateTime<Utc>) -> Result<String, HostError> {
        self.resign_seat(who, seat, now)
    }
}

/// Set a role's password in the game at `path` (the game master's `mail password`): the
/// role, and the address it has on file.
pub fn set_password_at(
    path: &Path,
    who: &str,
    password_hash: &str,
    now: DateTime<Utc>,
) -> Result<(Role, Option<String>), GameError> {
    let mut g = any::open_read_only(path)?;
    let seat = g.seat(who).map_err(|seats| {
        let word = if g.plays_turn_lines() { "player" } else { "power" };
        GameError::Invalid(format!(
            "no {word} `{}`; the {word}s are {} (or `master`)",
            header_safe(who, 40),
            seats.join(", ")
        ))
    })?;
    g.set_particulars(&seat.role, Some(password_hash), None, now)?;
    Ok((seat.role, seat.address))
}

/// The map pictures of the step at journal `seq`: the PNG to look at and the SVG to zoom,
/// named by the game and phase (`mygame-S1901M.png`).
fn results_pictures(board: &Board<'_>, seq: u64) -> Result<Vec<Attachment>, crate::diplomacy::picture::PictureError> {
    let (map, name) = (board.map, board.name);
    let scene = crate::diplomacy::picture::results_scene_at(map, name, board.entries, seq.saturating_sub(1) as usize)?;
    let geometry = crate::diplomacy::picture::geometry_for(map)?;
    let svg = crate::diplomacy::picture::draw_svg(map, &geometry, &scene)?;
    let png = crate::diplomacy::picture::png::svg_to_png(&svg, 1.0)?;
    let file = format!("{}-{}", header_safe(name, 40).replace([' ', '/', '\\'], "_"), scene.phase.code());
    Ok(vec![
        Attachment { name: format!("{file}.png"), content_type: "image/png".into(), data: png },
        Attachment { name: format!("{file}.svg"), content_type: "image/svg+xml".into(), data: svg.into_bytes() },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_names_cannot_leave_the_games_directory() {
        assert!(plausible_name("my-game_2"));
        assert!(!plausible_name("../etc"));
        assert!(!plausible_name(".hidden"));
        assert!(!plausible_name("a/b"));
    }
}
