//! What a game's journal records, and how the state is rebuilt from it.
//!
//! The journal is the truth: every accepted submission and every adjudication result is
//! appended (and made durable) before it is acknowledged; `state.json` is a cache of
//! [`replay`]. Replaying re-runs every submission and adjudication, so a replay that ends
//! in a different state than the one recorded is reported, never hidden.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::diplomacy::engine::{Game, Vote};
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::picture::{Scene, SceneError};
use crate::diplomacy::report::PhaseReport;
use crate::diplomacy::state::GameState;
use crate::game::seating::SeatEvent;
use crate::phase::Phase;

/// One journal entry of a Diplomacy game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    /// The game was created in this state.
    Created { state: GameState },
    /// A power's orders were accepted (the text as sent; it is parsed again on replay).
    Submitted { phase: Phase, power: String, text: String },
    /// A phase was adjudicated; `state` is the state after it. `mail_results`: the mail
    /// judge adjudicated it and owes its results to every player, observer and the master
    /// until `mailed.json` (see [`crate::game::session::diplomacy`]) says they went out. Absent (false)
    /// in journals written before results delivery was tracked, and for adjudications by
    /// hand (`shadowjudge adjudicate`), which mail nothing.
    Adjudicated {
        phase: Phase,
        forced: bool,
        report: Box<PhaseReport>,
        state: GameState,
        #[serde(default, skip_serializing_if = "is_false")]
        mail_results: bool,
        /// Processed at a tick before its deadline because every order was in and no
        /// power asked to wait (early processing).
        #[serde(default, skip_serializing_if = "is_false")]
        early: bool,
    },
    /// The game master rolled the game back to the start of `to`; `state` is that state.
    RolledBack { to: Phase, state: GameState },
    /// The game master declared a draw (or every surviving power agreed to one).
    DrawDeclared { notice: String, state: GameState },
    /// A power voted for a draw (the game ends when every surviving power has).
    DrawVote { power: String },
    /// A power's vote on how the game ends: `draw` (between the `powers` named, or every
    /// survivor when none are), `nodraw`, `concede` (to the one power named) or
    /// `noconcede`. The state after it says whether it ended the game.
    Vote {
        power: String,
        vote: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        powers: Vec<String>,
        /// The powers whose votes counted when it was cast (the survivors played then), so
        /// a replay counts it as it was counted, whoever plays now. Journals written before
        /// it was kept have none: their votes are counted among today's voters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        voters: Option<Vec<String>>,
    },
    /// The deadline of the current phase was set or moved (extended, paused, resumed).
    DeadlineSet { deadline: Option<chrono::DateTime<chrono::Utc>> },
    /// A player's or the master's particulars changed: `what` is `password` (the old and
    /// new values are fingerprints of the hashes, never a password), `address` (also a
    /// `replace`, which gives a power to a new player) or `time zone`. The values live in
    /// game.toml; this is their record. Changes no state.
    PlayerChanged { who: String, what: String, old: Option<String>, new: Option<String> },
    /// A power announced an absence from `from` to `to`; `moved_to`: the deadline of the
    /// phase under way moved to its end (from `moved_from`). A rollback keeps it.
    Absence {
        power: String,
        from: chrono::DateTime<chrono::Utc>,
        to: chrono::DateTime<chrono::Utc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moved_from: Option<chrono::DateTime<chrono::Utc>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moved_to: Option<chrono::DateTime<chrono::Utc>>,
    },
    /// The master refused every absence the power announced before; `moved_to`: the
    /// deadline of the phase under way moved back.
    AbsenceRefused {
        power: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moved_to: Option<chrono::DateTime<chrono::Utc>>,
    },
    /// A power sent nothing by the deadline: the phase was extended to `deadline`, a late
    /// extension each for `powers`.
    LateExtension { powers: Vec<String>, deadline: chrono::DateTime<chrono::Utc> },
    /// A power missed `missed` phases in a row and was declared vacant (its player
    /// removed from game.toml, journaled as a player change as well).
    Abandoned { power: String, missed: u32 },
    /// A power asked that the phase wait for its deadline (`wait: true`), or took that back.
    Wait { power: String, wait: bool },
    /// A press message, as sent by mail: who from (a power's name, or `master`), the
    /// recipients as delivered, and the text. `grey`: whether its readers got it without
    /// the sender's name (the game's press rule when it was sent; `None` in journals
    /// written before it was kept). Changes no state.
    Press {
        from: String,
        to: Vec<String>,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grey: Option<bool>,
    },
    /// Who plays a power changed, or the open seats did: a join, a start, a resignation,
    /// a takeover (see [`crate::game::seating`]). Changes no state; no rollback undoes it.
    Seats { event: SeatEvent },
    /// `power` changed player (resigned, taken over, replaced): the votes its player had
    /// cast were withdrawn, and the votes counted again among `voters` (the game ends if
    /// they now agree). Votes belong to the player who cast them.
    VotesCounted { power: String, voters: Vec<String> },
}

