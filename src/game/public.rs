//! What anyone may read of a game: the part of it a public web page shows.
//!
//! [`PublicGame`] is built from a game as it stands and holds only what every player has
//! already been told: the results of the phases and steps processed (every order with its
//! outcome once adjudicated, never an order of the phase under way), the position, the
//! players' names, the broadcast press. It holds no address, password, seed before it is
//! revealed, observer, private press or order not yet processed, so that whatever is
//! drawn from it can be published as it is.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::diplomacy::map::Map;
use crate::diplomacy::report::{LedgerLine, PhaseReport};
use crate::diplomacy::state::GameState;
use crate::game::journal::{undone_by_rollback, Entry};
use crate::game::seating::shown_name;
use crate::game::session::diplomacy::OpenGame;
use crate::game::session::turn::OpenTurnGame;
use crate::game::settings::PressRule;

/// A game as the public may see it.
#[derive(Clone, Debug)]
pub struct PublicGame {
    /// The game's name (its directory's name in a judge).
    pub name: String,
    /// `standard`, `shadow-worlds`, `duplexity`, ...
    pub kind: String,
    /// Where the game stands, in words (`Fall 1905 movement`, `round 3, act`).
    pub step: String,
    /// The deadline of the step under way (none: paused, run by hand or over).
    pub deadline: Option<DateTime<Utc>>,
    /// The result, once the game is over (`France wins the game.`).
    pub over: Option<String>,
    /// The seats in their order.
    pub seats: Vec<PublicSeat>,
    /// Who plays which seat is kept secret until the game is over (a gunboat game).
    pub names_secret: bool,
    /// The board now.
    pub board: PublicBoard,
    /// The phases or steps processed, oldest first.
    pub steps: Vec<PublicStep>,
    /// Press sent to everyone, oldest first.
    pub press: Vec<PublicPress>,
}

/// One seat: its name, who plays it, how it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicSeat {
    /// The power (`France`) or the player's seat name (`ann`).
    pub seat: String,
    /// Who plays it, as far as the public may know.
    pub player: Holder,
    /// How the seat stands, short (`centers 3+5, units 3+4`), or empty.
    pub standing: String,
    /// Out of the game.
    pub out: bool,
}

/// Who plays a seat, as the public may know it: never an address, and in a gunboat game
/// nobody's name until the game is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    /// Nobody: the seat is open or vacant.
    Open,
    /// Someone whose name is not shown: a gunboat game under way, or a player with no
    /// name but their address.
    Unnamed,
    /// The player's name ([`shown_name`]: cut to the local part if it held an address).
    Named(String),
}

impl Holder {
    /// The holder of a seat played by someone called `name`, where names may be shown.
    pub fn named(name: &str, shown: bool) -> Holder {
        match shown_name(name) {
            n if shown && !n.is_empty() => Holder::Named(n),
            _ => Holder::Unnamed,
        }
    }

    pub fn is_open(&self) -> bool {
        *self == Holder::Open
    }
}

/// The board now.
#[derive(Clone, Debug)]
pub enum PublicBoard {
    /// A Diplomacy position (one board, or Shadow Worlds' two) and its ledger.
    Diplomacy { map: Arc<Map>, state: Box<GameState>, ledger: Vec<LedgerLine> },
    /// A small game's board and standing as its reports draw them.
    Text(String),
}

/// One phase or step processed.
#[derive(Clone, Debug)]
pub struct PublicStep {
    /// A short name usable in a file name: the phase code (`S1901M`) or the journal entry
    /// (`42`). Unique within the game.
    pub code: String,
    /// `Spring 1901 movement`, `round 2, act`.
    pub title: String,
    /// When it was processed, where the journal keeps it (a small game's step).
    pub at: Option<DateTime<Utc>>,
    pub body: PublicStepBody,
}

/// What a step's page shows.
#[derive(Clone, Debug)]
pub enum PublicStepBody {
    /// A Diplomacy phase: the state it was played from, its results, the state it left.
    Phase { before: Box<GameState>, report: Box<PhaseReport>, after: Box<GameState> },
    /// A small game's report of the step, as mailed to every player.
    Text(String),
}

