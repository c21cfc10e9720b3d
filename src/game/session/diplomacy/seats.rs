//! The seats of a Diplomacy game as mail changes them: open seats filled by joins, the
//! powers assigned at the start, observers, resignations and takeovers (see
//! [`crate::game::seating`]). Each change is journaled first (`Entry::Seats`, and
//! `Entry::PlayerChanged` for a player's particulars), then game.toml is written, all
//! under the game's lock; no rollback undoes any of it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::GameError;
use super::{schedule_error, OpenGame};
use crate::dice::{Dice, Seed};
use crate::game::journal::Entry;
use crate::game::seating::{
    self, shown_name, Applicant, ObserverPasswords, PendingObserver, SeatEvent, SeatTable, Seating,
};
use crate::game::settings::{Player, Settings};

/// The side file that keeps the seed the powers are assigned with, until they are.
pub const SEED_FILE: &str = "seed.json";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedFile {
    seed: String,
}

/// The powers given out when the last seat was filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Started {
    /// (address, power name; a small game: seat name), in the order they joined.
    pub powers: Vec<(String, String)>,
    pub deadline: Option<DateTime<Utc>>,
    /// For each of `powers`: the lines a player might send first (their own units' orders,
    /// a small game's turn lines), or empty when the first input is not theirs.
    pub examples: Vec<String>,
    /// The commitment of the seed the dice roll with, published when the game opened.
    pub commitment: String,
    /// A small game: seated in the order they joined, played by turn lines; the seed is
    /// revealed at the end (Diplomacy: it is revealed now, with the assignment).
    pub turn_lines: bool,
    /// Diplomacy: the seed the powers were assigned with, revealed now.
    pub seed: Option<String>,
}

/// What a join did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Joined {
    /// Whether the address had joined before (its password and preferences are replaced).
    pub again: bool,
    /// Seats still open (0: the game started).
    pub seats_left: usize,
    pub started: Option<Started>,
}

fn refuse(text: impl Into<String>) -> GameError {
    GameError::Invalid(text.into())
}

impl OpenGame {
    fn powers_count(&self) -> usize {
        self.game.map.power_ids().count()
    }

    /// Seats still open (`None`: the game has no open seats).
    pub fn seats_left(&self) -> Option<usize> {
        let seats = &self.game.settings.seats;
        seats.open.then(|| self.powers_count().saturating_sub(seats.joined.len()))
    }

    /// Open the seats of a game just created with no players: no deadline runs until the
    /// last seat is filled; a new dice seed is kept and its commitment journaled.
    pub fn open_seats(&mut self, now: DateTime<Utc>) -> Result<String, GameError> {
        self.relocked_atomically(|g, lock| g.open_seats_locked(lock, now))
    }

    fn open_seats_locked(
        &mut self,
        lock: &mut crate::store::GameLock,
        now: DateTime<Utc>,
    ) -> Result<String, GameError> {
        if !self.game.settings.players.is_empty() || self.game.settings.seats.open {
            return Err(refuse("only a game without players can open its seats"));
        }
        let seed = Seed::generate();
        lock.write_private_side(SEED_FILE, &SeedFile { seed: seed.to_hex() })?;
        let commitment = seed.commitment();
        self.record(lock, now, Entry::Seats { event: SeatEvent::Opened { commitment: commitment.clone() } })?;
        self.game.state.deadline = None;
        self.record(lock, now, Entry::DeadlineSet { deadline: None })?;
        let mut settings = self.game.settings.clone();
        settings.seats.open = true;
        self.write_seats(lock, now, settings)?;
        Ok(commitment)
    }

    /// The commitment of the seed the powers are (or were) assigned with.
    pub fn seats_commitment(&self) -> Option<String> {
        self.entries.iter().find_map(|e| match e {
            Entry::Seats { event: SeatEvent::Opened { commitment } } => Some(commitment.clone()),
            _ => None,
        })
    }

    /// The password hash an address joined with, while the game waits for players.
    pub fn joined_hash(&self, email: &str) -> Option<String> {
        let seats = &self.game.settings.seats;
        seats.joined.iter().find(|a| a.email.eq_ignore_ascii_case(email)).map(|a| a.password_hash.clone())
    }

