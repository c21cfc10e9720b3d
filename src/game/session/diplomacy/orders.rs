//! Orders: a power's orders checked and kept (once per message), and the report a phase
//! would get now.

use chrono::{DateTime, Utc};

use super::{GameError, OpenGame};
use crate::diplomacy::engine::Acknowledgement;
use crate::diplomacy::map::PowerId;
use crate::diplomacy::report::PhaseReport;
use crate::game::journal::Entry;

impl OpenGame {
    /// Check and keep a power's orders (or only check them).
    pub fn submit(
        &mut self,
        power: PowerId,
        text: &str,
        check_only: bool,
        now: DateTime<Utc>,
    ) -> Result<Acknowledgement, GameError> {
        if check_only {
            return Ok(self.game.submit(power, text, true));
        }
        // Orders this message gave before the judge was interrupted are answered as then,
        // and kept once.
        let again = |g: &mut Self| g.game.submit(power, text, true);
        self.relocked_once(again, |g, lock| {
            let ack = g.game.submit(power, text, false);
            if !ack.accepted.is_empty() {
                let entry = Entry::Submitted {
                    phase: ack.phase,
                    power: g.game.map.power(power).key.clone(),
                    text: text.to_string(),
                };
                g.record(lock, now, entry)?;
            }
            Ok(ack)
        })
    }

    /// The report the current phase would get if adjudicated now (as with `force`),
    /// without changing anything.
    pub fn preview(&self) -> PhaseReport {
        let mut game = self.game.clone();
        game.adjudicate()
    }
}
