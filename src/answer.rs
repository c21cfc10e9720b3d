//! What a message or a turn file caused, and its one rendering, for every game: the lines
//! taken, the lines refused and why, what the turn made happen at once, and what is still
//! awaited, in the game's own nouns ([`Nouns`]).
//!
//! Diplomacy's acknowledgement and a small game's turn answer each become a [`Receipt`]
//! (they stay as data for their JSON); [`Receipt::render`] writes it for the command line
//! (`submit`, `submit --check`) and, given the message's lines ([`InMessage`]), for a
//! reply by mail, which numbers the lines as the message does and quotes each refused one.

use std::fmt::Write;

use crate::text::count;

/// A line taken: its number in the text handed over, what it was understood as, and a
/// remark on it (an illegal order kept: the unit will hold).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taken {
    pub line: usize,
    pub words: String,
    pub note: Option<String>,
}

/// A line refused: where (line and 1-based column), why, and perhaps what was meant.
/// The one shape of "not taken" for every game: a game's rules and its line reader give
/// one, and the line is set once it is known ([`Refusal::on`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// 1-based line in the text handed over (0 until it is known).
    pub line: usize,
    /// 1-based column where the trouble starts (1: the whole line).
    pub column: usize,
    pub reason: String,
    pub hint: Option<String>,
}

impl Refusal {
    /// A refusal of a whole line.
    pub fn new(reason: impl Into<String>) -> Refusal {
        Refusal { line: 0, column: 1, reason: reason.into(), hint: None }
    }

    /// A refusal that points at a column of the line.
    pub fn at(column: usize, reason: impl Into<String>) -> Refusal {
        Refusal { column, ..Refusal::new(reason) }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Refusal {
        self.hint = Some(hint.into());
        self
    }

    /// The same refusal, of line `line`.
    pub fn on(mut self, line: usize) -> Refusal {
        self.line = line;
        self
    }
}

/// The words a game's answers are said in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nouns {
    /// Before whose input it was (`Orders for`).
    pub head: &'static str,
    /// When no line was taken.
    pub none: &'static str,
    /// When nothing more is awaited.
    pub complete: &'static str,
    /// Before what is still awaited.
    pub awaited: &'static str,
}

impl Nouns {
    /// Diplomacy's orders. A phase words `complete` itself (`Every adjustment has orders.`).
    pub const ORDERS: Nouns = Nouns {
        head: "Orders for",
        none: "no orders understood",
        complete: "Every unit has an order.",
        awaited: "Still without orders",
    };

    /// A small game's turn lines.
    pub const TURN: Nouns =
        Nouns { head: "Turn from", none: "no line taken", complete: "Nothing is awaited now.", awaited: "Awaited now" };
}

/// What a message or turn file caused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// Whose input it was (`France`, `ann`, `the game master`).
    pub who: String,
    /// The phase or step it was for (`Spring 1901 movement`, `round 1, bids`).
    pub step: String,
    pub taken: Vec<Taken>,
    pub refused: Vec<Refusal>,
    /// What the input made happen at once, one line each (a roll, the next step begun).
    pub events: Vec<String>,
    /// What is still awaited (`F bre`); `None`: not said (a check, which changes nothing).
    pub awaited: Option<Vec<String>>,
    pub nouns: Nouns,
}

/// A reply by mail: the lines of the message that were handed over, so that each line is
/// numbered as in the message and each refused one is quoted.
pub struct InMessage<'a> {
    /// For line n of the text handed over, `lines[n - 1]`: its number in the message and
    /// its text.
    pub lines: &'a [(usize, &'a str)],
    /// How a line is quoted (a line that might hold a password is cut short).
    pub quote: &'a dyn Fn(&str) -> String,
    /// The most refusals listed; the rest are counted.
    pub most: usize,
}

impl Receipt {
    /// Whether anything was taken.
    pub fn took(&self) -> bool {
        !self.taken.is_empty()
    }

