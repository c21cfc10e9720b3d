//! A player's say in a Diplomacy game apart from orders: votes on how it ends, absences.

use super::*;
use crate::game::journal::Entry;

impl Votes for OpenGame {
    fn player_command(
        &mut self,
        role: &Role,
        command: &PlayerCommand,
        zone: Option<Tz>,
        now: DateTime<Utc>,
    ) -> Result<Outcome, GameError> {
        let power = power_of(&self.game, role)?;
        match command {
            PlayerCommand::Absence { from, to } => self.absence(power, *from, *to, zone, now),
            _ => self.vote_by_mail(power, command, now),
        }
    }

    fn refuse_absence(&mut self, seat: &str, now: DateTime<Utc>) -> Result<Outcome, GameError> {
        let power = named_power(&self.game.map, seat)?;
        let moved = self.refuse_absence_of(power, now)?;
        let name = self.game.map.power(power).name.clone();
        let mut out =
            Outcome { said: format!("{name}'s absences are refused: they move no deadline."), notices: Vec::new() };
        if let Some(at) = moved {
            out.said.push_str(&format!(" The deadline moves back to {}.", deadline_text(Some(at))));
            out.notices.push(self.deadline_notice(at, "The game master refused an absence that had moved it."));
        }
        Ok(out)
    }

    fn declare_draw(&mut self, now: DateTime<Utc>) -> Result<Outcome, GameError> {
        let notice = OpenGame::declare_draw(self, now)?;
        let mut notices = Vec::new();
        if let Some(end) = &self.game.state.end {
            notices.push(self.end_notice_for_everyone(end));
        }
        Ok(Outcome { said: notice, notices })
    }
}

impl OpenGame {
    /// The final results of a game that ended by agreement, for everyone who receives results.
    fn end_notice_for_everyone(&self, end: &crate::diplomacy::state::GameEnd) -> Notice {
        let everyone = by_mail::recipients(contacts_of(&self.game));
        Notice {
            final_board: true,
            to: everyone.iter().map(|c| c.address.clone()).collect(),
            subject: format!("{}: the game is over", self.game.settings.name),
            body: final_results(&self.game, &self.entries, end),
        }
    }

    /// An absence by mail: the dates (both days included) in the player's zone.
    fn absence(
        &mut self,
        power: PowerId,
        from: NaiveDate,
        to: NaiveDate,
        zone: Option<Tz>,
        now: DateTime<Utc>,
    ) -> Result<Outcome, GameError> {
        let zone = zone.unwrap_or(chrono_tz::UTC);
        let midnight = |day: NaiveDate| -> Result<DateTime<Utc>, GameError> {
            // The first instant of the day there (a day that starts in a clock change
            // starts at its first hour that exists).
            (0..24)
                .find_map(|h| zone.from_local_datetime(&day.and_hms_opt(h, 0, 0)?).earliest())
                .map(|t| t.with_timezone(&Utc))
                .ok_or_else(|| usage(format!("{day} does not exist in {}", zone.name())))
        };
        let end_day = to.succ_opt().ok_or_else(|| usage("that date is too far ahead"))?;
        let (start, end) = (midnight(from)?, midnight(end_day)?);
        let moved = self.announce_absence(power, start, end, now)?;
        let shown = |at: DateTime<Utc>| crate::diplomacy::report::format_deadline(at, Some(zone));
        let mut out = Outcome {
            said: format!(
                "Absence kept: from {} to {}. A deadline that falls inside it moves to its end.",
                shown(start),
                shown(end)
            ),
            notices: Vec::new(),
        };
        if let Some(at) = moved {
            out.said.push_str(&format!(" The deadline under way moves to {}; everyone is told.", shown(at)));
            let why = self.absence_notice(&[power]);
            out.notices.push(self.deadline_notice(at, &why));
        }
        Ok(out)
    }

    /// Everyone is told a deadline moved, and why (never whose absence, unless public).
    fn deadline_notice(&self, at: DateTime<Utc>, why: &str) -> Notice {
        let game = &self.game.settings.name;
        let everyone = by_mail::recipients(contacts_of(&self.game));
        Notice {
            final_board: false,
            to: everyone.iter().map(|c| c.address.clone()).collect(),
            subject: format!("{game}: the deadline moved"),
            body: format!(
                "The deadline of {} in {game} is now {}.\n{why}\n",
                self.game.state.phase,
                crate::diplomacy::report::format_deadline(at, None),
            ),
        }
    }

