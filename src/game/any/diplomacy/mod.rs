//! [`GameSession`] for a Diplomacy session (standard and Shadow Worlds): the core here (what
//! the game is, history, submit, adjudicate) and the powers as players name them; each
//! other part of the contract in a file of its own.

mod desk;
mod mail;
mod owed;
mod press;
mod say;
mod seats;
mod timed;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::Value;

use super::{
    parse_phase, pretty, set_role_particulars, usage, Answer, ByMail, Clock, Contact, GameError, GameSession, History,
    HistoryRow, Listing, MailingOutcome, MailingPlan, Notice, Outcome, OwedMail, OwedResults, Pictures, Play,
    PlayerCommand, Press, PressDelivery, PressTo, Receipt, Role, SeatChange, SeatOutcome, SeatRecord, Seats, Submit,
    Timed, Votes, Who,
};
use crate::diplomacy::engine::{Game, Vote};
use crate::diplomacy::map::{normalize_name, Map, PowerId};
use crate::diplomacy::report::deadline_text;
use crate::game::by_mail::{self, names_master};
use crate::game::session::diplomacy::OpenGame;
use crate::game::settings::{self, Draws, Player, PressRule, Settings};
use crate::phase::PhaseKind;
use crate::store::TaskLock;
use crate::text::count;

impl GameSession for OpenGame {
    fn play(&mut self) -> Option<&mut dyn Play> {
        Some(self)
    }

    fn kind(&self) -> String {
        self.game.settings.variant.name().to_string()
    }

    // -----------------------------------------------------------------------------------
    // By mail
    fn name(&self) -> String {
        self.game.settings.name.clone()
    }

