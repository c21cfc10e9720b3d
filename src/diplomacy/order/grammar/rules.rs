//! The grammar rules: one small nom function per rule of the order syntax, composed
//! bottom-up from words and places to a whole line.
//!
//! Every rule reads one line (comments already cut off) and works on a [`In`] span
//! that carries the map's names. A rule that fails says where (`Stuck::offset`) and,
//! through `context`, what it expected; `cut` after a keyword commits to its branch so
//! the error names the real problem ("a province after `-`") rather than the first
//! alternative. Nothing here loops over the line more than a bounded number of times.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, one_of};
use nom::combinator::{cut, eof, map, opt, peek, value};
use nom::error::{context, ContextError, ErrorKind, ParseError};
use nom::sequence::{delimited, pair, preceded, terminated};
use nom::{IResult, InputTake};
use nom_locate::LocatedSpan;

use super::names::Names;
use crate::diplomacy::map::{Coast, PowerId, ProvinceId, UnitType};
use crate::diplomacy::order::{Board, Order, Place, UnitRef};

/// A span of one line, carrying the map's names.
pub(super) type In<'a> = LocatedSpan<&'a str, &'a Names<'a>>;

type Res<'a, T> = IResult<In<'a>, T, Stuck>;

/// Where a rule got stuck, and what it expected there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stuck {
    /// Byte offset in the line.
    pub(super) offset: usize,
    pub(super) expected: Option<&'static str>,
}

impl<'a> ParseError<In<'a>> for Stuck {
    fn from_error_kind(input: In<'a>, _: ErrorKind) -> Self {
        Stuck { offset: input.location_offset(), expected: None }
    }

    fn append(_: In<'a>, _: ErrorKind, other: Self) -> Self {
        other
    }

    /// Of two failed alternatives, the one that read further tells more.
    fn or(self, other: Self) -> Self {
        if other.offset > self.offset || (other.offset == self.offset && self.expected.is_none()) {
            other
        } else {
            self
        }
    }
}

impl<'a> ContextError<In<'a>> for Stuck {
    /// The outermost label at the place where the rule got stuck wins: "an order" at
    /// the start of a line says more than "a province" there.
    fn add_context(input: In<'a>, label: &'static str, mut other: Self) -> Self {
        if input.location_offset() == other.offset {
            other.expected = Some(label);
        }
        other
    }
}

// What a rule expected, as the diagnostics print it ("expected {label} after ...").
pub(super) const ORDER: &str = "an order";
pub(super) const PROVINCE: &str = "a province";
pub(super) const UNIT: &str = "a unit";
pub(super) const SUPPORTED: &str = "the supported unit";
pub(super) const CONVOYED: &str = "the convoyed army";
pub(super) const BUILT: &str = "a unit to build";
pub(super) const ACTION: &str = "what the unit does (`H`, `-`, `S`, `C`, `R` or `disband`)";
pub(super) const CONVOY_ARROW: &str = "`-` and where the army goes";
pub(super) const CONVOY_WORD: &str = "`convoy`";
pub(super) const COAST: &str = "a coast (`nc`, `sc`, `ec` or `wc`)";
pub(super) const END: &str = "the end of the order";
pub(super) const POWER: &str = "a power";
pub(super) const HEADER: &str = "a power or a board (`[France]`, `[Board A]`)";
pub(super) const BOARD_LETTER: &str = "the board `A` or `B`";
pub(super) const HEADER_END: &str = "the end of the header";
pub(super) const CLOSE_BRACKET: &str = "`]`";
pub(super) const SAME_BOARD: &str = "the same board as before the order";

/// A line that is a section header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Header {
    Power(PowerId),
    Board(Board),
}

/// A line that is an order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OrderLine {
    pub(super) power: Option<PowerId>,
    pub(super) order: Order<Place>,
    pub(super) board: Option<Board>,
}

/// Characters of a name: "St.", "Mid-Atlantic" is two names joined by `-`.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '.' || c == '\''
}

fn ws(i: In) -> Res<()> {
    map(take_while(char::is_whitespace), |_| ())(i)
}

fn ws1(i: In) -> Res<()> {
    map(take_while1(char::is_whitespace), |_| ())(i)
}

