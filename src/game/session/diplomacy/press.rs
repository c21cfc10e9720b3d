//! Press: a message between players, kept in the journal.

use chrono::{DateTime, Utc};

use super::{GameError, OpenGame};
use crate::game::journal::Entry;

impl OpenGame {
    /// Keep a press message in the journal (it changes no state; the journal is the
    /// record of who said what to whom).
    pub fn record_press(
        &mut self,
        from: &str,
        to: Vec<String>,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        self.relocked_once(
            |_| (),
            |g, lock| {
                let grey = Some(g.game.settings.press == crate::game::settings::PressRule::Grey);
                g.record(lock, now, Entry::Press { from: from.to_string(), to, text: text.to_string(), grey }).map(drop)
            },
        )
    }
}
