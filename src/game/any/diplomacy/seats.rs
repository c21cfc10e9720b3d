//! A Diplomacy game's open seats: the listing, joins and leaves, a joined player's password.

use super::*;

impl Seats for OpenGame {
    fn listing(&self) -> Listing {
        let (map, settings, state) = (&self.game.map, &self.game.settings, &self.game.state);
        let played = |p: PowerId| settings.player(map, p).is_some();
        let open = self.seats_left().map(|left| {
            let all = map.power_ids().count();
            (all - left, all)
        });
        let vacant: Vec<String> = if open.is_some() {
            Vec::new()
        } else {
            map.power_ids()
                .filter(|p| !played(*p) && !state.eliminated.contains(p))
                .map(|p| map.power(p).name.clone())
                .collect()
        };
        let over = state.end.is_some();
        let seats = if open.is_some() {
            Vec::new()
        } else if over {
            // Who played each power over the whole game, with its centers at the end.
            let roster = super::say::roster(&self.game, &self.entries);
            map.power_ids()
                .zip(roster)
                .map(|(p, line)| {
                    let centers: Vec<String> = state.boards.iter().map(|b| b.ownership.count(p).to_string()).collect();
                    let (name, who) = line.split_at(8.min(line.len()));
                    format!("{name} centers {:<5} {}", centers.join("+"), who.trim())
                })
                .collect()
        } else {
            map.power_ids()
                .map(|p| {
                    let centers: Vec<String> = state.boards.iter().map(|b| b.ownership.count(p).to_string()).collect();
                    let who = if state.eliminated.contains(&p) {
                        "out"
                    } else if played(p) {
                        "played"
                    } else {
                        "vacant"
                    };
                    format!("{:<8} {:<7} centers {}", map.power(p).name, who, centers.join("+"))
                })
                .collect()
        };
        let mut notes = Vec::new();
        if over {
            notes.push(super::say::length(&self.entries));
        }
        if !settings.observers.is_empty() {
            notes.push(count(settings.observers.len(), "observer", "observers"));
        }
        if !settings.seats.asks.is_empty() {
            notes.push(format!("{} waiting for the master", count(settings.seats.asks.len(), "takeover", "takeovers")));
        }
        // The variant as people ask for it: `standard`, `ancmed`, `shadow-worlds on modern`.
        let kind = crate::game::settings::variant_label(settings, map, true);
        crate::game::seating::Listing {
            name: settings.name.clone(),
            kind,
            step: state.phase.to_string(),
            deadline: state.deadline,
            over: state.end.is_some(),
            result: state.end.as_ref().map(|e| self.game.end_notice(e)),
            open,
            vacant,
            seats,
            notes,
            powers: map.power_ids().map(|p| map.power(p).name.clone()).collect(),
        }
    }

    fn change_seats(&mut self, change: &SeatChange<'_>, now: DateTime<Utc>) -> Result<SeatOutcome, GameError> {
        let was_over = self.game.state.end.is_some();
        // The final results, when the change ended the game (the votes counted again).
        let over = |g: &OpenGame| match &g.game.state.end {
            Some(end) if !was_over => Some(super::say::final_results(&g.game, &g.entries, end)),
            _ => None,
        };
        let map = self.game.map.clone();
        let key = |written: &str| named_power(&map, written).map(|p| map.power(p).key.clone());
        let label = |written: &str| named_power(&map, written).map(|p| map.power(p).name.clone());
        Ok(match change {
            SeatChange::Join { email, password_hash, prefer, name } => {
                let mut keys: Vec<String> = Vec::new();
                for written in prefer.iter() {
                    let k = key(written)?;
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
                let understood = keys.iter().filter_map(|k| label(k).ok()).collect();
                let joined = self.join(email, name, password_hash, keys, now)?;
                SeatOutcome::Joined {
                    again: joined.again,
                    seats_left: joined.seats_left,
                    started: joined.started,
                    prefer: understood,
                }
            }
            SeatChange::Leave { email } => SeatOutcome::Left { seats_left: self.leave(email, now)? },
            SeatChange::Observe { email, password_hash, step } => {
                SeatOutcome::Observing(self.observe(email, *password_hash, *step, now)?)
            }
            SeatChange::Resign { seat } => {
                let email = self.resign(&key(seat)?, now)?;
                SeatOutcome::Resigned { seat: label(seat)?, email, over: over(self) }
            }
            SeatChange::Takeover { seat, email, password_hash, name } => {
                if self.ask_takeover(&key(seat)?, email, name, password_hash, now)? {
                    SeatOutcome::TakenOver { seat: label(seat)?, email: email.to_string(), over: over(self) }
                } else {
                    SeatOutcome::Asked { seat: label(seat)? }
                }
            }
            SeatChange::Approve { seat } => {
                let email = self.approve(&key(seat)?, now)?;
                SeatOutcome::TakenOver { seat: label(seat)?, email, over: over(self) }
            }
        })
    }

    fn joined_hash(&self, email: &str) -> Option<String> {
        OpenGame::joined_hash(self, email)
    }
}