fn stuck<'a, T>(i: &In<'a>, expected: Option<&'static str>) -> Res<'a, T> {
    Err(nom::Err::Error(Stuck { offset: i.location_offset(), expected }))
}

/// One of `words`, any case, as a whole word.
fn keyword<'a>(words: &'static [&'static str]) -> impl Fn(In<'a>) -> Res<'a, In<'a>> {
    move |i: In<'a>| {
        let text = i.fragment().as_bytes();
        for w in words {
            let n = w.len();
            let matches = text.get(..n).is_some_and(|t| t.eq_ignore_ascii_case(w.as_bytes()));
            // The matched bytes are ASCII, so `n` is a character boundary.
            if matches && !i.fragment()[n..].starts_with(|c: char| c.is_alphanumeric()) {
                let (rest, word) = i.take_split(n);
                return Ok((rest, word));
            }
        }
        stuck(&i, None)
    }
}

/// The longest run of at most `max_words` words that `lookup` knows, words joined by
/// spaces or a single `-` or `_` ("Mid-Atlantic Ocean").
fn longest_name<'a, T>(
    i: In<'a>,
    max_words: usize,
    label: Option<&'static str>,
    lookup: impl Fn(&str) -> Option<T>,
) -> Res<'a, T> {
    match longest_name_in(i.fragment(), max_words, lookup) {
        Some((end, found)) => {
            let (rest, _) = i.take_split(end);
            Ok((rest, found))
        }
        None => stuck(&i, label),
    }
}

/// [`longest_name`] on plain text: the length of the name found, and what it names.
pub(super) fn longest_name_in<T>(
    text: &str,
    max_words: usize,
    lookup: impl Fn(&str) -> Option<T>,
) -> Option<(usize, T)> {
    const MAX_WORDS: usize = 8;
    let mut ends = [0usize; MAX_WORDS];
    let mut count = 0;
    let mut pos = 0;
    while count < max_words.clamp(1, MAX_WORDS) {
        let len = text[pos..].find(|c: char| !is_name_char(c)).unwrap_or(text.len() - pos);
        if len == 0 {
            break;
        }
        pos += len;
        ends[count] = pos;
        count += 1;
        let rest = &text[pos..];
        let gap = if rest.starts_with(['-', '_']) {
            1
        } else {
            rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len())
        };
        if gap == 0 || !text[pos + gap..].starts_with(is_name_char) {
            break;
        }
        pos += gap;
    }
    for &end in ends[..count].iter().rev() {
        if let Some(found) = lookup(&text[..end]) {
            return Some((end, found));
        }
    }
    None
}

fn province(i: In) -> Res<ProvinceId> {
    let names = i.extra;
    longest_name(i, names.place_words, Some(PROVINCE), |n| names.province(n))
}

fn power_name(i: In) -> Res<PowerId> {
    let names = i.extra;
    longest_name(i, names.power_words, None, |n| names.power(n))
}

/// `nc`, or `n`/`north` with or without `coast`; `strict` (a coast after a space, with
/// no `/` or brackets) takes only `nc` or `north coast`, so `F spa S ...` stays a support.
fn coast_name(strict: bool) -> impl Fn(In) -> Res<Coast> {
    move |i: In| {
        const COASTS: [(Coast, &[&str], &[&str]); 4] = [
            (Coast::North, &["nc"], &["north", "n"]),
            (Coast::South, &["sc"], &["south", "s"]),
            (Coast::East, &["ec"], &["east", "e"]),
            (Coast::West, &["wc"], &["west", "w"]),
        ];
        for (coast, short, words) in COASTS {
            if let Ok((rest, _)) = keyword(short)(i) {
                return Ok((rest, coast));
            }
            if let Ok((rest, _)) = keyword(words)(i) {
                match preceded(ws, keyword(&["coast"]))(rest) {
                    Ok((rest, _)) => return Ok((rest, coast)),
                    Err(_) if !strict => return Ok((rest, coast)),
                    Err(_) => {}
                }
            }
        }
        stuck(&i, Some(COAST))
    }
}

