//! The seats of a small game as mail changes them (see [`crate::game::seating`]).
//!
//! A game made with open seats ([`create_open`]) is a directory with its game.toml
//! (`[seats] open`, the number of seats, the rules options, who has joined) and its dice
//! seed, whose commitment is published at once; its journal is empty until the last seat
//! is filled. Then the players are seated in the order they joined, each named by their
//! address (the part before the `@`), and the game begins as if the master had named them
//! ([`Lobby::join`]). The last join is kept in game.toml first, then the game's first entry
//! is journaled, then game.toml says it began: a start cut short by a crash loses no join
//! and is finished by the next open (or by that join, carried out again).
//!
//! Once the game runs, a player may `resign`: the seat is vacant (nobody signs on with
//! it, nobody is mailed for it) and plays the deadline defaults until someone takes it
//! over (`takeover`, then the master's `approve`, or at once with `takeover =
//! "at_once"`). Each change after the start is a journal entry (`TurnEntry::Seats`),
//! made before game.toml is written; no rollback undoes it.

use chrono::{DateTime, Utc};

use super::{create::begin, OpenTurnGame, SeedFile, TurnEntry, TurnPlayer, TurnSettings, SEED_FILE};
use crate::dice::Seed;
use crate::game::error::GameError;
use crate::game::seating::{
    self, Applicant, ObserveStep, Observed, ObserverPasswords, PendingObserver, SeatEvent, SeatTable, Seating,
};
use crate::games::{self, Options};
use crate::store::{Book, GameDir, GameLock};

fn refuse(text: impl Into<String>) -> GameError {
    GameError::Invalid(text.into())
}

/// A small game waiting for its players: no journal yet, only its settings and seed.
#[derive(Debug)]
pub struct Lobby {
    pub dir: GameDir,
    pub settings: TurnSettings,
    /// The commitment of the seed the game's dice will roll with.
    pub commitment: String,
    /// Repairs the store made on opening.
    pub notes: Vec<String>,
    /// The inbound message item being carried out (the game it begins is tagged with it).
    pub carrying_out: Option<String>,
}

/// The seats' places when the last is filled: the players in the order they joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seated {
    /// (address, seat name).
    pub seats: Vec<(String, String)>,
    pub deadline: Option<DateTime<Utc>>,
    pub commitment: String,
}

/// What a join did.
#[derive(Debug)]
pub enum JoinDone {
    /// Still waiting: whether the address had joined before, the seats left.
    Waiting { again: bool, seats_left: usize },
    /// That was the last seat: the game began.
    Began { again: bool, game: Box<OpenTurnGame>, seated: Seated },
}

/// Whether the small game at `path` waits for players (its seats are open).
pub fn is_open(settings: &TurnSettings) -> bool {
    settings.seats.open
}

/// A seat name from an address: the letters, digits, `-` and `_` before the `@`, not one
/// already `taken` (a number is added) nor a word the judge keeps.
pub fn seat_name(email: &str, taken: &[String]) -> String {
    let local = email.split('@').next().unwrap_or("");
    let mut base: String =
        local.chars().filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_').take(24).collect::<String>();
    base = base.to_lowercase();
    if !super::plausible_player_name(&base) {
        base = format!("player{base}");
    }
    let free = |n: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    if free(&base) {
        return base;
    }
    (2..).map(|i| format!("{base}{i}")).find(|n| free(n)).expect("some number is free")
}

/// Create a small game of `settings.game` whose `size` seats are filled by `join`. The
/// options and the number of seats are checked now, as the game would check them.
pub fn create_open(
    path: &std::path::Path,
    mut settings: TurnSettings,
    size: usize,
    options: &Options,
    seed: Seed,
) -> Result<Lobby, GameError> {
    if !games::is_known(&settings.game) {
        return Err(refuse(format!("unknown game `{}`: the judge runs {}", settings.game, games::names())));
    }
    settings.deadlines.check().map_err(|e| refuse(format!("[deadlines]: {e}")))?;
    // Stand-in names: the game says what it thinks of the number of seats and the options.
    let names: Vec<String> = (1..=size).map(|i| format!("p{i}")).collect();
    super::create::trial_setup(&settings, names, options).map_err(|e| refuse(format!("{size} seats: {e}")))?;
    settings.players.clear();
    settings.seats.open = true;
    settings.seats.size = Some(size);
    settings.seats.options = options.clone();
    let commitment = seed.commitment();
    settings.seats.commitment = Some(commitment.clone());
    let dir = GameDir::create(path, &settings)?;
    let lock = dir.lock()?;
    lock.write_private_side(SEED_FILE, &SeedFile { seed: seed.to_hex() })?;
    drop(lock);
    Ok(Lobby { dir, settings, commitment, notes: Vec::new(), carrying_out: None })
}