    /// `join`: take a seat (preferences as power keys). When it is the last seat, the
    /// powers are assigned and the game starts.
    pub fn join(
        &mut self,
        email: &str,
        player: &str,
        password_hash: &str,
        prefer: Vec<String>,
        now: DateTime<Utc>,
    ) -> Result<Joined, GameError> {
        // Carried out again after a crash: answered as done, nothing made twice; if it was
        // the join that started the game, the start's mails go out (they may not have left
        // before the interruption).
        let again = |g: &mut Self| Joined {
            again: false,
            seats_left: g.seats_left().unwrap_or(0),
            started: g.started_by_this_message(),
        };
        self.relocked_once_atomically(again, |g, lock| g.join_locked(lock, email, player, password_hash, prefer, now))
    }

    fn join_locked(
        &mut self,
        lock: &mut crate::store::GameLock,
        email: &str,
        player: &str,
        password_hash: &str,
        prefer: Vec<String>,
        now: DateTime<Utc>,
    ) -> Result<Joined, GameError> {
        let name = self.game.settings.name.clone();
        if !self.game.settings.seats.open {
            return Err(refuse(if self.game.settings.seats.joined.is_empty() && self.entries.len() > 1 {
                format!("{name} has no open seats (its players are named; a vacant power is asked for with `takeover`)")
            } else {
                format!("{name} has no open seats")
            }));
        }
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let mut settings = self.game.settings.clone();
        let again = settings.seats.joined.iter().any(|a| a.email.eq_ignore_ascii_case(email));
        let applicant = Applicant {
            email: email.to_string(),
            password_hash: password_hash.to_string(),
            prefer,
            name: Some(player.to_string()),
        };
        match settings.seats.joined.iter_mut().find(|a| a.email.eq_ignore_ascii_case(email)) {
            Some(known) => *known = applicant.clone(),
            None => settings.seats.joined.push(applicant.clone()),
        }
        let event = SeatEvent::Joined { email: applicant.email.clone(), prefer: applicant.prefer.clone() };
        self.record(lock, now, Entry::Seats { event })?;
        let full = settings.seats.joined.len() >= self.powers_count();
        if !full {
            self.write_seats(lock, now, settings)?;
            return Ok(Joined { again, seats_left: self.seats_left().unwrap_or(0), started: None });
        }
        let started = self.start(lock, settings, now)?;
        Ok(Joined { again, seats_left: 0, started: Some(started) })
    }

    /// The start, when the message being carried out again started the game.
    fn started_by_this_message(&self) -> Option<Started> {
        let tag = self.book.carrying_out()?;
        let mine = || self.book.records().iter().filter(|r| r.msg.as_deref() == Some(tag));
        let (seed, powers) = mine().find_map(|r| match &r.entry {
            Entry::Seats { event: SeatEvent::Assigned { seed, powers, .. } } => Some((seed.clone(), powers.clone())),
            _ => None,
        })?;
        let deadline = mine().find_map(|r| match &r.entry {
            Entry::DeadlineSet { deadline } => Some(*deadline),
            _ => None,
        })?;
        let map = &self.game.map;
        let key_of = |name: &str| map.lookup_power(name).map(|p| map.power(p).key.clone()).unwrap_or_default();
        let examples = powers.iter().map(|(_, power)| self.example_orders(&key_of(power))).collect();
        let commitment = self.seats_commitment().unwrap_or_default();
        Some(Started { powers, deadline, examples, commitment, turn_lines: false, seed: Some(seed) })
    }

