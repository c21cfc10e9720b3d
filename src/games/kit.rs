//! What every small game's turn-file lines and options share: one line reader, one
//! comment rule, one kind of "not understood", and one option table.
//!
//! The comment rule, for every game: **`#` starts a comment that runs to the end of the
//! line, wherever it stands; a line with nothing but spaces and a comment says nothing
//! and gets no answer.** (No game has a `#` in its words, so nothing is lost.)
//!
//! A game keeps only its own grammar: it gets each [`Line`] with its number, the text
//! before the comment and the words with their columns, and answers a line it cannot
//! read with a [`crate::answer::Refusal`] at the column where the trouble starts, the one
//! shape of a refused line in every game.

use crate::span::Span;

use super::Options;

/// A word of a line and the 1-based column (in characters) where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<'a> {
    pub column: usize,
    pub text: &'a str,
}

/// One line of a turn file that says something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the text sent.
    pub number: usize,
    /// The line before its comment (columns in it are the columns of the line).
    pub text: &'a str,
    /// The words of [`Line::text`], split at white space; never empty.
    pub words: Vec<Word<'a>>,
}

impl Line<'_> {
    /// The column just after the last character of the text (where "the line ends too
    /// soon" points).
    pub fn end_column(&self) -> usize {
        self.text.chars().count() + 1
    }
}

/// The text of a line before its comment.
pub fn strip_comment(line: &str) -> &str {
    line.split('#').next().unwrap_or_default()
}

/// The words of `text` with their 1-based columns.
pub fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte, column)
    for (column, (byte, c)) in text.char_indices().enumerate() {
        match (c.is_whitespace(), start) {
            (true, Some((b, col))) => {
                out.push(Word { column: col, text: &text[b..byte] });
                start = None;
            }
            (false, None) => start = Some((byte, column + 1)),
            _ => {}
        }
    }
    if let Some((b, col)) = start {
        out.push(Word { column: col, text: &text[b..] });
    }
    out
}

/// The lines of a turn file that say something, comments cut off, blank lines skipped.
pub fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    text.lines().enumerate().filter_map(|(i, raw)| {
        let text = strip_comment(raw);
        let words = words(text);
        (!words.is_empty()).then_some(Line { number: i + 1, text, words })
    })
}

/// What an option's value may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number in `low..=high` (`high` = `u32::MAX`: no upper bound); `none` also
    /// when `none` is true.
    Number { low: u32, high: u32, none: bool },
    /// A length of time in `low..=high` ([`Span::parse`]: `90m`, `2h`, `1d`; a bare
    /// number is hours).
    Span { low: Span, high: Span },
    /// `true` or `false` (also `yes`/`no`, `on`/`off`).
    Flag,
    /// One of these words (any case).
    Choice(&'static [&'static str]),
    /// Any text; the game checks it.
    Text,
}

/// One option a game takes: its name, what it may be, its default and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: Kind,
    /// As it would be written in game.toml.
    pub default: &'static str,
    pub help: &'static str,
}

/// An option's value, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A number, or `None` for `none`.
    Number(Option<u32>),
    Span(Span),
    Flag(bool),
    /// The choice, as written in the table.
    Choice(&'static str),
    Text(String),
}

/// Every option of a table, read: what was given, or the default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values(Vec<(&'static str, Value)>);

impl Values {
    fn get(&self, name: &str) -> &Value {
        &self.0.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no option {name} in the table")).1
    }

    /// A number option (`None` for `none`).
    pub fn number(&self, name: &str) -> Option<u32> {
        match self.get(name) {
            Value::Number(n) => *n,
            other => panic!("option {name} is not a number: {other:?}"),
        }
    }