/// The settings of an open game whose seats are all taken, as it begins: everyone who
/// joined, seated in the order they joined and named by their address; and the rules
/// options it was opened with.
pub fn seated(mut settings: TurnSettings) -> (TurnSettings, Options) {
    let mut names: Vec<String> = Vec::new();
    for a in &settings.seats.joined {
        let name = seat_name(&a.email, &names);
        names.push(name.clone());
        settings.players.push(TurnPlayer {
            name,
            email: a.email.clone(),
            timezone: None,
            password_hash: Some(a.password_hash.clone()),
            reports: None,
        });
    }
    let options = std::mem::take(&mut settings.seats.options);
    settings.seats.open = false;
    settings.seats.size = None;
    settings.seats.joined.clear();
    settings.seats.commitment = None;
    (settings, options)
}

impl Lobby {
    /// Open a small game that waits for players (`None`: it does not wait).
    pub fn open(path: &std::path::Path, write: bool) -> Result<Option<Lobby>, GameError> {
        let dir = if write { GameDir::open(path)? } else { GameDir::open_for_reading(path)? };
        let notes = dir.recovered().iter().map(|r| r.to_string()).collect();
        let settings: TurnSettings = dir.read_settings()?;
        if !is_open(&settings) {
            return Ok(None);
        }
        if Book::<TurnEntry>::read(dir.clone())?.last_seq() > 0 {
            // The last join began the game, which was cut short before game.toml said so:
            // finish writing it (the game's own open reads it seated meanwhile).
            if write {
                let mut lock = dir.lock()?;
                let settings: TurnSettings = dir.read_settings()?;
                if is_open(&settings) && Book::<TurnEntry>::read(dir.clone())?.last_seq() > 0 {
                    lock.write_settings(&seated(settings).0)?;
                }
            }
            return Ok(None);
        }
        let commitment = match settings.seats.commitment.clone() {
            Some(published) => published,
            None => read_seed(&dir)?.commitment(),
        };
        Ok(Some(Lobby { dir, commitment, settings, notes, carrying_out: None }))
    }

    /// The number of seats.
    pub fn size(&self) -> usize {
        self.settings.seats.size.unwrap_or(0)
    }

    pub fn seats_left(&self) -> usize {
        self.size().saturating_sub(self.settings.seats.joined.len())
    }

    /// Read the settings again under the lock (another message may have joined since).
    fn relock(&mut self) -> Result<GameLock, GameError> {
        let lock = self.dir.lock()?;
        self.settings = self.dir.read_settings()?;
        if !is_open(&self.settings) {
            return Err(refuse(format!("{} has started: its seats are no longer open", self.settings.name)));
        }
        Ok(lock)
    }

    /// `join`: take a seat; the last one begins the game. The last join, the game's first
    /// entries and the game.toml that says it began are one change ([`GameLock::stage`]):
    /// a start cut short is finished by the next lock, never half made.
    pub fn join(&mut self, email: &str, password_hash: &str, now: DateTime<Utc>) -> Result<JoinDone, GameError> {
        let mut lock = self.relock()?;
        let mut settings = self.settings.clone();
        let joined = &mut settings.seats.joined;
        let again = joined.iter().any(|a| a.email.eq_ignore_ascii_case(email));
        if !again && joined.len() >= self.size() {
            return Err(refuse(format!("all {} seats of {} are taken", self.size(), self.settings.name)));
        }
        let applicant = Applicant {
            email: email.to_string(),
            password_hash: password_hash.to_string(),
            prefer: Vec::new(),
            name: None,
        };
        match joined.iter_mut().find(|a| a.email.eq_ignore_ascii_case(email)) {
            Some(known) => *known = applicant,
            None => joined.push(applicant),
        }
        let full = joined.len() >= self.size();
        if !full {
            lock.write_settings(&settings)?;
            self.settings = settings;
            return Ok(JoinDone::Waiting { again, seats_left: self.seats_left() });
        }
        lock.stage();
        let began = self.begin(&mut lock, settings, now);
        let (mut game, seated) = match began {
            Ok(began) => began,
            Err(e) => {
                lock.discard();
                return Err(e);
            }
        };
        game.commit(&mut lock)?;
        Ok(JoinDone::Began { again, game: Box::new(game), seated })
    }

