//! Results owed by mail (see the notes of [`super`]): what is owed, the mailing lock, the
//! mark before a mailing and the record after it.

use chrono::{DateTime, Utc};

use super::{GameError, OpenGame};
use crate::diplomacy::report::PhaseReport;
use crate::game::journal::{self, Entry};

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
    /// The results owed by mail, oldest first: every adjudication journaled with
    /// `mail_results` that no rollback undid, less what `mailed.json` says went out.
    pub fn results_owed(&self) -> Result<Vec<OwedResults>, GameError> {
        let owed = self.owed()?;
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
}