/// `/nc`, `(nc)`, `(north coast)`, ` nc`, ` north coast`.
fn coast(i: In) -> Res<Coast> {
    alt((
        preceded(pair(char('/'), ws), cut(context(COAST, coast_name(false)))),
        delimited(pair(ws, char('(')), preceded(ws, coast_name(false)), pair(ws, char(')'))),
        preceded(ws1, coast_name(true)),
    ))(i)
}

/// A province and maybe a coast: `stp/sc`, `Spain (north coast)`, `North Sea`.
fn place(i: In) -> Res<Place> {
    map(pair(province, opt(coast)), |(province, coast)| Place { province, coast })(i)
}

fn unit_kind(i: In) -> Res<UnitType> {
    alt((value(UnitType::Army, keyword(&["army", "a"])), value(UnitType::Fleet, keyword(&["fleet", "f"]))))(i)
}

/// `A par`, `fleet North Sea`, or a bare place (the position tells the type).
fn unit(i: In) -> Res<UnitRef<Place>> {
    alt((
        map(pair(terminated(unit_kind, ws), place), |(kind, at)| UnitRef { kind: Some(kind), at }),
        map(place, |at| UnitRef { kind: None, at }),
    ))(i)
}

/// The unit a support or convoy names, maybe after its power's name or adjective
/// (`S Turkish A bul - ser`, as the DATC writes it): the place decides which unit.
fn other_unit(i: In) -> Res<UnitRef<Place>> {
    alt((preceded(pair(power_name, ws1), unit), unit))(i)
}

/// `-`, `->`, `=>`, `to`, `moves to`, `m`.
fn arrow(i: In) -> Res<()> {
    alt((
        value((), alt((tag("->"), tag("=>"), tag("-"), tag("→"), tag("–"), tag("—"), tag(">")))),
        value((), pair(keyword(&["moves", "move", "m"]), opt(pair(ws, keyword(&["to"]))))),
        value((), keyword(&["to"])),
    ))(i)
}

/// `via convoy`, `by convoy`, `via c`, maybe in brackets; or a bare `via` ending the
/// order, as MILA's engine and the bot frameworks write a move by convoy
/// (`A LVP - EDI VIA`).
fn via_convoy(i: In) -> Res<bool> {
    let convoy_word = || keyword(&["convoys", "convoy", "c", "sea"]);
    let spelt_out = tuple4(
        opt(terminated(char('('), ws)),
        terminated(keyword(&["via", "by"]), ws),
        cut(context(CONVOY_WORD, convoy_word())),
        opt(preceded(ws, char(')'))),
    );
    // A bare `via` only where the order may end: the end of the line, its closing
    // punctuation, or a board suffix. Anything else after `via` must be `convoy`.
    let order_end = alt((value((), eof), value((), one_of(".;,")), value((), board_suffix)));
    let bare = terminated(keyword(&["via"]), peek(preceded(ws, order_end)));
    map(opt(preceded(ws, alt((value((), bare), value((), spelt_out))))), |v| v.is_some())(i)
}

