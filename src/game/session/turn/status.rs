//! What a game shows: reports (now or after a step), status, and the words for seats
//! and endings.

use super::*;

/// The game as a report shows it at one moment: now, or right after an earlier step.
struct Moment<'a> {
    game: &'a dyn TurnGame,
    deadline: Option<DateTime<Utc>>,
    paused: bool,
    rolls: u64,
    revealed: Option<&'a str>,
    waiting: &'a [String],
}

/// The seats a game awaits, by name: its players, and `master` when it awaits the
/// game master's input.
fn names_of(game: &dyn TurnGame, awaiting: &Awaiting) -> Vec<String> {
    let names = game.players();
    let mut seats: Vec<String> = awaiting.players.iter().filter_map(|i| names.get(*i).cloned()).collect();
    if awaiting.master {
        seats.push(MASTER.to_string());
    }
    seats
}

/// Seat names as a sentence says them: `master` is "the game master".
pub fn in_words(seats: Vec<String>) -> Vec<String> {
    seats.into_iter().map(|s| if s == MASTER { "the game master".to_string() } else { s }).collect()
}

/// How a game ended, in words.
fn ending_words(game: &dyn TurnGame, ending: &Ending) -> String {
    let names = game.players();
    match ending {
        Ending::Won { players } if players.len() == 1 => {
            format!("{} wins", names.get(players[0]).map_or("?", String::as_str))
        }
        Ending::Won { players } => format!(
            "{} share the win",
            players.iter().filter_map(|p| names.get(*p).cloned()).collect::<Vec<_>>().join(" and ")
        ),
        Ending::Lost => "every player lost".into(),
        Ending::Drawn => "drawn".into(),
    }
}

impl OpenTurnGame {
    /// Names of the players whose input is awaited.
    pub fn awaiting_names(&self) -> Vec<String> {
        self.names_awaited(&self.game.awaiting())
    }

    /// Names of the seats `awaiting` names (`master` for the game master).
    pub fn names_awaited(&self, awaiting: &Awaiting) -> Vec<String> {
        names_of(self.game.as_ref(), awaiting)
    }

    /// The header and the board, as every report shows it.
    pub fn report_text(&self) -> String {
        self.render(&Moment {
            game: self.game.as_ref(),
            deadline: self.meta.deadline,
            paused: self.meta.paused,
            rolls: self.meta.rolls,
            revealed: self.meta.revealed.as_deref(),
            waiting: &self.meta.waiting,
        })
    }

    /// The header and the board as they were right after journal entry `seq` (a step):
    /// the report owed for that entry. The latest step shows the game as it is now.
    pub fn report_text_at(&self, seq: u64) -> Option<String> {
        let at = self.entries.iter().position(|(s, _, _)| *s == seq)?;
        let step = self.entries[at].2.step()?;
        if !self.entries[at + 1..].iter().any(|(_, _, e)| e.step().is_some()) {
            return Some(self.report_text());
        }
        let game = games::load(&self.meta.game, &step.state).ok()?;
        let (mut rolls, mut paused, mut waiting, mut label) = (0u64, false, Vec::<String>::new(), String::new());
        for (_, _, e) in &self.entries[..=at] {
            match e {
                TurnEntry::Wait { player, wait } => set_waiting(&mut waiting, player, *wait),
                TurnEntry::DeadlineSet { deadline } => paused = deadline.is_none(),
                TurnEntry::Submitted { step, .. } if step.label == label => rolls += step.rolls.len() as u64,
                _ => {
                    if let Some(step) = e.step() {
                        rolls += step.rolls.len() as u64;
                        waiting.clear();
                    }
                }
            }
            if let Some(step) = e.step() {
                label = step.label.clone();
            }
        }
        if !game.together().is_together() {
            waiting.clear();
        }
        // The seed is revealed right after the step that ends the game.
        let revealed = self.entries[at + 1..]
            .iter()
            .take_while(|(_, _, e)| e.step().is_none())
            .chain(&self.entries[..=at])
            .find_map(|(_, _, e)| match e {
                TurnEntry::Revealed { seed } => Some(seed.as_str()),
                _ => None,
            });
        Some(self.render(&Moment {
            game: game.as_ref(),
            deadline: step.deadline,
            paused: paused && step.deadline.is_none(),
            rolls,
            revealed,
            waiting: &waiting,
        }))
    }

