//! What every game does with its seats once it runs, over any [`Seated`] kind: game.toml
//! changed with each particular journaled, observers, a resignation, a takeover asked for,
//! the master's approval (their rules are [`crate::game::seating`]'s).
//!
//! Each is one change under the lock: its `Seats` entry first, then an entry for each
//! particular it changes, then game.toml. No rollback undoes any of it. A message carried
//! out again after an interruption is answered from what it left in the journal the
//! first time, and nothing is done twice (the store refuses a second entry for it).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Kind, Session};
use crate::game::error::GameError;
use crate::game::seating::{self, ObserveStep, Observed, SeatEvent, SeatTable, Takeover};
use crate::store::GameLock;

fn refuse(text: impl Into<String>) -> GameError {
    GameError::Invalid(text.into())
}

/// A kind whose settings (game.toml) hold its seats and their particulars.
pub trait Seated: Kind {
    /// game.toml.
    type Settings: Clone + PartialEq + Serialize + SeatTable;

    fn settings(&self) -> &Self::Settings;

    fn set_settings(&mut self, settings: Self::Settings);

    /// The game's name, in refusals.
    fn name(&self) -> &str;

    /// Whether the game is over (its seats change no more).
    fn is_over(&self) -> bool;

    /// The entries that record how `new` changes the particulars of the seats, the master
    /// and the observers (address, time zone, password as a fingerprint).
    fn particulars_entries(&self, new: &Self::Settings) -> Vec<Self::Entry>;

    /// The entry that journals a change of seats.
    fn seats_entry(event: SeatEvent) -> Self::Entry;

    /// The change of seats an entry journals, if it is one.
    fn seat_event(entry: &Self::Entry) -> Option<&SeatEvent>;

    /// After `seat` changed player (a resignation, a takeover), under the same lock: what
    /// follows in the game (Diplomacy: the votes its player had cast are withdrawn).
    /// Nothing, by default.
    fn seat_changed(
        _g: &mut Session<Self>,
        _lock: &mut GameLock,
        _seat: &str,
        _now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        Ok(())
    }
}

impl<K: Seated> Session<K> {
    /// Write `settings` under the held lock, journaling first each particular it changes.
    pub(crate) fn write_seats(
        &mut self,
        lock: &mut GameLock,
        now: DateTime<Utc>,
        settings: K::Settings,
    ) -> Result<(), GameError> {
        for entry in self.kept.particulars_entries(&settings) {
            self.record(lock, now, entry)?;
        }
        lock.write_settings(&settings)?;
        self.kept.set_settings(settings);
        Ok(())
    }

    /// Journal `event`, then write `settings` as [`write_seats`](Self::write_seats) does.
    pub(crate) fn change_seats(
        &mut self,
        lock: &mut GameLock,
        now: DateTime<Utc>,
        event: SeatEvent,
        settings: K::Settings,
    ) -> Result<(), GameError> {
        self.record(lock, now, K::seats_entry(event))?;
        self.write_seats(lock, now, settings)
    }

    /// What the message being carried out did to the seats before an interruption, as
    /// `find` picks it from the entries it left (its answer is given again from them).
    pub(crate) fn seats_left_before<T>(&self, find: impl Fn(&SeatEvent) -> Option<T>) -> Option<T> {
        let tag = self.book.carrying_out()?;
        self.book
            .records()
            .iter()
            .filter(|r| r.msg.as_deref() == Some(tag))
            .find_map(|r| find(K::seat_event(&r.entry)?))
    }

