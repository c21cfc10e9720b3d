//! game.toml changed under the lock, and the players' (and the master's) particulars
//! journaled as they change.

use chrono::{DateTime, Utc};

use super::{GameError, OpenGame};
use crate::diplomacy::map::Map;
use crate::game::journal::{self, Entry};
use crate::game::settings::Settings;

/// The journal entries saying how the players' (and the master's) particulars differ
/// between two settings: address, time zone, password (as fingerprints).
pub(super) fn player_changes(map: &Map, old: &Settings, new: &Settings) -> Vec<Entry> {
    let seats = |s: &Settings| -> Vec<journal::Particulars> {
        let master = journal::Particulars {
            who: "master".to_string(),
            address: s.master.email.clone(),
            timezone: s.master.timezone.clone(),
            password_hash: s.master.password_hash.clone(),
        };
        let players = map.power_ids().filter_map(|power| {
            s.player(map, power).map(|p| journal::Particulars {
                who: map.power(power).name.clone(),
                address: Some(p.email.clone()),
                timezone: p.timezone.clone(),
                password_hash: p.password_hash.clone(),
            })
        });
        let observers = crate::game::by_mail::observer_particulars(&s.observer_passwords);
        std::iter::once(master).chain(players).chain(observers).collect()
    };
    journal::particulars_changes(&seats(old), &seats(new))
        .into_iter()
        .map(|(who, what, old, new)| Entry::PlayerChanged { who, what, old, new })
        .collect()
}

impl OpenGame {
    /// Change the settings (`game.toml`) under the lock: passwords, addresses, time zones,
    /// options. The settings say who plays and how; a change of a player's particulars
    /// is also journaled ([`Entry::PlayerChanged`], before game.toml is written), so that
    /// history shows it and no rollback undoes it.
    pub fn update_settings<T>(
        &mut self,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut Settings) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        self.update_settings_then(now, change, |_, _| Ok(()))
    }

    /// [`update_settings`](Self::update_settings), then `after` under the same lock (what
    /// follows from the new settings, journaled with them).
    pub fn update_settings_then<T>(
        &mut self,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut Settings) -> Result<T, GameError>,
        after: impl FnOnce(&mut OpenGame, &mut crate::store::GameLock) -> Result<(), GameError>,
    ) -> Result<T, GameError> {
        self.relocked_atomically(|g, lock| {
            let mut settings = g.game.settings.clone();
            let out = change(&mut settings)?;
            for entry in player_changes(&g.game.map, &g.game.settings, &settings) {
                g.record(lock, now, entry)?;
            }
            lock.write_settings(&settings)?;
            g.game.settings = settings;
            after(g, lock)?;
            Ok(out)
        })
    }
}
