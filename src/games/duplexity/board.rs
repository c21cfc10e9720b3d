//! The Duplexity board: 8 locations in a ring times 5 time zones, the pieces on each space,
//! and the one invariant every landing keeps.
//!
//! This module owns geometry (steps around the ring, zones toward the past or the future,
//! the "versions" of a space), the contents of a space, and how the board is stored (a
//! map of the non-empty spaces, checked when read back). It knows nothing of players'
//! turns or of landing: [`super::rules`] moves the pieces.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Locations on the ring, numbered 1 to 8.
pub const LOCATIONS: u8 = 8;
/// Time zones, from the Distant Past to the Far Future.
pub const ZONES: usize = 5;
/// Spaces on the board.
pub const SPACES: usize = LOCATIONS as usize * ZONES;
/// Wounds that remove a pawn.
pub const LETHAL_WOUNDS: u32 = 3;

/// A time zone, from the past to the future.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Zone {
    DistantPast,
    ImmediatePast,
    Present,
    NearFuture,
    FarFuture,
}

impl Zone {
    /// From the past to the future (the columns of the grid).
    pub const ALL: [Zone; ZONES] =
        [Zone::DistantPast, Zone::ImmediatePast, Zone::Present, Zone::NearFuture, Zone::FarFuture];

    /// 0 for the Distant Past, 4 for the Far Future.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(i: i32) -> Option<Zone> {
        usize::try_from(i).ok().and_then(|i| Zone::ALL.get(i).copied())
    }

    /// The short name as written in spaces (`NF`).
    pub fn code(self) -> &'static str {
        match self {
            Zone::DistantPast => "DP",
            Zone::ImmediatePast => "IP",
            Zone::Present => "P",
            Zone::NearFuture => "NF",
            Zone::FarFuture => "FF",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Zone::DistantPast => "Distant Past",
            Zone::ImmediatePast => "Immediate Past",
            Zone::Present => "Present",
            Zone::NearFuture => "Near Future",
            Zone::FarFuture => "Far Future",
        }
    }

    /// The zone `by` steps toward the future (negative: toward the past), if on the board.
    pub fn shifted(self, by: i32) -> Option<Zone> {
        Zone::from_index(self.index() as i32 + by)
    }
}

/// A space: a zone and a location, written `P3`, `NF7`, `DP1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Space {
    pub zone: Zone,
    /// 1 to 8.
    location: u8,
}

impl Space {
    /// The space, if `location` is 1 to 8.
    pub fn new(zone: Zone, location: u8) -> Option<Space> {
        (1..=LOCATIONS).contains(&location).then_some(Space { zone, location })
    }

    pub fn location(self) -> u8 {
        self.location
    }

    /// The place of the space in board order: the grid read row by row (location 1 from
    /// the Distant Past to the Far Future, then location 2, ...).
    pub fn index(self) -> usize {
        usize::from(self.location - 1) * ZONES + self.zone.index()
    }

    pub fn from_index(i: usize) -> Option<Space> {
        (i < SPACES).then(|| Space { zone: Zone::ALL[i % ZONES], location: (i / ZONES) as u8 + 1 })
    }

    /// Every space in board order.
    pub fn all() -> impl Iterator<Item = Space> {
        (0..SPACES).filter_map(Space::from_index)
    }

    /// The space `steps` steps around the ring in the same zone, rising (`8 -> 1`) or falling.
    pub fn around(self, steps: u8, rising: bool) -> Space {
        let n = u32::from(LOCATIONS);
        let from = u32::from(self.location - 1);
        let by = u32::from(steps) % n;
        let to = if rising { (from + by) % n } else { (from + n - by) % n };
        Space { zone: self.zone, location: to as u8 + 1 }
    }

    /// The same location in another zone.
    pub fn in_zone(self, zone: Zone) -> Space {
        Space { zone, location: self.location }
    }

    /// The 5 versions of the space (its location in every zone), from the past.
    pub fn versions(self) -> [Space; ZONES] {
        Zone::ALL.map(|zone| Space { zone, location: self.location })
    }

    /// Steps between two locations around the ring, the short way (0 to 4).
    pub fn ring_distance(a: u8, b: u8) -> u8 {
        let d = (i16::from(a) - i16::from(b)).rem_euclid(i16::from(LOCATIONS)) as u8;
        d.min(LOCATIONS - d)
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.zone.code(), self.location)
    }
}

impl std::str::FromStr for Space {
    type Err = String;

    /// The stored spelling only (`NF7`); players' spellings are read by the turn grammar.
    fn from_str(s: &str) -> Result<Space, String> {
        let split = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
        let (code, number) = s.split_at(split);
        let zone = Zone::ALL.into_iter().find(|z| z.code() == code);
        match (zone, number.parse::<u8>().ok()) {
            (Some(zone), Some(location)) => {
                Space::new(zone, location).ok_or_else(|| format!("`{s}`: locations are 1 to 8"))
            }
            _ => Err(format!("`{s}` is not a space (like P3 or NF7)")),
        }
    }
}