    /// Assign the powers to everyone who joined and start the clock.
    fn start(
        &mut self,
        lock: &mut crate::store::GameLock,
        mut settings: Settings,
        now: DateTime<Utc>,
    ) -> Result<Started, GameError> {
        let seed_path = self.dir.path().join(SEED_FILE);
        let file: SeedFile = self.dir.read_side(SEED_FILE)?.ok_or_else(|| {
            GameError::Damaged(format!("{}: the seed of the open seats is missing", seed_path.display()))
        })?;
        let seed =
            Seed::from_hex(&file.seed).map_err(|e| GameError::Damaged(format!("{}: {e}", seed_path.display())))?;
        crate::game::seating::check_commitment(&seed, self.seats_commitment().as_deref())
            .map_err(|e| GameError::Damaged(format!("{}: {e}", self.dir.path().display())))?;
        let map = self.game.map.clone();
        let keys: Vec<String> = map.power_ids().map(|p| map.power(p).key.clone()).collect();
        let players: Vec<(String, Vec<String>)> =
            settings.seats.joined.iter().map(|a| (a.email.clone(), a.prefer.clone())).collect();
        let mut dice = Dice::new(seed.clone(), &settings.name, 0);
        let assigned = seating::assign(&players, &keys, &mut dice);
        let name_of = |key: &str| map.lookup_power(key).map(|p| map.power(p).name.clone()).unwrap_or_default();
        for (email, key) in &assigned {
            let applicant = settings.seats.joined.iter().find(|a| &a.email == email).expect("assigned from joined");
            settings.players.push(Player {
                power: key.clone(),
                name: applicant.name.clone().unwrap_or_else(|| shown_name(email)),
                email: email.clone(),
                timezone: None,
                password_hash: Some(applicant.password_hash.clone()),
                pictures: true,
            });
        }
        settings.seats.open = false;
        settings.seats.joined.clear();
        let powers: Vec<(String, String)> = assigned.iter().map(|(e, k)| (e.clone(), name_of(k))).collect();
        let event = SeatEvent::Assigned { seed: seed.to_hex(), rolls: dice.take_rolls(), powers: powers.clone() };
        self.record(lock, now, Entry::Seats { event })?;
        self.write_seats(lock, now, settings)?;
        let deadline = Some(
            self.game
                .settings
                .deadlines
                .schedule
                .deadline_for(self.game.state.phase.kind, now)
                .map_err(schedule_error)?,
        );
        self.game.state.deadline = deadline;
        self.record(lock, now, Entry::DeadlineSet { deadline })?;
        let examples = assigned.iter().map(|(_, key)| self.example_orders(key)).collect();
        let commitment = self.seats_commitment().unwrap_or_default();
        Ok(Started { powers, deadline, examples, commitment, turn_lines: false, seed: Some(seed.to_hex()) })
    }

    /// `leave` before the start.
    pub fn leave(&mut self, email: &str, now: DateTime<Utc>) -> Result<usize, GameError> {
        self.relocked_once_atomically(|g| g.seats_left().unwrap_or(0), |g, lock| g.leave_locked(lock, email, now))
    }

