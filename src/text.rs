//! Text as people's tools write it: characters no one sees but every parser trips on.
//!
//! Mail clients, phones and word processors put a byte-order mark before the first line,
//! zero-width spaces and joiners where text was pasted, soft hyphens where a word may
//! break, and no-break spaces between words. [`strip_invisible`] removes the invisible
//! ones and turns the no-break spaces into plain spaces; it is applied wherever text is
//! read from outside (mail bodies, order files, turn files), before anything parses it.
//!
//! Text the judge writes says "1 roll" and "3 rolls", never "roll(s)": [`count`] and
//! [`plural`] pick the word for a number.

use std::borrow::Cow;

/// Whether a character is invisible formatting that no order, answer or command needs:
/// the byte-order mark (zero-width no-break space), zero-width space, non-joiner and
/// joiner, word joiner, soft hyphen, and the invisible direction marks.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{feff}'
            | '\u{200b}'
            | '\u{200c}'
            | '\u{200d}'
            | '\u{2060}'
            | '\u{00ad}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Whether a character is a space that should read as a plain one: the no-break spaces.
fn is_odd_space(c: char) -> bool {
    matches!(c, '\u{00a0}' | '\u{202f}' | '\u{2007}')
}

/// The text without invisible characters, no-break spaces made plain. Borrows when
/// there is nothing to change.
pub fn strip_invisible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_invisible(c) || is_odd_space(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|&c| !is_invisible(c)).map(|c| if is_odd_space(c) { ' ' } else { c }).collect())
}

/// Make outside text safe for one line (a mail header, an error that quotes it): every
/// control character (CR and LF included) becomes a space, runs of spaces collapse, and
/// the result is capped at `max` characters.
pub fn header_safe(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in text.chars() {
        if c.is_control() || c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    out.chars().take(max).collect::<String>().trim_end().to_string()
}

/// Items as a sentence lists them: `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `text` as the start of a sentence: its first letter a capital.
pub fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `one` when `n` is 1, else `many`: the word that goes with a count ("was"/"were").
pub fn plural<'a, N: PartialEq + From<u8>>(n: N, one: &'a str, many: &'a str) -> &'a str {
    if n == N::from(1) {
        one
    } else {
        many
    }
}

/// How a game ended, as one sentence: the result as the game words it when it says so
/// itself ("The game is drawn between ..."), else after "The game is over:"; with a full
/// stop.
pub fn game_over(result: &str) -> String {
    let t = result.trim_end();
    let result = if t.ends_with(['.', '!', '?']) { t.to_string() } else { format!("{t}.") };
    if result.starts_with("The game") {
        result
    } else {
        format!("The game is over: {result}")
    }
}

/// A count and its noun, in the singular for 1: `1 roll`, `0 rolls`, `3 rolls`.
pub fn count<N: Copy + std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    format!("{n} {}", plural(n, one, many))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_go_and_no_break_spaces_become_spaces() {
        assert_eq!(strip_invisible("\u{feff}SIGNON fra@g pw"), "SIGNON fra@g pw");
        assert_eq!(strip_invisible("A p\u{200b}ar -\u{00a0}b\u{00ad}ur\u{200d}"), "A par - bur");
        assert_eq!(strip_invisible("\u{2066}F bre\u{2069} H"), "F bre H");
        assert!(matches!(strip_invisible("A par - bur"), Cow::Borrowed(_)));
        assert_eq!(strip_invisible("Très bien, 東京"), "Très bien, 東京");
    }

    #[test]
    fn a_sentence_starts_with_a_capital() {
        assert_eq!(sentence("the window closed"), "The window closed");
        assert_eq!(sentence("élan"), "Élan");
        assert_eq!(sentence(""), "");
    }

    #[test]
    fn a_count_takes_the_singular_only_for_one() {
        assert_eq!(count(0usize, "roll", "rolls"), "0 rolls");
        assert_eq!(count(1usize, "roll", "rolls"), "1 roll");
        assert_eq!(count(3u64, "roll", "rolls"), "3 rolls");
        assert_eq!(count(1u8, "address", "addresses"), "1 address");
        assert_eq!(count(24u32, "hour", "hours"), "24 hours");
        assert_eq!(plural(1i64, "was", "were"), "was");
        assert_eq!(plural(2usize, "was", "were"), "were");
    }
}
