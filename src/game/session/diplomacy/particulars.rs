//! The players' (and the master's and observers') particulars, journaled as game.toml
//! changes them ([`crate::game::session::Seated`]).

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