/// A press message sent to everyone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicPress {
    /// `France`, `the game master`, `an observer`, or in grey press `an unnamed power`.
    pub from: String,
    /// The phase or step it was sent in.
    pub during: String,
    pub text: String,
}

/// A state stripped of what is not public: the orders and submissions of its phase.
fn public_state(state: &GameState) -> Box<GameState> {
    let mut s = state.clone();
    s.orders.clear();
    s.submitted.clear();
    s.waiting.clear();
    s.draw_votes.clear();
    Box::new(s)
}

/// The public part of a Diplomacy game.
/// Who played each power over the whole game, from the journal: the first player, then
/// each change (a takeover, a replacement, a power left vacant) with the phase it took
/// effect in. Names only, never an address (a past player is known by their address's
/// local part; the present one by their name in game.toml).
pub fn roster(game: &crate::diplomacy::engine::Game, entries: &[Entry]) -> Vec<(String, String)> {
    let map = &game.map;
    let first = entries
        .iter()
        .find_map(|e| match e {
            Entry::Adjudicated { phase, .. } => Some(*phase),
            _ => None,
        })
        .unwrap_or(game.state.phase);
    let mut now = first;
    // Per power (map order): (who, from which phase); `None`: vacant.
    let mut seats: Vec<Vec<(Option<String>, crate::phase::Phase)>> = map.power_ids().map(|_| Vec::new()).collect();
    for e in entries {
        match e {
            Entry::Adjudicated { state, .. } | Entry::RolledBack { state, .. } => now = state.phase,
            Entry::PlayerChanged { who, what, old, new } if what == "address" => {
                let Some(power) = map.lookup_power(who) else { continue };
                let held = &mut seats[power.0 as usize];
                if held.is_empty() {
                    if let Some(old) = old {
                        held.push((Some(crate::game::seating::shown_name(old)), first));
                    }
                }
                let from = if held.is_empty() { first } else { now };
                // Vacant and taken over within one phase: only the new player is worth saying.
                if held.last().is_some_and(|(who, at)| who.is_none() && *at == from) {
                    held.pop();
                }
                held.push((new.as_deref().map(crate::game::seating::shown_name), from));
            }
            _ => {}
        }
    }
    let mut lines = Vec::new();
    for p in map.power_ids() {
        let held = &mut seats[p.0 as usize];
        let current = game.settings.player(map, p);
        match (held.last_mut(), current) {
            (Some((who @ Some(_), _)), Some(player)) => *who = Some(crate::game::seating::shown_name(&player.name)),
            (None, Some(player)) => held.push((Some(crate::game::seating::shown_name(&player.name)), first)),
            _ => {}
        }
        let said: Vec<String> = held
            .iter()
            .enumerate()
            .map(|(i, (who, from))| match (i, who) {
                (0, Some(who)) => who.clone(),
                (_, Some(who)) => format!("then {who} (from {from})"),
                (_, None) => format!("vacant from {from}"),
            })
            .collect();
        let said = if said.is_empty() { "nobody".to_string() } else { said.join(", ") };
        lines.push((map.power(p).name.clone(), said));
    }
    lines
}

