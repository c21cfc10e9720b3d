//! The Duplexity turn-file grammar: one line of a turn file -> a [`Command`], or a
//! [`Refusal`] saying where (column) and what was expected.
//!
//! | line | means |
//! |---|---|
//! | `place P3` | setup: a pawn in a Present space |
//! | `bid 2`, `bid 2 first`, `bid 0 second` | the Initiative bid; the winner acts first unless it says `second` |
//! | `pawn P3: shift +1, move +, gather` | activate the pawn at P3: its actions, in order |
//! | `pawn NF2: move prefer 3 7, alter FF add hazard` | Move to the first listed location the roll reaches |
//! | `pawn P3` (or `pawn P3: pass`) | the pawn acts with no action |
//! | `to 7` (or `to P7`, `to 7, gather`) | where a Move that waits goes, then more actions |
//!
//! Actions: `move` (the judge rolls and waits), `move +` (rising numbers), `move -`,
//! `move prefer 3 7 1`; `shift +2` (toward the future), `shift -1` (toward the past);
//! `gather` (or `gather power`); `alter FF add hazard`, `alter IP remove haven` (also
//! `alter fate ...`, `place` for `add`, plurals). Actions are separated by `,`, `;`,
//! `then` or `and`.
//!
//! Spaces: `P3`, `nf 7`, `present 3`, `far future 1`. Any case and any spacing. The
//! grammar never decides whether a line is legal in the position (that is
//! [`super::rules`]): it only reads it. It never panics, and reads a line in time linear
//! in its length.

use nom::branch::alt;
use nom::bytes::complete::tag_no_case;
use nom::character::complete::{char, digit1, one_of, satisfy, space0, space1};
use nom::combinator::{cut, eof, map, not, opt, peek, value};
use nom::error::{ErrorKind, ParseError};
use nom::multi::separated_list1;
use nom::sequence::{preceded, terminated, tuple};
use nom::{Err as NomErr, IResult};
use nom_locate::LocatedSpan;

use super::board::{Space, Zone};
use super::rules::{Action, Bid, Order, Token, Way};

/// One line understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Place(Space),
    Bid(Bid),
    Pawn {
        pawn: Space,
        actions: Vec<Action>,
    },
    /// Where a waiting Move goes: a location, maybe written as a space (`to P7`).
    To {
        location: u8,
        zone: Option<Zone>,
        actions: Vec<Action>,
    },
}

/// A line not understood: where (column, in characters), and what was expected.
use crate::answer::Refusal;

/// What the judge understands, as the hint of a line it does not.
pub const LINE_SHAPES: &str =
    "turn lines look like `place P3`, `bid 2 first`, `pawn P3: shift +1, move +, gather` or `to 7`";

type In<'a> = LocatedSpan<&'a str>;
type Res<'a, T> = IResult<In<'a>, T, Stuck<'a>>;

/// Where the grammar got stuck, and why.
#[derive(Debug)]
struct Stuck<'a> {
    at: In<'a>,
    /// What was expected there (`a space like P3`).
    expected: Option<&'static str>,
    /// A whole message, for what is read but wrong (`there is no location 9`).
    message: Option<String>,
    hint: Option<&'static str>,
}

impl<'a> ParseError<In<'a>> for Stuck<'a> {
    fn from_error_kind(input: In<'a>, _: ErrorKind) -> Self {
        Stuck { at: input, expected: None, message: None, hint: None }
    }

    fn append(_: In<'a>, _: ErrorKind, other: Self) -> Self {
        other
    }

    /// Of two branches that failed, the one that read further says more.
    fn or(self, other: Self) -> Self {
        if other.at.location_offset() > self.at.location_offset() {
            other
        } else {
            self
        }
    }
}

