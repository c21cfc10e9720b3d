//! The master's commands on a Diplomacy game: preview, results, rollback, verify, reveal,
//! process, early processing, a player replaced.

use super::*;

impl Desk for OpenGame {
    fn preview(&self) -> Result<Answer, GameError> {
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let report = OpenGame::preview(self);
        let text = format!("{}(dry run: nothing was changed)\n", report.to_text());
        Ok(Answer::new(text, pretty(&report)))
    }

    fn results(&self, which: Option<&str>) -> Result<Answer, GameError> {
        let reports = self.reports();
        let report = match which {
            None => reports.last().copied().ok_or_else(|| usage("no phase has been adjudicated yet"))?,
            Some(p) => {
                let phase = parse_phase(p)?;
                reports
                    .iter()
                    .rev()
                    .find(|r| r.phase == phase)
                    .copied()
                    .ok_or_else(|| usage(format!("{phase} has not been adjudicated in this game")))?
            }
        };
        Ok(Answer::new(report.to_text(), pretty(report)))
    }

    fn rollback(&mut self, to: &str, now: DateTime<Utc>) -> Result<String, GameError> {
        let phase = parse_phase(to)?;
        OpenGame::rollback(self, phase, now)?;
        Ok(format!("Rolled back to the start of {phase}. The journal keeps everything that came after."))
    }

    fn verify(&self) -> Result<Answer, GameError> {
        // A Diplomacy game rolls dice only to assign powers to the players who joined.
        match self.verify_seats() {
            None => {
                Err(usage("this is a Diplomacy game: it rolls no dice (its powers were not assigned by the judge)"))
            }
            Some(Ok(rolls)) => {
                let text = format!(
                    "verified {}: the seed matches the commitment published when the seats opened, and the powers \
                     are the ones the seed and the journaled joins give\n",
                    count(rolls, "roll", "rolls")
                );
                Ok(Answer::new(text, serde_json::json!({"ok": true, "rolls": rolls}).to_string()))
            }
            Some(Err(problem)) => Ok(Answer {
                text: format!("the assignment of powers does not verify: {problem}\n"),
                json: serde_json::json!({"ok": false, "problem": problem}).to_string(),
                ok: false,
            }),
        }
    }

    fn reveal(&mut self, _force: bool, _now: DateTime<Utc>) -> Result<Answer, GameError> {
        Err(usage("this is a Diplomacy game: it has no dice seed"))
    }

    fn process(&mut self, expected: Option<&str>, now: DateTime<Utc>) -> Result<String, GameError> {
        let expected = expected.map(parse_phase).transpose()?;
        let report = self.adjudicate_to_mail(expected, true, now)?;
        let readers = readers(&self.game);
        Ok(format!("{} processed; the results go to {}.", report.phase, count(readers, "address", "addresses")))
    }

    fn set_early(&mut self, on: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError> {
        self.update_settings(now, |s| {
            s.deadlines.early = on;
            Ok(())
        })?;
        let said = if on {
            "Early processing on: a phase is processed at the next tick once every order is in and no power asked \
             to wait."
        } else {
            "Early processing off: every phase waits for its deadline."
        };
        Ok((said.to_string(), false))
    }

    fn replace(
        &mut self,
        seat: &str,
        address: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<String, GameError> {
        if let Some(left) = self.seats_left() {
            // Powers are assigned by the dice at the last join: none is anyone's to give yet.
            return Err(usage(format!(
                "the game has not started ({} still open): powers are assigned at the last join; \
                 `replace` hands a power on once it is played",
                crate::text::count(left, "seat is", "seats are")
            )));
        }
        let map = self.game.map.clone();
        let key = map.power(named_power(&map, seat)?).key.clone();
        // The power's new player does not inherit its old player's votes.
        let votes =
            |g: &mut OpenGame, lock: &mut crate::store::GameLock| g.votes_follow_players(lock, &key, now).map(drop);
        self.update_settings_then(
            now,
            |s| {
                let p = named_power(&map, seat)?;
                match s.players.iter_mut().find(|pl| map.lookup_power(&pl.power) == Some(p)) {
                    Some(player) => {
                        player.email = address.to_string();
                        player.password_hash = Some(password_hash.to_string());
                        player.timezone = None;
                    }
                    None => s.players.push(Player {
                        power: map.power(p).key.clone(),
                        name: crate::game::seating::shown_name(address),
                        email: address.to_string(),
                        timezone: None,
                        password_hash: Some(password_hash.to_string()),
                        pictures: true,
                    }),
                }
                Ok(map.power(p).name.clone())
            },
            votes,
        )
    }
}