    fn is_over(&self) -> bool {
        self.game.state.end.is_some()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn carry_out(&mut self, tag: Option<String>) {
        OpenGame::carry_out(self, tag);
    }

    fn has_message(&self, tag: &str) -> bool {
        OpenGame::has_message(self, tag)
    }

    fn status_text(&self) -> String {
        crate::game::status::status_text(&self.game, None, None)
    }

    fn status_json(&self) -> Value {
        crate::game::status::status_json(&self.game)
    }

    fn history(&self) -> Result<History, GameError> {
        use crate::game::journal::Entry;
        let records = self.dir.journal::<Entry>()?;
        let mut rows = Vec::new();
        let map = &self.game.map;
        let name = |key: &str| map.lookup_power(key).map_or_else(|| key.to_string(), |p| map.power(p).name.clone());
        let names = |keys: &[String]| keys.iter().map(|k| name(k)).collect::<Vec<_>>();
        // The phase the game was in when each entry was written (an adjudication is shown
        // under the phase it adjudicated, the entries after it under the next).
        let mut current = self.game.state.phase;
        for r in records.records() {
            let (event, phase) = match &r.entry {
                Entry::Created { state } => ("created".to_string(), state.phase),
                Entry::Submitted { phase, power, .. } => (format!("orders from {power}"), *phase),
                Entry::Adjudicated { phase, forced, .. } => {
                    (if *forced { "adjudicated (forced)".into() } else { "adjudicated".to_string() }, *phase)
                }
                Entry::RolledBack { to, .. } => (format!("rolled back to {to}"), *to),
                Entry::DrawDeclared { notice, state } => (notice.clone(), state.phase),
                Entry::DrawVote { power } => (format!("{power} votes for a draw"), current),
                Entry::Vote { power, vote, powers, .. } => (vote_event(&name(power), vote, &names(powers)), current),
                Entry::Absence { power, from, to, moved_to, .. } => (
                    format!(
                        "{} announces an absence from {} to {}{}",
                        name(power),
                        from.format("%Y-%m-%d %H:%M"),
                        to.format("%Y-%m-%d %H:%M"),
                        moved_to
                            .map(|d| format!("; deadline moved to {}", d.format("%Y-%m-%d %H:%M")))
                            .unwrap_or_default()
                    ),
                    current,
                ),
                Entry::AbsenceRefused { power, .. } => {
                    (format!("{}'s absences refused by the master", name(power)), current)
                }
                Entry::LateExtension { powers, deadline } => (
                    format!(
                        "late: {} sent nothing; deadline extended to {}",
                        names(powers).join(", "),
                        deadline_text(Some(*deadline))
                    ),
                    current,
                ),
                Entry::Abandoned { power, missed } => (
                    format!(
                        "{} declared vacant after {} missed in a row",
                        name(power),
                        count(*missed, "phase", "phases")
                    ),
                    current,
                ),
                Entry::DeadlineSet { deadline } => (format!("deadline set: {}", deadline_text(*deadline)), current),
                Entry::Press { from, to, .. } => (format!("press from {from} to {}", to.join(", ")), current),
                Entry::Wait { power, wait: true } => (format!("{power} waits for the deadline"), current),
                Entry::Wait { power, wait: false } => (format!("{power} no longer waits"), current),
                Entry::Seats { event } => (event.describe(), current),
                Entry::VotesCounted { power, .. } => {
                    (format!("{}'s votes withdrawn with its player; the votes counted again", name(power)), current)
                }
                Entry::PlayerChanged { who, what, old, new } => (
                    format!(
                        "{who}: {what} changed from {} to {}",
                        old.as_deref().unwrap_or("none"),
                        new.as_deref().unwrap_or("none")
                    ),
                    current,
                ),
            };
            current = match &r.entry {
                Entry::Created { state } | Entry::Adjudicated { state, .. } | Entry::DrawDeclared { state, .. } => {
                    state.phase
                }
                Entry::RolledBack { to, .. } => *to,
                _ => current,
            };
            rows.push(HistoryRow { seq: r.seq, at: r.at, step: phase.code(), event });
        }
        Ok(History { step_key: "phase", rows })
    }

    fn public(&self) -> crate::game::public::PublicGame {
        crate::game::public::of_diplomacy(self)
    }

    fn press(&mut self) -> Option<&mut dyn Press> {
        Some(self)
    }

    fn votes(&mut self) -> Option<&mut dyn Votes> {
        Some(self)
    }

    fn pictures(&mut self) -> Option<&mut dyn Pictures> {
        Some(self)
    }

    fn seats(&mut self) -> Option<&mut dyn Seats> {
        Some(self)
    }

    fn preview(&self) -> Option<Result<Answer, GameError>> {
        if self.game.state.end.is_some() {
            return Some(Err(GameError::Over));
        }
        let report = OpenGame::preview(self);
        let text = format!("{}(dry run: nothing was changed)\n", report.to_text());
        Some(Ok(Answer::new(text, pretty(&report))))
    }

    fn ledger(&self) -> Option<Answer> {
        if self.game.settings.variant != crate::game::settings::VariantKind::ShadowWorlds {
            return None;
        }
        let ledger = self.game.ledger();
        let mut text = String::new();
        for l in &ledger {
            let doubled =
                if l.doubled.is_empty() { String::new() } else { format!("; doubled: {}", l.doubled.join(" ")) };
            text.push_str(&format!(
                "{:<8} count {:>2} (control list {:>2}), units {}+{}, delta {:+}\n         A: {}\n         B: \
                 {}{doubled}\n",
                l.power,
                l.count,
                l.control_list,
                l.units_a,
                l.units_b,
                l.delta,
                l.centers_a.join(" "),
                l.centers_b.join(" ")
            ));
        }
        Some(Answer::new(text, pretty(&ledger)))
    }
}

/// The address of a power's player, if any.
fn settings_address(game: &Game, power: PowerId) -> Option<String> {
    game.settings.player(&game.map, power).map(|p| p.email.clone())
}

/// A vote as history shows it (the master's journal).
fn vote_event(power: &str, vote: &str, powers: &[String]) -> String {
    match (vote, powers) {
        ("draw", []) => format!("{power} votes for a draw"),
        ("draw", named) => format!("{power} votes for a draw between {}", named.join(", ")),
        ("concede", [to]) => format!("{power} concedes to {to}"),
        ("nodraw", _) => format!("{power} withdraws its draw vote"),
        ("noconcede", _) => format!("{power} withdraws its concession"),
        _ => format!("{power} votes `{vote}`"),
    }
}

/// A power as a player names it: any name the map knows (`france`, `fra`, `French`), or
/// the start of exactly one power's name (`f`, `ger`).
pub fn resolve_power(map: &Map, who: &str) -> Option<PowerId> {
    if let Some(p) = map.lookup_power(who) {
        return Some(p);
    }
    let wanted = normalize_name(who);
    if wanted.is_empty() {
        return None;
    }
    let matching: Vec<PowerId> = map
        .power_ids()
        .filter(|p| normalize_name(&map.power(*p).name).starts_with(&wanted) || map.power(*p).key.starts_with(&wanted))
        .collect();
    match matching.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// [`resolve_power`], or an error that names the powers there are.
fn named_power(map: &Map, written: &str) -> Result<PowerId, GameError> {
    resolve_power(map, written).ok_or_else(|| {
        let hint =
            map.suggest_power(written).map(|p| format!(" (did you mean {}?)", map.power(p).name)).unwrap_or_default();
        usage(format!(
            "no power `{}`{hint}; the powers are {}",
            crate::text::header_safe(written, 40),
            power_names(map).join(", ")
        ))
    })
}

fn power_names(map: &Map) -> Vec<String> {
    map.powers().iter().map(|p| p.name.clone()).collect()
}

fn power_of(game: &Game, role: &Role) -> Result<PowerId, GameError> {
    match role {
        Role::Seat(name) => {
            game.map.lookup_power(name).ok_or_else(|| usage(format!("there is no power `{name}` in this game")))
        }
        Role::Master => Err(usage("the game master plays no power")),
        Role::Observer(_) => Err(usage(OBSERVER_PLAYS_NOTHING)),
    }
}

/// Why an observer's orders, votes or settings are refused.
const OBSERVER_PLAYS_NOTHING: &str = "an observer plays no power: observers read `status` and `history` and, where \
                                      the game allows it, send press";

/// The player of a power, to change their particulars.
fn player_mut<'s>(map: &Map, settings: &'s mut Settings, name: &str) -> Result<&'s mut Player, GameError> {
    player_in(map, &mut settings.players, name)
}