    /// Change game.toml under the lock (passwords, addresses, time zones, options), each
    /// particular it changes journaled before it is written, then `after` under the same
    /// lock (what follows from the new settings, journaled with them).
    pub fn update_settings_then<T>(
        &mut self,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut K::Settings) -> Result<T, GameError>,
        after: impl FnOnce(&mut Self, &mut GameLock) -> Result<(), GameError>,
    ) -> Result<T, GameError> {
        self.relocked_atomically(|g, lock| {
            let mut settings = g.kept.settings().clone();
            let out = change(&mut settings)?;
            if settings != *g.kept.settings() {
                g.write_seats(lock, now, settings)?;
            }
            after(g, lock)?;
            Ok(out)
        })
    }

    /// [`update_settings_then`](Self::update_settings_then) with nothing after.
    pub fn update_settings<T>(
        &mut self,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut K::Settings) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        self.update_settings_then(now, change, |_, _| Ok(()))
    }

    /// `observe`, with the hash of the password it brought: whether the address was new,
    /// and what became of the password.
    pub fn observe(
        &mut self,
        email: &str,
        password_hash: Option<&str>,
        step: ObserveStep<'_>,
        now: DateTime<Utc>,
    ) -> Result<Observed, GameError> {
        self.relocked_atomically(|g, lock| {
            let mut settings = g.kept.settings().clone();
            let (observers, passwords, pending) = settings.watchers();
            let observed =
                seating::observe(observers, passwords, pending, email, password_hash, step).map_err(refuse)?;
            if settings == *g.kept.settings() {
                return Ok(observed);
            }
            // Carried out again, the address observes already: nothing changed, above.
            if matches!(observed, Observed::Observing { new: true, .. }) {
                g.record(lock, now, K::seats_entry(SeatEvent::Observer { email: email.to_string() }))?;
            }
            g.write_seats(lock, now, settings)?;
            Ok(observed)
        })
    }

    /// `resign`: `seat`'s player leaves it (`label`: the seat as told, `France`); it is
    /// vacant until someone takes it over. The address it had.
    pub(crate) fn resign_seat(&mut self, seat: &str, label: &str, now: DateTime<Utc>) -> Result<String, GameError> {
        self.relocked_atomically(|g, lock| {
            if g.kept.is_over() {
                return Err(GameError::Over);
            }
            let again = g.seats_left_before(|e| match e {
                SeatEvent::Resigned { email, .. } => Some(email.clone()),
                _ => None,
            });
            if let Some(email) = again {
                return Ok(email);
            }
            let mut settings = g.kept.settings().clone();
            let email = settings.vacate(seat).ok_or_else(|| refuse(format!("{label} is already vacant")))?;
            let event = SeatEvent::Resigned { power: label.to_string(), email: email.clone() };
            g.change_seats(lock, now, event, settings)?;
            K::seat_changed(g, lock, seat, now)?;
            Ok(email)
        })
    }

    /// `takeover`: `email` asks for the vacant `seat` (`noun`: what the game's seats are,
    /// `power` or `seat`). Whether it went through at once (`takeover = "at_once"`), else
    /// it waits for the master's `approve`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn take_over_seat(
        &mut self,
        seat: &str,
        label: &str,
        noun: &str,
        email: &str,
        name: Option<&str>,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, GameError> {
        // Carried out again after an interruption: answered as then.
        let again = |g: &mut Self| g.kept.settings().clone().seating().takeover == Takeover::AtOnce;
        self.relocked_once_atomically(again, |g, lock| {
            if g.kept.is_over() {
                return Err(GameError::Over);
            }
            let mut settings = g.kept.settings().clone();
            let game = g.kept.name().to_string();
            if settings.seating().open {
                return Err(refuse(format!("{game} has not started: `join {game} PASSWORD` takes a seat")));
            }
            seating::may_take_over(&settings, seat, label, noun, email, &game).map_err(refuse)?;
            let (event, at_once) = seating::take_over(&mut settings, seat, label, email, name, password_hash);
            g.change_seats(lock, now, event, settings)?;
            if at_once {
                K::seat_changed(g, lock, seat, now)?;
            }
            Ok(at_once)
        })
    }

    /// `approve`: the master gives the vacant `seat` to whoever asked for it last. The new
    /// player's address.
    pub(crate) fn approve_seat(&mut self, seat: &str, label: &str, now: DateTime<Utc>) -> Result<String, GameError> {
        self.relocked_atomically(|g, lock| {
            let again = g.seats_left_before(|e| match e {
                SeatEvent::TakenOver { email, .. } => Some(email.clone()),
                _ => None,
            });
            if let Some(email) = again {
                return Ok(email);
            }
            let mut settings = g.kept.settings().clone();
            let (event, email) = seating::approve(&mut settings, seat, label).map_err(refuse)?;
            g.change_seats(lock, now, event, settings)?;
            K::seat_changed(g, lock, seat, now)?;
            Ok(email)
        })
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::diplomacy::state::GameState;
    use crate::game::session::diplomacy::{self, OpenGame};
    use crate::game::settings::{Player, Settings, VariantKind};

    fn at(minute: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2027, 1, 1, 12, 0, 0).unwrap() + chrono::Duration::minutes(minute)
    }

    /// A standard game with France and England played, vacant seats taken over at once.
    fn game(dir: &std::path::Path) -> OpenGame {
        let mut settings = Settings::new("seats", VariantKind::Standard);
        settings.seats.takeover = Takeover::AtOnce;
        for (power, who) in [("france", "ann"), ("england", "bob")] {
            settings.players.push(Player {
                power: power.into(),
                name: who.into(),
                email: format!("{who}@example.org"),
                timezone: None,
                password_hash: Some("hash".into()),
                pictures: true,
            });
        }
        let map = crate::diplomacy::map::cache::standard();
        diplomacy::create(dir, &settings, GameState::start(&map, 1), at(0)).expect("a standard game")
    }

    #[test]
    fn a_resignation_and_a_takeover_carried_out_again_are_answered_as_the_first_time_and_kept_once() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut g = game(&dir);
        g.carry_out(Some("m1".into()));
        assert_eq!(g.resign("france", at(1)).unwrap(), "ann@example.org");
        g.carry_out(Some("m2".into()));
        assert!(g.ask_takeover("france", "cy@example.org", "Cy", "h2", at(2)).unwrap(), "taken over at once");
        let kept = g.entries.len();

        let mut again = diplomacy::open(&dir).unwrap();
        again.carry_out(Some("m1".into()));
        assert_eq!(again.resign("france", at(3)).unwrap(), "ann@example.org", "the resignation, answered again");
        again.carry_out(Some("m2".into()));
        assert!(again.ask_takeover("france", "cy@example.org", "Cy", "h2", at(4)).unwrap(), "the takeover, again");
        assert_eq!(again.entries.len(), kept, "nothing journaled twice");
        assert_eq!(again.game.settings.players.iter().filter(|p| p.power == "france").count(), 1);

        // A new message is checked as ever: France has a player now.
        again.carry_out(Some("m3".into()));
        let err = again.ask_takeover("france", "dee@example.org", "Dee", "h3", at(5)).unwrap_err();
        assert!(err.to_string().contains("France has a player"), "{err}");
    }

    #[test]
    fn a_resigned_seat_is_vacant_once_and_an_observer_is_journaled_once() {
        let tmp = tempfile::tempdir().unwrap();
        let mut g = game(&tmp.path().join("g"));
        g.resign("england", at(1)).unwrap();
        let err = g.resign("england", at(2)).unwrap_err();
        assert!(err.to_string().contains("England is already vacant"), "{err}");
        let code = "code-hash";
        let asked = g.observe("obs@example.org", None, ObserveStep::Ask { code_hash: code }, at(3)).unwrap();
        assert_eq!(asked, Observed::Asked);
        let confirmed = g.observe("obs@example.org", None, ObserveStep::Confirm { code_hash: code }, at(3)).unwrap();
        assert!(matches!(confirmed, Observed::Observing { new: true, .. }), "{confirmed:?}");
        let observers = |g: &OpenGame| {
            g.entries
                .iter()
                .filter(|e| matches!(e, crate::game::journal::Entry::Seats { event: SeatEvent::Observer { .. } }))
                .count()
        };
        assert_eq!(observers(&g), 1);
        let again = g.observe("obs@example.org", None, ObserveStep::Ask { code_hash: code }, at(4)).unwrap();
        assert!(matches!(again, Observed::Observing { new: false, .. }), "{again:?}");
        assert_eq!(observers(&g), 1, "an observer already known is not journaled again");
        assert!(g.game.settings.observers.iter().any(|o| o == "obs@example.org"));
    }

    #[test]
    fn a_join_and_a_leave_carried_out_again_are_answered_as_done_and_kept_once() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("open");
        let map = crate::diplomacy::map::cache::standard();
        let settings = Settings::new("open", VariantKind::Standard);
        let mut g = diplomacy::create(&dir, &settings, GameState::start(&map, 1), at(0)).unwrap();
        g.open_seats(at(0)).unwrap();
        g.carry_out(Some("j1".into()));
        let joined = g.join("ann@example.org", "Ann", "hash", Vec::new(), at(1)).unwrap();
        assert_eq!(joined.seats_left, 6);
        g.carry_out(Some("l1".into()));
        assert_eq!(g.leave("ann@example.org", at(2)).unwrap(), 7);
        let kept = g.entries.len();

        let mut again = diplomacy::open(&dir).unwrap();
        again.carry_out(Some("l1".into()));
        assert_eq!(again.leave("ann@example.org", at(3)).unwrap(), 7, "the leave, answered as done");
        again.carry_out(Some("j1".into()));
        let joined = again.join("ann@example.org", "Ann", "hash", Vec::new(), at(4)).unwrap();
        assert_eq!((joined.again, joined.seats_left, joined.started), (false, 7, None), "the join, answered as done");
        assert_eq!(again.entries.len(), kept, "nothing journaled twice");
        again.carry_out(Some("l2".into()));
        let err = again.leave("ann@example.org", at(5)).unwrap_err();
        assert!(err.to_string().contains("has not joined"), "a new leave is checked as ever: {err}");
    }
}
