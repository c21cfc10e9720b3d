//! The seed revealed, and every journaled roll verified from it.

use super::*;

/// Why `verify` could not confirm the rolls.
#[derive(Debug, thiserror::Error)]
pub enum VerifyFailure {
    #[error("the seed is not revealed yet: it is revealed when the game ends, or by the game master with `shadowjudge reveal`")]
    NotRevealed,
    #[error("the revealed seed is not a seed: {0}")]
    BadSeed(String),
    #[error(transparent)]
    Dice(dice::VerifyError),
    /// The rolls are right, but a turn played again from the seed does not give the
    /// state recorded (an edited journal).
    #[error("the rolls match the seed, but the journal does not replay: {0}")]
    Replay(ReplayError),
}

impl From<StoreError> for VerifyFailure {
    fn from(e: StoreError) -> Self {
        VerifyFailure::BadSeed(e.to_string())
    }
}

impl OpenTurnGame {
    pub(super) fn reveal_locked(&mut self, lock: &mut GameLock, now: DateTime<Utc>) -> Result<String, GameError> {
        let seed = self.seed.to_hex();
        self.meta.revealed = Some(seed.clone());
        self.record(lock, now, TurnEntry::Revealed { seed: seed.clone() })?;
        Ok(seed)
    }

    /// Reveal the seed now (the master's `reveal`; the game goes on, its rolls now known).
    /// A game not over is refused unless `force`: the seed would let anyone foresee every
    /// roll to come. Revealing twice journals nothing more and needs no `force`.
    pub fn reveal(&mut self, force: bool, now: DateTime<Utc>) -> Result<String, GameError> {
        let mut lock = self.relock()?;
        match &self.meta.revealed {
            Some(seed) => Ok(seed.clone()),
            None if !force && self.game.ending().is_none() => Err(GameError::Invalid(format!(
                "{} is not over: with the seed revealed now, anyone who has it can foresee every later \
                 roll of the game. Add --force to reveal it all the same; every player is told in the \
                 next report that the rest of the game's rolls are public.",
                self.settings.name
            ))),
            None => self.reveal_locked(&mut lock, now),
        }
    }

    /// Every roll the journal holds, in order (a rollback's rolls made again included).
    pub fn journaled_rolls(&self) -> Vec<Roll> {
        self.entries.iter().filter_map(|(_, _, e)| e.step()).flat_map(|s| s.rolls.iter().cloned()).collect()
    }

    /// Recompute every journaled roll from the revealed seed and check the seed against
    /// the commitment of the first entry.
    pub fn verify(&self) -> Result<usize, VerifyFailure> {
        let revealed = self
            .entries
            .iter()
            .find_map(|(_, _, e)| match e {
                TurnEntry::Revealed { seed } => Some(seed.clone()),
                _ => None,
            })
            .ok_or(VerifyFailure::NotRevealed)?;
        let commitment = self
            .entries
            .iter()
            .find_map(|(_, _, e)| match e {
                TurnEntry::Created { commitment, .. } => Some(commitment.clone()),
                _ => None,
            })
            .ok_or(VerifyFailure::NotRevealed)?;
        let seed = Seed::from_hex(&revealed).map_err(|e| VerifyFailure::BadSeed(e.to_string()))?;
        let rolls = dice::verify(&seed, &commitment, &self.settings.name, &self.journaled_rolls())
            .map_err(VerifyFailure::Dice)?;
        // The rolls are the seed's: now every turn, played again from the seed, must give
        // the state the journal recorded after it, so the game is proved, not only its dice.
        match super::replay::replay_checking(&self.settings, &seed, &self.entries, true) {
            Ok(_) => Ok(rolls),
            Err(GameError::Replay(e)) => Err(VerifyFailure::Replay(e)),
            Err(e) => Err(VerifyFailure::Replay(ReplayError { index: 0, message: e.to_string() })),
        }
    }
}
