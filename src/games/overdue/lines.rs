//! The grammar of an Overdue turn file: one line, one turn (`score 5`, `time 2`,
//! `discard 1`, `cash`, `pass`, short forms `s 5`, `t 2`, `d 1`) or the standing
//! squeeze-in line (`squeeze 4 rerolls 2`). Any case; comments as in [`kit`].
//!
//! Reading a line never fails as a whole and never panics: it gives what the line says,
//! or why it says nothing the judge understands, with the column where the trouble is.
//! Whether a turn is allowed is not decided here (see the engine): this is only what
//! was written.

use serde::{Deserialize, Serialize};

use crate::answer::Refusal;
use crate::games::kit::{self, Word};

/// One turn, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    /// Set aside an unused die showing this value and add it to the round score.
    Score(u8),
    /// Put an unused die showing this value on the time.
    Time(u8),
    /// Set an unused die showing this value aside for nothing.
    Discard(u8),
    /// Lock in the round score.
    Cash,
    /// Do nothing this turn.
    Pass,
}

impl std::fmt::Display for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Turn::Score(v) => write!(f, "score {v}"),
            Turn::Time(v) => write!(f, "time {v}"),
            Turn::Discard(v) => write!(f, "discard {v}"),
            Turn::Cash => f.write_str("cash"),
            Turn::Pass => f.write_str("pass"),
        }
    }
}

/// A player's standing squeeze-in line: the number named at the deadline, and the most
/// re-rolls they will buy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Squeeze {
    pub number: u8,
    pub rerolls: u8,
}

/// The most re-rolls a player may buy in one round.
pub const MAX_REROLLS: u8 = 5;

impl Squeeze {
    /// What a player with no squeeze line gets: one free attempt on 6.
    pub const DEFAULT: Squeeze = Squeeze { number: 6, rerolls: 0 };
}

impl std::fmt::Display for Squeeze {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "squeeze {} rerolls {}", self.number, self.rerolls)
    }
}

/// What one line says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    Turn(Turn),
    Squeeze(Squeeze),
}

/// The turn words, for messages and suggestions.
const WORDS: &[&str] = &["score", "time", "discard", "cash", "pass", "squeeze"];

/// A word as written, quoted safely: at most 20 characters, control characters shown as `?`.
fn quoted(word: &str) -> String {
    let mut shown: String = word.chars().take(20).map(|c| if c.is_control() { '?' } else { c }).collect();
    if word.chars().count() > 20 {
        shown.push_str("...");
    }
    format!("`{shown}`")
}

/// A number in `low..=high` at `column`, or why not; `what` names it in messages.
fn number(word: &str, column: usize, low: u8, high: u8, what: &str) -> Result<u8, Refusal> {
    if !word.chars().all(|c| c.is_ascii_digit()) {
        return Err(Refusal::at(column, format!("{} is not a number: {what} is {low} to {high}", quoted(word))));
    }
    match word.parse::<u32>() {
        Ok(n) if (u32::from(low)..=u32::from(high)).contains(&n) => Ok(n as u8),
        _ => Err(Refusal::at(column, format!("{what} is {low} to {high}, not {}", quoted(word).trim_matches('`')))),
    }
}

/// Read one line that says something (see [`kit::lines`]).
pub fn parse_line(line: &kit::Line<'_>) -> Result<Line, Refusal> {
    let words: Vec<(usize, &str)> = line.words.iter().map(|&Word { column, text }| (column, text)).collect();
    let (col, first) = words[0];
    let end = line.end_column();
    let keyword = first.to_lowercase();
    let die_turn: Option<fn(u8) -> Turn> = match keyword.as_str() {
        "score" | "s" => Some(Turn::Score),
        "time" | "t" => Some(Turn::Time),
        "discard" | "d" => Some(Turn::Discard),
        _ => None,
    };
    let result = if let Some(make) = die_turn {
        let name = WORDS.iter().find(|w| w.starts_with(keyword.as_str())).copied().unwrap_or("score");
        match words.get(1) {
            None => Err(Refusal::at(end, format!("`{name}` needs the value of one of your dice, like `{name} 5`"))),
            Some(&(c, w)) => number(w, c, 1, 6, "a die's value").map(|v| Line::Turn(make(v))),
        }
        .and_then(|l| nothing_after(&words, 2, name).map(|_| l))
    } else {
        match keyword.as_str() {
            "cash" => nothing_after(&words, 1, "cash").map(|_| Line::Turn(Turn::Cash)),
            "pass" => nothing_after(&words, 1, "pass").map(|_| Line::Turn(Turn::Pass)),
            "squeeze" => squeeze(&words, end),
            _ => Err(unknown_word(col, first)),
        }
    };
    result
}

fn nothing_after(words: &[(usize, &str)], from: usize, what: &str) -> Result<(), Refusal> {
    match words.get(from) {
        None => Ok(()),
        Some(&(c, w)) => Err(Refusal::at(c, format!("{} after `{what}`: a line holds one turn", quoted(w)))),
    }
}

