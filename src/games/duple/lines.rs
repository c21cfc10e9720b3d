//! The lines of a Duple turn file: `answer WORD`, `answer "Two Words" proper`,
//! `challenge`, `vote accept`, `vote reject`, and the game master's `uphold` and `reject`.
//! Lenient about case and spacing; a line it does not understand gets the column and the
//! reason. Blank lines and comments are read as in every small game ([`kit`]).

use crate::answer::Refusal;
use crate::games::kit;

/// One line understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// An answer as written (words joined by one space), and whether it is marked proper.
    Answer {
        text: String,
        proper: bool,
    },
    Challenge,
    /// `vote accept` (true) or `vote reject` (false).
    Vote(bool),
    /// The master: the answer under consideration stands.
    Uphold,
    /// The master: the answer under consideration is out.
    Reject,
}

const KEYWORDS: &[&str] = &["answer", "challenge", "vote", "uphold", "reject"];

fn unclear(column: usize, reason: impl Into<String>) -> Refusal {
    Refusal::at(column, reason)
}

/// Words of a text with their 1-based columns.
fn words(text: &str) -> Vec<(usize, &str)> {
    kit::words(text).into_iter().map(|w| (w.column, w.text)).collect()
}

/// Read one line that says something (see [`kit::lines`]).
pub fn parse_line(read: &kit::Line<'_>) -> Result<Line, Refusal> {
    let line = read.text;
    let ws = words(line);
    let (col, first) = ws[0];
    let keyword = first.to_lowercase();
    let rest = &ws[1..];
    let no_more = |line: Line| match rest.first() {
        None => Ok(line),
        Some((c, w)) => Err(unclear(*c, format!("`{keyword}` takes nothing after it; found `{w}`"))),
    };
    match keyword.as_str() {
        "answer" => answer(line, rest),
        "challenge" => no_more(Line::Challenge),
        "uphold" => no_more(Line::Uphold),
        "reject" => no_more(Line::Reject),
        "vote" => match rest {
            [(_, w)] if w.eq_ignore_ascii_case("accept") => Ok(Line::Vote(true)),
            [(_, w)] if w.eq_ignore_ascii_case("reject") => Ok(Line::Vote(false)),
            [] => Err(unclear(col, "a vote is `vote accept` or `vote reject`")),
            [(c, w), ..] => Err(unclear(*c, format!("a vote is `vote accept` or `vote reject`, not `vote {w}`"))),
        },
        _ => {
            let shown: String = first.chars().take(30).collect();
            let mut u = unclear(col, format!("`{shown}` is not a Duple line"));
            let near = KEYWORDS.iter().find(|k| strsim::levenshtein(k, &keyword) <= 2);
            u.hint = Some(match near {
                Some(k) => format!("did you mean `{k}`?"),
                None => "the lines are `answer WORD`, `challenge`, `vote accept`, `vote reject` (and the master's `uphold`, `reject`)".into(),
            });
            Err(u)
        }
    }
}