/// The player of the power `name` among `players`.
fn player_in<'s>(map: &Map, players: &'s mut [Player], name: &str) -> Result<&'s mut Player, GameError> {
    let power = map.lookup_power(name).ok_or_else(|| usage(format!("no power `{name}`")))?;
    players
        .iter_mut()
        .find(|p| map.lookup_power(&p.power) == Some(power))
        .ok_or_else(|| usage(format!("nobody plays {name} in this game")))
}

/// Powers that still owe complete orders in the current phase (their names).
pub fn missing_powers(game: &Game) -> Vec<String> {
    game.map
        .power_ids()
        .filter(|p| game.has_duty(*p) && (!game.state.submitted.contains(p) || !game.missing_orders(*p).is_empty()))
        .map(|p| game.map.power(p).name.clone())
        .collect()
}

/// Everyone who receives results.
fn contacts_of(game: &Game) -> Vec<Contact> {
    let (map, settings) = (&game.map, &game.settings);
    let seats = settings.players.iter().filter_map(|p| {
        let power = map.lookup_power(&p.power)?;
        Some((map.power(power).name.clone(), p.email.as_str(), p.timezone.as_deref()))
    });
    by_mail::contacts(seats, &settings.observers, &settings.master)
}

/// How many addresses receive results.
fn readers(game: &Game) -> usize {
    by_mail::recipients(contacts_of(game)).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_resolve_by_name_abbreviation_and_unique_prefix() {
        let map = Map::standard();
        let name = |w: &str| resolve_power(&map, w).map(|p| map.power(p).name.clone());
        assert_eq!(name("france").as_deref(), Some("France"));
        assert_eq!(name("FRA").as_deref(), Some("France"));
        assert_eq!(name("f").as_deref(), Some("France"));
        assert_eq!(name("g").as_deref(), Some("Germany"));
        assert_eq!(name("t").as_deref(), Some("Turkey"));
        assert_eq!(name("x"), None);
        assert_eq!(name(""), None);
    }
}