    /// Seat everyone who joined, in the order they joined, and begin the game (staged
    /// under `lock`, for the caller to commit).
    fn begin(
        &mut self,
        lock: &mut GameLock,
        settings: TurnSettings,
        now: DateTime<Utc>,
    ) -> Result<(OpenTurnGame, Seated), GameError> {
        let seed = read_seed(&self.dir)?;
        crate::game::seating::check_commitment(&seed, settings.seats.commitment.as_deref())
            .map_err(|e| GameError::Damaged(format!("{}: {e}", self.dir.path().display())))?;
        let (settings, options) = seated(settings);
        let seats: Vec<(String, String)> = settings.players.iter().map(|p| (p.email.clone(), p.name.clone())).collect();
        // Still under the lock that saw the last seat taken: no other join gets in, and the
        // journal read now is the one on disk. The game's entries are tagged with the
        // message that began it, so that message carried out again says so.
        let mut book = Book::read(self.dir.clone())?;
        book.carry_out(self.carrying_out.clone());
        let mut game = begin(self.dir.clone(), book, lock, &settings, &options, seed.clone(), now)?;
        let event = SeatEvent::Seated { seats: seats.iter().map(|(e, n)| (n.clone(), e.clone())).collect() };
        game.record(lock, now, TurnEntry::Seats { event })?;
        self.settings = settings;
        let deadline = game.meta.deadline;
        Ok((game, Seated { seats, deadline, commitment: seed.commitment() }))
    }

    /// `leave` before the start: the seats left.
    pub fn leave(&mut self, email: &str) -> Result<usize, GameError> {
        let mut lock = self.relock()?;
        let mut settings = self.settings.clone();
        if !settings.seats.joined.iter().any(|a| a.email.eq_ignore_ascii_case(email)) {
            return Err(refuse(format!("{email} has not joined {}", settings.name)));
        }
        settings.seats.joined.retain(|a| !a.email.eq_ignore_ascii_case(email));
        lock.write_settings(&settings)?;
        self.settings = settings;
        Ok(self.seats_left())
    }

    /// `observe`, with the hash of the password it brought: whether the address was new,
    /// and what became of the password.
    pub fn observe(
        &mut self,
        email: &str,
        password_hash: Option<&str>,
        step: ObserveStep<'_>,
    ) -> Result<Observed, GameError> {
        let mut lock = self.relock()?;
        let mut settings = self.settings.clone();
        let s = &mut settings;
        let observed = seating::observe(
            &mut s.observers,
            &mut s.observer_passwords,
            &mut s.seats.observing,
            email,
            password_hash,
            step,
        )
        .map_err(refuse)?;
        if settings != self.settings {
            lock.write_settings(&settings)?;
            self.settings = settings;
        }
        Ok(observed)
    }

    /// Change game.toml under the lock (the master's particulars, an observer's).
    pub fn update_settings(
        &mut self,
        change: impl FnOnce(&mut TurnSettings) -> Result<(), GameError>,
    ) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        let mut settings = self.settings.clone();
        change(&mut settings)?;
        if settings != self.settings {
            lock.write_settings(&settings)?;
            self.settings = settings;
        }
        Ok(())
    }

    /// The password hash an address joined with.
    pub fn joined_hash(&self, email: &str) -> Option<String> {
        let joined = &self.settings.seats.joined;
        joined.iter().find(|a| a.email.eq_ignore_ascii_case(email)).map(|a| a.password_hash.clone())
    }
}

fn read_seed(dir: &GameDir) -> Result<Seed, GameError> {
    let path = dir.path().join(SEED_FILE);
    let file: SeedFile = dir
        .read_side(SEED_FILE)?
        .ok_or_else(|| GameError::Damaged(format!("{}: the dice's seed file is missing", path.display())))?;
    Seed::from_hex(&file.seed).map_err(|e| GameError::Damaged(format!("{}: {e}", path.display())))
}

impl OpenTurnGame {
    /// When the message being carried out is the join that began this game, carried out
    /// again after an interruption: the seats as it filled them and the first deadline,
    /// for its answer and the start's mails.
    pub fn seated_by_this_message(&self) -> Option<Seated> {
        if !self.book.done_before() {
            return None;
        }
        let tag = self.book.carrying_out()?;
        let mine = || self.book.records().iter().filter(|r| r.msg.as_deref() == Some(tag));
        let seats = mine().find_map(|r| match &r.entry {
            TurnEntry::Seats { event: SeatEvent::Seated { seats } } => {
                Some(seats.iter().map(|(n, e)| (e.clone(), n.clone())).collect::<Vec<_>>())
            }
            _ => None,
        })?;
        let (deadline, commitment) = mine().find_map(|r| match &r.entry {
            TurnEntry::Created { step, commitment, .. } => Some((step.deadline, commitment.clone())),
            _ => None,
        })?;
        Some(Seated { seats, deadline, commitment })
    }

