//! A Diplomacy game on disk: the engine over the store, as a [`Kind`] of the one
//! [`Session`].
//!
//! Every change takes the game's lock, appends a journal entry (durable before anything is
//! acknowledged), then rewrites the state cache. Loading reads the state cache and, when
//! the journal has entries the cache lacks (a crash between the two writes), replays them.
//! The clock is passed in; nothing here reads it.
//!
//! # Results owed by mail
//! An adjudication made for the mail judge ([`OpenGame::adjudicate_to_mail`]) is journaled
//! with `mail_results`, which makes its results owed to every player, observer and the
//! master. The side file `mailed.json` ([`MailedFile`]) records, per adjudication (its
//! journal seq), who has had them; [`OpenGame::results_owed`] is the journal minus that
//! file. The mailer takes the game's `mailing` task lock, mails what is owed, and records
//! it with [`Session::record_mailed`] only after the transport took the mail: a
//! crash in between sends them again (twice rather than never). Adjudications without the
//! flag (older journals, `shadowjudge adjudicate`) owe nothing, and one a rollback undid
//! is no longer owed.
//!
//! One file a job: `open` (create a game, read it back with its map), `orders` (orders kept,
//! the preview), `adjudicate` (a phase adjudicated: forced, early, for mail; missed phases
//! and vacant powers), `rollback`, `votes` (draws and concessions), `absence` (absences
//! and the deadlines they move), `deadlines` (late extensions, the deadline set, waits),
//! `press`, `particulars` (game.toml changed, players' particulars journaled), //! (results owed by mail) and `seats`.

use chrono::{DateTime, Utc};

use crate::diplomacy::engine::Game;
use crate::diplomacy::report::PhaseReport;
use crate::diplomacy::state::GameState;
use crate::game::journal::{self, Entry};
use crate::game::seating::SeatEvent;
use crate::game::session::{Kind, Loaded, Seated, Session};
use crate::game::settings::Settings;
use crate::store::{GameDir, GameLock};

mod absence;
mod adjudicate;
mod deadlines;
mod open;
mod orders;
mod owed;
mod particulars;
mod press;
mod rollback;
mod seats;
mod votes;

pub use self::absence::Absence;
pub use self::deadlines::LateExtension;
pub use self::open::{create, open, open_read_only, MapRecord, MAP_FILE};
pub use self::owed::OwedResults;
pub use self::seats::{Joined, Started};
pub use crate::game::error::GameError;
pub use crate::game::session::MAILING_TASK;
pub use crate::store::{MailedFile, MailingOutcome, MailingPlan, MAILED_FILE};

/// A Diplomacy game as the store keeps it: the engine and its journal.
#[derive(Debug)]
pub struct DiplomacyKind {
    pub game: Game,
    pub entries: Vec<Entry>,
}

/// A Diplomacy game opened from its directory.
pub type OpenGame = Session<DiplomacyKind>;

fn schedule_error(e: crate::game::schedule::DeadlineError) -> GameError {
    GameError::Invalid(format!("game.toml [deadlines.schedule]: {e}"))
}

impl Kind for DiplomacyKind {
    type Entry = Entry;
    type Cache = GameState;

    fn load(dir: &GameDir) -> Result<Loaded<Self>, GameError> {
        open::load(dir)
    }

    fn cache(&self) -> &GameState {
        &self.game.state
    }

    fn keep(&mut self, _seq: u64, _at: DateTime<Utc>, entry: Entry) {
        self.entries.push(entry);
    }

    /// A game made before maps were recorded records its map at its next change.
    fn relocked(&self, dir: &GameDir, lock: &GameLock) -> Result<(), GameError> {
        if dir.read_side::<MapRecord>(MAP_FILE)?.is_none() {
            let record = MapRecord { map: self.game.settings.map.clone(), fingerprint: self.game.map.id_fingerprint() };
            lock.write_side(MAP_FILE, &record)?;
        }
        Ok(())
    }

    /// An adjudication made for the mail judge owes its results, under its phase.
    fn owes(entry: &Entry) -> Option<Option<serde_json::Value>> {
        match entry {
            Entry::Adjudicated { phase, mail_results: true, .. } => Some(serde_json::to_value(phase).ok()),
            _ => None,
        }
    }

    fn undone_by_rollback(&self) -> std::collections::BTreeSet<u64> {
        journal::undone_by_rollback(&self.entries).into_iter().map(|i| i as u64 + 1).collect()
    }
}

impl Seated for DiplomacyKind {
    type Settings = Settings;

    fn settings(&self) -> &Settings {
        &self.game.settings
    }

    fn set_settings(&mut self, settings: Settings) {
        self.game.settings = settings;
    }

    fn name(&self) -> &str {
        &self.game.settings.name
    }

    fn is_over(&self) -> bool {
        self.game.state.end.is_some()
    }

    fn particulars_entries(&self, new: &Settings) -> Vec<Entry> {
        particulars::player_changes(&self.game.map, &self.game.settings, new)
    }

    fn seats_entry(event: SeatEvent) -> Entry {
        Entry::Seats { event }
    }

    fn seat_event(entry: &Entry) -> Option<&SeatEvent> {
        match entry {
            Entry::Seats { event } => Some(event),
            _ => None,
        }
    }

    /// Votes belong to the player who cast them: a power that changed player has none.
    fn seat_changed(g: &mut OpenGame, lock: &mut GameLock, seat: &str, now: DateTime<Utc>) -> Result<(), GameError> {
        g.votes_follow_players(lock, seat, now).map(drop)
    }
}

impl OpenGame {
    /// Every adjudication report so far (rolled-back phases included, in journal order).
    pub fn reports(&self) -> Vec<&PhaseReport> {
        journal::reports(&self.entries).collect()
    }
}
