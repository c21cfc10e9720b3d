//! A turn game on disk: any [`TurnGame`] over the store, with its verifiable dice.
//!
//! The directory holds what every game holds (`game.toml`, `journal.jsonl`, `state.json`,
//! the lock; see [`crate::store`]) and one more file, `seed.json`: the dice's secret seed,
//! kept apart from the journal so the journal can be shown to anyone. The journal's first
//! entry publishes the seed's commitment.
//!
//! Every change takes the game's lock, runs the engine (the submission, then its automatic
//! steps), and appends one [`TurnEntry`] holding the turn text as sent, every roll it made,
//! the events, and the state after it (after the creation, as the difference from the
//! state before: an entry costs what its step changed); the state cache is written after
//! the journal is durable. Replaying a journal re-runs every submission with the same dice and checks each
//! roll and each state against the record ([`replay()`]). A rollback restores the state and
//! the dice counter recorded at the start of a round, so the rounds replay with the same
//! rolls. When the game ends the seed is revealed in the journal; `verify` recomputes every
//! roll from it.
//!
//! The clock is passed in; nothing here reads it. Games are reached only through
//! [`crate::games`] and the [`TurnGame`] trait.

mod create;
mod deadlines;
pub mod lobby;
mod open;
mod owed;
mod replay;
mod rollback;
mod seats;
mod status;
mod submit;
mod verify;
mod waits;

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::dice::{self, Dice, Roll, Seed};
use crate::game::error::GameError;
use crate::game::journal::{particulars_changes, Particulars, ReplayError};
use crate::game::schedule::DeadlinePolicy;
use crate::game::seating::{SeatEvent, Seating};
use crate::game::session::{Kind, Loaded, Seated, Session};
use crate::game::settings::Master;
use crate::game::state_patch;
use crate::games::{self, Options};
use crate::phase::PhaseKind;
use crate::store::{Book, GameDir, GameLock, StoreError};
use crate::text::count;
use crate::turn::{Awaiting, Ending, LineAnswer, TurnAck, TurnContext, TurnGame, MASTER};

pub use crate::store::MAILED_FILE;

pub use create::create;
use deadlines::deadline_after;
pub use open::{kind_of, open, open_read_only};
use replay::apply_step;
pub use replay::replay;
use seats::check_players;
pub use seats::{parse_turn_players, plausible_player_name, TurnPlayer};
pub use status::in_words;
use submit::run_automatic;
pub use verify::VerifyFailure;
use waits::{set_waiting, settle_waits, wait_lines};

/// The side file holding the dice's secret seed.
pub const SEED_FILE: &str = "seed.json";
pub use crate::store::REPORTED_FILE;

/// `game.toml` of a turn game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSettings {
    pub name: String,
    /// The kind of game (`duplexity`).
    pub game: String,
    /// Addresses that get every report but play no seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observers: Vec<String>,
    /// The passwords observers sign on with (`observe GAME PASSWORD`), as hashes.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub observer_passwords: crate::game::seating::ObserverPasswords,
    /// When input is due: every awaited input gets the schedule's movement deadline.
    #[serde(default)]
    pub deadlines: DeadlinePolicy,
    pub players: Vec<TurnPlayer>,
    #[serde(default, skip_serializing_if = "Master::is_empty")]
    pub master: Master,
    /// A word list (a file in the game directory, one word or name a line): answers it
    /// does not hold are flagged for the game master. No game needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_list: Option<String>,
    /// Open seats filled by `join`, seats left vacant by `resign` and the takeovers asked
    /// for (see [`crate::game::seating`]); empty in a game whose players the master named.
    #[serde(default, skip_serializing_if = "Seating::is_empty")]
    pub seats: Seating,
}

/// What one change did, as journaled: the rolls, the events, where the game stands after
/// it, and the whole state (so a rollback and a replay check need nothing else). On disk a
/// turn, a deadline or a release keeps the state as `patch`, the difference from the state
/// before it ([`state_patch`]); reading the journal makes it whole again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rolls: Vec<Roll>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// `step_label` after the change.
    pub label: String,
    pub round: u32,
    /// The number of the next roll after the change.
    pub next_roll: u64,
    pub deadline: Option<DateTime<Utc>>,
    /// The engine's state after the change (on disk, absent when `patch` is there).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub state: serde_json::Value,
    /// On disk only: the state as the difference from the state of the step before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<json_patch::Patch>,
    /// Its report is owed by mail to every player, observer and the master.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mail: bool,
}

