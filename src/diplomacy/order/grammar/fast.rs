//! A fast path for the orders machines write: `FRANCE: A par - bur`, `F nth C A lon -
//! bel`, `A mun S A par - bur`, `A par H`, `F mao - spa/nc`, `A lon - nwy via convoy`, `A LON - NWY VIA`.
//!
//! It reads only lines of that exact shape (ASCII, single spaces, a unit type on every
//! unit, `-`, `S`, `C`, `H` as the action, coasts as `/nc`) and gives the same order as
//! the grammar in [`super::rules`], by the same name lookups (the same longest match over
//! words). At the first thing outside that shape it gives up and the grammar reads the
//! line, so what the grammar accepts, rejects and says never changes: it is only faster.

use super::names::Names;
use super::rules::{longest_name_in, OrderLine};
use crate::diplomacy::map::{Coast, UnitType};
use crate::diplomacy::order::{Order, Place, UnitRef};

/// The order on a line of the machine shape, or `None` for the grammar to read.
pub(super) fn order_line(text: &str, names: &Names) -> Option<OrderLine> {
    if !text.is_ascii() {
        return None;
    }
    let mut r = Reader { text, pos: 0, names };
    // `France: `: the power, for this line only.
    let first = r.token();
    let power = if let Some(name) = first.strip_suffix(':') {
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return None;
        }
        let power = names.power(name)?;
        r.pos += first.len();
        r.space()?;
        Some(power)
    } else {
        None
    };
    let unit = r.unit()?;
    r.space()?;
    let order = match r.token() {
        "-" => {
            r.pos += 1;
            r.space()?;
            let to = r.place()?;
            let via_convoy = match &r.text[r.pos..] {
                "" => false,
                " via convoy" | " VIA" | " via" => true,
                _ => return None,
            };
            r.pos = r.text.len();
            Order::Move { unit, to, via_convoy }
        }
        "S" | "s" => {
            r.pos += 1;
            r.space()?;
            let supported = r.unit()?;
            if r.at_end() {
                Order::SupportHold { unit, supported }
            } else {
                r.space()?;
                r.arrow()?;
                let to = r.place()?;
                Order::SupportMove { unit, supported, to }
            }
        }
        "C" | "c" => {
            r.pos += 1;
            r.space()?;
            let army = r.unit()?;
            r.space()?;
            r.arrow()?;
            let to = r.place()?;
            Order::Convoy { unit, army, to }
        }
        "H" | "h" => {
            r.pos += 1;
            Order::Hold { unit }
        }
        _ => return None,
    };
    if !r.at_end() {
        return None;
    }
    Some(OrderLine { power, order, board: None })
}

struct Reader<'t, 'n> {
    text: &'t str,
    pos: usize,
    names: &'n Names<'n>,
}

impl<'t> Reader<'t, '_> {
    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos == self.text.len()
    }

    /// The text up to the next space (or the end).
    fn token(&self) -> &'t str {
        let rest = self.rest();
        // Tokens are a few bytes: a plain loop beats a searcher here.
        &rest[..rest.bytes().position(|b| b == b' ').unwrap_or(rest.len())]
    }

    /// Exactly one space, then something that is not blank.
    fn space(&mut self) -> Option<()> {
        let rest = self.rest().as_bytes();
        if rest.first() == Some(&b' ') && rest.get(1).is_some_and(|b| !b.is_ascii_whitespace()) {
            self.pos += 1;
            Some(())
        } else {
            None
        }
    }

    /// `- ` between a unit and where it goes.
    fn arrow(&mut self) -> Option<()> {
        if self.token() != "-" {
            return None;
        }
        self.pos += 1;
        self.space()
    }

    /// `A par`, `F stp/sc`: a unit with its type written.
    fn unit(&mut self) -> Option<UnitRef<Place>> {
        let token = self.token();
        let kind = match token {
            t if t.eq_ignore_ascii_case("a") || t.eq_ignore_ascii_case("army") => UnitType::Army,
            t if t.eq_ignore_ascii_case("f") || t.eq_ignore_ascii_case("fleet") => UnitType::Fleet,
            _ => return None,
        };
        self.pos += token.len();
        self.space()?;
        let at = self.place()?;
        Some(UnitRef { kind: Some(kind), at })
    }

    /// A province as the grammar finds it (the longest known name), and a coast written
    /// `/nc`. Any other coast, or anything the grammar might read as one, gives up.
    fn place(&mut self) -> Option<Place> {
        let names = self.names;
        let rest = self.rest();
        let word = rest.bytes().position(|b| !b.is_ascii_alphanumeric()).unwrap_or(rest.len());
        // A word that begins no longer name is the name, unless `.` or `'` (or a letter
        // outside ASCII) carries it on. A longer match the shortcut misses can only add
        // words that normalize to nothing (`par .`), and no order shape this reader takes
        // has such a word after a place, so it gives up there as it should.
        let ends_word = rest.as_bytes().get(word).is_none_or(|b| b.is_ascii() && !matches!(b, b'.' | b'\''));
        let (len, province) = match names.one_word_province(&rest[..word]) {
            Some(found) if ends_word => (word, found?),
            _ => longest_name_in(rest, names.place_words, |n| names.province(n))?,
        };
        self.pos += len;
        let rest = self.rest();
        let coast = if let Some(after) = rest.strip_prefix('/') {
            let letters = after.as_bytes().get(..2)?;
            let coast = match [letters[0].to_ascii_lowercase(), letters[1].to_ascii_lowercase()] {
                [b'n', b'c'] => Coast::North,
                [b's', b'c'] => Coast::South,
                [b'e', b'c'] => Coast::East,
                [b'w', b'c'] => Coast::West,
                _ => return None,
            };
            if !(after.len() == 2 || after.as_bytes()[2] == b' ') {
                return None;
            }
            self.pos += 3;
            Some(coast)
        } else if rest.is_empty()
            || (rest.starts_with(' ') && !rest[1..].starts_with('(') && !strict_coast_follows(&rest[1..]))
        {
            None
        } else {
            return None;
        };
        Some(Place { province, coast })
    }
}

/// Would the grammar read a coast after a blank here (`nc`, `north coast`, `s coast`)?
fn strict_coast_follows(text: &str) -> bool {
    let text = text.trim_start();
    // Every coast word starts with one of these letters.
    if !text.starts_with(['n', 's', 'e', 'w', 'N', 'S', 'E', 'W']) {
        return false;
    }
    const COASTS: [(&str, [&str; 2]); 4] =
        [("nc", ["north", "n"]), ("sc", ["south", "s"]), ("ec", ["east", "e"]), ("wc", ["west", "w"])];
    let text = text.trim_start();
    COASTS.iter().any(|(short, words)| {
        keyword(text, short).is_some()
            || words
                .iter()
                .any(|w| keyword(text, w).is_some_and(|after| keyword(after.trim_start(), "coast").is_some()))
    })
}

/// The text after `word` (any case) when it starts with it as a whole word.
fn keyword<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let n = word.len();
    let head = text.as_bytes().get(..n)?;
    if head.eq_ignore_ascii_case(word.as_bytes()) && !text[n..].starts_with(|c: char| c.is_alphanumeric()) {
        Some(&text[n..])
    } else {
        None
    }
}