/// One seat's particulars as game.toml keeps them, for [`particulars_changes`].
pub struct Particulars {
    /// The seat as history names it (`France`, `ann`, `master`).
    pub who: String,
    pub address: Option<String>,
    pub timezone: Option<String>,
    pub password_hash: Option<String>,
}

/// What changed between two versions of the seats' particulars (matched by `who`), as
/// (who, what, old, new): `address`, `time zone` or `password`, a password shown only as
/// its [`fingerprint`]. Every game journals these, so that history shows who changed
/// what and no rollback undoes it.
pub fn particulars_changes(
    old: &[Particulars],
    new: &[Particulars],
) -> Vec<(String, String, Option<String>, Option<String>)> {
    let mut changes = Vec::new();
    for n in new {
        let o = old.iter().find(|o| o.who == n.who);
        let pairs = [
            ("address", o.and_then(|o| o.address.as_ref()), n.address.as_ref(), false),
            ("time zone", o.and_then(|o| o.timezone.as_ref()), n.timezone.as_ref(), false),
            ("password", o.and_then(|o| o.password_hash.as_ref()), n.password_hash.as_ref(), true),
        ];
        for (what, a, b, secret) in pairs {
            if a != b {
                let show = |v: Option<&String>| v.map(|v| if secret { fingerprint(v) } else { v.clone() });
                changes.push((n.who.clone(), what.to_string(), show(a), show(b)));
            }
        }
    }
    // A seat no longer played (a resignation): its address goes.
    for o in old.iter().filter(|o| !new.iter().any(|n| n.who == o.who)) {
        if o.address.is_some() {
            changes.push((o.who.clone(), "address".to_string(), o.address.clone(), None));
        }
    }
    changes
}

/// How a password hash is shown in the journal: a short fingerprint of the hash, which
/// tells one password from another and reveals nothing of it.
pub fn fingerprint(hash: &str) -> String {
    use sha2::Digest;
    format!("#{:.12x}", sha2::Sha256::digest(hash.as_bytes()))
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A replay that disagrees with what the journal recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("journal entry {index}: {message}")]
pub struct ReplayError {
    pub index: usize,
    pub message: String,
}

