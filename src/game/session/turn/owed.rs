//! Reports owed by mail: which entries' reports are still to be sent, and to whom.

use super::*;

impl OpenTurnGame {
    /// The entries whose reports are still owed by mail, oldest first: (seq, `None` when
    /// owed to every recipient, else the addresses still owed it). A report a rollback
    /// undid before it was mailed is not owed.
    pub fn reports_owed(&self) -> Result<Vec<OwedReport>, GameError> {
        Ok(self.owed()?.into_iter().map(|o| OwedReport { seq: o.seq, only_to: o.only_to }).collect())
    }
}

/// The seqs of the steps a rollback undid: those after the step it went back to.
pub(super) fn undone_by_rollback(entries: &[(u64, DateTime<Utc>, TurnEntry)]) -> std::collections::BTreeSet<u64> {
    let mut undone = std::collections::BTreeSet::new();
    for (at, (_, _, e)) in entries.iter().enumerate() {
        let TurnEntry::RolledBack { to_round, .. } = e else { continue };
        // The start of the round it went back to, as the rollback found it.
        let mut start = 0;
        let mut previous_round: Option<u32> = None;
        for (i, (_, _, e)) in entries[..at].iter().enumerate() {
            let Some(step) = e.step() else { continue };
            let starts = matches!(e, TurnEntry::Created { .. }) || previous_round.is_some_and(|r| r < step.round);
            if step.round == *to_round && starts {
                start = i;
            }
            previous_round = Some(step.round);
        }
        undone.extend(entries[start + 1..at].iter().filter(|(_, _, e)| e.step().is_some()).map(|(s, _, _)| *s));
    }
    undone
}

#[cfg(test)]
mod tests {
    use super::super::toy;
    use crate::store::MailingOutcome;

    fn sent_to_everyone() -> MailingOutcome {
        MailingOutcome {
            sent: vec!["ann@example.org".into(), "bob@example.org".into()],
            retry: Vec::new(),
            undeliverable: Vec::new(),
        }
    }

    #[test]
    fn a_report_is_owed_until_its_mailing_is_recorded() {
        let tmp = tempfile::tempdir().unwrap();
        let mut g = toy::game(&tmp.path().join("g"));
        let seq = toy::take(&mut g, 1, 1);
        let owed = g.reports_owed().unwrap();
        assert!(owed.iter().any(|o| o.seq == seq && o.only_to.is_none()), "{owed:?}");
        for o in &owed {
            g.record_mailed(o.seq, &sent_to_everyone(), toy::at(2)).unwrap();
        }
        assert_eq!(g.reports_owed().unwrap(), Vec::new());
    }

    #[test]
    fn a_report_a_rollback_undid_is_not_owed() {
        let tmp = tempfile::tempdir().unwrap();
        let mut g = toy::game(&tmp.path().join("g"));
        toy::take(&mut g, 1, 1);
        toy::take(&mut g, 1, 2);
        assert_eq!(g.game.round(), 2);
        let undone = toy::take(&mut g, 1, 3);
        g.rollback(2, toy::at(4)).unwrap();
        let owed = g.reports_owed().unwrap();
        assert!(!owed.iter().any(|o| o.seq == undone), "{owed:?}");
    }
}
