//! The order grammar: text as players type it -> [`Order<Place>`]s and diagnostics.
//!
//! A file is read line by line. A line is blank, a comment (`#` or `//` to the end of
//! the line), a section header (a power: `France`, `France:`, `[France]`; a board:
//! `Board A`, `World B`, `[A]`, `[Board B]`), or one order, maybe with a power prefix
//! (`France: A par - bur`) and a board before or after it (`[A] F bre - mao`, `Build A ven (B)`). Headers persist until
//! the next header of the same kind; a prefix or a suffix holds for its line only.
//!
//! What the grammar accepts, any case:
//!
//! | | |
//! |---|---|
//! | units | `A`, `F`, `army`, `fleet`, or no type at all (`kind: None`) |
//! | places | short names, full names and aliases, the longest known name over words (`North Sea`, `Gulf of Lyon`, `St. Petersburg`, `Mid-Atlantic Ocean`) |
//! | coasts | `spa/nc`, `spa/n`, `spa(nc)`, `spa (north coast)`, `spa nc`, `spa north coast` |
//! | move | `-`, `->`, `=>`, `>`, `to`, `m`, `move(s)`, `move(s) to`; `via convoy`, `by convoy`, `via c`, a bare `via` at the end (`A lvp - edi via`) |
//! | hold | `H`, `hold(s)`, `stand(s)` |
//! | support | `S`, `support(s)`; to hold with or without a trailing `H`; the supported or convoyed unit may follow its power's name or adjective (`S Turkish A bul - ser`) |
//! | convoy | `C`, `convoy(s)`: `F nth C A lon - bel` |
//! | retreat | `R`, `retreat(s)`, `retreats to` (a plain move in a retreat phase stays a move: the game converts it) |
//! | disband | `A par disband`, `disband A par`, `A par D`, `remove A par`, `A par remove` |
//! | build | `build A par`, `build fleet stp/nc`, `B F stp nc`, `A par build` |
//! | waive | `waive`, `waived`, `build waive` |
//!
//! A power is only read as a prefix with a colon, or as a header line alone: `eng` is
//! England there and the English Channel everywhere else. A board is never a bare
//! letter (`A` is an army): `Board A`, `[A]`, `(B)` as a suffix.
//!
//! Parsing never fails as a whole and never panics: a line not understood gives one
//! [`Diagnostic`] saying where, what was expected, and perhaps "did you mean". Each line
//! is read in time linear in its length. The grammar never checks that an order is
//! possible on the map or in the position: that is "illegal", decided later.

mod fast;
mod names;
mod rules;

use std::ops::Range;

use nom_locate::LocatedSpan;
use serde::Serialize;

use self::names::Names;
use self::rules::{is_name_char, Header, OrderLine, Stuck};
use crate::diplomacy::map::{normalize_name, Map, PowerId, ProvinceId, RegionId};
use crate::diplomacy::order::{Board, Order, Place};

/// What the grammar made of a file: the orders it understood and one diagnostic per
/// line it did not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedFile {
    pub orders: Vec<ParsedOrder>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One order understood, with the power and board that held on its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedOrder {
    pub order: Order<Place>,
    pub power: Option<PowerId>,
    pub board: Option<Board>,
    /// 1-based.
    pub line: usize,
    /// Byte offsets of the order in the text (prefix and suffix included).
    pub span: Range<usize>,
}

/// A line not understood.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters, of the first thing not understood.
    pub column: usize,
    /// Byte offsets in the text of the thing not understood (empty at the end of a line).
    pub span: Range<usize>,
    /// What was expected and what was found.
    pub message: String,
    /// "did you mean ...", when there is a good guess.
    pub hint: Option<String>,
}

/// Parse a file of orders. See the module documentation for what it accepts.
pub fn parse_orders(text: &str, map: &Map) -> ParsedFile {
    OrderParser::new(map).parse_orders(text)
}