/// Four parsers in a row (nom's `tuple` with the error type spelled out once).
fn tuple4<'a, A, B, C, D>(
    mut a: impl FnMut(In<'a>) -> Res<'a, A>,
    mut b: impl FnMut(In<'a>) -> Res<'a, B>,
    mut c: impl FnMut(In<'a>) -> Res<'a, C>,
    mut d: impl FnMut(In<'a>) -> Res<'a, D>,
) -> impl FnMut(In<'a>) -> Res<'a, (A, B, C, D)> {
    move |i| {
        let (i, x) = a(i)?;
        let (i, y) = b(i)?;
        let (i, z) = c(i)?;
        let (i, w) = d(i)?;
        Ok((i, (x, y, z, w)))
    }
}

fn hold_word(i: In) -> Res<In> {
    keyword(&["holds", "hold", "h", "stands", "stand"])(i)
}

/// `- bur`, `moves to bur via convoy`.
fn move_action(unit: UnitRef<Place>) -> impl Fn(In) -> Res<Order<Place>> {
    move |i| {
        let (i, _) = terminated(arrow, ws)(i)?;
        let (i, to) = cut(context(PROVINCE, place))(i)?;
        let (i, via_convoy) = via_convoy(i)?;
        Ok((i, Order::Move { unit, to, via_convoy }))
    }
}

/// `S A bur`, `S A bur H`, `supports A par - bur`.
fn support_action(unit: UnitRef<Place>) -> impl Fn(In) -> Res<Order<Place>> {
    move |i| {
        let (i, _) = terminated(keyword(&["supports", "support", "s"]), ws)(i)?;
        let (i, supported) = cut(context(SUPPORTED, other_unit))(i)?;
        let (i, to) = opt(preceded(pair(ws, terminated(arrow, ws)), cut(context(PROVINCE, place))))(i)?;
        match to {
            Some(to) => Ok((i, Order::SupportMove { unit, supported, to })),
            None => {
                let (i, _) = opt(preceded(ws, hold_word))(i)?;
                Ok((i, Order::SupportHold { unit, supported }))
            }
        }
    }
}

/// `C A lon - bel`, `convoys lon -> bel`.
fn convoy_action(unit: UnitRef<Place>) -> impl Fn(In) -> Res<Order<Place>> {
    move |i| {
        let (i, _) = terminated(keyword(&["convoys", "convoy", "c"]), ws)(i)?;
        let (i, army) = cut(context(CONVOYED, other_unit))(i)?;
        let (i, _) = preceded(ws, cut(context(CONVOY_ARROW, arrow)))(i)?;
        let (i, to) = preceded(ws, cut(context(PROVINCE, place)))(i)?;
        Ok((i, Order::Convoy { unit, army, to }))
    }
}

/// `R bur`, `retreats to bur`.
fn retreat_action(unit: UnitRef<Place>) -> impl Fn(In) -> Res<Order<Place>> {
    move |i| {
        let (i, _) = terminated(keyword(&["retreats", "retreat", "r"]), ws)(i)?;
        let (i, _) = opt(terminated(arrow, ws))(i)?;
        let (i, to) = cut(context(PROVINCE, place))(i)?;
        Ok((i, Order::Retreat { unit, to }))
    }
}

/// What a unit does, after the unit: `- bur`, `S ...`, `C ...`, `H`, `R bur`, `D`, `build`.
fn action(unit: UnitRef<Place>) -> impl Fn(In) -> Res<Order<Place>> {
    move |i| {
        context(
            ACTION,
            alt((
                move_action(unit),
                support_action(unit),
                convoy_action(unit),
                retreat_action(unit),
                value(Order::Hold { unit }, hold_word),
                value(
                    Order::Disband { unit },
                    keyword(&["disbands", "disbanded", "disband", "d", "removes", "removed", "remove"]),
                ),
                value(Order::Build { kind: unit.kind, at: unit.at }, keyword(&["builds", "build", "b"])),
            )),
        )(i)
    }
}

/// A unit, then what it does.
fn unit_order(i: In) -> Res<Order<Place>> {
    let (i, unit) = terminated(unit, ws)(i)?;
    action(unit)(i)
}

/// `waive`, `waived`, `build waive`.
fn waive(i: In) -> Res<Order<Place>> {
    let waive_word = || keyword(&["waives", "waived", "waive"]);
    value(
        Order::Waive,
        alt((
            preceded(pair(keyword(&["builds", "build"]), ws), waive_word()),
            terminated(waive_word(), opt(pair(ws, keyword(&["builds", "build"])))),
        )),
    )(i)
}

/// `build A par`, `build fleet stp/nc`, `B F stp nc`.
fn build_first(i: In) -> Res<Order<Place>> {
    let (i, _) = terminated(keyword(&["builds", "build", "b"]), ws)(i)?;
    let (i, u) = cut(context(BUILT, unit))(i)?;
    Ok((i, Order::Build { kind: u.kind, at: u.at }))
}

/// `disband A par`, `remove A par`.
fn disband_first(i: In) -> Res<Order<Place>> {
    let (i, _) = terminated(keyword(&["disband", "remove"]), ws)(i)?;
    let (i, unit) = cut(context(UNIT, unit))(i)?;
    Ok((i, Order::Disband { unit }))
}

fn order(i: In) -> Res<Order<Place>> {
    context(ORDER, alt((waive, build_first, disband_first, unit_order)))(i)
}

/// `France:`, `ENG:`: a power for this line only. Words before a colon that name no
/// power are an error (`Frnace: ...`).
fn power_prefix(i: In) -> Res<PowerId> {
    let names = i.extra;
    // The words before a colon, if a colon follows a few words.
    let (words_end, _) = longest_name(i, names.power_words + 2, None, |n| Some(n.len()))?;
    preceded(ws, char(':'))(words_end)?;
    terminated(power_name, pair(ws, char(':')))(i)
        .map_err(|_| nom::Err::Failure(Stuck { offset: i.location_offset(), expected: Some(POWER) }))
}

/// `Build A ven (B)`, `A par - bur (board B)`, `[B]`.
fn board_suffix(i: In) -> Res<Board> {
    alt((
        delimited(pair(char('('), ws), board_name, pair(ws, char(')'))),
        delimited(pair(char('['), ws), board_name, pair(ws, char(']'))),
    ))(i)
}

/// `A`, `board B`, `world A`.
fn board_name(i: In) -> Res<Board> {
    alt((preceded(pair(keyword(&["board", "world"]), ws), context(BOARD_LETTER, board_letter)), board_letter))(i)
}

fn board_letter(i: In) -> Res<Board> {
    alt((value(Board::A, keyword(&["a"])), value(Board::B, keyword(&["b"]))))(i)
}

/// `[A] `, `[Board B] `, `Board A: `: a board for this line only, before the order (the
/// way the judge writes a unit of one board: `[A] F bre`).
fn board_prefix(i: In) -> Res<Board> {
    alt((
        delimited(pair(char('['), ws), board_name, pair(ws, char(']'))),
        terminated(preceded(pair(keyword(&["board", "world"]), ws), board_letter), pair(ws, char(':'))),
    ))(i)
}

/// A whole order line: `[power:] [board] order [board] [. or ;]` (the power and the board
/// before the order in either order); a board given both
/// before and after the order must be the same one.
pub(super) fn order_line(i: In) -> Res<OrderLine> {
    let (i, _) = ws(i)?;
    // The board first (`Board A:` is no power), or after the power (`France: [A] ...`).
    let (i, first) = opt(terminated(board_prefix, ws))(i)?;
    let (i, power) = opt(terminated(power_prefix, ws))(i)?;
    let (i, before) = match first {
        Some(b) => (i, Some(b)),
        None => opt(terminated(board_prefix, ws))(i)?,
    };
    let (i, order) = order(i)?;
    let (at, _) = ws(i)?;
    let (i, after) = opt(preceded(ws, board_suffix))(i)?;
    let board = match (before, after) {
        (Some(b), Some(a)) if a != b => return stuck(&at, Some(SAME_BOARD)),
        (b, a) => b.or(a),
    };
    let (i, _) = pair(ws, opt(one_of(".;,")))(i)?;
    let (i, _) = preceded(ws, context(END, eof))(i)?;
    Ok((i, OrderLine { power, order, board }))
}

/// `[France]`, `[Board A]`, `[B]`.
fn bracket_header(i: In) -> Res<Header> {
    preceded(
        pair(char('['), ws),
        cut(context(
            HEADER,
            terminated(
                alt((map(board_name, Header::Board), map(power_name, Header::Power))),
                pair(ws, context(CLOSE_BRACKET, char(']'))),
            ),
        )),
    )(i)
}

/// `Board A`, `World B`.
fn board_header(i: In) -> Res<Header> {
    preceded(pair(keyword(&["board", "world"]), ws), cut(context(BOARD_LETTER, map(board_letter, Header::Board))))(i)
}

/// A section header line: `France`, `France:`, `[France]`, `Board A`, `[B]`.
pub(super) fn header_line(i: In) -> Res<Header> {
    let (i, _) = ws(i)?;
    let (i, header) = alt((bracket_header, board_header, map(power_name, Header::Power)))(i)?;
    let (i, _) = tuple4(ws, opt(char(':')), ws, context(HEADER_END, eof))(i)?;
    Ok((i, header))
}

/// Does the line look like it means to be a header (so its error is the header's)?
pub(super) fn looks_like_header(i: In) -> bool {
    preceded(ws, alt((map(char('['), |_| ()), map(keyword(&["board", "world"]), |_| ()))))(i).is_ok()
}