/// Rebuild the game state from the journal by re-running every submission and
/// adjudication; each recorded state must match the replayed one.
pub fn replay(game: &mut Game, entries: &[Entry]) -> Result<(), ReplayError> {
    for (index, e) in entries.iter().enumerate() {
        let err = |message: String| ReplayError { index: index + 1, message };
        match e {
            Entry::Created { state } => {
                state.check(&game.map, game.settings.variant.boards()).map_err(|e| err(format!("state.{e}")))?;
                game.state = state.clone()
            }
            Entry::Submitted { phase, power, text } => {
                if *phase != game.state.phase {
                    return Err(err(format!("orders for {phase} while the game is in {}", game.state.phase)));
                }
                let p = game.map.lookup_power(power).ok_or_else(|| err(format!("unknown power `{power}`")))?;
                game.submit(p, text, false);
            }
            Entry::Adjudicated { phase, state, .. } => {
                if *phase != game.state.phase {
                    return Err(err(format!("a result for {phase} while the game is in {}", game.state.phase)));
                }
                game.adjudicate();
                // The deadline comes from the clock at adjudication time, not from the rules.
                game.state.deadline = state.deadline;
                // So do the deadline's absences and missed phases (game options).
                game.state.missed.clone_from(&state.missed);
                if held_empty_winter(&game.state, state) {
                    game.state = state.clone();
                }
                if game.state != *state {
                    return Err(err(format!("replaying {phase} gives a different state than the one recorded")));
                }
            }
            Entry::RolledBack { state, .. } | Entry::DrawDeclared { state, .. } => {
                state.check(&game.map, game.settings.variant.boards()).map_err(|e| err(format!("state.{e}")))?;
                game.state = state.clone()
            }
            Entry::DeadlineSet { deadline } => game.state.deadline = *deadline,
            Entry::DrawVote { power } => {
                let p = game.map.lookup_power(power).ok_or_else(|| err(format!("unknown power `{power}`")))?;
                game.vote_draw(p);
            }
            Entry::Vote { power, vote, powers, voters } => {
                let lookup =
                    |name: &str| game.map.lookup_power(name).ok_or_else(|| err(format!("unknown power `{name}`")));
                let p = lookup(power)?;
                let named = powers.iter().map(|n| lookup(n)).collect::<Result<Vec<PowerId>, _>>()?;
                let vote = match (vote.as_str(), named.as_slice()) {
                    ("draw", _) => Vote::Draw { powers: named },
                    ("nodraw", _) => Vote::NoDraw,
                    ("concede", [to]) => Vote::Concede { to: *to },
                    ("noconcede", _) => Vote::NoConcede,
                    _ => return Err(err(format!("`{vote}` is not a vote"))),
                };
                match voters {
                    Some(voters) => {
                        let voters = voters.iter().map(|n| lookup(n)).collect::<Result<Vec<PowerId>, _>>()?;
                        game.vote_among(p, &vote, &voters)
                    }
                    None => game.vote(p, &vote),
                };
            }
            Entry::VotesCounted { power, voters } => {
                let lookup =
                    |name: &str| game.map.lookup_power(name).ok_or_else(|| err(format!("unknown power `{name}`")));
                let p = lookup(power)?;
                let voters = voters.iter().map(|n| lookup(n)).collect::<Result<Vec<PowerId>, _>>()?;
                game.withdraw_votes(p);
                game.recount(&voters);
            }
            Entry::Wait { power, wait } => {
                let p = game.map.lookup_power(power).ok_or_else(|| err(format!("unknown power `{power}`")))?;
                crate::game::schedule::set_waiting(&mut game.state.waiting, p, *wait);
            }
            Entry::Absence { moved_to: Some(at), .. } | Entry::AbsenceRefused { moved_to: Some(at), .. } => {
                game.state.deadline = Some(*at)
            }
            Entry::LateExtension { deadline, .. } => game.state.deadline = Some(*deadline),
            Entry::Press { .. }
            | Entry::PlayerChanged { .. }
            | Entry::Absence { .. }
            | Entry::AbsenceRefused { .. }
            | Entry::Abandoned { .. }
            | Entry::Seats { .. } => {}
        }
    }
    Ok(())
}

/// A journal written before a standard Winter in which no power can adjust was skipped
/// may go into one where this judge goes on to Spring: the recorded state, apart from
/// its phase, is the one replayed, and replay keeps the Winter it recorded (nothing
/// happens in it).
fn held_empty_winter(replayed: &GameState, recorded: &GameState) -> bool {
    use crate::phase::PhaseKind;
    let mut as_skipped = recorded.clone();
    as_skipped.phase = replayed.phase;
    recorded.phase.kind == PhaseKind::Adjustments
        && replayed.phase.kind == PhaseKind::Movement
        && replayed.phase == recorded.phase.next_movement()
        && *replayed == as_skipped
}

/// The state at the start of `phase`, from the journal (the last time the game was there).
pub fn state_at(entries: &[Entry], phase: Phase) -> Option<GameState> {
    start_of(entries, phase).map(|(_, s)| {
        let mut s = s.clone();
        s.orders.clear();
        s.submitted.clear();
        s.waiting.clear();
        s
    })
}

/// Every phase the game has started (and so may be rolled back to), in the order first
/// reached.
pub fn phases_started(entries: &[Entry]) -> Vec<Phase> {
    let mut phases: Vec<Phase> = Vec::new();
    for e in entries {
        let s = match e {
            Entry::Created { state } | Entry::RolledBack { state, .. } | Entry::Adjudicated { state, .. } => state,
            _ => continue,
        };
        if s.end.is_none() && !phases.contains(&s.phase) {
            phases.push(s.phase);
        }
    }
    phases
}