/// Like [`parse_orders`], knowing the units on the board (`units`: each unit's power and
/// province) and the power writing, when known: a misspelt place of an ordered unit is
/// first matched against that power's units (`A vei - tyr` from the power in `vie`).
pub fn parse_orders_on(text: &str, map: &Map, units: &[(PowerId, ProvinceId)], power: Option<PowerId>) -> ParsedFile {
    OrderParser::new(map).parse_orders_on(text, units, power)
}

/// What [`parse_orders_on`] knows of the position.
#[derive(Clone, Copy)]
struct Position<'a> {
    units: &'a [(PowerId, ProvinceId)],
    power: Option<PowerId>,
}

/// Parse one order, maybe with a power prefix: `"FRANCE: A PAR - BUR"`,
/// `"ENG: F nth convoys lon -> bel"`. A board suffix is accepted and dropped.
pub fn parse_order_line(line: &str, map: &Map) -> Result<(Option<PowerId>, Order<Place>), Diagnostic> {
    let names = Names::direct(map);
    let content = strip_comment(line);
    match parse_order_content(content, &names) {
        Ok(parsed) => Ok((parsed.power, parsed.order)),
        Err(stuck) => Err(diagnose(content, stuck, &names, 1, 0)),
    }
}

/// A parser for one map, holding its name tables: build it once to parse many files or
/// lines against the same map.
pub struct OrderParser<'m> {
    names: Names<'m>,
}

impl<'m> OrderParser<'m> {
    pub fn new(map: &'m Map) -> OrderParser<'m> {
        OrderParser { names: Names::indexed(map) }
    }

    /// Like [`parse_order_line`], with this parser's tables.
    pub fn parse_order_line(&self, line: &str) -> Result<(Option<PowerId>, Order<Place>), Diagnostic> {
        let content = strip_comment(line);
        match parse_order_content(content, &self.names) {
            Ok(parsed) => Ok((parsed.power, parsed.order)),
            Err(stuck) => Err(diagnose(content, stuck, &self.names, 1, 0)),
        }
    }

    /// A power by name, like [`Map::lookup_power`], without allocating.
    pub fn power(&self, name: &str) -> Option<PowerId> {
        self.names.power_exact(name)
    }

    /// A region by its canonical name, like [`Map::parse_region`], without allocating
    /// for the province name.
    pub fn region(&self, text: &str) -> Option<RegionId> {
        self.names.map.parse_region_by(text, |name| self.names.province_exact(name))
    }

    /// Like [`parse_orders`], with this parser's tables.
    pub fn parse_orders(&self, text: &str) -> ParsedFile {
        self.parse_orders_with(text, None)
    }

    /// Like [`parse_orders_on`], with this parser's tables.
    pub fn parse_orders_on(&self, text: &str, units: &[(PowerId, ProvinceId)], power: Option<PowerId>) -> ParsedFile {
        self.parse_orders_with(text, Some(Position { units, power }))
    }

    fn parse_orders_with(&self, text: &str, position: Option<Position>) -> ParsedFile {
        let mut file = ParsedFile::default();
        let mut power = None;
        let mut board = None;
        let mut line_start = 0;
        for (index, raw) in text.split('\n').enumerate() {
            let start = line_start;
            line_start += raw.len() + 1;
            let line_no = index + 1;
            // A byte-order mark may open the text.
            let (raw, start) = match raw.strip_prefix('\u{feff}') {
                Some(rest) if index == 0 => (rest, start + '\u{feff}'.len_utf8()),
                _ => (raw, start),
            };
            let content = strip_comment(raw);
            if content.trim().is_empty() {
                continue;
            }
            match parse_order_content(content, &self.names) {
                Ok(parsed) => {
                    let lead = content.len() - content.trim_start().len();
                    file.orders.push(ParsedOrder {
                        order: parsed.order,
                        power: parsed.power.or(power),
                        board: parsed.board.or(board),
                        line: line_no,
                        span: start + lead..start + content.trim_end().len(),
                    });
                }
                Err(order_stuck) => match parse_header(content, &self.names) {
                    Ok(Header::Power(p)) => power = Some(p),
                    Ok(Header::Board(b)) => board = Some(b),
                    Err(header_stuck) => {
                        // A header's error for a line that means to be one, unless the
                        // order got further (`[A] A ven - xyz`: a board, then an order).
                        let header =
                            looks_like_header(content, &self.names) && header_stuck.offset >= order_stuck.offset;
                        let stuck = if header { header_stuck } else { order_stuck };
                        let mut d = diagnose(content, stuck, &self.names, line_no, start);
                        if let Some(position) = position {
                            prefer_units(&mut d, content, start, &self.names, position, power);
                        }
                        file.diagnostics.push(d);
                    }
                },
            }
        }
        file
    }
}

/// The line without its comment (`#` or `//` to the end) and its `\r`.
fn strip_comment(line: &str) -> &str {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let b = line.as_bytes();
    // The first `#` or `//`, in one pass.
    let cut = (0..b.len()).find(|&i| b[i] == b'#' || (b[i] == b'/' && b.get(i + 1) == Some(&b'/')));
    &line[..cut.unwrap_or(line.len())]
}

fn span<'a>(content: &'a str, names: &'a Names<'a>) -> rules::In<'a> {
    LocatedSpan::new_extra(content, names)
}