impl Serialize for Space {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Space {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Space, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A pawn on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pawn {
    /// The owner's seat: 0 or 1.
    pub owner: u8,
    /// 0 to 2 while it is on the board.
    pub wounds: u32,
    /// It has acted this round.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub acted: bool,
}

/// What one space holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pawn: Option<Pawn>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hazards: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub havens: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Cell {
    pub fn is_empty(&self) -> bool {
        self.pawn.is_none() && self.hazards == 0 && self.havens == 0
    }

    pub fn has_tokens(&self) -> bool {
        self.hazards > 0 || self.havens > 0
    }

    /// Why this cell breaks the board's invariant, if it does.
    pub fn fault(&self) -> Option<&'static str> {
        match self.pawn {
            Some(_) if self.has_tokens() => Some("a pawn shares its space with tokens"),
            Some(p) if p.wounds >= LETHAL_WOUNDS => Some("a pawn with 3 or more Wounds is still on the board"),
            Some(p) if p.owner > 1 => Some("a pawn belongs to no player"),
            _ => None,
        }
    }
}

/// The 40 spaces. Stored as a map of the non-empty spaces (`{"P3": {"pawn": ...}}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "BTreeMap<Space, Cell>", into = "BTreeMap<Space, Cell>")]
pub struct Board {
    cells: [Cell; SPACES],
}

impl Default for Board {
    fn default() -> Board {
        Board { cells: [Cell::default(); SPACES] }
    }
}

impl Ord for Space {
    fn cmp(&self, other: &Space) -> std::cmp::Ordering {
        self.index().cmp(&other.index())
    }
}

impl PartialOrd for Space {
    fn partial_cmp(&self, other: &Space) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl From<Board> for BTreeMap<Space, Cell> {
    fn from(b: Board) -> Self {
        b.occupied().map(|(s, c)| (s, *c)).collect()
    }
}

impl TryFrom<BTreeMap<Space, Cell>> for Board {
    type Error = String;

    fn try_from(map: BTreeMap<Space, Cell>) -> Result<Board, String> {
        let mut board = Board::default();
        for (space, cell) in map {
            if let Some(fault) = cell.fault() {
                return Err(format!("{space}: {fault}"));
            }
            board.cells[space.index()] = cell;
        }
        Ok(board)
    }
}

impl Board {
    pub fn cell(&self, s: Space) -> &Cell {
        &self.cells[s.index()]
    }

    pub fn cell_mut(&mut self, s: Space) -> &mut Cell {
        &mut self.cells[s.index()]
    }

    pub fn pawn(&self, s: Space) -> Option<Pawn> {
        self.cells[s.index()].pawn
    }

    /// Take everything off a space.
    pub fn take(&mut self, s: Space) -> Cell {
        std::mem::take(&mut self.cells[s.index()])
    }

    /// Every non-empty space, in board order.
    pub fn occupied(&self) -> impl Iterator<Item = (Space, &Cell)> {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_empty())
            .filter_map(|(i, c)| Some((Space::from_index(i)?, c)))
    }

    /// Every pawn, in board order.
    pub fn pawns(&self) -> impl Iterator<Item = (Space, Pawn)> + '_ {
        self.cells.iter().enumerate().filter_map(|(i, c)| Some((Space::from_index(i)?, c.pawn?)))
    }

    /// The pawns of one player, in board order.
    pub fn pawns_of(&self, owner: u8) -> impl Iterator<Item = (Space, Pawn)> + '_ {
        self.pawns().filter(move |(_, p)| p.owner == owner)
    }

    pub fn count_pawns(&self, owner: u8) -> u32 {
        self.cells.iter().filter(|c| c.pawn.is_some_and(|p| p.owner == owner)).count() as u32
    }

    /// Whether `owner` has a pawn that has not acted this round.
    pub fn has_unspent(&self, owner: u8) -> bool {
        self.cells.iter().any(|c| c.pawn.is_some_and(|p| p.owner == owner && !p.acted))
    }

    /// A new round: no pawn has acted.
    pub fn refresh(&mut self) {
        for c in &mut self.cells {
            if let Some(p) = &mut c.pawn {
                p.acted = false;
            }
        }
    }

    /// The first space (board order) that breaks the invariant: a space is empty, or holds
    /// one pawn with 0-2 Wounds and no token, or holds only tokens.
    pub fn invariant_fault(&self) -> Option<(Space, &'static str)> {
        self.cells.iter().enumerate().find_map(|(i, c)| Some((Space::from_index(i)?, c.fault()?)))
    }
}