    /// The seat named `who` (any case): its index in game.toml.
    fn seat_at(&self, who: &str) -> Result<usize, GameError> {
        self.settings.players.iter().position(|p| p.name.eq_ignore_ascii_case(who.trim())).ok_or_else(|| {
            refuse(format!(
                "no player `{}`; the players are {}",
                crate::text::header_safe(who, 40),
                self.player_names().join(", ")
            ))
        })
    }

    /// Whether the seat named `name` is vacant (its player resigned).
    pub fn is_vacant(&self, name: &str) -> bool {
        self.settings.seats.vacant.iter().any(|v| v.eq_ignore_ascii_case(name))
    }

    /// `resign`: the seat is vacant until someone takes it over. (seat, address it had)
    pub fn resign(&mut self, who: &str, now: DateTime<Utc>) -> Result<(String, String), GameError> {
        let name = self.settings.players[self.seat_at(who)?].name.clone();
        let email = self.resign_seat(&name, &name, now)?;
        Ok((name, email))
    }

    /// `takeover`: ask for a vacant seat; whether it went through at once.
    pub fn ask_takeover(
        &mut self,
        who: &str,
        email: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<(String, bool), GameError> {
        let name = self.settings.players[self.seat_at(who)?].name.clone();
        let at_once = self.take_over_seat(&name, &name, "seat", email, None, password_hash, now)?;
        Ok((name, at_once))
    }

    /// `approve`: the master gives a vacant seat to whoever asked for it last. (seat,
    /// the new player's address)
    pub fn approve(&mut self, who: &str, now: DateTime<Utc>) -> Result<(String, String), GameError> {
        let name = self.settings.players[self.seat_at(who)?].name.clone();
        let email = self.approve_seat(&name, &name, now)?;
        Ok((name, email))
    }
}

/// A small game's seats for the rules of a change of player: a seat is named by its
/// player's name, and stays in `players` while vacant.
impl SeatTable for TurnSettings {
    fn seating(&mut self) -> &mut Seating {
        &mut self.seats
    }

    fn has_player(&self, seat: &str) -> bool {
        !self.seats.vacant.iter().any(|v| v.eq_ignore_ascii_case(seat))
    }

    fn plays(&self, email: &str) -> bool {
        self.players.iter().any(|p| p.email.eq_ignore_ascii_case(email) && self.has_player(&p.name))
    }

    fn give(&mut self, seat: &str, email: &str, _name: Option<&str>, password_hash: &str) {
        if let Some(p) = self.players.iter_mut().find(|p| p.name.eq_ignore_ascii_case(seat)) {
            p.email = email.to_string();
            p.password_hash = Some(password_hash.to_string());
            p.timezone = None;
        }
        self.seats.vacant.retain(|v| !v.eq_ignore_ascii_case(seat));
    }

    /// The seat stays in `players` with its address, named vacant; its password goes.
    fn vacate(&mut self, seat: &str) -> Option<String> {
        if !self.has_player(seat) {
            return None;
        }
        let p = self.players.iter_mut().find(|p| p.name.eq_ignore_ascii_case(seat))?;
        p.password_hash = None;
        let email = p.email.clone();
        self.seats.vacant.push(p.name.clone());
        Some(email)
    }

