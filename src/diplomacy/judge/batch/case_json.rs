//! A reader for the case lines `resolve` meets nearly always: one JSON object with `id`,
//! `season`, `units` (objects of three strings) and `orders` (strings), whose strings
//! hold no escapes. It records where each field's text lies in the line and copies
//! nothing.
//!
//! It is only a shortcut: at anything outside that shape (an escape, a key twice, a
//! wrong type, a number it would have to reformat, bad JSON) it declines, and the
//! general serde path reads the line and gives its answer or its exact error. So what
//! `resolve` accepts and says never depends on this reader.

use std::ops::Range;

/// Deeper nesting in a field the case does not use is left to serde.
const MAX_DEPTH: usize = 32;
/// Longer integers may not survive serde's number types unchanged.
const MAX_DIGITS: usize = 18;

/// Where the fields of one case lie in its line.
#[derive(Default, Debug)]
pub(super) struct CaseSpans {
    /// The id as JSON text, to be written back unchanged (`None`: no id, write `null`).
    pub id: Option<Range<usize>>,
    /// The season's text, without quotes.
    pub season: Option<Range<usize>>,
    /// Each unit's power, type and place, without quotes.
    pub units: Vec<[Range<usize>; 3]>,
    /// Each order's text, without quotes.
    pub orders: Vec<Range<usize>>,
}

impl CaseSpans {
    /// Read `line`; `false` (and spans of no meaning) when it is not of the simple shape.
    pub fn read(&mut self, line: &str) -> bool {
        self.id = None;
        self.season = None;
        self.units.clear();
        self.orders.clear();
        let mut scan = Scan { b: line.as_bytes(), pos: 0 };
        self.object(&mut scan).is_some()
    }