fn squeeze(words: &[(usize, &str)], end: usize) -> Result<Line, Refusal> {
    let Some(&(c, w)) = words.get(1) else {
        return Err(Refusal::at(end, "`squeeze` needs the number you will roll for, like `squeeze 4 rerolls 2`"));
    };
    let target = number(w, c, 1, 6, "the number to squeeze in on")?;
    let rerolls = match words.get(2) {
        None => 0,
        Some(&(c, w)) => {
            if !matches!(w.to_lowercase().as_str(), "rerolls" | "re-rolls" | "reroll" | "re-roll") {
                return Err(Refusal::at(
                    c,
                    format!("{} after the number: write `rerolls N`, like `squeeze 4 rerolls 2`", quoted(w)),
                ));
            }
            let Some(&(c, w)) = words.get(3) else {
                return Err(Refusal::at(end, "`rerolls` needs how many you will buy at most, 0 to 5"));
            };
            let n = number(w, c, 0, MAX_REROLLS, "the number of re-rolls")?;
            nothing_after(words, 4, "rerolls")?;
            n
        }
    };
    Ok(Line::Squeeze(Squeeze { number: target, rerolls }))
}

fn unknown_word(column: usize, word: &str) -> Refusal {
    let lower = word.to_lowercase();
    let mut d = Refusal::at(
        column,
        format!("{} is not a turn: write score, time, discard, cash, pass or squeeze", quoted(word)),
    );
    let best = WORDS
        .iter()
        .map(|w| (strsim::damerau_levenshtein(&lower, w), *w))
        .min()
        .filter(|(distance, _)| *distance <= 2 && lower.chars().count() > 2);
    if let Some((_, w)) = best {
        d.hint = Some(format!("did you mean `{w}`?"));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read the one line of `text`; `None` when it says nothing.
    fn read(text: &str) -> Option<Result<Line, Refusal>> {
        kit::lines(text).next().map(|l| parse_line(&l))
    }

    fn ok(text: &str) -> Line {
        read(text).expect("says something").expect("understood")
    }

    fn bad(text: &str) -> Refusal {
        read(text).expect("says something").expect_err("not understood")
    }

    #[test]
    fn every_turn_and_its_short_form_in_any_case() {
        assert_eq!(ok("score 5"), Line::Turn(Turn::Score(5)));
        assert_eq!(ok("  S 5  "), Line::Turn(Turn::Score(5)));
        assert_eq!(ok("Time 2"), Line::Turn(Turn::Time(2)));
        assert_eq!(ok("t 6 # up"), Line::Turn(Turn::Time(6)));
        assert_eq!(ok("DISCARD 1"), Line::Turn(Turn::Discard(1)));
        assert_eq!(ok("d\t3"), Line::Turn(Turn::Discard(3)));
        assert_eq!(ok("cash"), Line::Turn(Turn::Cash));
        assert_eq!(ok("Pass"), Line::Turn(Turn::Pass));
        assert_eq!(ok("squeeze 4 rerolls 2"), Line::Squeeze(Squeeze { number: 4, rerolls: 2 }));
        assert_eq!(ok("squeeze 3 re-rolls 0"), Line::Squeeze(Squeeze { number: 3, rerolls: 0 }));
        assert_eq!(ok("Squeeze 1"), Line::Squeeze(Squeeze { number: 1, rerolls: 0 }));
        assert!(read("   ").is_none());
        assert!(read("# only a comment").is_none());
    }

    #[test]
    fn bad_lines_say_where_and_what() {
        let d = bad("score 7");
        assert_eq!(d.column, 7);
        assert!(d.reason.contains("1 to 6, not 7"), "{}", d.reason);
        let d = bad("time");
        assert_eq!(d.column, 5);
        assert!(d.reason.contains("`time 5`"), "{}", d.reason);
        let d = bad("discard five");
        assert_eq!(d.column, 9);
        assert!(d.reason.contains("`five` is not a number"), "{}", d.reason);
        let d = bad("cash 5");
        assert_eq!(d.column, 6);
        assert!(d.reason.contains("one turn"), "{}", d.reason);
        let d = bad("squeeze 9");
        assert!(d.reason.contains("1 to 6, not 9"), "{}", d.reason);
        let d = bad("squeeze 4 rerolls 6");
        assert_eq!(d.column, 19);
        assert!(d.reason.contains("0 to 5, not 6"), "{}", d.reason);
        let d = bad("squeeze 4 twice");
        assert!(d.reason.contains("rerolls N"), "{}", d.reason);
        let d = bad("  scroe 5");
        assert_eq!(d.column, 3);
        assert_eq!(d.hint.as_deref(), Some("did you mean `score`?"));
        assert!(bad("score 99999999999999999999").reason.contains("1 to 6"));
    }

    #[test]
    fn junk_never_panics_and_is_quoted_short() {
        for text in ["\u{0}\u{1}", "é 5", "score -1", "s\u{fffd}", "squeeze", "squeeze 2 rerolls", "🎲 6"] {
            let _ = read(text);
        }
        let long = "x".repeat(10_000);
        assert!(bad(&long).reason.len() < 120);
        assert!(bad("\u{7}bell").reason.contains("`?bell`"));
    }
}
