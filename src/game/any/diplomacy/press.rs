//! Press in a Diplomacy game: who may write to whom, and where it goes.

use super::*;

impl Press for OpenGame {
    fn send(&mut self, from: &Role, to: &PressTo, text: &str, now: DateTime<Utc>) -> Result<PressDelivery, GameError> {
        let me = power_of(&self.game, from).ok();
        let map = self.game.map.clone();
        let settings = &self.game.settings;
        if me.is_some() && settings.press == PressRule::Gunboat {
            return Err(usage(
                "this is a gunboat game (press = \"none\"): players send no press; only the game master writes to \
                 everyone",
            ));
        }
        let players: Vec<(PowerId, String)> = settings
            .players
            .iter()
            .filter_map(|p| Some((map.lookup_power(&p.power)?, p.email.clone())))
            .filter(|(p, _)| Some(*p) != me)
            .collect();
        let (to_label, names, addresses) = match to {
            PressTo::All => {
                let mut addresses: Vec<String> = players.iter().map(|(_, a)| a.clone()).collect();
                addresses.extend(settings.observers.iter().cloned());
                ("to everyone".to_string(), vec!["everyone".to_string()], addresses)
            }
            PressTo::Powers(written) => {
                let mut chosen = Vec::new();
                for w in written {
                    let p = named_power(&map, w)?;
                    if !chosen.contains(&p) {
                        chosen.push(p);
                    }
                }
                let names: Vec<String> = chosen.iter().map(|p| map.power(*p).name.clone()).collect();
                let addresses = players.iter().filter(|(p, _)| chosen.contains(p)).map(|(_, a)| a.clone()).collect();
                (format!("to {}", names.join(", ")), names, addresses)
            }
        };
        if addresses.is_empty() {
            return Err(usage("nobody plays the powers named, so no one would read it"));
        }
        let from_key = match from {
            Role::Seat(p) => p.clone(),
            Role::Master => "master".into(),
        };
        self.record_press(&from_key, names, text, now)?;
        let from_label = match me {
            // Grey press: the journal keeps the sender; the readers are not told.
            Some(_) if self.game.settings.press == PressRule::Grey => "an unnamed power".into(),
            Some(p) => map.power(p).name.clone(),
            None => "the game master".into(),
        };
        Ok(PressDelivery { from_label, to_label, addresses })
    }
}