fn parse_order_content(content: &str, names: &Names) -> Result<OrderLine, Stuck> {
    // Lines in the exact shape machines write are read without the combinators; the
    // fast path gives up on anything else (see `fast`).
    if let Some(parsed) = fast::order_line(content, names) {
        return Ok(parsed);
    }
    nom_order_content(content, names)
}

/// The order grammar proper, without the fast path.
fn nom_order_content(content: &str, names: &Names) -> Result<OrderLine, Stuck> {
    match rules::order_line(span(content, names)) {
        Ok((_, parsed)) => Ok(parsed),
        Err(nom::Err::Error(s) | nom::Err::Failure(s)) => Err(s),
        Err(nom::Err::Incomplete(_)) => Err(Stuck { offset: 0, expected: Some(rules::ORDER) }),
    }
}

fn parse_header(content: &str, names: &Names) -> Result<Header, Stuck> {
    match rules::header_line(span(content, names)) {
        Ok((_, header)) => Ok(header),
        Err(nom::Err::Error(s) | nom::Err::Failure(s)) => Err(s),
        Err(nom::Err::Incomplete(_)) => Err(Stuck { offset: 0, expected: Some(rules::HEADER) }),
    }
}

fn looks_like_header(content: &str, names: &Names) -> bool {
    rules::looks_like_header(span(content, names))
}

/// The most characters of a word a message quotes.
const QUOTE_CHARS: usize = 30;

fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((i, _)) => format!("`{}…`", &text[..i]),
        None => format!("`{text}`"),
    }
}

/// The word at `pos`: a name, or a run of other non-blank characters.
fn word_at(content: &str, pos: usize) -> Option<&str> {
    let rest = &content[pos..];
    let first = rest.chars().next()?;
    let end = if is_name_char(first) {
        rest.find(|c: char| !is_name_char(c))
    } else {
        rest.find(|c: char| c.is_whitespace() || is_name_char(c))
    };
    Some(&rest[..end.unwrap_or(rest.len())])
}

/// The word just before `pos`, for "after `-`".
fn word_before(content: &str, pos: usize) -> Option<&str> {
    let before = content[..pos].trim_end();
    let last = before.chars().next_back()?;
    let start = if is_name_char(last) {
        before.rfind(|c: char| !is_name_char(c)).map_or(0, |i| i + before[i..].chars().next().map_or(1, char::len_utf8))
    } else {
        before
            .rfind(|c: char| c.is_whitespace() || is_name_char(c))
            .map_or(0, |i| i + before[i..].chars().next().map_or(1, char::len_utf8))
    };
    Some(&before[start..])
}