    fn object(&mut self, s: &mut Scan) -> Option<()> {
        s.eat(b'{')?;
        let (mut seen_units, mut seen_orders, mut seen_season) = (false, false, false);
        loop {
            let key = s.string()?;
            s.eat(b':')?;
            match &s.b[key] {
                b"id" if self.id.is_none() => self.id = Some(s.id()?),
                b"season" if !seen_season => {
                    seen_season = true;
                    s.ws();
                    if !s.literal(b"null") {
                        self.season = Some(s.string()?);
                    }
                }
                b"units" if !seen_units => {
                    seen_units = true;
                    s.array(|s| {
                        self.units.push(unit(s)?);
                        Some(())
                    })?;
                }
                b"orders" if !seen_orders => {
                    seen_orders = true;
                    s.array(|s| {
                        self.orders.push(s.string()?);
                        Some(())
                    })?;
                }
                // A case that names its variant is checked on the general path.
                b"id" | b"season" | b"units" | b"orders" | b"variant" => return None,
                // A field the case does not use is ignored, as serde ignores it.
                _ => s.skip_value(0)?,
            }
            s.ws();
            match s.next()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
        s.ws();
        (seen_units && s.pos == s.b.len()).then_some(())
    }
}

/// `{"power": "FRANCE", "type": "A", "loc": "PAR"}`, the keys in any order.
fn unit(s: &mut Scan) -> Option<[Range<usize>; 3]> {
    s.eat(b'{')?;
    let mut fields: [Option<Range<usize>>; 3] = [None, None, None];
    loop {
        let key = s.string()?;
        s.eat(b':')?;
        let slot = match &s.b[key] {
            b"power" => 0,
            b"type" => 1,
            b"loc" => 2,
            _ => return None,
        };
        if fields[slot].is_some() {
            return None;
        }
        fields[slot] = Some(s.string()?);
        s.ws();
        match s.next()? {
            b',' => continue,
            b'}' => break,
            _ => return None,
        }
    }
    let [power, kind, loc] = fields;
    Some([power?, kind?, loc?])
}

/// How many bytes at the start of `b` a JSON string holds as they are: up to the first
/// quote, backslash or control character. Eight bytes at a time.
pub(super) fn plain_len(b: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let (quote, backslash) = (x ^ (ONES * u64::from(b'"')), x ^ (ONES * u64::from(b'\\')));
        // The high bit of a byte is set when the byte is zero after the xor (or below
        // 0x20). Borrows may flag bytes after the first such byte, never before it, so
        // the lowest flag is exact.
        let flagged = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH;
        if flagged != 0 {
            return i + flagged.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    i + b[i..].iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20).unwrap_or(b.len() - i)
}

struct Scan<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.pos)?;
        self.pos += 1;
        Some(c)
    }

    /// Blanks, then `c`.
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.next()? == c).then_some(())
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        let found = self.b[self.pos..].starts_with(word);
        if found {
            self.pos += word.len();
        }
        found
    }

    /// A string without escapes or control characters: its contents.
    fn string(&mut self) -> Option<Range<usize>> {
        self.eat(b'"')?;
        let start = self.pos;
        let len = plain_len(&self.b[start..]);
        if self.b.get(start + len) != Some(&b'"') {
            return None;
        }
        self.pos = start + len + 1;
        Some(start..start + len)
    }

    /// `[]` or `[x, y]`, each element read by `element`.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        self.ws();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Some(());
        }
        loop {
            element(self)?;
            self.ws();
            match self.next()? {
                b',' => continue,
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// An id that serde would write back byte for byte: a plain string, a short integer,
    /// `null`, `true` or `false`. Its text, quotes included.
    fn id(&mut self) -> Option<Range<usize>> {
        self.ws();
        let start = self.pos;
        match *self.b.get(start)? {
            b'"' => {
                self.string()?;
            }
            b'n' | b't' | b'f' => {
                if !(self.literal(b"null") || self.literal(b"true") || self.literal(b"false")) {
                    return None;
                }
            }
            _ => self.integer()?,
        }
        Some(start..self.pos)
    }

    /// `0`, `42`, `-7`: an integer written as serde writes it back.
    fn integer(&mut self) -> Option<()> {
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let digits = self.b[self.pos..].iter().take_while(|c| c.is_ascii_digit()).count();
        let first = *self.b.get(self.pos)?;
        // `-0` comes back from serde as `-0.0`; leading zeros are not JSON.
        if digits == 0 || digits > MAX_DIGITS || (first == b'0' && (digits > 1 || self.b[self.pos - 1] == b'-')) {
            return None;
        }
        self.pos += digits;
        // A fraction or exponent follows: not an integer.
        match self.b.get(self.pos) {
            Some(b'.' | b'e' | b'E') => None,
            _ => Some(()),
        }
    }

    /// Any JSON value of a field the case does not use, checked as strictly as serde
    /// would check it (what it cannot be sure of, it declines).
    fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.pos)? {
            b'"' => self.string().map(|_| ()),
            b'[' => self.array(|s| s.skip_value(depth + 1)),
            b'{' => {
                self.pos += 1;
                self.ws();
                if self.b.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Some(());
                }
                loop {
                    self.string()?;
                    self.eat(b':')?;
                    self.skip_value(depth + 1)?;
                    self.ws();
                    match self.next()? {
                        b',' => continue,
                        b'}' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b'n' | b't' | b'f' => {
                (self.literal(b"null") || self.literal(b"true") || self.literal(b"false")).then_some(())
            }
            _ => self.integer(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Option<CaseSpans> {
        let mut spans = CaseSpans::default();
        spans.read(line).then_some(spans)
    }

    #[test]
    fn reads_the_usual_shape() {
        let line = r#" {"id": "c1", "season": "spring", "units": [{"power": "FRANCE", "type": "A", "loc": "PAR"},
            {"loc": "BUR", "type": "A", "power": "GERMANY"}], "orders": ["FRANCE: A PAR - BUR"], "note": [1, {"x": null}]} "#;
        let spans = read(line).expect("simple shape");
        let text = |r: &Range<usize>| &line[r.clone()];
        assert_eq!(text(spans.id.as_ref().unwrap()), r#""c1""#);
        assert_eq!(text(spans.season.as_ref().unwrap()), "spring");
        let units: Vec<[&str; 3]> = spans.units.iter().map(|u| [text(&u[0]), text(&u[1]), text(&u[2])]).collect();
        assert_eq!(units, [["FRANCE", "A", "PAR"], ["GERMANY", "A", "BUR"]]);
        assert_eq!(spans.orders.iter().map(text).collect::<Vec<_>>(), ["FRANCE: A PAR - BUR"]);
        let line = r#"{"units": [], "id": -12}"#;
        let spans = read(line).expect("integer id");
        assert_eq!(spans.id.map(|r| &line[r]), Some("-12"));
    }

    #[test]
    fn plain_len_stops_at_the_first_special_byte() {
        let text = "abcdefghijklmnopqrstuvwxyz0123456789";
        for at in 0..text.len() {
            for special in ["\"", "\\", "\n", "\u{1f}", "\u{0}"] {
                let line = format!("{}{special}{}", &text[..at], &text[at..]);
                assert_eq!(plain_len(line.as_bytes()), at, "{line:?}");
            }
        }
        assert_eq!(plain_len(text.as_bytes()), text.len());
        assert_eq!(plain_len("é ~\u{7f}".as_bytes()), 5);
    }

    #[test]
    fn declines_what_serde_must_decide() {
        for line in [
            r#"{"units": [], "orders": ["A PAR \"H\""]}"#,
            r#"{"units": [], "units": []}"#,
            r#"{"id": 1.5, "units": []}"#,
            r#"{"id": -0, "units": []}"#,
            r#"{"id": 12345678901234567890, "units": []}"#,
            r#"{"orders": []}"#,
            r#"{"units": [{"power": "FRANCE", "type": "A"}]}"#,
            r#"{"units": [{"power": "FRANCE", "type": "A", "loc": "PAR", "loc": "BUR"}]}"#,
            r#"{"units": [], "x": tru}"#,
            r#"{"units": [],}"#,
            r#"{"units": []} x"#,
            r#"[{"units": []}]"#,
            "{\"units\": [], \"season\": \"spr\ting\"}",
            "",
        ] {
            assert!(read(line).is_none(), "{line}");
        }
    }
}