    fn render(&self, m: &Moment<'_>) -> String {
        let game = m.game;
        let mut out = format!("{} ({}): {}\n", self.settings.name, self.meta.game, game.step_label());
        let options = game.option_lines();
        if !options.is_empty() {
            out.push_str(&format!("Options: {}\n", options.join("; ")));
        }
        out.push('\n');
        out.push_str(&game.report_text());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&self.word_list_text(game));
        out.push('\n');
        match game.ending() {
            Some(ending) => out.push_str(&format!("The game is over: {}.\n", ending_words(game, &ending))),
            None => {
                let waiting = game.awaiting();
                let names = in_words(names_of(game, &waiting));
                if !names.is_empty() {
                    out.push_str(&format!("Waiting for {}: {}.\n", names.join(" and "), waiting.what));
                }
                if let Some(line) = self.hold_text_for(game, m.waiting) {
                    out.push_str(&line);
                    out.push('\n');
                }
                out.push_str(&match m.deadline {
                    Some(d) => format!("Deadline: {}\n", d.format("%A %-d %B %Y, %H:%M UTC")),
                    None if m.paused => "Deadline: none (paused)\n".to_string(),
                    None => "Deadline: none\n".to_string(),
                });
            }
        }
        let rolls = count(m.rolls, "roll", "rolls");
        let commitment = &self.meta.commitment;
        out.push_str(&match (m.revealed, game.ending().is_some()) {
            (None, _) => format!("Dice: commitment {commitment} ({rolls} so far)\n"),
            (Some(seed), true) => format!(
                "Dice: commitment {commitment}; seed revealed: {seed}. {rolls} in all: `shadowjudge verify {}` \
                 recomputes every one from the seed.\n",
                self.settings.name
            ),
            (Some(seed), false) => format!(
                "Dice: commitment {commitment} ({rolls} so far); seed revealed: {seed}.\n\
                 The game master revealed the seed before the end: the rest of the game's rolls are public \
                 (anyone who has the seed can foresee them).\n"
            ),
        });
        out
    }

    /// The answers under way that the game's word list does not hold, as (player,
    /// answer); `Ok(None)` without a word list; an error when the list cannot be read.
    pub fn unlisted(&self) -> Result<Option<Vec<(String, String)>>, String> {
        self.unlisted_in(self.game.as_ref())
    }

    /// [`OpenTurnGame::unlisted`] for the answers of `game` (now, or an earlier step).
    fn unlisted_in(&self, game: &dyn TurnGame) -> Result<Option<Vec<(String, String)>>, String> {
        let Some(name) = &self.settings.word_list else { return Ok(None) };
        let answers = game.windows().map(|w| w.answers()).unwrap_or_default();
        if answers.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let text = crate::store::read_text(&self.dir.path().join(name)).map_err(|e| e.to_string())?;
        let key = |w: &str| w.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        let words: std::collections::HashSet<String> = crate::text::strip_invisible(&text)
            .lines()
            .map(|l| key(l.split('#').next().unwrap_or("")))
            .filter(|w| !w.is_empty())
            .collect();
        Ok(Some(answers.into_iter().filter(|(_, a)| !words.contains(&key(a))).collect()))
    }

    fn word_list_text(&self, game: &dyn TurnGame) -> String {
        let name = self.settings.word_list.as_deref().unwrap_or_default();
        match self.unlisted_in(game) {
            Ok(None) => String::new(),
            Ok(Some(unlisted)) if unlisted.is_empty() => String::new(),
            Ok(Some(unlisted)) => {
                let all: Vec<String> = unlisted.iter().map(|(p, a)| format!("{p}'s {a}")).collect();
                format!("For the game master: not in the word list {name}: {}.\n", all.join(", "))
            }
            Err(e) => format!("For the game master: the word list cannot be read ({e}); answers are not checked.\n"),
        }
    }

    /// How the game ended, in words.
    pub fn ending_text(&self, ending: &Ending) -> String {
        ending_words(self.game.as_ref(), ending)
    }

    /// `status --json`: the engine's fields plus `name`, `deadline` and `dice`.
    pub fn status_json(&self) -> serde_json::Value {
        let mut v = self.game.status_json();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("name".into(), self.settings.name.clone().into());
            obj.insert("deadline".into(), serde_json::to_value(self.meta.deadline).unwrap_or_default());
            if let Ok(Some(unlisted)) = self.unlisted() {
                let all: Vec<_> = unlisted.iter().map(|(p, a)| serde_json::json!({"player": p, "answer": a})).collect();
                obj.insert("unlisted".into(), all.into());
            }
            obj.insert("early".into(), self.settings.deadlines.early.into());
            obj.insert("waiting".into(), self.meta.waiting.clone().into());
            obj.insert("held".into(), (self.game.ending().is_none() && self.game.together().is_held()).into());
            obj.insert(
                "dice".into(),
                serde_json::json!({
                    "commitment": self.meta.commitment,
                    "seed": self.meta.revealed,
                    "rolls": self.meta.rolls,
                }),
            );
        }
        v
    }

    /// The step a report is about, for its subject: the step under way before the entry
    /// (a turn or a deadline in faceoff 1 is about faceoff 1, whatever it led to); the
    /// entry's own for the start and a rollback.
    pub fn entry_label(&self, seq: u64) -> Option<String> {
        let at = self.entries.iter().position(|(s, _, _)| *s == seq)?;
        let entry = &self.entries[at].2;
        let own = entry.step()?.label.clone();
        if matches!(entry, TurnEntry::Created { .. } | TurnEntry::RolledBack { .. }) {
            return Some(own);
        }
        Some(self.entries[..at].iter().rev().find_map(|(_, _, e)| e.step()).map_or(own, |s| s.label.clone()))
    }

    /// The report of one journal entry: what happened (the board is
    /// [`OpenTurnGame::report_text_at`]).
    pub fn entry_report(&self, seq: u64) -> Option<String> {
        let at = self.entries.iter().position(|(s, _, _)| *s == seq)?;
        let entry = &self.entries[at].2;
        let step = entry.step()?;
        let mut out = String::new();
        match entry {
            TurnEntry::Created { .. } => out.push_str("The game begins.\n"),
            TurnEntry::Submitted { player, .. } => out.push_str(&format!("{player} played.\n")),
            TurnEntry::Forced { .. } => {
                let words = self.forcing(at).map(Forcing::words).unwrap_or_default();
                out.push_str(&format!("{}.\n", crate::text::sentence(words)));
            }
            TurnEntry::Released { .. } => {
                out.push_str("Every input was in and nobody waits any more: the game went on before the deadline.\n")
            }
            TurnEntry::RolledBack { .. } => {}
            _ => {}
        }
        for e in &step.events {
            out.push_str(&format!("  {e}\n"));
        }
        for r in &step.rolls {
            out.push_str(&format!("  roll {}: d{} for {}: {}\n", r.k, r.n, r.purpose, r.result));
        }
        Some(out)
    }
}