    fn watchers(&mut self) -> (&mut Vec<String>, &mut ObserverPasswords, &mut Vec<PendingObserver>) {
        (&mut self.observers, &mut self.observer_passwords, &mut self.seats.observing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::game::settings::Master;
    use crate::store::JOURNAL_FILE;

    fn at(minute: i64) -> DateTime<Utc> {
        chrono::DateTime::from_timestamp(1_800_000_000 + minute * 60, 0).unwrap()
    }

    /// An open game of Pebbles (the toy game) for three, with a pile of 7; ann and bob
    /// have joined. Its path.
    fn lobby_of_two(root: &std::path::Path) -> std::path::PathBuf {
        let path = root.join("toy");
        let settings = TurnSettings {
            name: "toy".into(),
            game: "pebbles".into(),
            observers: Vec::new(),
            observer_passwords: Default::default(),
            deadlines: Default::default(),
            players: Vec::new(),
            master: Master::default(),
            word_list: None,
            seats: Default::default(),
        };
        let options = Options::from([("pile".to_string(), "7".to_string())]);
        let mut lobby = create_open(&path, settings, 3, &options, Seed::from_bytes([3; 32])).unwrap();
        for (n, who) in ["ann", "bob"].iter().enumerate() {
            let done = lobby.join(&format!("{who}@example.org"), "hash", at(n as i64)).unwrap();
            assert!(matches!(done, JoinDone::Waiting { .. }));
        }
        path
    }

    /// Write game.toml as the last join keeps it before the game begins: cat has joined.
    fn cat_joined(path: &std::path::Path) {
        let dir = GameDir::open(path).unwrap();
        let mut lock = dir.lock().unwrap();
        let mut settings: TurnSettings = dir.read_settings().unwrap();
        assert!(is_open(&settings));
        settings.seats.joined.push(Applicant {
            email: "cat@example.org".into(),
            password_hash: "hash".into(),
            prefer: Vec::new(),
            name: None,
        });
        lock.write_settings(&settings).unwrap();
    }

    #[test]
    fn a_start_cut_short_after_its_first_entry_is_finished_by_the_next_open() {
        let tmp = tempfile::tempdir().unwrap();
        let path = lobby_of_two(tmp.path());
        let before = std::fs::read(path.join(crate::store::SETTINGS_FILE)).unwrap();
        let mut lobby = Lobby::open(&path, true).unwrap().unwrap();
        assert!(matches!(lobby.join("cat@example.org", "hash", at(5)).unwrap(), JoinDone::Began { .. }));
        // As a crash would leave it: the first entry journaled, game.toml still the lobby's
        // with everyone joined.
        let journal = std::fs::read_to_string(path.join(JOURNAL_FILE)).unwrap();
        std::fs::write(path.join(JOURNAL_FILE), format!("{}\n", journal.lines().next().unwrap())).unwrap();
        let _ = std::fs::remove_file(path.join(crate::store::STATE_FILE));
        std::fs::write(path.join(crate::store::SETTINGS_FILE), before).unwrap();
        cat_joined(&path);

        // Read only: the game as it began, game.toml untouched.
        let g = super::super::open_read_only(&path).unwrap();
        let players: Vec<&str> = g.settings.players.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(players, ["ann", "bob", "cat"]);
        assert!(is_open(&g.dir.read_settings::<TurnSettings>().unwrap()));
        // Opened to write: game.toml is finished, and the options are the lobby's.
        assert!(Lobby::open(&path, true).unwrap().is_none());
        let settings: TurnSettings = g.dir.read_settings().unwrap();
        assert!(!is_open(&settings));
        assert_eq!(settings.players.len(), 3);
        let g = super::super::open(&path).unwrap();
        match &g.entries[0].2 {
            TurnEntry::Created { options, players, .. } => {
                assert_eq!(options.get("pile").map(String::as_str), Some("7"));
                assert_eq!(players, &["ann", "bob", "cat"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_start_cut_short_before_its_first_entry_begins_with_the_last_join_again() {
        let tmp = tempfile::tempdir().unwrap();
        let path = lobby_of_two(tmp.path());
        // As a crash would leave it: cat's join kept, nothing journaled.
        cat_joined(&path);
        let mut lobby = Lobby::open(&path, true).unwrap().expect("still waiting");
        assert_eq!(lobby.seats_left(), 0);
        let late = lobby.join("dan@example.org", "hash", at(6)).unwrap_err();
        assert!(late.to_string().contains("all 3 seats of toy are taken"), "{late}");
        // Cat's message, carried out again, begins the game with the three who joined.
        match lobby.join("cat@example.org", "hash", at(7)).unwrap() {
            JoinDone::Began { again, seated, .. } => {
                assert!(again);
                let names: Vec<&str> = seated.seats.iter().map(|(_, n)| n.as_str()).collect();
                assert_eq!(names, ["ann", "bob", "cat"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_seat_is_named_by_the_address_and_never_twice() {
        assert_eq!(seat_name("Ann.Lee@example.org", &[]), "annlee");
        assert_eq!(seat_name("ann@example.org", &["Ann".into()]), "ann2");
        assert_eq!(seat_name("master@example.org", &[]), "playermaster");
        assert_eq!(seat_name("@x", &[]), "player");
        // Issue 42.8: no seat takes a role's name (it would capture the role's sign-on).
        assert_eq!(seat_name("observer@example.org", &[]), "playerobserver");
        assert_eq!(seat_name("Obs@example.org", &[]), "playerobs");
        assert_eq!(seat_name("o@example.org", &[]), "playero");
        assert_eq!(seat_name("gm@example.org", &[]), "playergm");
        assert!(!crate::game::session::turn::plausible_player_name("Observer"));
    }
}