    /// The answer for people, the one wording of every game: whose input and for what,
    /// each line taken and under them what happened at once, each line refused (its column when it points
    /// inside the line, the reason, the hint), then what is still awaited.
    pub fn render(&self, message: Option<&InMessage<'_>>) -> String {
        let mut out = String::new();
        let in_message = |line: usize| message.and_then(|m| m.lines.get(line.wrapping_sub(1)));
        let number = |line: usize| in_message(line).map_or(line, |(n, _)| *n);
        let _ = writeln!(out, "{} {}, {}:", self.nouns.head, self.who, self.step);
        for t in &self.taken {
            let note = t.note.as_ref().map(|n| format!("  ({n})")).unwrap_or_default();
            let _ = writeln!(out, "  line {:>3}: {}{note}", number(t.line), t.words);
        }
        if self.taken.is_empty() {
            let _ = writeln!(out, "  {}", self.nouns.none);
        }
        // What the turn made happen, under the lines that did it; an event that says
        // only what a line's answer said already is not said twice.
        let said = |e: &str| self.taken.iter().any(|t| t.words.trim_end_matches('.') == e.trim_end_matches('.'));
        for e in self.events.iter().filter(|e| !said(e)) {
            let _ = writeln!(out, "            {e}");
        }
        if !self.refused.is_empty() {
            let _ = writeln!(out, "Not taken:");
        }
        let most = message.map_or(usize::MAX, |m| m.most);
        for r in self.refused.iter().take(most) {
            let column = if r.column > 1 { format!(", column {}", r.column) } else { String::new() };
            let quoted = match (message, in_message(r.line)) {
                (Some(m), Some((_, text))) => format!("{}: ", (m.quote)(text)),
                _ => String::new(),
            };
            if r.line == 0 {
                let _ = writeln!(out, "  {}", r.reason);
            } else {
                let _ = writeln!(out, "  line {:>3}{column}: {quoted}{}", number(r.line), r.reason);
            }
            if let Some(h) = &r.hint {
                let _ = writeln!(out, "            hint: {h}");
            }
        }
        if self.refused.len() > most {
            let more = count(self.refused.len() - most, "more line", "more lines");
            let _ = writeln!(out, "  ... and {more} not taken, not listed.");
        }
        match &self.awaited {
            Some(a) if a.is_empty() => {
                let _ = writeln!(out, "{}", self.nouns.complete);
            }
            Some(a) => {
                let _ = writeln!(out, "{}: {}", self.nouns.awaited, a.join(", "));
            }
            None => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orders() -> Receipt {
        Receipt {
            who: "France".into(),
            step: "Spring 1901 movement".into(),
            taken: vec![
                Taken { line: 1, words: "[A] A par - bur".into(), note: None },
                Taken { line: 2, words: "[A] A mar - mun".into(), note: Some("illegal, the unit will hold".into()) },
            ],
            refused: vec![Refusal::at(9, "expected a province after `-`, found `xyz`")
                .hint("your units: A par, A mar, F bre")
                .on(3)],
            events: Vec::new(),
            awaited: Some(vec!["[A] F bre".into()]),
            nouns: Nouns::ORDERS,
        }
    }

    fn turn() -> Receipt {
        Receipt {
            who: "ann".into(),
            step: "round 1, act".into(),
            taken: vec![Taken { line: 2, words: "P3: shift +1 to NF3".into(), note: None }],
            refused: vec![Refusal::new("illegal: not your turn").on(1), Refusal::at(7, "no space `Z9`").on(3)],
            events: vec!["ann rolls 4".into()],
            awaited: Some(Vec::new()),
            nouns: Nouns::TURN,
        }
    }

    /// Issue 41.8: an event that repeats a taken line's answer (Overdue's `ann scores 5`)
    /// is said once.
    #[test]
    fn an_event_that_repeats_a_lines_answer_is_said_once() {
        let r = Receipt {
            taken: vec![Taken { line: 1, words: "ann scores 5 (round score 5)".into(), note: None }],
            events: vec!["ann scores 5 (round score 5).".into(), "bob rolls 4".into()],
            ..turn()
        };
        let text = r.render(None);
        assert_eq!(text.matches("ann scores 5").count(), 1, "{text}");
        assert!(text.contains("bob rolls 4"), "{text}");
    }

    #[test]
    fn orders_on_the_command_line() {
        assert_eq!(
            orders().render(None),
            "Orders for France, Spring 1901 movement:\n\
             \x20 line   1: [A] A par - bur\n\
             \x20 line   2: [A] A mar - mun  (illegal, the unit will hold)\n\
             Not taken:\n\
             \x20 line   3, column 9: expected a province after `-`, found `xyz`\n\
             \x20           hint: your units: A par, A mar, F bre\n\
             Still without orders: [A] F bre\n"
        );
    }

    #[test]
    fn a_turn_on_the_command_line() {
        assert_eq!(
            turn().render(None),
            "Turn from ann, round 1, act:\n\
             \x20 line   2: P3: shift +1 to NF3\n\
             \x20           ann rolls 4\n\
             Not taken:\n\
             \x20 line   1: illegal: not your turn\n\
             \x20 line   3, column 7: no space `Z9`\n\
             Nothing is awaited now.\n"
        );
    }

    #[test]
    fn by_mail_lines_are_numbered_as_in_the_message_and_refused_ones_quoted() {
        let lines = [(12, "A par - bur"), (13, "A mar - mun"), (15, "A par - xyz")];
        let quote = |t: &str| format!("`{t}`");
        let message = InMessage { lines: &lines, quote: &quote, most: 50 };
        assert_eq!(
            orders().render(Some(&message)),
            "Orders for France, Spring 1901 movement:\n\
             \x20 line  12: [A] A par - bur\n\
             \x20 line  13: [A] A mar - mun  (illegal, the unit will hold)\n\
             Not taken:\n\
             \x20 line  15, column 9: `A par - xyz`: expected a province after `-`, found `xyz`\n\
             \x20           hint: your units: A par, A mar, F bre\n\
             Still without orders: [A] F bre\n"
        );
        let lines = [(4, "pawn P9"), (5, "pawn P3: move +"), (6, "place Z9")];
        let message = InMessage { lines: &lines, quote: &quote, most: 1 };
        assert_eq!(
            turn().render(Some(&message)),
            "Turn from ann, round 1, act:\n\
             \x20 line   5: P3: shift +1 to NF3\n\
             \x20           ann rolls 4\n\
             Not taken:\n\
             \x20 line   4: `pawn P9`: illegal: not your turn\n\
             \x20 ... and 1 more line not taken, not listed.\n\
             Nothing is awaited now.\n"
        );
    }

    #[test]
    fn nothing_taken_and_nothing_said_of_what_is_awaited() {
        let checked = Receipt { taken: Vec::new(), events: Vec::new(), refused: Vec::new(), awaited: None, ..turn() };
        assert_eq!(checked.render(None), "Turn from ann, round 1, act:\n  no line taken\n");
        assert!(!checked.took());
        let none = Receipt { taken: Vec::new(), refused: Vec::new(), awaited: Some(Vec::new()), ..orders() };
        assert_eq!(
            none.render(None),
            "Orders for France, Spring 1901 movement:\n  no orders understood\nEvery unit has an order.\n"
        );
    }
}