/// One journal entry of a turn game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TurnEntry {
    /// The game was created: its kind, seats, options and the dice's commitment.
    Created { game: String, players: Vec<String>, options: Options, commitment: String, step: Step },
    /// A player's turn file, as sent, and when it counts as received. `hold`: a step
    /// that takes every player's input together was held once all of it was in (early
    /// processing off, or someone sent `wait`; see [`TurnContext::hold`]).
    Submitted {
        player: String,
        text: String,
        at: DateTime<Utc>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        hold: bool,
        step: Step,
    },
    /// A player sent `wait` (the step waits for its deadline) or `nowait`.
    Wait { player: String, wait: bool },
    /// A held step went on before its deadline: every input was in and nobody waits any
    /// more (early processing).
    Released { step: Step },
    /// A deadline passed, or the master processed (`by_master`): the defaults were
    /// applied (a window the game set itself closed).
    Forced {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        by_master: bool,
        /// Before the deadline: only vacant seats were awaited (nobody could send it).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        vacant: bool,
        step: Step,
    },
    /// The master went back to the start of a round.
    RolledBack { to_round: u32, step: Step },
    /// The deadline was moved, or cleared (paused).
    DeadlineSet { deadline: Option<DateTime<Utc>> },
    /// The seed was revealed (the game ended, or the master asked).
    Revealed { seed: String },
    /// A seat's particulars changed in game.toml: `address` (also by `replace`, which
    /// gives the seat to a new player), `time zone` or `password` (as a fingerprint).
    /// The values live in game.toml; this is their record. Changes no state.
    PlayerChanged { who: String, what: String, old: Option<String>, new: Option<String> },
    /// A change of who plays or watches (see [`lobby`]): changes no state; no rollback
    /// undoes it.
    Seats { event: SeatEvent },
}

/// The step an entry carries, if it carries one: the one match behind [`TurnEntry::step`]
/// and [`TurnEntry::step_mut`] (it borrows as the entry is borrowed).
macro_rules! step_of {
    ($entry:expr) => {
        match $entry {
            TurnEntry::Created { step, .. }
            | TurnEntry::Submitted { step, .. }
            | TurnEntry::Forced { step, .. }
            | TurnEntry::Released { step }
            | TurnEntry::RolledBack { step, .. } => Some(step),
            TurnEntry::DeadlineSet { .. }
            | TurnEntry::Revealed { .. }
            | TurnEntry::Wait { .. }
            | TurnEntry::Seats { .. }
            | TurnEntry::PlayerChanged { .. } => None,
        }
    };
}

impl TurnEntry {
    fn step_mut(&mut self) -> Option<&mut Step> {
        step_of!(self)
    }

    /// The step this entry made (a turn, a deadline, a release, the creation, a
    /// rollback); `None` for an entry that changes no state.
    pub fn step(&self) -> Option<&Step> {
        step_of!(self)
    }
}

/// `state.json` of a turn game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnState {
    pub game: String,
    pub commitment: String,
    pub next_roll: u64,
    pub rolls: u64,
    pub deadline: Option<DateTime<Utc>>,
    #[serde(default)]
    pub paused: bool,
    /// The journal seq that set the current deadline (the tick's notion of "phase").
    pub deadline_seq: u64,
    pub revealed: Option<String>,
    pub state: serde_json::Value,
    /// The players who sent `wait` for the step under way (cleared when it goes on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<String>,
}

/// An entry whose report is still owed: to every recipient (`only_to` is `None`), or to
/// the addresses an earlier mailing failed for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwedReport {
    pub seq: u64,
    pub only_to: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SeedFile {
    seed: String,
}

/// A turn game as the store keeps it: its settings, where it stands, the engine, the
/// journal with each record's seq and time, and the dice's seed.
#[derive(Debug)]
pub struct TurnKind {
    pub settings: TurnSettings,
    pub meta: TurnState,
    pub game: Box<dyn TurnGame>,
    /// The journal, with each record's seq and time.
    pub entries: Vec<(u64, DateTime<Utc>, TurnEntry)>,
    seed: Seed,
}

/// A turn game opened from its directory.
pub type OpenTurnGame = Session<TurnKind>;

impl Kind for TurnKind {
    type Entry = TurnEntry;
    type Cache = TurnState;

    fn load(dir: &GameDir) -> Result<Loaded<Self>, GameError> {
        open::load(dir)
    }

    fn cache(&self) -> &TurnState {
        &self.meta
    }

    fn keep(&mut self, seq: u64, at: DateTime<Utc>, entry: TurnEntry) {
        self.entries.push((seq, at, entry));
    }

    fn journaled(&self, entry: TurnEntry) -> TurnEntry {
        open::journaled(&self.entries, entry)
    }

    /// `reported.json`, the file turn games kept before `mailed.json`.
    fn mailed_file() -> Option<&'static str> {
        Some(REPORTED_FILE)
    }

    /// A step made for the players owes its report to everyone.
    fn owes(entry: &TurnEntry) -> Option<Option<serde_json::Value>> {
        entry.step().filter(|s| s.mail).map(|_| None)
    }

    fn undone_by_rollback(&self) -> std::collections::BTreeSet<u64> {
        owed::undone_by_rollback(&self.entries)
    }
}

impl Seated for TurnKind {
    type Settings = TurnSettings;