    /// A vote by mail: checked against the game's options, kept, and when it makes a
    /// proposal pass, the final results for everyone.
    fn vote_by_mail(
        &mut self,
        power: PowerId,
        command: &PlayerCommand,
        now: DateTime<Utc>,
    ) -> Result<Outcome, GameError> {
        let map = self.game.map.clone();
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        if !self.game.voters().contains(&power) {
            return Err(usage(format!("{} is out of the game and has no vote", map.power(power).name)));
        }
        let survivor = |written: &str| -> Result<PowerId, GameError> {
            let p = named_power(&map, written)?;
            if self.game.state.eliminated.contains(&p) {
                return Err(usage(format!("{} is out of the game", map.power(p).name)));
            }
            Ok(p)
        };
        let settings = &self.game.settings;
        let (vote, what) = match command {
            PlayerCommand::Draw { powers } if powers.is_empty() && settings.draws == Draws::Named => {
                (Vote::Draw { powers: self.game.active_powers() }, "a draw between every survivor")
            }
            PlayerCommand::Draw { powers } if powers.is_empty() => (Vote::Draw { powers: Vec::new() }, "a draw"),
            PlayerCommand::Draw { .. } if settings.draws == Draws::Dias => {
                return Err(usage(
                    "in this game a draw includes every survivor (draws = \"dias\"): send `draw` without powers",
                ))
            }
            PlayerCommand::Draw { powers } => {
                let named = powers.iter().map(|w| survivor(w)).collect::<Result<Vec<_>, _>>()?;
                (Vote::Draw { powers: named }, "a draw between the powers named")
            }
            PlayerCommand::NoDraw => (Vote::NoDraw, "no draw"),
            PlayerCommand::Concede { power: to } => {
                let to = survivor(to)?;
                if to == power {
                    return Err(usage("a power cannot concede to itself"));
                }
                (Vote::Concede { to }, "a concession")
            }
            PlayerCommand::NoConcede => (Vote::NoConcede, "no concession"),
            PlayerCommand::Absence { .. } => return Err(usage("an absence is not a vote")),
        };
        let public = settings.votes == settings::Votes::Public;
        let end = self.vote(power, &vote, now)?;
        let game = self.game.settings.name.clone();
        let name = map.power(power).name.clone();
        let everyone = by_mail::recipients(contacts_of(&self.game));
        let mut notices = Vec::new();
        let said = match &end {
            Some(end) => {
                notices.push(self.end_notice_for_everyone(end));
                format!("Your vote made it pass. {} The final results go to everyone.", self.game.end_notice(end))
            }
            None if public => {
                let own = settings_address(&self.game, power);
                let said = match &vote {
                    Vote::Draw { powers } if !powers.is_empty() => {
                        let names: Vec<String> = powers.iter().map(|p| map.power(*p).name.clone()).collect();
                        format!("{name} votes for a draw between {}.", names.join(", "))
                    }
                    Vote::Draw { .. } => format!("{name} votes for a draw."),
                    Vote::NoDraw => format!("{name} no longer votes for a draw."),
                    Vote::Concede { to } => format!("{name} concedes the game to {}.", map.power(*to).name),
                    Vote::NoConcede => format!("{name} withdraws its concession."),
                };
                notices.push(Notice {
                    final_board: false,
                    to: everyone.iter().map(|c| c.address.clone()).filter(|a| Some(a) != own.as_ref()).collect(),
                    subject: format!("{game}: a vote"),
                    body: format!("{said}\n(Votes in this game are public.)\n"),
                });
                format!("Kept: {what}. Votes are public: everyone is told.")
            }
            None => format!(
                "Kept: {what}. Votes are secret: nobody is told who voted; everyone learns only if it passes (every \
                 surviving power must vote the same)."
            ),
        };
        Ok(Outcome { said, notices })
    }
}

/// The final results of a game ended by agreement: the result, then centers per power.
pub(super) fn final_results(game: &Game, entries: &[Entry], end: &crate::diplomacy::state::GameEnd) -> String {
    let declared = matches!(entries.last(), Some(Entry::DrawDeclared { .. }));
    let how = match end {
        crate::diplomacy::state::GameEnd::Draw(_) if declared => "The game master declared it.",
        crate::diplomacy::state::GameEnd::Draw(_) => "Every surviving power voted for it.",
        crate::diplomacy::state::GameEnd::Victory(_) => "Every other surviving power conceded.",
    };
    let mut out = format!(
        "{}: the game is over, in {}.\n\n{}\n{how}\n\nCenters at the end:\n",
        game.settings.name,
        game.state.phase,
        game.end_notice(end)
    );
    let plus = if game.state.boards.len() > 1 { " (A+B)" } else { "" };
    for p in game.map.power_ids() {
        let centers: Vec<String> = game.state.boards.iter().map(|b| b.ownership.count(p).to_string()).collect();
        let out_of = if game.state.eliminated.contains(&p) { ", out" } else { "" };
        out.push_str(&format!("  {:<8} {}{plus}{out_of}\n", game.map.power(p).name, centers.join("+")));
    }
    let ledger = game.ledger();
    if !ledger.is_empty() {
        out.push_str("Ledger count:\n");
        for l in ledger {
            out.push_str(&format!("  {:<8} {}\n", l.power, l.count));
        }
    }
    out.push('\n');
    out.push_str(&summary(game, entries));
    out
}

/// Who played each power over the whole game, a line each (see
/// [`crate::game::public::roster`]).
pub(super) fn roster(game: &Game, entries: &[Entry]) -> Vec<String> {
    crate::game::public::roster(game, entries).into_iter().map(|(power, who)| format!("{power:<8} {who}")).collect()
}

/// How long a game lasted: its first and last phases, the years and the phases played.
pub(super) fn length(entries: &[Entry]) -> String {
    let phases: Vec<crate::phase::Phase> = crate::game::journal::reports(entries).map(|r| r.phase).collect();
    let (Some(first), Some(last)) = (phases.first(), phases.last()) else {
        return "No phase was played.".to_string();
    };
    let years = last.year - first.year + 1;
    format!(
        "Played from {first} to {last}: {}, {}.",
        crate::text::count(usize::from(years), "year", "years"),
        crate::text::count(phases.len(), "phase", "phases")
    )
}

/// The summary of a game that is over, as Njudge's: how long it lasted and who played
/// each power, every change of player included.
pub(super) fn summary(game: &Game, entries: &[Entry]) -> String {
    let mut out = format!("{}\n\nWho played:\n", length(entries));
    for line in roster(game, entries) {
        out.push_str(&format!("  {line}\n"));
    }
    out
}
