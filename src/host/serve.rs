//! [`GameHost`] for [`JudgeHost`]: each call of the mail layer carried out on the game it
//! names, through [`GameSession`]; and the master's `mail password`.

use super::*;

impl GameHost for JudgeHost {
    fn game_exists(&self, game: &str) -> bool {
        self.game_dir(game).is_some()
    }

    fn check_sign_on(
        &mut self,
        who: &Identity,
        now: DateTime<Utc>,
        after: DateTime<Utc>,
        limit: usize,
        check: &mut dyn FnMut() -> bool,
    ) -> Result<SignOnCheck, HostError> {
        self.check_sign_on_locked(who, now, after, limit, check)
    }

    fn sign_on(&self, game: &str, who: &str) -> Result<SignOnRecord, SignOnError> {
        let (name, path) = self.game_dir(game).ok_or(SignOnError::NoSuchGame)?;
        let g = any::open_read_only(&path).map_err(|e| {
            let temporary = is_temporary(&e);
            self.record_problem(&name, e.to_string());
            if temporary {
                SignOnError::TryLater
            } else {
                SignOnError::Unavailable
            }
        })?;
        let seat = g.seat(who).map_err(|seats| SignOnError::NoSuchSeat { seats })?;
        Ok(SignOnRecord {
            identity: Identity { game: name, role: seat.role, address: seat.address, timezone: seat.timezone },
            password_hash: seat.password_hash,
        })
    }

    fn submit_orders(&mut self, who: &Identity, text: &str, now: DateTime<Utc>) -> Result<Receipt, HostError> {
        let (ack, went_on) = self.change(&who.game, |g| any::under_way(g)?.receive(&who.role, text, now))?;
        if went_on {
            self.owes_mail(who.game.clone());
        }
        Ok(ack)
    }

    fn offers(&self, game: &str) -> crate::games::Offers {
        self.game_dir(game).map_or(crate::games::Offers::DIPLOMACY, |(_, path)| any::offers(&path))
    }

    fn status(&self, who: &Identity, now: DateTime<Utc>) -> Result<String, HostError> {
        Ok(self.read(&who.game)?.status_for(&who.role, who.timezone, now))
    }

    fn history(&self, who: &Identity) -> Result<String, HostError> {
        self.read(&who.game)?.recent_history(&who.role).map_err(self.host_error(&who.game))
    }