fn answer(line: &str, rest: &[(usize, &str)]) -> Result<Line, Refusal> {
    let Some(&(col, first)) = rest.first() else {
        let mut u = unclear(line.chars().count() + 1, "an answer needs a word");
        u.hint = Some("write it like `answer LEOPARD`".into());
        return Err(u);
    };
    let (text_words, proper): (Vec<(usize, String)>, bool) = if first.starts_with('"') {
        // The quoted answer runs to the next `"`, over spaces.
        let start = line.char_indices().nth(col - 1).map_or(0, |(b, _)| b) + 1;
        let Some(len) = line[start..].find('"') else {
            return Err(unclear(col, "the quoted answer has no closing `\"`"));
        };
        let inner = &line[start..start + len];
        let after = &line[start + len + 1..];
        let after_col = line[..start + len + 1].chars().count() + 1;
        let tail: Vec<(usize, &str)> = words(after).into_iter().map(|(c, w)| (c + after_col - 1, w)).collect();
        let proper = match tail.as_slice() {
            [] => false,
            [(_, w)] if w.eq_ignore_ascii_case("proper") => true,
            [(c, w), ..] => {
                return Err(unclear(*c, format!("after a quoted answer only `proper` may follow, not `{w}`")));
            }
        };
        let inner_col = line[..start].chars().count() + 1;
        (words(inner).into_iter().map(|(c, w)| (c + inner_col - 1, w.to_string())).collect(), proper)
    } else {
        let proper = rest.len() >= 2 && rest[rest.len() - 1].1.eq_ignore_ascii_case("proper");
        let n = rest.len() - usize::from(proper);
        (rest[..n].iter().map(|(c, w)| (*c, w.to_string())).collect(), proper)
    };
    if text_words.is_empty() {
        return Err(unclear(col, "the answer is empty"));
    }
    if text_words.len() > 1 && !proper {
        let mut u = unclear(text_words[1].0, "an answer is one word (only a proper noun may have several)");
        let all: Vec<&str> = text_words.iter().map(|(_, w)| w.as_str()).collect();
        u.hint = Some(format!("for a proper noun write `answer \"{}\" proper`", all.join(" ")));
        return Err(u);
    }
    for (c, w) in &text_words {
        if let Some((i, bad)) =
            w.chars().enumerate().find(|(_, ch)| !(ch.is_alphabetic() || matches!(ch, '-' | '\'' | '’' | '.')))
        {
            return Err(unclear(c + i, format!("`{bad}` cannot be in an answer: letters only (and - ' .)")));
        }
    }
    if !text_words.iter().any(|(_, w)| w.chars().any(char::is_alphabetic)) {
        return Err(unclear(col, "an answer needs letters"));
    }
    if text_words.iter().map(|(_, w)| w.chars().count()).sum::<usize>() > 60 {
        return Err(unclear(col, "an answer is at most 60 letters long"));
    }
    let text = text_words.into_iter().map(|(_, w)| w).collect::<Vec<_>>().join(" ");
    Ok(Line::Answer { text, proper })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read the one line of `text`; `None` when it says nothing.
    fn read(text: &str) -> Option<Result<Line, Refusal>> {
        kit::lines(text).next().map(|l| parse_line(&l))
    }

    fn ok(line: &str) -> Line {
        read(line).unwrap().unwrap()
    }

    fn bad(line: &str) -> Refusal {
        read(line).unwrap().unwrap_err()
    }

    #[test]
    fn the_lines_are_read_leniently() {
        assert_eq!(ok("answer leopard"), Line::Answer { text: "leopard".into(), proper: false });
        assert_eq!(ok("  ANSWER   Leopard  "), Line::Answer { text: "Leopard".into(), proper: false });
        assert_eq!(
            ok("answer \"Rio  de Janeiro\" proper"),
            Line::Answer { text: "Rio de Janeiro".into(), proper: true }
        );
        assert_eq!(ok("answer New York PROPER"), Line::Answer { text: "New York".into(), proper: true });
        assert_eq!(ok("answer Paris proper"), Line::Answer { text: "Paris".into(), proper: true });
        assert_eq!(ok("answer proper"), Line::Answer { text: "proper".into(), proper: false });
        assert_eq!(ok("Challenge"), Line::Challenge);
        assert_eq!(ok("vote  Accept"), Line::Vote(true));
        assert_eq!(ok("vote reject"), Line::Vote(false));
        assert_eq!(ok("uphold"), Line::Uphold);
        assert_eq!(ok("reject"), Line::Reject);
        assert_eq!(read("   "), None);
        assert_eq!(read("# a comment"), None);
        assert_eq!(ok("answer PELEE # Mount Pelee"), Line::Answer { text: "PELEE".into(), proper: false });
        assert_eq!(ok("vote reject # no"), Line::Vote(false));
        assert_eq!(
            ok("answer \"Rio de Janeiro\" proper # the city"),
            Line::Answer { text: "Rio de Janeiro".into(), proper: true }
        );
    }

    #[test]
    fn bad_lines_say_where_and_why() {
        let two = bad("answer New York");
        assert_eq!(two.column, 12);
        assert!(two.reason.contains("one word"));
        assert!(two.hint.unwrap().contains("answer \"New York\" proper"));
        assert_eq!(bad("answer").reason, "an answer needs a word");
        let digit = bad("answer r2d2");
        assert_eq!(digit.column, 9);
        assert!(digit.reason.contains("`2`"));
        assert!(bad("answer \"Rio de").reason.contains("closing"));
        assert!(bad("answer \"Rio\" please").reason.contains("only `proper`"));
        assert!(bad("vote maybe").reason.contains("vote accept"));
        assert_eq!(bad("challenge now").column, 11);
        assert_eq!(bad("anwser cat").hint.as_deref(), Some("did you mean `answer`?"));
        assert!(bad("\u{0}\u{1}junk").reason.contains("not a Duple line"));
    }
}