/// The last entry that started `phase` (a game not over), and its state.
fn start_of(entries: &[Entry], phase: Phase) -> Option<(usize, &GameState)> {
    let mut found = None;
    for (index, e) in entries.iter().enumerate() {
        let s = match e {
            Entry::Created { state } | Entry::RolledBack { state, .. } | Entry::Adjudicated { state, .. } => state,
            _ => continue,
        };
        if s.phase == phase && s.end.is_none() {
            found = Some((index, s));
        }
    }
    found
}

/// The indexes (into `entries`) of the adjudications a later rollback undid: those after
/// the entry the rollback went back to, and before the rollback.
pub fn undone_by_rollback(entries: &[Entry]) -> BTreeSet<usize> {
    let mut undone = BTreeSet::new();
    for (at, e) in entries.iter().enumerate() {
        let Entry::RolledBack { to, .. } = e else { continue };
        let from = start_of(&entries[..at], *to).map_or(0, |(index, _)| index + 1);
        undone.extend((from..at).filter(|i| matches!(entries[*i], Entry::Adjudicated { .. })));
    }
    undone
}

/// Whether the entry changes the game's state wholesale (a new phase, a rollback, a
/// declared draw): after one, an earlier phase's "next deadline" is no longer the game's.
pub fn moves_the_game(entry: &Entry) -> bool {
    matches!(
        entry,
        Entry::Created { .. } | Entry::Adjudicated { .. } | Entry::RolledBack { .. } | Entry::DrawDeclared { .. }
    )
}

/// The reports of the phases of the game now, in order: every adjudication no rollback
/// undid (what `results`, `history` and the pictures read alike).
pub fn reports(entries: &[Entry]) -> impl Iterator<Item = &PhaseReport> {
    let undone = undone_by_rollback(entries);
    entries.iter().enumerate().filter(move |(i, _)| !undone.contains(i)).filter_map(|(_, e)| match e {
        Entry::Adjudicated { report, .. } => Some(report.as_ref()),
        _ => None,
    })
}

/// The scene of a phase's results from a game's journal ([`crate::diplomacy::picture`]
/// draws it): the last time `phase` was adjudicated (the last adjudication of all when `phase` is none), not undone by a
/// rollback. `title` heads the picture (the game's name).
pub fn results_scene(map: &Map, title: &str, entries: &[Entry], phase: Option<Phase>) -> Result<Scene, SceneError> {
    let undone = undone_by_rollback(entries);
    let found = entries.iter().enumerate().rev().find(|(i, e)| {
        !undone.contains(i) && matches!(e, Entry::Adjudicated { phase: p, .. } if phase.is_none_or(|want| *p == want))
    });
    let Some((at, _)) = found else {
        return Err(SceneError(match phase {
            Some(p) => format!("{p} has not been adjudicated in this game"),
            None => "no phase has been adjudicated yet".to_string(),
        }));
    };
    results_scene_at(map, title, entries, at)
}

/// The picture of the board as a game's journal leaves it (its final position, once
/// over): no orders, only units and centers.
pub fn board_scene(title: &str, entries: &[Entry]) -> Result<Scene, SceneError> {
    let state = entries.iter().rev().find_map(|e| match e {
        Entry::Created { state }
        | Entry::Adjudicated { state, .. }
        | Entry::RolledBack { state, .. }
        | Entry::DrawDeclared { state, .. } => Some(state),
        _ => None,
    });
    let state = state.ok_or_else(|| SceneError("the journal holds no position".to_string()))?;
    Ok(Scene::from_state(title, state))
}

/// The picture of the adjudication at `index` in a game's journal (its seq less one).
pub fn results_scene_at(map: &Map, title: &str, entries: &[Entry], index: usize) -> Result<Scene, SceneError> {
    let Some(Entry::Adjudicated { report, state: after, .. }) = entries.get(index) else {
        return Err(SceneError(format!("journal entry {} is no adjudication", index + 1)));
    };
    let before = entries[..index].iter().rev().find_map(|e| match e {
        Entry::Created { state } | Entry::RolledBack { state, .. } | Entry::Adjudicated { state, .. } => Some(state),
        _ => None,
    });
    let before = before.ok_or_else(|| SceneError(format!("the journal has no state before {}", report.phase)))?;
    Scene::from_results(map, title, before, report, after)
}