/// Label what `p` expects, unless something inside already said.
fn expect<'a, T>(what: &'static str, mut p: impl FnMut(In<'a>) -> Res<'a, T>) -> impl FnMut(In<'a>) -> Res<'a, T> {
    move |i| {
        p(i).map_err(|e| {
            e.map(|mut s| {
                if s.expected.is_none() && s.message.is_none() {
                    s.expected = Some(what);
                    s.at = i;
                }
                s
            })
        })
    }
}

/// Fail for good at `at` with a whole message.
fn wrong<'a, T>(at: In<'a>, message: String, hint: Option<&'static str>) -> Res<'a, T> {
    Err(NomErr::Failure(Stuck { at, expected: None, message: Some(message), hint }))
}

/// A word, any case, not followed by another letter.
fn kw<'a>(word: &'static str) -> impl FnMut(In<'a>) -> Res<'a, In<'a>> {
    move |i| terminated(tag_no_case(word), not(peek(satisfy(char::is_alphabetic))))(i)
}

fn zone(i: In<'_>) -> Res<'_, Zone> {
    alt((
        value(Zone::DistantPast, tuple((kw("distant"), space1, kw("past")))),
        value(Zone::ImmediatePast, tuple((kw("immediate"), space1, kw("past")))),
        value(Zone::Present, kw("present")),
        value(Zone::NearFuture, tuple((kw("near"), space1, kw("future")))),
        value(Zone::FarFuture, tuple((kw("far"), space1, kw("future")))),
        value(Zone::DistantPast, tag_no_case("dp")),
        value(Zone::ImmediatePast, tag_no_case("ip")),
        value(Zone::NearFuture, tag_no_case("nf")),
        value(Zone::FarFuture, tag_no_case("ff")),
        value(Zone::Present, tag_no_case("p")),
    ))(i)
}

/// A location number, 1 to 8.
fn location(i: In<'_>) -> Res<'_, u8> {
    let (rest, digits) = expect("a location, 1 to 8", digit1)(i)?;
    match digits.fragment().parse::<u8>() {
        Ok(n @ 1..=8) => Ok((rest, n)),
        _ => wrong(i, format!("there is no location {}: the locations are 1 to 8", digits.fragment()), None),
    }
}

const SPACE: &str = "a space like `P3`, `NF7` or `present 3`";

fn space(i: In<'_>) -> Res<'_, Space> {
    let (rest, (z, _, l)) = expect(SPACE, tuple((zone, space0, location)))(i)?;
    match Space::new(z, l) {
        Some(s) => Ok((rest, s)),
        None => wrong(i, format!("there is no location {l}: the locations are 1 to 8"), None),
    }
}

fn number(i: In<'_>) -> Res<'_, u32> {
    let (rest, digits) = expect("a number", digit1)(i)?;
    match digits.fragment().parse::<u32>() {
        Ok(n) => Ok((rest, n)),
        Err(_) => wrong(i, format!("{} is too large", digits.fragment()), None),
    }
}

/// Nothing but spaces to the end of the line.
fn end<'a>(expected: &'static str) -> impl FnMut(In<'a>) -> Res<'a, ()> {
    move |i| value((), preceded(space0, expect(expected, eof)))(i)
}

fn separator(i: In<'_>) -> Res<'_, ()> {
    value((), tuple((space0, alt((value((), one_of(",;")), value((), kw("then")), value((), kw("and")))), space0)))(i)
}

fn way(i: In<'_>) -> Res<'_, Way> {
    alt((
        value(Way::Rising, char('+')),
        value(Way::Falling, char('-')),
        map(preceded(tuple((kw("prefer"), space0)), cut(separated_list1(space1, location))), Way::Prefer),
    ))(i)
}

fn move_action(i: In<'_>) -> Res<'_, Action> {
    let (i, _) = kw("move")(i)?;
    let (i, way) = opt(preceded(space0, way))(i)?;
    Ok((i, Action::Move { way: way.unwrap_or(Way::Ask) }))
}

const SHIFT_HINT: &str = "`shift +1` goes toward the future, `shift -1` toward the past";

fn shift_action(i: In<'_>) -> Res<'_, Action> {
    let (i, _) = kw("shift")(i)?;
    let (i, _) = space0(i)?;
    let Ok((after, sign)) = one_of::<_, _, Stuck>("+-")(i) else {
        return wrong(i, "a Shift says which way: + toward the future, - toward the past".into(), Some(SHIFT_HINT));
    };
    let (rest, n) = cut(preceded(space0, number))(after)?;
    let Ok(n) = i32::try_from(n) else {
        return wrong(after, format!("{n} is too large"), Some(SHIFT_HINT));
    };
    Ok((rest, Action::Shift { by: if sign == '-' { -n } else { n } }))
}

fn gather_action(i: In<'_>) -> Res<'_, Action> {
    value(Action::Gather, tuple((kw("gather"), opt(preceded(space1, kw("power"))))))(i)
}

fn token(i: In<'_>) -> Res<'_, Token> {
    alt((
        value(Token::Hazard, alt((kw("hazards"), kw("hazard")))),
        value(Token::Haven, alt((kw("havens"), kw("haven")))),
    ))(i)
}

fn alter_action(i: In<'_>) -> Res<'_, Action> {
    let (i, _) = tuple((kw("alter"), opt(preceded(space1, kw("fate")))))(i)?;
    let (i, (_, zone, _, add, _, token)) = cut(tuple((
        space1,
        expect("a zone (DP, IP, P, NF or FF)", terminated(zone, not(peek(satisfy(char::is_alphanumeric))))),
        space1,
        expect("`add` or `remove`", alt((value(true, alt((kw("add"), kw("place")))), value(false, kw("remove"))))),
        space1,
        expect("`hazard` or `haven`", token),
    )))(i)?;
    Ok((i, Action::Alter { zone, add, token }))
}

const ACTION: &str = "an action: `move`, `shift`, `gather` or `alter`";

fn action(i: In<'_>) -> Res<'_, Action> {
    expect(ACTION, alt((move_action, shift_action, gather_action, alter_action)))(i)
}

/// Actions and their separators. After a separator an action must follow: a word that
/// is none (`fly`) is named there, with the actions there are.
fn actions(i: In<'_>) -> Res<'_, Vec<Action>> {
    let (mut i, first) = action(i)?;
    let mut list = vec![first];
    while let Ok((after, _)) = separator(i) {
        let (rest, next) = cut(action)(after)?;
        list.push(next);
        i = rest;
    }
    Ok((i, list))
}

fn place(i: In<'_>) -> Res<'_, Command> {
    let (i, _) = kw("place")(i)?;
    let (i, s) = cut(preceded(space0, space))(i)?;
    let (i, _) = cut(end("the end of the line after the space"))(i)?;
    Ok((i, Command::Place(s)))
}

fn bid(i: In<'_>) -> Res<'_, Command> {
    let (i, _) = kw("bid")(i)?;
    let (i, amount) = cut(preceded(space0, number))(i)?;
    let (i, order) = opt(preceded(
        tuple((space0, opt(char(',')), space0)),
        alt((value(Order::First, kw("first")), value(Order::Second, kw("second")))),
    ))(i)?;
    let (i, _) = cut(end("`first`, `second` or the end of the line"))(i)?;
    Ok((i, Command::Bid(Bid { amount, order })))
}

fn pawn(i: In<'_>) -> Res<'_, Command> {
    let (i, _) = kw("pawn")(i)?;
    let (i, pawn) = cut(preceded(space0, space))(i)?;
    let (i, _) = tuple((space0, opt(char(':')), space0))(i)?;
    let (i, list) = alt((
        value(Vec::new(), alt((kw("pass"), kw("none"), kw("nothing")))),
        value(Vec::new(), peek(eof)),
        cut(actions),
    ))(i)?;
    let (i, _) = cut(end("`,` and another action, or the end of the line"))(i)?;
    Ok((i, Command::Pawn { pawn, actions: list }))
}

fn to(i: In<'_>) -> Res<'_, Command> {
    let (i, _) = kw("to")(i)?;
    let (i, (zone, location)) = cut(preceded(
        space0,
        expect("a location, 1 to 8", alt((map(space, |s| (Some(s.zone), s.location())), map(location, |l| (None, l))))),
    ))(i)?;
    let (i, more) = opt(preceded(separator, cut(actions)))(i)?;
    let (i, _) = cut(end("`,` and an action, or the end of the line"))(i)?;
    Ok((i, Command::To { location, zone, actions: more.unwrap_or_default() }))
}

fn command(i: In<'_>) -> Res<'_, Command> {
    preceded(space0, expect("`place`, `bid`, `pawn` or `to`", alt((place, bid, pawn, to))))(i)
}

/// What stands at `at`, for "found `...`".
fn found(at: &In<'_>) -> String {
    let word: String =
        at.fragment().chars().take_while(|c| !c.is_whitespace() && *c != ',' && *c != ';').take(24).collect();
    if word.is_empty() {
        "the end of the line".into()
    } else {
        format!("`{}`", word.escape_debug())
    }
}

/// Read one line of a turn file (without its end of line; its comment already cut, see
/// [`crate::games::kit`]).
pub fn parse_line(line: &str) -> Result<Command, Refusal> {
    match command(In::new(line)) {
        Ok((_, c)) => Ok(c),
        Err(NomErr::Error(s) | NomErr::Failure(s)) => {
            let column = s.at.get_utf8_column();
            let message = match (s.message, s.expected) {
                (Some(m), _) => m,
                (None, Some(e)) => format!("expected {e}, found {}", found(&s.at)),
                (None, None) => format!("not understood at {}", found(&s.at)),
            };
            let hint = s.hint.map(str::to_string).or_else(|| (column == 1).then(|| LINE_SHAPES.to_string()));
            Err(Refusal { line: 0, column, reason: message, hint })
        }
        Err(NomErr::Incomplete(_)) => Err(Refusal::new("the line ends too soon").hint(LINE_SHAPES)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(s: &str) -> Space {
        s.parse().unwrap()
    }

    #[test]
    fn the_lines_of_the_rules_file_are_understood() {
        assert_eq!(parse_line("place P3"), Ok(Command::Place(sp("P3"))));
        assert_eq!(parse_line("bid 2 first"), Ok(Command::Bid(Bid { amount: 2, order: Some(Order::First) })));
        assert_eq!(parse_line("bid 0"), Ok(Command::Bid(Bid { amount: 0, order: None })));
        assert_eq!(
            parse_line("pawn P3: shift +1, move +, gather"),
            Ok(Command::Pawn {
                pawn: sp("P3"),
                actions: vec![Action::Shift { by: 1 }, Action::Move { way: Way::Rising }, Action::Gather]
            })
        );
        assert_eq!(
            parse_line("pawn NF2: move prefer 3 7, alter FF add hazard"),
            Ok(Command::Pawn {
                pawn: sp("NF2"),
                actions: vec![
                    Action::Move { way: Way::Prefer(vec![3, 7]) },
                    Action::Alter { zone: Zone::FarFuture, add: true, token: Token::Hazard }
                ]
            })
        );
        assert_eq!(parse_line("to 7"), Ok(Command::To { location: 7, zone: None, actions: vec![] }));
    }

    #[test]
    fn case_spacing_and_long_names_do_not_matter() {
        assert_eq!(parse_line("  PLACE   present 3 "), Ok(Command::Place(sp("P3"))));
        assert_eq!(parse_line("Place p3"), Ok(Command::Place(sp("P3"))));
        assert_eq!(parse_line("place Near Future 7"), Ok(Command::Place(sp("NF7"))));
        assert_eq!(parse_line("place distant  past1"), Ok(Command::Place(sp("DP1"))));
        assert_eq!(parse_line("BID 3,second"), Ok(Command::Bid(Bid { amount: 3, order: Some(Order::Second) })));
        assert_eq!(
            parse_line("pawn ip 4 : Shift - 2 ; Move - then Alter fate nf remove Havens"),
            Ok(Command::Pawn {
                pawn: sp("IP4"),
                actions: vec![
                    Action::Shift { by: -2 },
                    Action::Move { way: Way::Falling },
                    Action::Alter { zone: Zone::NearFuture, add: false, token: Token::Haven }
                ]
            })
        );
        assert_eq!(parse_line("pawn P3"), Ok(Command::Pawn { pawn: sp("P3"), actions: vec![] }));
        assert_eq!(parse_line("pawn P3: pass"), Ok(Command::Pawn { pawn: sp("P3"), actions: vec![] }));
        assert_eq!(
            parse_line("to P7, gather power"),
            Ok(Command::To { location: 7, zone: Some(Zone::Present), actions: vec![Action::Gather] })
        );
    }

    #[test]
    fn bad_lines_say_where_and_what() {
        let d = parse_line("place Q9").unwrap_err();
        assert_eq!(d.column, 7);
        assert!(d.reason.contains("expected a space") && d.reason.contains("`Q9`"), "{d:?}");
        let d = parse_line("place P9").unwrap_err();
        assert_eq!((d.column, d.reason.as_str()), (8, "there is no location 9: the locations are 1 to 8"));
        let d = parse_line("bid two").unwrap_err();
        assert_eq!(d.column, 5);
        assert!(d.reason.contains("expected a number"), "{d:?}");
        let d = parse_line("bid 2 third").unwrap_err();
        assert_eq!(d.column, 7);
        assert!(d.reason.contains("`first`, `second`") && d.reason.contains("`third`"), "{d:?}");
        let d = parse_line("pawn P3: move + gather").unwrap_err();
        assert_eq!(d.column, 17, "{d:?}");
        let d = parse_line("pawn P3: shift 2").unwrap_err();
        assert!(d.reason.contains("which way"), "{d:?}");
        assert_eq!(d.hint.as_deref(), Some(SHIFT_HINT));
        let d = parse_line("pawn P3: jump").unwrap_err();
        assert_eq!(d.column, 10);
        assert!(d.reason.contains("an action"), "{d:?}");
        let d = parse_line("pawn P3: alter FF add gold").unwrap_err();
        assert!(d.reason.contains("`hazard` or `haven`") && d.reason.contains("`gold`"), "{d:?}");
        let d = parse_line("hello world").unwrap_err();
        assert_eq!(d.column, 1);
        assert_eq!(d.hint.as_deref(), Some(LINE_SHAPES));
        let d = parse_line("bid 99999999999999999999").unwrap_err();
        assert!(d.reason.contains("too large"), "{d:?}");
        let d = parse_line("pawn P3: move prefer 3 9").unwrap_err();
        assert!(d.reason.contains("no location 9"), "{d:?}");
    }

    #[test]
    fn issue_27_an_unknown_action_after_a_comma_is_named_with_the_actions() {
        let d = parse_line("pawn P2: shift +1, fly").unwrap_err();
        assert_eq!(d.column, 20, "{d:?}");
        assert_eq!(d.reason, format!("expected {ACTION}, found `fly`"));
        let d = parse_line("pawn P2: gather then swim").unwrap_err();
        assert!(d.reason.contains("`swim`") && d.reason.contains("`move`, `shift`"), "{d:?}");
        let d = parse_line("to 7, fly").unwrap_err();
        assert!(d.reason.contains("`fly`") && d.reason.contains("an action"), "{d:?}");
    }

    #[test]
    fn junk_never_panics() {
        for junk in [
            "\u{0}\u{1}\u{fffd}garbage ### ;;;",
            "pawn",
            "pawn :",
            "to",
            "bid",
            "alter",
            "pawn P3: ,",
            "ééé",
            "pawn P3: move prefer",
        ] {
            assert!(parse_line(junk).is_err(), "{junk:?}");
        }
    }
}