    fn leave_locked(
        &mut self,
        lock: &mut crate::store::GameLock,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<usize, GameError> {
        let mut settings = self.game.settings.clone();
        if !settings.seats.open {
            return Err(refuse(format!(
                "{} has started: a player leaves a game under way with `resign POWER`",
                settings.name
            )));
        }
        if !settings.seats.joined.iter().any(|a| a.email.eq_ignore_ascii_case(email)) {
            return Err(refuse(format!("{email} has not joined {}", settings.name)));
        }
        settings.seats.joined.retain(|a| !a.email.eq_ignore_ascii_case(email));
        self.record(lock, now, Entry::Seats { event: SeatEvent::Left { email: email.to_string() } })?;
        self.write_seats(lock, now, settings)?;
        Ok(self.seats_left().unwrap_or(0))
    }

    /// `resign`: the power's player leaves it; it is vacant (its units hold, civil
    /// disorder in Winter) until someone takes it over. The address it had.
    pub fn resign(&mut self, power_key: &str, now: DateTime<Utc>) -> Result<String, GameError> {
        let label = self.power_label(power_key);
        self.resign_seat(power_key, &label, now)
    }

    /// Orders a power might send first, from its own units: on each board (Shadow Worlds:
    /// under its `Board A` heading), the first unit moves to an empty neighbour and the
    /// next holds.
    pub fn example_orders(&self, power_key: &str) -> String {
        let map = &self.game.map;
        let Some(power) = map.lookup_power(power_key) else { return String::new() };
        let boards = &self.game.state.boards;
        let mut out = Vec::new();
        for (b, board) in boards.iter().enumerate() {
            if boards.len() > 1 {
                out.push(format!("Board {}", (b'A' + b as u8) as char));
            }
            let own: Vec<_> = board.units.iter().filter(|u| u.power == power).take(2).collect();
            for (i, unit) in own.iter().enumerate() {
                let taken = |r: crate::diplomacy::map::RegionId| {
                    let province = map.region(r).province;
                    board.units.iter().any(|u| map.region(u.region).province == province)
                };
                let to = map.neighbours(unit.kind, unit.region).find(|r| !taken(*r));
                out.push(match (i, to) {
                    (0, Some(to)) => format!("{} - {}", unit.describe(map), map.region_name(to)),
                    _ => format!("{} H", unit.describe(map)),
                });
            }
        }
        out.join("\n")
    }

    fn power_label(&self, key: &str) -> String {
        let map = &self.game.map;
        map.lookup_power(key).map(|p| map.power(p).name.clone()).unwrap_or_else(|| key.to_string())
    }

    /// `takeover`: ask for a vacant power. Whether it went through at once (the game's
    /// `takeover = "at_once"`), else it waits for the master's `approve`.
    pub fn ask_takeover(
        &mut self,
        power_key: &str,
        email: &str,
        name: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, GameError> {
        let label = self.power_label(power_key);
        self.take_over_seat(power_key, &label, "power", email, Some(name), password_hash, now)
    }

    /// `approve`: the master gives a vacant power to the one who asked for it (the latest
    /// ask). The new player's address.
    pub fn approve(&mut self, power_key: &str, now: DateTime<Utc>) -> Result<String, GameError> {
        let label = self.power_label(power_key);
        self.approve_seat(power_key, &label, now)
    }

    /// Check the assignment of powers against the journal: the seed against the
    /// commitment, every roll, and the powers redone from the joins. `None`: the game
    /// assigned no powers; else the number of rolls checked, or what differs.
    pub fn verify_seats(&self) -> Option<Result<usize, String>> {
        let mut commitment = None;
        let mut joined: Vec<(String, Vec<String>)> = Vec::new();
        for e in &self.entries {
            let Entry::Seats { event } = e else { continue };
            match event {
                SeatEvent::Opened { commitment: c } => commitment = Some(c.clone()),
                SeatEvent::Joined { email, prefer } => match joined.iter_mut().find(|(e, _)| e == email) {
                    Some(known) => known.1 = prefer.clone(),
                    None => joined.push((email.clone(), prefer.clone())),
                },
                SeatEvent::Left { email } => joined.retain(|(e, _)| e != email),
                SeatEvent::Assigned { seed, rolls, powers } => {
                    return Some(self.check_assignment(commitment.as_deref(), &joined, seed, rolls, powers));
                }
                _ => {}
            }
        }
        None
    }

    fn check_assignment(
        &self,
        commitment: Option<&str>,
        joined: &[(String, Vec<String>)],
        seed: &str,
        rolls: &[crate::dice::Roll],
        powers: &[(String, String)],
    ) -> Result<usize, String> {
        let commitment = commitment.ok_or("the journal has no commitment for the assignment's seed")?;
        let seed = Seed::from_hex(seed).map_err(|e| e.to_string())?;
        let name = &self.game.settings.name;
        let checked = crate::dice::verify(&seed, commitment, name, rolls).map_err(|e| e.to_string())?;
        let map = &self.game.map;
        let keys: Vec<String> = map.power_ids().map(|p| map.power(p).key.clone()).collect();
        let mut dice = Dice::new(seed, name, 0);
        let redone: Vec<(String, String)> = seating::assign(joined, &keys, &mut dice)
            .into_iter()
            .map(|(e, k)| (e, map.lookup_power(&k).map(|p| map.power(p).name.clone()).unwrap_or(k)))
            .collect();
        if redone != powers {
            return Err("the powers assigned are not the ones the seed and the joins give".into());
        }
        Ok(checked)
    }
}

/// A Diplomacy game's seats for the rules of a change of player: a seat is a power (by
/// its key), played while `players` has an entry for it.
impl SeatTable for Settings {
    fn seating(&mut self) -> &mut Seating {
        &mut self.seats
    }

    fn has_player(&self, seat: &str) -> bool {
        self.players.iter().any(|p| p.power == seat)
    }

    fn plays(&self, email: &str) -> bool {
        self.players.iter().any(|p| p.email.eq_ignore_ascii_case(email))
    }

    fn give(&mut self, seat: &str, email: &str, name: Option<&str>, password_hash: &str) {
        self.players.push(Player {
            power: seat.to_string(),
            name: name.map_or_else(|| shown_name(email), str::to_string),
            email: email.to_string(),
            timezone: None,
            password_hash: Some(password_hash.to_string()),
            pictures: true,
        });
    }

    fn vacate(&mut self, seat: &str) -> Option<String> {
        let at = self.players.iter().position(|p| p.power == seat)?;
        Some(self.players.remove(at).email)
    }

    fn watchers(&mut self) -> (&mut Vec<String>, &mut ObserverPasswords, &mut Vec<PendingObserver>) {
        (&mut self.observers, &mut self.observer_passwords, &mut self.seats.observing)
    }
}
