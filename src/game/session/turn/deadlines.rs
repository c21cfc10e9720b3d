//! Deadlines: set, forced (by the game master or the tick), and the step the tick saw.

use super::*;

pub(super) fn deadline_after(
    settings: &TurnSettings,
    game: &dyn TurnGame,
    paused: bool,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, GameError> {
    if game.ending().is_some() || paused {
        return Ok(None);
    }
    if let Some(own) = crate::turn::own_deadline(game) {
        return Ok(Some(own));
    }
    settings
        .deadlines
        .schedule
        .deadline_for(PhaseKind::Movement, now)
        .map(Some)
        .map_err(|e| GameError::Invalid(format!("game.toml [deadlines.schedule]: {e}")))
}

impl OpenTurnGame {
    /// The deadline of the step `deadline_of` passed (a [`clock_step`](Self::clock_step),
    /// as the tick saw it), or the game master processes (`None`): apply the defaults for
    /// every awaited input, then the automatic steps. Without `force`, only the automatic
    /// steps (if the game waits for nobody); the error names who is awaited.
    pub fn force(
        &mut self,
        force: bool,
        deadline_of: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, GameError> {
        let mut lock = self.relock()?;
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        // Looked at again under the lock: a turn may have moved the game on since.
        if let Some(step) = deadline_of.filter(|s| *s != self.clock_step()) {
            return Err(GameError::Invalid(format!("{step} is over; the game is at {}", self.game.step_label())));
        }
        let by_master = deadline_of.is_none();
        let awaiting = self.game.awaiting();
        if !force && (!awaiting.players.is_empty() || awaiting.master) {
            let names = in_words(self.awaiting_names());
            return Err(GameError::Awaiting(format!("{}, from {}", awaiting.what, names.join(" and "))));
        }
        let mut dice = self.dice();
        let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
        let mut events = self.game.force(crate::turn::Defaulted::Deadline, &mut ctx);
        run_automatic(self.game.as_mut(), &mut ctx, &mut events);
        self.finish(&mut lock, &mut dice, events.clone(), now, None, |step| TurnEntry::Forced {
            by_master,
            vacant: false,
            step,
        })?;
        Ok(events)
    }

    /// Whether the step under way awaits only seats whose players resigned, while some
    /// seat is still played: nobody can send what it waits for.
    pub fn awaits_only_vacant(&self) -> bool {
        let awaiting = self.game.awaiting();
        let names = self.game.players();
        let vacant = |i: &usize| names.get(*i).is_some_and(|n| self.is_vacant(n));
        self.game.ending().is_none()
            && !awaiting.master
            && !awaiting.players.is_empty()
            && awaiting.players.iter().all(vacant)
            && !(0..names.len()).all(|i| vacant(&i))
    }

    /// Early processing of a step that awaits only vacant seats ([`awaits_only_vacant`]):
    /// their defaults are applied now, as at the deadline, unless early processing is off,
    /// a player sent `wait` or the game is paused. The events, or `None` when nothing was
    /// done.
    ///
    /// [`awaits_only_vacant`]: Self::awaits_only_vacant
    pub fn go_on_for_vacant(&mut self, now: DateTime<Utc>) -> Result<Option<Vec<String>>, GameError> {
        // As read first (no lock for a game with nothing to do), then again under the lock.
        if !self.may_go_on_for_vacant() {
            return Ok(None);
        }
        let mut lock = self.relock()?;
        if !self.may_go_on_for_vacant() {
            return Ok(None);
        }
        let mut dice = self.dice();
        let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
        let mut events = self.game.force(crate::turn::Defaulted::Vacant, &mut ctx);
        run_automatic(self.game.as_mut(), &mut ctx, &mut events);
        self.finish(&mut lock, &mut dice, events.clone(), now, None, |step| TurnEntry::Forced {
            by_master: false,
            vacant: true,
            step,
        })?;
        Ok(Some(events))
    }

    /// Whether only vacant seats are awaited, so their defaults may be applied before the
    /// deadline ([`go_on_for_vacant`](Self::go_on_for_vacant)).
    pub fn may_go_on_for_vacant(&self) -> bool {
        let runs = self.meta.deadline.is_some() && !self.meta.paused;
        runs && self.awaits_only_vacant() && self.settings.deadlines.goes_on_early(self.meta.waiting.is_empty())
    }

    /// Whether the step under way may go on before its deadline now: a held step nothing
    /// holds any more, or one that awaits only vacant seats (what the tick's
    /// [`go_on_early`](crate::game::any::Play::go_on_early) does).
    pub fn may_go_on_early(&self) -> bool {
        (self.game.together().is_held() && !self.hold_now()) || self.may_go_on_for_vacant()
    }

    /// Move the deadline, or clear it (pause: `None`).
    pub fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        self.meta.deadline = deadline;
        self.meta.paused = deadline.is_none();
        self.meta.deadline_seq = lock.last_seq() + 1;
        self.record(&mut lock, now, TurnEntry::DeadlineSet { deadline })?;
        Ok(())
    }

    /// Whether the deadline before entry `at` was one the game set itself
    /// ([`Windows::deadline`](crate::turn::Windows::deadline)): the game as the last step before it left it.
    fn own_deadline_before(&self, at: usize) -> bool {
        self.entries[..at]
            .iter()
            .rev()
            .find_map(|(_, _, e)| e.step())
            .and_then(|step| games::load(&self.meta.game, &step.state).ok())
            .is_some_and(|game| crate::turn::own_deadline(game.as_ref()).is_some())
    }

    /// The step under way with the deadline it runs to, as the tick's log knows it: a new
    /// deadline (a turn, `extend`) is a new step for reminders.
    pub fn clock_step(&self) -> String {
        format!("{} #{}", self.game.step_label(), self.meta.deadline_seq)
    }

    /// Who or what forced the step of the entry at index `at`, when it is a
    /// [`TurnEntry::Forced`].
    pub fn forcing(&self, at: usize) -> Option<Forcing> {
        let TurnEntry::Forced { by_master, vacant, .. } = self.entries.get(at)?.2 else { return None };
        Some(Forcing { by_master, window: self.own_deadline_before(at), vacant })
    }
}