    fn press(
        &mut self,
        who: &Identity,
        to: &PressTo,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<PressDelivery, HostError> {
        self.change(&who.game, |g| lacking::press(g)?.send(&who.role, to, text, now))
    }

    fn set_password(&mut self, who: &Identity, password_hash: &str, now: DateTime<Utc>) -> Result<(), HostError> {
        self.change(&who.game, |g| g.set_particulars(&who.role, Some(password_hash), None, now))
    }

    fn set_pictures(&mut self, who: &Identity, on: bool, now: DateTime<Utc>) -> Result<(), HostError> {
        self.change(&who.game, |g| lacking::pictures(g)?.set_pictures(&who.role, on, now))
    }

    fn set_reports(
        &mut self,
        who: &Identity,
        reports: crate::game::any::Reports,
        now: DateTime<Utc>,
    ) -> Result<(), HostError> {
        self.change(&who.game, |g| lacking::reports(g)?.set_reports(&who.role, reports, now))
    }

    fn set_timezone(&mut self, who: &Identity, zone: Tz, now: DateTime<Utc>) -> Result<(), HostError> {
        self.change(&who.game, |g| g.set_particulars(&who.role, None, Some(zone.name()), now))
    }

    fn master(&mut self, who: &Identity, command: &MasterCommand, now: DateTime<Utc>) -> Result<String, HostError> {
        if who.role != Role::Master {
            return Err(HostError::Refused("only the game master may do that".into()));
        }
        let game = who.game.as_str();
        match command {
            MasterCommand::Process => self.process(game, None, now).map_err(self.host_error(game)),
            MasterCommand::Extend { by } => {
                // From the deadline if it is still ahead, else from now: an extension after
                // the deadline passed (an outage) gives the players real time.
                let at = self.change(game, |g| {
                    let base = g.deadline().filter(|d| *d > now).unwrap_or(now);
                    let at = base + by.duration();
                    any::under_way(g)?.set_deadline(Some(at), now)?;
                    Ok(at)
                })?;
                Ok(format!("Deadline extended by {} to {}.", by.words(), format_deadline(at, who.timezone)))
            }
            MasterCommand::Pause => {
                self.change(game, |g| any::under_way(g)?.set_deadline(None, now))?;
                Ok("Game paused: no deadline until `resume`.".into())
            }
            MasterCommand::Resume => {
                let at = self.change(game, |g| {
                    let at = any::under_way(g)?.scheduled_deadline(now)?;
                    any::under_way(g)?.set_deadline(Some(at), now)?;
                    Ok(at)
                })?;
                Ok(format!("Game resumed. New deadline: {}.", format_deadline(at, who.timezone)))
            }
            MasterCommand::Replace { power, address } => self.replace(game, power, address, now),
            MasterCommand::RefuseAbsence { power } => {
                let outcome =
                    self.change(game, |g| lacking::votes(g, Lacking::Absences)?.refuse_absence(power, now))?;
                Ok(self.notify(game, outcome))
            }
            MasterCommand::Approve { power } => self.approve(game, power, now),
            MasterCommand::Preview => self.preview(game),
            MasterCommand::Early { on } => {
                let (said, went_on) = self.change(game, |g| any::under_way(g)?.set_early(*on, now))?;
                if went_on {
                    self.owes_mail(game.to_string());
                }
                Ok(said)
            }
        }
    }

    fn deadline(&self, game: &str) -> Option<DateTime<Utc>> {
        self.read(game).ok()?.deadline()
    }

    fn player(&mut self, who: &Identity, command: &PlayerCommand, now: DateTime<Utc>) -> Result<String, HostError> {
        let outcome = self.change(&who.game, |g| {
            lacking::votes(g, Lacking::Votes)?.player_command(&who.role, command, who.timezone, now)
        })?;
        Ok(self.notify(&who.game, outcome))
    }

    fn set_wait(&mut self, who: &Identity, wait: bool, now: DateTime<Utc>) -> Result<String, HostError> {
        let (said, went_on) = self.change(&who.game, |g| any::under_way(g)?.set_wait(&who.role, wait, now))?;
        if went_on {
            self.owes_mail(who.game.clone());
        }
        Ok(said)
    }

    fn carry_out(&mut self, tag: Option<String>) {
        self.carrying_out = tag;
    }

    fn take_mails(&mut self) -> Vec<OutgoingMail> {
        JudgeHost::take_mails(self)
    }

    fn contacts(&self, game: &str) -> Vec<Contact> {
        self.read(game).map(|g| g.contacts()).unwrap_or_default()
    }

    fn list_games(&self, game: Option<&str>) -> Result<String, HostError> {
        self.list_text(game)
    }

    fn lobby(
        &mut self,
        sender: &str,
        request: &crate::mail::lobby::LobbyRequest,
        now: DateTime<Utc>,
    ) -> Result<String, HostError> {
        self.lobby_request(sender, request, now)
    }

    fn joined_hash(&self, game: &str, email: &str) -> Option<String> {
        self.read(game).ok()?.seats()?.joined_hash(email)
    }

    fn resign(&mut self, who: &Identity, seat: &str, now: DateTime<Utc>) -> Result<String, HostError> {
        self.resign_seat(who, seat, now)
    }
}

impl JudgeHost {
    /// Hand a seat to a new player at `address` with a fresh password, mailed to them.
    fn replace(&mut self, game: &str, seat: &str, address: &str, now: DateTime<Utc>) -> Result<String, HostError> {
        if !address.contains('@') || address.contains(|c: char| c.is_whitespace() || c.is_control()) {
            return Err(HostError::Refused(format!("`{}` is not an email address", header_safe(address, 80))));
        }
        let password = generate_password(10);
        let hash = hash_password(&password).map_err(|e| HostError::Refused(e.to_string()))?;
        let (seat_name, game_name, old) = self.change(game, |g| {
            let old = g.seat(seat).ok().and_then(|r| r.address);
            Ok((any::under_way(g)?.replace(seat, address, &hash, now)?, g.name(), old))
        })?;
        // The player who had the seat hears of it, without the new player's address.
        let old = old.filter(|o| !o.eq_ignore_ascii_case(address));
        let old_told = old.is_some();
        if let Some(old) = old {
            self.mails.push(OutgoingMail {
                to: old,
                subject: header_safe(&format!("{game_name}: you no longer play {seat_name}"), 120),
                body: format!(
                    "The game master of {game_name} has given the seat of {seat_name} to another player.\n\
                     Your password for it no longer signs on. Thank you for playing.\n"
                ),
                in_reply_to: None,
                references: Vec::new(),
                kind: MailKind::Generated,
                attachments: Vec::new(),
            });
        }
        self.mails.push(OutgoingMail {
            to: address.to_string(),
            subject: header_safe(&format!("{game_name}: you now play {seat_name}"), 120),
            body: format!(
                "The game master of {game_name} has given you the seat of {seat_name}.\n\
                 Sign on to the judge with:\n\n  SIGNON {}@{game_name} {password}\n\n\
                 Reply with `status` after that line to see the game.\n",
                seat_name.to_ascii_lowercase()
            ),
            in_reply_to: None,
            references: Vec::new(),
            kind: MailKind::Generated,
            attachments: Vec::new(),
        });
        let told = if old_told { " The player before has been told." } else { "" };
        Ok(format!("{seat_name} is now played by {address}; a new password was mailed there.{told}"))
    }
}

/// Set a role's password in the game at `path` (the game master's `mail password`): the
/// role, and the address it has on file.
pub fn set_password_at(
    path: &Path,
    who: &str,
    password_hash: &str,
    now: DateTime<Utc>,
) -> Result<(Role, Option<String>), GameError> {
    let mut g = any::open_read_only(path)?;
    let seat = g.seat(who).map_err(|seats| {
        let words = g.offers().words;
        GameError::Invalid(format!(
            "no {} `{}`; the {} are {} (or `master`, or an observer's address)",
            words.seat,
            header_safe(who, 40),
            words.seats,
            seats.join(", ")
        ))
    })?;
    g.set_particulars(&seat.role, Some(password_hash), None, now)?;
    Ok((seat.role, seat.address))
}
