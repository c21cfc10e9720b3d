//! [`GameSession`] for a small game that waits for players ([`Lobby`]): it lists, takes
//! `join`, `leave` and `observe`, and refuses everything else until the last seat is
//! filled and the game begins.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::{json, Value};

use super::{
    usage, ByMail, Clock, Contact, GameError, GameSession, History, HistoryRow, MailingOutcome, MailingPlan, OwedMail,
    OwedResults, Play, Role, SeatChange, SeatOutcome, SeatRecord, Seats, Started, Timed,
};
use crate::game::by_mail::{self, names_master};
use crate::game::public::{PublicBoard, PublicGame};
use crate::game::seating::Listing;
use crate::game::session::turn::lobby::{JoinDone, Lobby, Seated};
use crate::store::TaskLock;

impl Lobby {
    fn waiting(&self) -> String {
        format!(
            "{} waits for players: {} of {} seats taken. Players join by mail with `join {} PASSWORD`; the game \
             begins when the last seat is filled.",
            self.settings.name,
            self.settings.seats.joined.len(),
            self.size(),
            self.settings.name
        )
    }
}

impl GameSession for Lobby {
    /// None until the last seat is filled: the game has not begun.
    fn play(&mut self) -> Option<&mut dyn Play> {
        None
    }

    fn kind(&self) -> String {
        self.settings.game.clone()
    }

    fn is_over(&self) -> bool {
        false
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn warnings(&self) -> &[String] {
        &[]
    }

    fn carry_out(&mut self, tag: Option<String>) {
        self.carrying_out = tag;
    }

    fn has_message(&self, _tag: &str) -> bool {
        false
    }

    fn status_text(&self) -> String {
        let mut text = format!("{}\n", self.waiting());
        text.push_str(&format!("Dice commitment (sha256 of the secret seed): {}\n", self.commitment));
        for a in &self.settings.seats.joined {
            text.push_str(&format!("  joined: {}\n", a.email));
        }
        text
    }

    fn status_json(&self) -> Value {
        json!({
            "name": self.settings.name,
            "game": self.settings.game,
            "open": true,
            "seats": self.size(),
            "joined": self.settings.seats.joined.iter().map(|a| a.email.clone()).collect::<Vec<_>>(),
            "commitment": self.commitment,
        })
    }

    fn history(&self) -> Result<History, GameError> {
        let rows: Vec<HistoryRow> = Vec::new();
        Ok(History { step_key: "step", rows })
    }

    fn name(&self) -> String {
        self.settings.name.clone()
    }

    fn public(&self) -> PublicGame {
        PublicGame {
            name: self.settings.name.clone(),
            kind: self.settings.game.clone(),
            step: "waiting for players".into(),
            deadline: None,
            over: None,
            seats: Vec::new(),
            names_secret: false,
            board: PublicBoard::Text(self.waiting()),
            steps: Vec::new(),
            press: Vec::new(),
        }
    }

    fn seats(&mut self) -> Option<&mut dyn Seats> {
        Some(self)
    }
}

impl ByMail for Lobby {
    fn seat(&self, who: &str) -> Result<SeatRecord, Vec<String>> {
        if names_master(who) {
            return Ok(by_mail::master_seat(&self.settings.master));
        }
        let s = &self.settings;
        by_mail::observer_seat(&s.observers, &s.observer_passwords, who)
            .filter(|_| who.contains('@'))
            .ok_or_else(Vec::new)
    }

    fn offers(&self) -> crate::games::Offers {
        super::offers_of(Some(&self.settings.game))
    }

    fn status_for(&self, _role: &Role, _zone: Option<Tz>, _now: DateTime<Utc>) -> String {
        self.status_text()
    }

    fn recent_history(&self, _role: &Role) -> Result<String, GameError> {
        Ok(self.status_text())
    }

    fn contacts(&self) -> Vec<Contact> {
        by_mail::contacts(std::iter::empty(), &self.settings.observers, &self.settings.master)
    }

    /// The master's and the observers' passwords and time zones while the game waits for
    /// players (a player who joined changes theirs by joining again).
    fn set_particulars(
        &mut self,
        role: &Role,
        password_hash: Option<&str>,
        zone: Option<&str>,
        _now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let rejoin = usage(format!(
            "a player who joined {name} changes their password by joining again: `join {name} PASSWORD`",
            name = self.settings.name
        ));
        self.update_settings(|s| {
            super::set_role_particulars(
                role,
                &mut s.master,
                &mut s.observer_passwords,
                move |_: &str| Err(rejoin),
                password_hash,
                zone,
            )
        })
    }
}

impl Timed for Lobby {
    fn deadline(&self) -> Option<DateTime<Utc>> {
        None
    }

    fn clock(&self) -> Option<Clock> {
        None
    }

    fn keep_glance(&self, _clock: Option<&Clock>) {}
}

impl OwedResults for Lobby {
    fn begin_mailing(&mut self, _seq: u64, _to: &[String], _now: DateTime<Utc>) -> Result<MailingPlan, GameError> {
        // Nothing is owed before the game begins (`owed` is empty).
        Err(usage(format!("{} owes no results: it waits for players", self.settings.name)))
    }

    fn owed(&self) -> Result<Vec<OwedMail>, GameError> {
        Ok(Vec::new())
    }

    fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError> {
        Ok(self.dir.lock_task(crate::game::session::MAILING_TASK, wait)?)
    }

    fn note_mailed(&mut self, _seq: u64, _outcome: &MailingOutcome) -> Result<(), GameError> {
        Ok(())
    }

