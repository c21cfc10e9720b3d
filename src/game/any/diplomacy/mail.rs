//! A Diplomacy game's seats by mail: sign-on, orders received, status and history, the
//! contacts, particulars, `wait`.

use super::*;

impl ByMail for OpenGame {
    fn seat(&self, who: &str) -> Result<SeatRecord, Vec<String>> {
        let (map, settings) = (&self.game.map, &self.game.settings);
        if names_master(who) {
            return Ok(by_mail::master_seat(&settings.master));
        }
        if who.contains('@') {
            return by_mail::observer_seat(&settings.observers, &settings.observer_passwords, who)
                .ok_or_else(|| power_names(map));
        }
        let power = resolve_power(map, who).ok_or_else(|| power_names(map))?;
        let player = settings.player(map, power);
        Ok(SeatRecord {
            role: Role::Seat(map.power(power).name.clone()),
            address: player.map(|p| p.email.clone()),
            timezone: by_mail::zone(player.and_then(|p| p.timezone.as_deref())),
            password_hash: player.and_then(|p| p.password_hash.clone()),
        })
    }

    fn offers(&self) -> crate::games::Offers {
        crate::games::Offers::DIPLOMACY
    }

    fn status_for(&self, role: &Role, zone: Option<Tz>, _now: DateTime<Utc>) -> String {
        crate::game::status::status_text(&self.game, power_of(&self.game, role).ok(), zone)
    }

    fn recent_history(&self, role: &Role) -> Result<String, GameError> {
        if *role != Role::Master {
            return phases_and_results(self);
        }
        // The master: the journal's last entries, as `history` shows them on the command
        // line (player changes included), then the last results.
        let history = GameSession::history(self)?;
        let skip = history.rows.len().saturating_sub(HISTORY_ROWS);
        let recent = History { step_key: history.step_key, rows: history.rows[skip..].to_vec() };
        let mut out = format!("The game's journal (the last {} entries):\n{}", recent.rows.len(), recent.to_text());
        match self.reports().last() {
            Some(last) => out.push_str(&format!("\nThe last results:\n{}", last.to_text())),
            None => out.push_str("\nNo phase has been adjudicated yet.\n"),
        }
        Ok(out)
    }

    fn contacts(&self) -> Vec<Contact> {
        contacts_of(&self.game)
    }

    fn set_particulars(
        &mut self,
        role: &Role,
        password_hash: Option<&str>,
        zone: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let map = self.game.map.clone();
        self.update_settings(now, |s| {
            let players = &mut s.players;
            set_role_particulars(
                role,
                &mut s.master,
                &mut s.observer_passwords,
                move |name: &str| {
                    let player = player_in(&map, players, name)?;
                    Ok((&mut player.password_hash, &mut player.timezone))
                },
                password_hash,
                zone,
            )
        })
    }
}

/// How many journal entries a `history` mail shows.
const HISTORY_ROWS: usize = 30;

/// A player's `history` by mail: the phases adjudicated so far (the last
/// [`HISTORY_ROWS`]), each with when, then the last results in full.
fn phases_and_results(game: &OpenGame) -> Result<String, GameError> {
    use crate::game::journal::{undone_by_rollback, Entry};
    let journal = game.dir.journal::<Entry>()?;
    let records = journal.records();
    let entries: Vec<Entry> = records.iter().map(|r| r.entry.clone()).collect();
    let undone = undone_by_rollback(&entries);
    let phases: Vec<String> = records
        .iter()
        .enumerate()
        .filter(|(i, _)| !undone.contains(i))
        .filter_map(|(_, r)| match &r.entry {
            Entry::Adjudicated { phase, .. } => {
                Some(format!("  {:<24} {}\n", phase.to_string(), r.at.format("%Y-%m-%d %H:%M UTC")))
            }
            _ => None,
        })
        .collect();
    if phases.is_empty() {
        return Ok("No phase has been adjudicated yet.\n".to_string());
    }
    let skip = phases.len().saturating_sub(HISTORY_ROWS);
    let mut out = format!("The phases adjudicated (the last {}), and when:\n", phases.len() - skip);
    out.extend(phases[skip..].iter().cloned());
    if let Some(last) = game.reports().last() {
        out.push_str(&format!("\nThe last results:\n{}", last.to_text()));
    }
    Ok(out)
}