pub fn of_diplomacy(g: &OpenGame) -> PublicGame {
    let game = &g.game;
    let map = &game.map;
    let state = &game.state;
    let plus = state.boards.len() > 1;
    // A gunboat game keeps who plays which power secret from the players themselves
    // until it is over; so does its page.
    let names_shown = game.settings.press != PressRule::Gunboat || state.end.is_some();
    // Once the game is over, each power's line names everyone who played it.
    let roster: Vec<(String, String)> = if state.end.is_some() { roster(game, &g.entries) } else { Vec::new() };
    let seats = map
        .power_ids()
        .map(|p| {
            let count = |f: &dyn Fn(usize) -> usize| {
                (0..state.boards.len()).map(|i| f(i).to_string()).collect::<Vec<_>>().join("+")
            };
            let centers = count(&|i| state.boards[i].ownership.count(p));
            let units = count(&|i| state.boards[i].units.iter().filter(|u| u.power == p).count());
            let ab = if plus { " (A+B)" } else { "" };
            PublicSeat {
                seat: map.power(p).name.clone(),
                player: match (roster.get(p.0 as usize), game.settings.player(map, p)) {
                    (Some((_, who)), _) if who != "nobody" => Holder::Named(who.clone()),
                    (_, Some(pl)) => Holder::named(&pl.name, names_shown),
                    (_, None) => Holder::Open,
                },
                standing: format!("centers {centers}{ab}, units {units}{ab}"),
                out: state.eliminated.contains(&p),
            }
        })
        .collect();
    let undone = undone_by_rollback(&g.entries);
    let mut steps: Vec<PublicStep> = Vec::new();
    let mut press = Vec::new();
    let mut before: Option<&GameState> = None;
    let mut phase = state.phase;
    for (i, e) in g.entries.iter().enumerate() {
        match e {
            Entry::Created { state } | Entry::RolledBack { state, .. } | Entry::DrawDeclared { state, .. } => {
                before = Some(state);
                phase = state.phase;
            }
            Entry::Adjudicated { report, state: after, .. } => {
                if let (Some(b), false) = (before, undone.contains(&i)) {
                    steps.push(PublicStep {
                        code: report.phase.code(),
                        title: report.phase.to_string(),
                        at: None,
                        body: PublicStepBody::Phase {
                            before: public_state(b),
                            report: report.clone(),
                            after: public_state(after),
                        },
                    });
                }
                before = Some(after);
                phase = after.phase;
            }
            Entry::Press { from, to, text, grey } if to.iter().any(|t| t == "everyone") => {
                // As the readers got it: grey press and observers without who sent it
                // (the site shows no address). A message journaled before its press rule
                // was kept shows its sender only while the game's press is full.
                let grey = grey.unwrap_or(game.settings.press != PressRule::Full);
                let from = match map.lookup_power(from) {
                    Some(_) if grey => "an unnamed power".to_string(),
                    Some(p) => map.power(p).name.clone(),
                    None if from.starts_with(crate::game::by_mail::OBSERVER_KEY) => "an observer".to_string(),
                    None => "the game master".to_string(),
                };
                press.push(PublicPress { from, during: phase.to_string(), text: text.clone() });
            }
            _ => {}
        }
    }
    PublicGame {
        name: game.settings.name.clone(),
        kind: game.settings.variant.name().to_string(),
        step: state.phase.to_string(),
        deadline: state.end.is_none().then_some(state.deadline).flatten(),
        over: state.end.as_ref().map(|e| game.end_notice(e)),
        seats,
        names_secret: !names_shown,
        board: PublicBoard::Diplomacy { map: map.clone(), state: public_state(state), ledger: game.ledger() },
        steps,
        press,
    }
}

/// The public part of a small game: the reports every player was mailed.
pub fn of_turn_game(g: &OpenTurnGame) -> PublicGame {
    let over = g.game.ending().map(|e| g.ending_text(&e));
    let seats = g
        .player_names()
        .into_iter()
        .map(|name| PublicSeat {
            seat: shown_name(&name),
            player: Holder::named(&name, true),
            standing: String::new(),
            out: false,
        })
        .collect();
    let mut steps = Vec::new();
    for (seq, at, entry) in &g.entries {
        if entry.step().is_none() {
            continue;
        }
        let Some(report) = g.entry_report(*seq) else { continue };
        let board = g.report_text_at(*seq).unwrap_or_default();
        // Numbered as the site lists them (1, 2, 3 ...), each titled with its step and
        // what happened in it ("round 1, pass 1: ann played"): several entries may share
        // a step.
        let label = g.entry_label(*seq).unwrap_or_default();
        let what = report.lines().next().unwrap_or_default().trim().trim_end_matches('.');
        let title = if what.is_empty() { label } else { format!("{label}: {what}") };
        steps.push(PublicStep {
            code: (steps.len() + 1).to_string(),
            title,
            at: Some(*at),
            body: PublicStepBody::Text(format!("{report}\n{board}")),
        });
    }
    PublicGame {
        name: g.settings.name.clone(),
        kind: g.meta.game.clone(),
        step: g.game.step_label(),
        deadline: g.meta.deadline.filter(|_| over.is_none()),
        over,
        seats,
        names_secret: false,
        board: PublicBoard::Text(g.report_text()),
        steps,
        press: Vec::new(),
    }
}
