//! Rollback to the start of a round, with the dice counter of that moment.

use super::*;

impl OpenTurnGame {
    /// Go back to the start of round `round` (0: the setup). The dice go back too.
    pub fn rollback(&mut self, round: u32, now: DateTime<Utc>) -> Result<String, GameError> {
        let mut lock = self.relock()?;
        let mut found: Option<Step> = None;
        let mut previous_round: Option<u32> = None;
        for (_, _, e) in &self.entries {
            let Some(step) = e.step() else { continue };
            let starts = matches!(e, TurnEntry::Created { .. }) || previous_round.is_some_and(|r| r < step.round);
            if step.round == round && starts {
                found = Some(step.clone());
            }
            previous_round = Some(step.round);
        }
        let Some(mut step) = found else {
            return Err(GameError::Invalid(format!(
                "the game never started round {round} (it is in {})",
                self.game.step_label()
            )));
        };
        self.game = games::load(&self.meta.game, &step.state).map_err(GameError::Damaged)?;
        if let Some(windows) = self.game.windows_mut() {
            windows.rebase(now);
        }
        step.state = self.game.save();
        step.rolls.clear();
        step.events = vec![format!("The game master rolled the game back to the start of {}.", step.label)];
        step.deadline = deadline_after(&self.settings, self.game.as_ref(), self.meta.paused, now)?;
        step.mail = true;
        let next_seq = lock.last_seq() + 1;
        self.meta.next_roll = step.next_roll;
        self.meta.deadline = step.deadline;
        self.meta.deadline_seq = next_seq;
        self.meta.state = step.state.clone();
        self.meta.waiting.clear();
        let label = step.label.clone();
        self.record(&mut lock, now, TurnEntry::RolledBack { to_round: round, step })?;
        Ok(label)
    }
}

#[cfg(test)]
mod tests {
    use super::super::toy;
    use super::*;

    #[test]
    fn a_rollback_gives_the_rounds_start_and_its_dice_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut g = toy::game(&dir);
        toy::take(&mut g, 1, 1);
        toy::take(&mut g, 2, 2);
        let start = (g.game.save(), g.meta.next_roll);
        toy::take(&mut g, 3, 3);
        assert_ne!(g.game.save(), start.0);
        g.rollback(2, toy::at(4)).unwrap();
        assert_eq!((g.game.save(), g.meta.next_roll), start);
        let again = open(&dir).unwrap();
        assert_eq!((again.game.save(), again.meta.next_roll), start, "the journal replays to the rollback");
    }
}