    fn record_mailed(&mut self, _seq: u64, _outcome: &MailingOutcome, _now: DateTime<Utc>) -> Result<(), GameError> {
        Ok(())
    }
}

impl Seats for Lobby {
    fn listing(&self) -> Listing {
        Listing {
            name: self.settings.name.clone(),
            kind: self.settings.game.clone(),
            step: String::new(),
            deadline: None,
            over: false,
            result: None,
            open: Some((self.settings.seats.joined.len(), self.size())),
            vacant: Vec::new(),
            seats: Vec::new(),
            notes: vec![format!("Dice commitment (sha256 of the secret seed): {}", self.commitment)],
            powers: Vec::new(),
        }
    }

    fn change_seats(&mut self, change: &SeatChange<'_>, now: DateTime<Utc>) -> Result<SeatOutcome, GameError> {
        match change {
            SeatChange::Join { email, password_hash, prefer, .. } => {
                if !prefer.is_empty() {
                    let title =
                        crate::games::kind(&self.settings.game).map_or(self.settings.game.as_str(), |k| k.title);
                    return Err(usage(format!(
                        "{} is a game of {title}: its seats have no powers to prefer; write `join {} PASSWORD`",
                        self.settings.name, self.settings.name
                    )));
                }
                Ok(match self.join(email, password_hash, now)? {
                    JoinDone::Waiting { again, seats_left } => {
                        SeatOutcome::Joined { again, seats_left, started: None, prefer: Vec::new() }
                    }
                    JoinDone::Began { again, seated, game } => SeatOutcome::Joined {
                        again,
                        seats_left: 0,
                        prefer: Vec::new(),
                        started: Some(started(&game, seated)),
                    },
                })
            }
            SeatChange::Leave { email } => Ok(SeatOutcome::Left { seats_left: self.leave(email)? }),
            SeatChange::Observe { email, password_hash, step } => {
                Ok(SeatOutcome::Observing(self.observe(email, *password_hash, *step)?))
            }
            SeatChange::Resign { .. } | SeatChange::Takeover { .. } | SeatChange::Approve { .. } => {
                Err(usage(format!(
                    "{} has not begun: a player who joined leaves with `leave {} PASSWORD`",
                    self.settings.name, self.settings.name
                )))
            }
        }
    }

    fn joined_hash(&self, email: &str) -> Option<String> {
        Lobby::joined_hash(self, email)
    }
}

/// The seats of a small game under way as `list NAME` shows them.
pub(super) fn seat_lines(g: &crate::game::session::turn::OpenTurnGame) -> (Vec<String>, Vec<String>) {
    let mut lines = Vec::new();
    let mut vacant = Vec::new();
    for p in &g.settings.players {
        if g.is_vacant(&p.name) {
            vacant.push(p.name.clone());
            lines.push(format!("{:<12} vacant", p.name));
        } else {
            lines.push(format!("{:<12} played", p.name));
        }
    }
    (lines, vacant)
}

/// A change of who plays or watches a small game under way.
/// What the start mails say of a small game that `seated` began: the seats, the first
/// deadline, the first lines of whoever plays first.
fn started(game: &crate::game::session::turn::OpenTurnGame, seated: Seated) -> Started {
    let awaiting = game.game.awaiting();
    let examples = (0..seated.seats.len())
        .map(|i| {
            let lines = game.game.candidate_lines(crate::turn::Seat::Player(i));
            match lines.first() {
                Some(first) if awaiting.players.contains(&i) => first.trim().to_string(),
                _ => String::new(),
            }
        })
        .collect();
    Started {
        powers: seated.seats,
        deadline: seated.deadline,
        examples,
        commitment: seated.commitment,
        turn_lines: true,
        seed: None,
    }
}

pub(super) fn change_seats(
    g: &mut crate::game::session::turn::OpenTurnGame,
    change: &SeatChange<'_>,
    now: DateTime<Utc>,
) -> Result<SeatOutcome, GameError> {
    let name = g.settings.name.clone();
    match change {
        // The join that began the game, carried out again after an interruption: answered
        // as it was, and the start's mails sent (they may not have left).
        SeatChange::Join { .. } if g.seated_by_this_message().is_some() => {
            let seated = g.seated_by_this_message().expect("checked above");
            Ok(SeatOutcome::Joined {
                again: false,
                seats_left: 0,
                prefer: Vec::new(),
                started: Some(started(g, seated)),
            })
        }
        SeatChange::Join { .. } => Err(usage(format!(
            "{name} has begun and has no open seats; a vacant seat is asked for with `takeover SEAT@{name} PASSWORD`"
        ))),
        SeatChange::Leave { .. } => Err(usage(format!(
            "{name} has begun: a player leaves a game under way with `resign` and their seat's name"
        ))),
        SeatChange::Observe { email, password_hash, step } => {
            Ok(SeatOutcome::Observing(g.observe(email, *password_hash, *step, now)?))
        }
        SeatChange::Resign { seat } => {
            let (seat, email) = g.resign(seat, now)?;
            Ok(SeatOutcome::Resigned { seat, email, over: None })
        }
        SeatChange::Takeover { seat, email, password_hash, .. } => {
            let (seat, at_once) = g.ask_takeover(seat, email, password_hash, now)?;
            Ok(if at_once {
                SeatOutcome::TakenOver { seat, email: email.to_string(), over: None }
            } else {
                SeatOutcome::Asked { seat }
            })
        }
        SeatChange::Approve { seat } => {
            let (seat, email) = g.approve(seat, now)?;
            Ok(SeatOutcome::TakenOver { seat, email, over: None })
        }
    }
}
