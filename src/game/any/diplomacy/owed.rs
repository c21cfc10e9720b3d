//! A Diplomacy phase's results owed by mail, and the boards drawn in them.

use super::*;

impl OwedResults for OpenGame {
    fn owed(&self) -> Result<Vec<OwedMail>, GameError> {
        let last_adjudication = self
            .entries
            .iter()
            .rposition(|e| matches!(e, crate::game::journal::Entry::Adjudicated { .. }))
            .map(|i| i as u64 + 1);
        Ok(self
            .results_owed()?
            .into_iter()
            .map(|owed| {
                let mut text = owed.report.to_text();
                if self.game.state.end.is_some() && Some(owed.seq) == last_adjudication {
                    // The game ended here: the summary of its whole life follows.
                    text.push('\n');
                    text.push_str(&super::say::summary(&self.game, &self.entries));
                }
                if owed.early {
                    text.insert_str(0, "Processed early: every power's orders were in and no one asked to wait.\n\n");
                }
                OwedMail {
                    seq: owed.seq,
                    title: format!("results of {}", owed.report.phase),
                    step: owed.report.phase.to_string(),
                    text,
                    next_deadline: owed.next_deadline,
                    only_to: owed.only_to,
                    also_to: owed.abandoned,
                    quiet: Vec::new(),
                }
            })
            .collect())
    }

    fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError> {
        OpenGame::lock_mailing(self, wait)
    }

    fn begin_mailing(&mut self, seq: u64, to: &[String], now: DateTime<Utc>) -> Result<MailingPlan, GameError> {
        OpenGame::begin_mailing(self, seq, to, now)
    }

    fn note_mailed(&mut self, seq: u64, outcome: &MailingOutcome) -> Result<(), GameError> {
        OpenGame::note_mailed(self, seq, outcome)
    }

    fn record_mailed(&mut self, seq: u64, outcome: &MailingOutcome, now: DateTime<Utc>) -> Result<(), GameError> {
        OpenGame::record_mailed(self, seq, outcome, now)
    }
}

impl Pictures for OpenGame {
    fn set_pictures(&mut self, role: &Role, on: bool, now: DateTime<Utc>) -> Result<(), GameError> {
        let Role::Seat(name) = role else {
            return Err(usage(
                "only players turn their pictures off; the game option `pictures = false` turns them off for everyone",
            ));
        };
        let map = self.game.map.clone();
        self.update_settings(now, |s| {
            player_mut(&map, s, name)?.pictures = on;
            Ok(())
        })
    }

    fn board(&self) -> Option<Board<'_>> {
        self.game.settings.pictures.then(|| self.drawing())
    }

    fn drawing(&self) -> Board<'_> {
        let settings = &self.game.settings;
        Board {
            map: &self.game.map,
            name: &settings.name,
            entries: &self.entries,
            state: &self.game.state,
            pictures_off: settings.players.iter().filter(|p| !p.pictures).map(|p| p.email.clone()).collect(),
        }
    }
}
