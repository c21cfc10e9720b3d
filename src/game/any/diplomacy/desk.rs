//! The master's commands on a Diplomacy game: preview, results, rollback, verify, reveal,
//! process, early processing, a player replaced.

use super::*;

impl Play for OpenGame {
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

    fn submit(&mut self, submit: Submit<'_>, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let Who::Power(name) = submit.who else {
            return Err(usage("this is a Diplomacy game: say whose orders with --power"));
        };
        let power = self.game.map.lookup_power(name).ok_or_else(|| usage(format!("unknown power `{name}`")))?;
        let ack = OpenGame::submit(self, power, submit.text, submit.check, now)?;
        let mut text = ack.receipt().render(None);
        if submit.check {
            text.push_str("Checked only: nothing was kept; the game is as it was.\n");
        }
        Ok(Answer { text, json: pretty(&ack), ok: ack.problems.is_empty() })
    }

    fn adjudicate(&mut self, force: bool, by_mail: bool, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let report =
            if by_mail { self.adjudicate_to_mail(None, force, now)? } else { OpenGame::adjudicate(self, force, now)? };
        let mut text = report.to_text();
        if self.game.state.end.is_none() {
            text.push_str(&format!("Deadline: {}.\n", deadline_text(self.game.state.deadline)));
        }
        if by_mail {
            text.push_str("The results are owed by mail: the next `mail tick` sends them.\n");
        }
        Ok(Answer::new(text, pretty(&report)))
    }

    fn receive(&mut self, role: &Role, text: &str, now: DateTime<Utc>) -> Result<(Receipt, bool), GameError> {
        let power = power_of(&self.game, role)?;
        let ack = OpenGame::submit(self, power, text, false, now)?;
        // Orders wait for the adjudication: the game does not go on here.
        Ok((ack.receipt(), false))
    }

    fn set_wait(&mut self, role: &Role, wait: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError> {
        let power = power_of(&self.game, role)?;
        OpenGame::set_wait(self, power, wait, now)?;
        let said = match (wait, self.game.settings.deadlines.early) {
            (true, _) => "Waiting: this phase is not processed before its deadline (send `nowait` to undo).",
            (false, true) => "Not waiting: this phase may be processed once every order is in, before its deadline.",
            (false, false) => "Not waiting (this game processes every phase at its deadline anyway).",
        };
        Ok((said.to_string(), false))
    }

    fn scheduled_deadline(&self, now: DateTime<Utc>) -> Result<DateTime<Utc>, GameError> {
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        if let Some(left) = self.seats_left() {
            return Err(usage(format!(
                "the game waits for players ({} open); it starts by itself when the last one joins",
                count(left, "seat", "seats")
            )));
        }
        let schedule = &self.game.settings.deadlines.schedule;
        let at = schedule.deadline_for(self.game.state.phase.kind, now).map_err(|e| usage(e.to_string()))?;
        Ok(self.absent_until(at).map_or(at, |(moved, _)| moved))
    }

    fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError> {
        OpenGame::set_deadline(self, deadline, now)
    }

    fn go_on_early(&mut self, now: DateTime<Utc>) -> Result<Option<String>, GameError> {
        let state = &self.game.state;
        // Early means before the deadline; whether it may go on, `adjudicate_early` decides.
        if state.deadline.is_none_or(|d| d <= now) {
            return Ok(None);
        }
        let Some(report) = self.adjudicate_early(state.phase, now)? else { return Ok(None) };
        let readers = readers(&self.game);
        Ok(Some(format!(
            "{} processed early (every order in); the results go to {}.",
            report.phase,
            count(readers, "address", "addresses")
        )))
    }

    fn late_extension(&mut self, expected: &str, now: DateTime<Utc>) -> Result<Option<Outcome>, GameError> {
        let expected = parse_phase(expected)?;
        let Some((powers, at)) = self.extend_late(expected, now)? else { return Ok(None) };
        let map = &self.game.map;
        let names: Vec<String> = powers.iter().map(|p| map.power(*p).name.clone()).collect();
        let game = self.game.settings.name.clone();
        let phase = self.game.state.phase;
        let shown = crate::diplomacy::report::format_deadline(at, None);
        let mut notices = Vec::new();
        for p in &powers {
            let Some(address) = settings_address(&self.game, *p) else { continue };
            notices.push(Notice {
                final_board: false,
                to: vec![address],
                subject: format!("{game}: late, no orders from {}", map.power(*p).name),
                body: format!(
                    "The deadline of {phase} passed without orders from {}.\nThe phase is extended once, to \
                     {shown}: send your orders before then.\n",
                    map.power(*p).name
                ),
            });
        }
        if let Some(master) = self.game.settings.master.email.clone() {
            notices.push(Notice {
                final_board: false,
                to: vec![master],
                subject: format!("{game}: late, {phase} extended"),
                body: format!("No orders from {} by the deadline: {phase} is extended to {shown}.\n", names.join(", ")),
            });
        }
        Ok(Some(Outcome { said: format!("{phase} extended to {shown}: late {}", names.join(", ")), notices }))
    }
}