/// Turn where the grammar got stuck into a diagnostic for line `line_no` starting at
/// byte `line_start` of the text.
fn diagnose(content: &str, stuck: Stuck, names: &Names, line_no: usize, line_start: usize) -> Diagnostic {
    let mut pos = stuck.offset.min(content.len());
    while !content.is_char_boundary(pos) {
        pos -= 1;
    }
    // Point at the next word, not at the blanks before it.
    pos += content[pos..].len() - content[pos..].trim_start().len();
    let found = word_at(content, pos);
    let expected = stuck.expected.unwrap_or(rules::ORDER);
    let after = word_before(content, pos).map(|w| format!(" after {}", quote(w))).unwrap_or_default();
    let found_text = found.map_or_else(|| "the end of the line".to_string(), quote);
    let message = format!("expected {expected}{after}, found {found_text}");
    let hint = found.and_then(|word| hint(expected, word, pos == first_word(content), names));
    let column = content[..pos].chars().count() + 1;
    let len = found.map_or(0, str::len);
    Diagnostic { line: line_no, column, span: line_start + pos..line_start + pos + len, message, hint }
}

/// When the word not understood is the place of the ordered unit and is one slip from
/// a place where the writing power has a unit, suggest that place: the power's own
/// units first, then the whole map.
fn prefer_units(
    d: &mut Diagnostic,
    content: &str,
    line_start: usize,
    names: &Names,
    position: Position,
    header: Option<PowerId>,
) {
    let map = names.map;
    let pos = d.span.start - line_start;
    let (prefix, mut before) = match content[..pos].split_once(':') {
        Some((p, rest)) => (names.power(p.trim()), rest.trim()),
        None => (None, content[..pos].trim()),
    };
    for kind in ["army", "fleet", "a", "f"] {
        if before.eq_ignore_ascii_case(kind) {
            before = "";
        }
    }
    let word = &content[pos..d.span.end - line_start];
    if !before.is_empty() || word.is_empty() {
        return;
    }
    let power = prefix.or(header).or(position.power);
    let wanted = normalize_name(word);
    let most = if wanted.chars().count() <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str, ProvinceId)> = None;
    for (known, id) in map.place_names() {
        if !position.units.iter().any(|(p, at)| *at == id && power.is_none_or(|w| w == *p)) {
            continue;
        }
        let distance = strsim::damerau_levenshtein(&wanted, known);
        if distance <= most && best.is_none_or(|(d, k, _)| distance < d || (distance == d && known < k)) {
            best = Some((distance, known, id));
        }
    }
    if let Some((_, _, id)) = best {
        let province = map.province(id);
        d.hint = Some(format!("did you mean `{}` ({})?", province.key, province.name));
    }
}

fn first_word(content: &str) -> usize {
    content.len() - content.trim_start().len()
}

