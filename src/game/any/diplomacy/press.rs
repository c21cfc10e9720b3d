//! Press in a Diplomacy game: who may write to whom, and where it goes.

use super::*;

impl Press for OpenGame {
    fn send(&mut self, from: &Role, to: &PressTo, text: &str, now: DateTime<Utc>) -> Result<PressDelivery, GameError> {
        let me = power_of(&self.game, from).ok();
        let map = self.game.map.clone();
        let settings = &self.game.settings;
        let observer = match from {
            Role::Observer(address) => Some(address.clone()),
            _ => None,
        };
        if (me.is_some() || observer.is_some()) && settings.press == PressRule::Gunboat {
            return Err(usage(
                "this is a gunboat game (press = \"none\"): players and observers send no press; only the game \
                 master writes to everyone",
            ));
        }
        if observer.is_some() && !settings.observer_press {
            return Err(usage(
                "observers send no press in this game (its option observer_press is off; the game master may turn \
                 it on in game.toml)",
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
                let others = settings.observers.iter().filter(|o| Some(*o) != observer.as_ref());
                addresses.extend(others.cloned());
                ("to everyone".to_string(), vec!["everyone".to_string()], addresses)
            }
            PressTo::Powers(written) => {
                let mut chosen = Vec::new();
                // `press to master` (or `gm`): the game master reads it.
                let to_master = written.iter().any(|w| crate::game::by_mail::names_master(w));
                for w in written.iter().filter(|w| !crate::game::by_mail::names_master(w)) {
                    let p = named_power(&map, w)?;
                    if !chosen.contains(&p) {
                        chosen.push(p);
                    }
                }
                let mut names: Vec<String> = chosen.iter().map(|p| map.power(*p).name.clone()).collect();
                let mut addresses: Vec<String> =
                    players.iter().filter(|(p, _)| chosen.contains(p)).map(|(_, a)| a.clone()).collect();
                if to_master {
                    names.push("the game master".into());
                    addresses.extend(settings.master.email.clone());
                }
                (format!("to {}", names.join(", ")), names, addresses)
            }
        };
        if addresses.is_empty() {
            return Err(usage("nobody plays the powers named, so no one would read it"));
        }
        // The game master reads every press message players and observers send, as on
        // Njudge (a gunboat game has none from them).
        let mut addresses = addresses;
        if me.is_some() || observer.is_some() {
            if let Some(master) = &settings.master.email {
                if !addresses.iter().any(|a| a.eq_ignore_ascii_case(master)) {
                    addresses.push(master.clone());
                }
            }
        }
        self.record_press(&from.key(), names, text, now)?;
        let grey = self.game.settings.press == PressRule::Grey;
        let from_label = match (me, observer) {
            // Grey press: the journal keeps the sender; the readers are not told.
            (Some(_), _) if grey => "an unnamed power".into(),
            (Some(p), _) => map.power(p).name.clone(),
            (None, Some(_)) if grey => "an observer".into(),
            (None, Some(address)) => format!("an observer ({address})"),
            (None, None) => "the game master".into(),
        };
        Ok(PressDelivery { from_label, to_label, addresses })
    }
}
