//! Results owed by mail (see the notes of [`super`]): what is owed, the mailing lock, the
//! mark before a mailing and the record after it.

use chrono::{DateTime, Utc};

use super::{GameError, MailedFile, MailingOutcome, MailingPlan, OpenGame};
use crate::diplomacy::report::PhaseReport;
use crate::game::journal::{self, Entry};
use crate::phase::Phase;
use crate::store::TaskLock;

/// The task lock held while a game's results are mailed.
pub const MAILING_TASK: &str = "mailing";

/// One adjudication's results, still owed to someone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwedResults {
    /// The journal seq of the adjudication.
    pub seq: u64,
    /// Its report, as journaled.
    pub report: PhaseReport,
    /// The deadline to announce with it: the game's current one while the game is still
    /// in the phase this adjudication began (none once it has moved on, or is over).
    pub next_deadline: Option<DateTime<Utc>>,
    /// `None`: owed to everyone who receives results (never mailed yet); else only to
    /// these addresses (an earlier mailing failed for them).
    pub only_to: Option<Vec<String>>,
    /// The phase was processed early (every order in before the deadline).
    pub early: bool,
    /// The players it declared vacant (`abandon_after`): no longer in the game, they are
    /// owed these results all the same, which tell them.
    pub abandoned: Vec<String>,
}

impl OpenGame {
    /// What `mailed.json` says was mailed (empty if nothing ever was).
    pub fn mailed(&self) -> Result<MailedFile, GameError> {
        Ok(self.book.mailed(None)?)
    }

    /// The results owed by mail, oldest first: every adjudication journaled with
    /// `mail_results` that no rollback undid, less what `mailed.json` says went out.
    pub fn results_owed(&self) -> Result<Vec<OwedResults>, GameError> {
        let undone: std::collections::BTreeSet<u64> =
            journal::undone_by_rollback(&self.entries).into_iter().map(|i| i as u64 + 1).collect();
        let owed = self.book.owed(&self.mailed()?, &undone, |entry| match entry {
            Entry::Adjudicated { phase, mail_results: true, .. } => Some(serde_json::to_value(phase).ok()),
            _ => None,
        })?;
        let mut results = Vec::new();
        for o in owed {
            let index = o.seq as usize - 1;
            let Entry::Adjudicated { report, early, .. } = &self.entries[index] else { continue };
            let current = !self.entries[index + 1..].iter().any(journal::moves_the_game);
            let after = self.entries[index + 1..].iter().take_while(|e| !journal::moves_the_game(e));
            let mut vacated: Vec<String> = Vec::new();
            let mut abandoned = Vec::new();
            for e in after {
                match e {
                    Entry::Abandoned { power, .. } => vacated.push(power.to_lowercase()),
                    Entry::PlayerChanged { who, what, old: Some(address), new: None }
                        if what == "address" && vacated.contains(&who.to_lowercase()) =>
                    {
                        abandoned.push(address.clone())
                    }
                    _ => {}
                }
            }
            let next_deadline = self.game.state.deadline.filter(|_| current && self.game.state.end.is_none());
            results.push(OwedResults {
                seq: o.seq,
                report: report.as_ref().clone(),
                next_deadline,
                only_to: o.only_to,
                early: *early,
                abandoned,
            });
        }
        Ok(results)
    }

    /// Take the lock of the results mailing (see the module notes); `None` without `wait`
    /// when another run is mailing this game's results now.
    pub fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError> {
        Ok(self.dir.lock_task(MAILING_TASK, wait)?)
    }

    /// Mark, under the game's lock, that the results of the adjudication at `seq` are being
    /// mailed to `to`, and say to whom they may go ([`crate::store::Book::begin_mailing`]).
    pub fn begin_results_mailing(
        &mut self,
        seq: u64,
        to: &[String],
        now: DateTime<Utc>,
    ) -> Result<MailingPlan, GameError> {
        let lock = self.relock()?;
        let phase = self.adjudicated_phase(seq)?;
        Ok(self.book.begin_mailing(&lock, seq, serde_json::to_value(phase).ok(), to, None, now)?)
    }

    fn adjudicated_phase(&self, seq: u64) -> Result<Phase, GameError> {
        match usize::try_from(seq).ok().and_then(|s| self.entries.get(s.checked_sub(1)?)) {
            Some(Entry::Adjudicated { phase, .. }) => Ok(*phase),
            _ => Err(GameError::Invalid(format!("journal entry {seq} is not an adjudication"))),
        }
    }

    /// Note, under the game's lock, what the mailing of the results at `seq` did so far.
    pub fn note_results_mailed(&mut self, seq: u64, outcome: &MailingOutcome) -> Result<(), GameError> {
        let lock = self.relock()?;
        Ok(self.book.note_mailing(&lock, seq, outcome, None)?)
    }

    /// Record in `mailed.json`, under the game's lock, what mailing the results of the
    /// adjudication at `seq` did. Addresses to retry stay owed; the rest are done.
    pub fn record_results_mailed(
        &mut self,
        seq: u64,
        outcome: &MailingOutcome,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let lock = self.relock()?;
        let phase = self.adjudicated_phase(seq)?;
        self.book.record_mailed(&lock, seq, serde_json::to_value(phase).ok(), outcome, None, now)?;
        Ok(())
    }
}