    /// A length of time.
    pub fn span(&self, name: &str) -> Span {
        match self.get(name) {
            Value::Span(s) => *s,
            other => panic!("option {name} is not a length of time: {other:?}"),
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), Value::Flag(true))
    }

    pub fn choice(&self, name: &str) -> &'static str {
        match self.get(name) {
            Value::Choice(c) => c,
            other => panic!("option {name} is not a choice: {other:?}"),
        }
    }

    pub fn text(&self, name: &str) -> &str {
        match self.get(name) {
            Value::Text(t) => t,
            other => panic!("option {name} is not text: {other:?}"),
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What a value of this kind must be, for the error.
fn wanted(kind: Kind) -> String {
    match kind {
        Kind::Number { low, high, none } => format!(
            "a whole number from {low}{}{}",
            if high == u32::MAX { String::new() } else { format!(" to {high}") },
            if none { ", or `none`" } else { "" }
        ),
        Kind::Span { low, high } => {
            format!("a time from {} to {} (`90m`, `2h`, `1d12h`; a number is hours)", low.words(), high.words())
        }
        Kind::Flag => "true or false".into(),
        Kind::Choice(words) => and_list(&words.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>()).replacen(
            " and ",
            " or ",
            usize::from(words.len() > 1),
        ),
        Kind::Text => "some text".into(),
    }
}

fn read(kind: Kind, raw: &str) -> Option<Value> {
    let v = raw.trim();
    let lower = v.to_ascii_lowercase();
    match kind {
        Kind::Number { none: true, .. } if lower == "none" => Some(Value::Number(None)),
        Kind::Number { low, high, .. } => {
            v.parse::<u32>().ok().filter(|n| (low..=high).contains(n)).map(|n| Value::Number(Some(n)))
        }
        Kind::Span { low, high } => Span::parse(v).ok().filter(|s| (low..=high).contains(s)).map(Value::Span),
        Kind::Flag => match lower.as_str() {
            "true" | "yes" | "on" => Some(Value::Flag(true)),
            "false" | "no" | "off" => Some(Value::Flag(false)),
            _ => None,
        },
        Kind::Choice(words) => words.iter().find(|w| w.eq_ignore_ascii_case(v)).map(|w| Value::Choice(w)),
        Kind::Text => Some(Value::Text(v.to_string())),
    }
}

/// A value as shown in an error: the first line, at most 40 characters.
fn shown(raw: &str) -> String {
    let first = raw.trim().lines().next().unwrap_or_default();
    let mut s: String = first.chars().take(40).map(|c| if c.is_control() { '?' } else { c }).collect();
    if first.chars().count() > 40 || raw.trim().lines().nth(1).is_some() {
        s.push_str("...");
    }
    s
}

/// The error for option `name` given as `raw`: `option NAME = `RAW`: REASON`.
pub fn option_error(name: &str, raw: &str, reason: impl std::fmt::Display) -> String {
    format!("option {name} = `{}`: {reason}", shown(raw))
}

/// Read `options` against `table` for game `game` (its name in the game's words): every
/// key must be in the table and every value of its kind; what is not given is its default.
pub fn read_options(game: &str, table: &[OptionSpec], options: &Options) -> Result<Values, String> {
    for key in options.keys() {
        if table.is_empty() {
            return Err(format!("unknown option `{}`: {game} takes no options", shown(key)));
        }
        if !table.iter().any(|s| s.name == key) {
            let names: Vec<String> = table.iter().map(|s| s.name.to_string()).collect();
            return Err(format!("unknown option `{}` for {game}: the options are {}", shown(key), and_list(&names)));
        }
    }
    let mut values = Vec::new();
    for spec in table {
        let (raw, given) = match options.get(spec.name) {
            Some(v) => (v.as_str(), true),
            None => (spec.default, false),
        };
        match read(spec.kind, raw) {
            Some(v) => values.push((spec.name, v)),
            None if given => return Err(option_error(spec.name, raw, format!("give {}", wanted(spec.kind)))),
            None => panic!("the default of option {} is not of its kind", spec.name),
        }
    }
    Ok(Values(values))
}

/// The options of a table, one line each (`name (default D): help`), for help texts.
pub fn option_help(table: &[OptionSpec]) -> Vec<String> {
    table.iter().map(|s| format!("{} (default {}): {}", s.name, s.default, s.help)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comment_rule_and_the_words_with_their_columns() {
        let text = "  score 5 # five\n\n   \n# only a comment\nx#y\ncash#";
        let read: Vec<(usize, Vec<(usize, &str)>)> =
            lines(text).map(|l| (l.number, l.words.iter().map(|w| (w.column, w.text)).collect())).collect();
        assert_eq!(read, [(1, vec![(3, "score"), (9, "5")]), (5, vec![(1, "x")]), (6, vec![(1, "cash")])]);
        let first = lines(text).next().unwrap();
        assert_eq!((first.text, first.end_column()), ("  score 5 ", 11));
        assert_eq!(words("é\tb")[1], Word { column: 3, text: "b" });
    }

    const TABLE: &[OptionSpec] = &[
        OptionSpec { name: "limit", kind: Kind::Number { low: 1, high: 9, none: true }, default: "none", help: "h" },
        OptionSpec { name: "fast", kind: Kind::Flag, default: "true", help: "h" },
        OptionSpec { name: "mode", kind: Kind::Choice(&["vote", "master"]), default: "vote", help: "h" },
    ];

    fn opts(pairs: &[(&str, &str)]) -> Options {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn options_are_read_from_the_table_with_one_wording() {
        let v = read_options("toy", TABLE, &opts(&[("limit", " 4 "), ("mode", "MASTER")])).unwrap();
        assert_eq!((v.number("limit"), v.flag("fast"), v.choice("mode")), (Some(4), true, "master"));
        assert_eq!(read_options("toy", TABLE, &opts(&[])).unwrap().number("limit"), None);
        let e = |k: &str, val: &str| read_options("toy", TABLE, &opts(&[(k, val)])).unwrap_err();
        assert_eq!(e("speed", "1"), "unknown option `speed` for toy: the options are limit, fast and mode");
        assert_eq!(e("limit", "0"), "option limit = `0`: give a whole number from 1 to 9, or `none`");
        assert_eq!(e("fast", "maybe"), "option fast = `maybe`: give true or false");
        assert_eq!(e("mode", "x\ny"), "option mode = `x...`: give `vote` or `master`");
        assert_eq!(option_help(TABLE)[0], "limit (default none): h");
    }

    /// Every game reads its options through its table, with the same wording.
    #[test]
    fn the_option_errors_are_alike_in_every_game() {
        use crate::dice::{Dice, Seed};
        use crate::games::{create, KINDS};
        use crate::turn::TurnContext;
        for game in KINDS {
            let (kind, table) = (game.name, game.options);
            let mut dice = Dice::new(Seed::from_bytes([3; 32]), "t", 0);
            let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
            let players: Vec<String> = ["ann", "bob", "cat", "dan", "eve", "fay", "gus"][..game.players.0.max(2)]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let mut e =
                |k: &str, v: &str| create(kind, players.clone(), &opts(&[(k, v)]), &mut ctx).err().unwrap_or_default();
            let names: Vec<String> = table.iter().map(|s| s.name.to_string()).collect();
            let unknown = if names.is_empty() {
                format!("unknown option `speed`: {} takes no options", game.title)
            } else {
                format!("unknown option `speed` for {}: the options are {}", game.title, and_list(&names))
            };
            assert_eq!(e("speed", "9"), unknown);
            // Every option of a kind, read with a value of no kind's: the same words.
            for spec in table {
                let bad = if matches!(spec.kind, Kind::Text) { continue } else { "zero" };
                assert_eq!(e(spec.name, bad), format!("option {} = `zero`: give {}", spec.name, wanted(spec.kind)));
            }
            assert!(create(kind, players.clone(), &Options::new(), &mut ctx).is_ok(), "{kind}: the defaults");
        }
    }
}
