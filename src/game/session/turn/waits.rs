//! `wait` and `nowait`, and the hold of a step that takes every player's input together.

use super::*;

/// Note that `player` sent `wait` (or `nowait`).
pub(super) fn set_waiting(waiting: &mut Vec<String>, player: &str, wait: bool) {
    crate::game::schedule::set_waiting(waiting, player.to_string(), wait);
}

/// Whether the step under way in `game` takes every player's input together (Duplexity's
/// bids), or has it all and is held: the steps that `wait` and early processing are about.
fn takes_input_together(game: &dyn TurnGame) -> bool {
    game.ending().is_none() && game.together().is_together()
}

/// Whether such a step is held once all its input is in: early processing is off, or a
/// player sent `wait` ([`DeadlinePolicy::goes_on_early`]).
fn holds(policy: &DeadlinePolicy, waiting: &[String]) -> bool {
    !policy.goes_on_early(waiting.is_empty())
}

/// A `wait` lasts while the step it was sent for is under way. After a change, the waits
/// are cleared unless the game is still in that step: `before` is the step's label
/// before a submission (`None`: a deadline or a release, which always carries it on).
pub(super) fn settle_waits(meta: &mut TurnState, game: &dyn TurnGame, before: Option<&str>) {
    let same_step = before.is_some_and(|label| label == game.step_label());
    if !same_step || !game.together().is_together() {
        meta.waiting.clear();
    }
}

/// The turn-file lines a player sends to the judge rather than to the game: `wait` and
/// `nowait` (alone on a line, any case; a `#` comment may follow). Returns the text with
/// those lines left empty (so every other line keeps its number), and each one's line
/// number and whether it was `wait`.
pub(super) fn wait_lines(text: &str) -> (String, Vec<(usize, bool)>) {
    let mut kept = String::with_capacity(text.len());
    let mut waits = Vec::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let word = line.split('#').next().unwrap_or_default().trim().to_ascii_lowercase();
        if word == "wait" || word == "nowait" {
            waits.push((i + 1, word == "wait"));
            kept.push_str(if line.ends_with('\n') { "\n" } else { "" });
        } else {
            kept.push_str(line);
        }
    }
    (kept, waits)
}

impl OpenTurnGame {
    /// Whether a step that takes every player's input together is held once all of it
    /// is in: early processing is off (`[deadlines] early = false`), or a player sent
    /// `wait`.
    pub fn hold_now(&self) -> bool {
        holds(&self.settings.deadlines, &self.meta.waiting)
    }

    /// Whether the step under way takes every player's input together (Duplexity's
    /// bids), or has it all and is held: the steps that `wait` and early processing
    /// are about.
    pub fn together(&self) -> bool {
        takes_input_together(self.game.as_ref())
    }

    /// A player asks that the step under way wait for its deadline (`wait`), or takes
    /// that back (`nowait`). Only for a step that takes every player's input together; a
    /// `nowait` that leaves a held step with nobody waiting (and early processing on)
    /// lets it go on now, journaled and reported like a turn.
    pub fn set_wait(&mut self, seat: usize, wait: bool, now: DateTime<Utc>) -> Result<WaitDone, GameError> {
        let mut lock = self.relock()?;
        let name =
            self.game.players().get(seat).cloned().ok_or_else(|| GameError::Invalid(format!("no seat {seat}")))?;
        self.wait_locked(&mut lock, &name, wait, now)
    }

    pub(super) fn wait_locked(
        &mut self,
        lock: &mut GameLock,
        player: &str,
        wait: bool,
        now: DateTime<Utc>,
    ) -> Result<WaitDone, GameError> {
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        if !self.together() {
            return Err(GameError::Invalid(format!(
                "`{}` is for a step where every player's input is taken together; now the game awaits {}",
                if wait { "wait" } else { "nowait" },
                self.game.awaiting().what
            )));
        }
        let mut done = WaitDone { said: String::new(), seq: None, events: Vec::new() };
        if self.meta.waiting.iter().any(|p| p == player) != wait {
            set_waiting(&mut self.meta.waiting, player, wait);
            done.seq = Some(self.record(lock, now, TurnEntry::Wait { player: player.to_string(), wait })?);
        }
        if let Some((seq, events)) = self.release_locked(lock, now)? {
            done.seq = Some(seq);
            done.events = events;
            done.said = "nowait: every input is in and nobody waits; the game goes on now".into();
        } else if wait {
            done.said = "wait: this step goes on only at its deadline (send `nowait` to undo)".into();
        } else if !self.settings.deadlines.early {
            done.said =
                "nowait: early processing is off in this game, so this step still goes on at its deadline".into();
        } else if self.game.together().is_held() {
            done.said = format!(
                "nowait: every input is in, but {} asked to wait; this step goes on at its deadline",
                self.meta.waiting.join(" and ")
            );
        } else {
            done.said = "nowait: this step goes on as soon as every input is in".into();
        }
        Ok(done)
    }

    /// Let a held step go on now if nothing holds it any more (every input in, early
    /// processing on, nobody waiting): the game master turned early processing on, or
    /// the last `wait` was taken back. `None` when there was nothing to do.
    pub fn release(&mut self, now: DateTime<Utc>) -> Result<Option<Vec<String>>, GameError> {
        let mut lock = self.relock()?;
        Ok(self.release_locked(&mut lock, now)?.map(|(_, events)| events))
    }

    fn release_locked(
        &mut self,
        lock: &mut GameLock,
        now: DateTime<Utc>,
    ) -> Result<Option<(u64, Vec<String>)>, GameError> {
        if self.game.ending().is_some() || !self.game.together().is_held() || self.hold_now() {
            return Ok(None);
        }
        let mut dice = self.dice();
        let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
        let mut events = Vec::new();
        run_automatic(self.game.as_mut(), &mut ctx, &mut events);
        let seq = self.finish(lock, &mut dice, events.clone(), now, None, |step| TurnEntry::Released { step })?;
        Ok(Some((seq, events)))
    }

    /// What holds the step under way, for a step that takes every input together: the
    /// players who sent `wait`, or early processing off. `None` when nothing holds it.
    pub fn hold_text(&self) -> Option<String> {
        self.hold_text_for(self.game.as_ref(), &self.meta.waiting)
    }

    pub(super) fn hold_text_for(&self, game: &dyn TurnGame, waiting: &[String]) -> Option<String> {
        if !takes_input_together(game) || !holds(&self.settings.deadlines, waiting) {
            return None;
        }
        let why = if waiting.is_empty() {
            "early processing is off in this game".to_string()
        } else {
            format!("{} asked to wait (`nowait` takes it back)", waiting.join(" and "))
        };
        Some(if game.together().is_held() {
            format!("Every input is in; held until the deadline: {why}.")
        } else {
            format!("This step goes on only at its deadline: {why}.")
        })
    }
}
