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
//! ([`OwedResults::owed`]), and [`JudgeHost::mail_results`] mails what is owed, through
//! a sender the caller gives, and records it per address. A crash between the two only
//! delays the results to the next `mail tick`, which mails whatever is still owed.
//! Nothing here reads the clock or opens a transport.
//!
//! [`OwedResults::owed`]: crate::game::any::OwedResults::owed

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;

use crate::game::any::Lacking;
use crate::game::any::{self, Clock, Drawing, GameError, GameSession, MailingOutcome, OwedMail, PictureError};
use crate::mail::deadline::{plan_tick, tick_mails, turn_tick_mails, GameClock, TickLog};
use crate::mail::home::{HomeError, JudgeHome};
use crate::mail::host::{
    Contact, ContactRole, GameHost, HostError, Identity, MasterCommand, PlayerCommand, PressDelivery, PressTo, Receipt,
    Role, SignOnCheck, SignOnError, SignOnRecord,
};
use crate::mail::owed::Owed;
use crate::mail::password::{generate_password, hash_password};
use crate::mail::reply::{format_deadline, header_safe, Attachment, MailKind, OutgoingMail};
use crate::mail::send::{results_mails, PhaseResults, SendError};
use crate::text::{count, plural};

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

mod deliver;
mod lacking;
mod life;
mod notices;
mod serve;
mod signons;
mod tick;
pub use deliver::deliver;
pub use life::LobbySettings;
pub use serve::set_password_at;
pub use signons::SIGNONS_FILE;
pub use tick::{tick_judge, tick_judge_with};

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
    if e.is_carried_out() {
        HostError::DoneBefore
    } else if e.is_internal() {
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
        g.carry_out(self.carrying_out.clone());
        let text = any::under_way(g.as_mut())?.process(expected, now)?;
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
        let pictures_off = g.pictures().map(|p| p.pictures_off()).unwrap_or_default();
        for owed in g.owed()? {
            let drawn = g.pictures().and_then(|p| p.results_picture(owed.seq));
            let pictures = match drawn.map(|d| d.and_then(|d| attachments(&d))) {
                Some(Ok(pictures)) => pictures,
                Some(Err(e)) => {
                    // The results go out all the same, without the picture.
                    done.push(format!("{name}: results of {}: map picture not drawn: {e}", owed.step));
                    self.record_problem(name, format!("map picture of {} not drawn: {e}", owed.step));
                    Vec::new()
                }
                None => Vec::new(),
            };
            let title = &owed.title;
            let mails = Self::owed_mails(g.as_ref(), &owed, &pictures, &pictures_off);
            // The mark goes first: what cannot be marked is not sent (it could not be
            // recorded either, and would go out again).
            let to: Vec<String> = mails.iter().map(|m| m.to.clone()).collect();
            let plan = match g.begin_mailing(owed.seq, &to, now) {
                Ok(plan) => plan,
                Err(e) => {
                    done.push(format!("{name}: {title} not mailed (they go out once this is mended): {e}"));
                    break;
                }
            };
            if !plan.again.is_empty() {
                done.push(format!(
                    "{name}: {title}: a mailing to {} was cut short before it was recorded, so they may have had \
                     them; mailed once more",
                    plan.again.join(", ")
                ));
            }
            if !plan.taken_as_sent.is_empty() {
                done.push(format!(
                    "{name}: {title}: two mailings to {} were cut short before they were recorded; taken as \
                     mailed, not sent a third time",
                    plan.taken_as_sent.join(", ")
                ));
            }
            let mut outcome = MailingOutcome::default();
            let mut unnoted = None;
            let mut mails = mails.into_iter().filter(|m| !plan.taken_as_sent.contains(&m.to));
            for mail in mails.by_ref() {
                match send(&mail) {
                    Ok(()) => outcome.sent.push(mail.to),
                    Err(e) if e.is_permanent() => outcome.undeliverable.push(mail.to),
                    Err(_) => outcome.retry.push(mail.to),
                }
                // Noted after each send: cut short later, only the rest go again. What
                // cannot be noted stops the mailing; the rest stay owed.
                if let Err(e) = g.note_mailed(owed.seq, &outcome) {
                    unnoted = Some(e);
                    break;
                }
            }
            if let Some(e) = unnoted {
                outcome.retry.extend(mails.map(|m| m.to));
                done.push(format!("{name}: {title}: mailing stopped, the rest stay owed: {e}"));
            }
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
            if all > 0 || plan.taken_as_sent.is_empty() {
                done.push(line);
            }
            outcome.sent.extend(plan.taken_as_sent);
            // Recorded even when a retry changed nothing: the record clears the mark.
            if let Err(e) = g.record_mailed(owed.seq, &outcome, now) {
                done.push(format!(
                    "{name}: {title} not recorded as mailed, so they will go out once more to whoever had them: {e}"
                ));
                break;
            }
        }
        Ok(())
    }

    /// The mails of one step's owed results. Every reader gets the pictures unless they
    /// are a player who turned them off (`map off`).
    fn owed_mails(
        g: &dyn GameSession,
        owed: &OwedMail,
        pictures: &[Attachment],
        pictures_off: &[String],
    ) -> Vec<OutgoingMail> {
        let mut recipients = any::recipients(g.contacts());
        // Players who asked for fewer reports are not mailed this one.
        recipients.retain(|c| !owed.quiet.iter().any(|q| q.eq_ignore_ascii_case(&c.address)));
        if owed.only_to.is_none() {
            for a in &owed.also_to {
                if !recipients.iter().any(|c| c.address.eq_ignore_ascii_case(a)) {
                    recipients.push(Contact { role: ContactRole::Observer, address: a.clone(), timezone: None });
                }
            }
        }
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
        let mut mails = results_mails(&results, &recipients);
        for mail in &mut mails {
            if !pictures_off.iter().any(|a| a.eq_ignore_ascii_case(&mail.to)) {
                mail.attachments = pictures.to_vec();
            }
        }
        mails
    }
}

/// A picture a game drew, as mail attachments: the PNG to look at and the SVG to zoom,
/// named by the game and phase (`mygame-S1901M.png`).
fn attachments(drawing: &Drawing) -> Result<Vec<Attachment>, PictureError> {
    let file = &drawing.file;
    Ok(vec![
        Attachment { name: format!("{file}.png"), content_type: "image/png".into(), data: drawing.png()? },
        Attachment {
            name: format!("{file}.svg"),
            content_type: "image/svg+xml".into(),
            data: drawing.svg.clone().into_bytes(),
        },
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