/// A guess at what was meant, when there is a good one.
fn hint(expected: &str, word: &str, at_line_start: bool, names: &Names) -> Option<String> {
    const LONGEST_GUESSED: usize = 40;
    if word.len() > LONGEST_GUESSED {
        return None;
    }
    let map = names.map;
    let province_like = [rules::PROVINCE, rules::UNIT, rules::SUPPORTED, rules::CONVOYED, rules::BUILT, rules::ORDER];
    if expected == rules::ORDER && at_line_start && names.power(word).is_some() {
        return Some(format!("to give the power, write `{word}:` with a colon"));
    }
    if province_like.contains(&expected) && is_name_char(word.chars().next()?) {
        let p = map.suggest_province(word)?;
        let province = map.province(p);
        return Some(format!("did you mean `{}` ({})?", province.key, province.name));
    }
    if expected == rules::ACTION {
        if let Some(p) = names.province(word) {
            return Some(format!("a move is written with `-`: `- {}`", map.province(p).key));
        }
    }
    if expected == rules::POWER || expected == rules::HEADER {
        if word.eq_ignore_ascii_case("a") || word.eq_ignore_ascii_case("b") {
            let letter = word.to_ascii_uppercase();
            return Some(format!("a board is written `Board {letter}` or `[{letter}]`; `{letter}` alone is an army"));
        }
        let p = names.suggest_power(word)?;
        return Some(format!("did you mean `{}`?", map.power(p).name));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diplomacy::map::{Coast, UnitType};
    use crate::diplomacy::order::{Board, UnitRef};

    fn place(map: &Map, name: &str) -> Place {
        let region = map.parse_region(name).unwrap();
        Place { province: map.province_of(region), coast: map.region(region).coast }
    }

    #[test]
    fn datc_notation_parses() {
        let map = Map::standard();
        let france = map.lookup_power("france");
        let (power, order) = parse_order_line("FRANCE: A PAR - BUR", &map).unwrap();
        assert_eq!(power, france);
        assert_eq!(order.canonical(&map), "A par - bur");
        for (line, canonical) in [
            ("ENG: F nth convoys lon -> bel", "F nth C lon - bel"),
            ("AUS: A ven holds", "A ven H"),
            ("ENG: A lvp supports A yor -> yor", "A lvp S A yor - yor"),
            ("GER: F kie -> kie", "F kie - kie"),
        ] {
            let (power, order) = parse_order_line(line, &map).unwrap_or_else(|d| panic!("{line}: {}", d.message));
            assert!(power.is_some(), "{line}");
            assert_eq!(order.canonical(&map), canonical, "{line}");
        }
    }

    #[test]
    fn a_fleet_after_a_convoy_keyword_is_not_a_board() {
        let map = Map::standard();
        let (_, order) = parse_order_line("F nth C A lon - bel", &map).unwrap();
        let army = UnitRef { kind: Some(UnitType::Army), at: place(&map, "lon") };
        assert_eq!(
            order,
            Order::Convoy {
                unit: UnitRef { kind: Some(UnitType::Fleet), at: place(&map, "nth") },
                army,
                to: place(&map, "bel")
            }
        );
    }

    #[test]
    fn coasts_in_every_spelling() {
        let map = Map::standard();
        for text in ["F mao - spa/nc", "F mao - spa(nc)", "F mao - spa nc", "F mao - spa north coast", "F mao - spa/n"]
        {
            let (_, order) = parse_order_line(text, &map).unwrap_or_else(|d| panic!("{text}: {}", d.message));
            let Order::Move { to, .. } = order else { panic!("{text}: not a move") };
            assert_eq!(to.coast, Some(Coast::North), "{text}");
        }
    }

    #[test]
    fn a_board_before_the_order_holds_for_its_line_as_the_judge_writes_units() {
        let map = Map::standard();
        let text = "Board B\nItaly: [A] A ven - tri\n[Board A] F nap - ion\nBoard A: A rom H\nA ven H (A)\nF nap H\n";
        let parsed = parse_orders(text, &map);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let boards: Vec<Option<Board>> = parsed.orders.iter().map(|o| o.board).collect();
        assert_eq!(boards, [Some(Board::A), Some(Board::A), Some(Board::A), Some(Board::A), Some(Board::B)]);
        assert_eq!(parsed.orders[0].order.canonical(&map), "A ven - tri");
        // Two different boards on one line; a bad order after a good board says the order's fault.
        let parsed = parse_orders("[A] A ven - tri (B)\n[A] A ven - xyzzy\n", &map);
        assert!(parsed.orders.is_empty());
        assert!(parsed.diagnostics[0].message.contains("the same board"), "{}", parsed.diagnostics[0].message);
        assert!(parsed.diagnostics[1].message.contains("province"), "{}", parsed.diagnostics[1].message);
    }

    #[test]
    fn comments_are_cut_but_not_coasts() {
        assert_eq!(strip_comment("F stp/sc - bot # north"), "F stp/sc - bot ");
        assert_eq!(strip_comment("F stp/sc - bot // north"), "F stp/sc - bot ");
        assert_eq!(strip_comment("A par H\r"), "A par H");
    }

    /// The fast path reads what the grammar reads, and reads it the same way; it reads
    /// every canonical order of the random phases.
    #[test]
    fn the_fast_path_agrees_with_the_grammar() {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        let map = Map::standard();
        let names = Names::indexed(&map);
        let mut canonical = Vec::new();
        for seed in 0..200 {
            let phase = crate::diplomacy::judge::random::random_phase(&map, seed);
            for w in &phase.written {
                let power = w.power.map(|p| format!("{}: ", map.power(p).name.to_uppercase())).unwrap_or_default();
                canonical.push(format!("{power}{}", w.order.canonical(&map)));
            }
        }
        for line in &canonical {
            let fast = fast::order_line(line, &names).unwrap_or_else(|| panic!("not on the fast path: {line}"));
            assert_eq!(Ok(fast), nom_order_content(line, &names), "{line}");
        }
        let words = [
            "A",
            "F",
            "a",
            "army",
            "Fleet",
            "-",
            "->",
            "S",
            "s",
            "C",
            "c",
            "H",
            "h",
            "holds",
            "via",
            "VIA",
            "convoy",
            "by",
            "FRANCE:",
            "fra:",
            "Frnace:",
            "ENG:",
            "eng",
            "PAR",
            "BUR",
            "NTH",
            "North",
            "Sea",
            "north",
            "coast",
            "nc",
            "sc",
            "n",
            "/nc",
            "/sc",
            "/xx",
            "STP/SC",
            "stp/nc",
            "spa",
            "SPA/NC",
            "spa/n",
            "(nc)",
            "(",
            ")",
            "R",
            "D",
            "St.",
            "Petersburg",
            "Mid-Atlantic",
            "Ocean",
            "mao",
            "lon",
            "bel",
            "nwy",
            "mun",
            "bul/ec",
            ".",
            ";",
            "(B)",
            ":",
            "",
            "xyz",
            "é",
            "\t",
            "'",
            "-.",
            "par.",
            "lon'",
            "nthé",
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut fast_read = 0;
        for _ in 0..100_000 {
            let line = if rng.gen_bool(0.5) {
                let n = rng.gen_range(1..9);
                (0..n).map(|_| *words.choose(&mut rng).unwrap()).collect::<Vec<_>>().join(" ")
            } else {
                let mut t: Vec<String> = canonical.choose(&mut rng).unwrap().split(' ').map(String::from).collect();
                let i = rng.gen_range(0..t.len());
                match rng.gen_range(0..3) {
                    0 => t[i] = words.choose(&mut rng).unwrap().to_string(),
                    1 => t.insert(i, words.choose(&mut rng).unwrap().to_string()),
                    _ => {
                        t.remove(i);
                    }
                }
                t.join(if rng.gen_bool(0.9) { " " } else { "  " })
            };
            if let Some(fast) = fast::order_line(&line, &names) {
                fast_read += 1;
                assert_eq!(Ok(fast), nom_order_content(&line, &names), "{line:?}");
            }
        }
        assert!(fast_read > 3_000, "{fast_read}");
    }

    #[test]
    fn a_misspelt_place_gets_a_message_and_a_hint() {
        let map = Map::standard();
        let d = parse_order_line("A par - Bugundy", &map).unwrap_err();
        assert_eq!(d.message, "expected a province after `-`, found `Bugundy`");
        assert_eq!(d.hint.as_deref(), Some("did you mean `bur` (Burgundy)?"));
        assert_eq!((d.line, d.column, d.span), (1, 9, 8..15));
    }
}