    fn settings(&self) -> &TurnSettings {
        &self.settings
    }

    fn set_settings(&mut self, settings: TurnSettings) {
        self.settings = settings;
    }

    fn name(&self) -> &str {
        &self.settings.name
    }

    fn is_over(&self) -> bool {
        self.game.ending().is_some()
    }

    fn particulars_entries(&self, new: &TurnSettings) -> Vec<TurnEntry> {
        particulars_changes(&seats::seats(&self.settings), &seats::seats(new))
            .into_iter()
            .map(|(who, what, old, new)| TurnEntry::PlayerChanged { who, what, old, new })
            .collect()
    }

    fn seats_entry(event: SeatEvent) -> TurnEntry {
        TurnEntry::Seats { event }
    }

    fn seat_event(entry: &TurnEntry) -> Option<&SeatEvent> {
        match entry {
            TurnEntry::Seats { event } => Some(event),
            _ => None,
        }
    }
}

/// The largest turn file taken (a turn is a few lines; this is hundreds of them).
pub const MAX_TURN_BYTES: usize = 64 * 1024;

/// Who or what forced a step: the game master or the deadline, and whether what it
/// closed was a window the game set itself (then nothing was defaulted; the game's
/// events say what closing did).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forcing {
    pub by_master: bool,
    pub window: bool,
    /// Before the deadline, because only vacant seats were awaited.
    pub vacant: bool,
}

impl Forcing {
    /// In a sentence, for history and reports.
    pub fn words(self) -> &'static str {
        if self.vacant {
            return "only vacant seats were awaited, so their defaults were applied before the deadline";
        }
        match (self.by_master, self.window) {
            (true, true) => "the game master closed the window",
            (true, false) => "the game master processed the step; the defaults were applied",
            (false, true) => "the window closed at its deadline",
            (false, false) => "the deadline passed; the defaults were applied",
        }
    }

    /// In brief, for the log line of the step processed.
    pub fn brief(self) -> &'static str {
        if self.vacant {
            return "only vacant seats awaited, defaults applied early";
        }
        match (self.by_master, self.window) {
            (true, true) => "window closed by the game master",
            (true, false) => "by the game master, deadline defaults applied",
            (false, true) => "window closed at its deadline",
            (false, false) => "deadline passed, defaults applied",
        }
    }
}

pub use crate::turn::Seat;

impl Seat {
    fn submit(self, game: &mut dyn TurnGame, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        match self {
            Seat::Player(p) => game.submit(p, text, ctx),
            Seat::Master => match game.master_lines() {
                Some(master) => master.master(text, ctx),
                None => TurnAck::no_master_lines(text),
            },
        }
    }
}

/// What a `wait` or `nowait` did: the answer to the player, the journal seq of the last
/// entry it made (none when it changed nothing), and the events of a step it let go on.
#[derive(Clone, Debug)]
pub struct WaitDone {
    pub said: String,
    pub seq: Option<u64>,
    pub events: Vec<String>,
}

/// The answer to a submission: the engine's answer per line, and whether it was kept.
#[derive(Clone, Debug)]
pub struct Submission {
    pub ack: TurnAck,
    /// Events of the automatic steps that followed.
    pub events: Vec<String>,
    /// The journal seq of the entry, when anything was accepted.
    pub seq: Option<u64>,
}

/// A game of Pebbles (the toy game beside the tests) in a scratch directory, for the unit
/// tests of the store-facing parts.
#[cfg(test)]
mod toy {
    use chrono::TimeZone;

    use super::*;
    use crate::dice::Seed;

    pub fn at(minutes: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2027, 1, 1, 12, 0, 0).unwrap() + chrono::Duration::minutes(minutes)
    }

    /// Two players, a pile of 9.
    pub fn game(dir: &Path) -> OpenTurnGame {
        let players = ["ann", "bob"].map(|n| TurnPlayer {
            name: n.into(),
            email: format!("{n}@example.org"),
            timezone: None,
            password_hash: None,
            reports: None,
        });
        let settings = TurnSettings {
            name: "toy".into(),
            game: "pebbles".into(),
            observers: Vec::new(),
            observer_passwords: Default::default(),
            deadlines: Default::default(),
            players: players.to_vec(),
            master: Master::default(),
            word_list: None,
            seats: Default::default(),
        };
        let options = Options::from([("pile".to_string(), "9".to_string())]);
        create(dir, &settings, &options, Seed::from_bytes([7; 32]), at(0)).expect("a game of pebbles")
    }

    /// The player whose turn it is takes `n`; the seq of the entry kept.
    pub fn take(g: &mut OpenTurnGame, n: u32, minute: i64) -> u64 {
        let seat = Seat::Player(g.game.awaiting().players[0]);
        let done = g.submit(seat, &format!("take {n}"), at(minute), at(minute)).expect("a turn is taken");
        done.seq.unwrap_or_else(|| panic!("take {n} was kept: {:?}", done.ack))
    }
}
