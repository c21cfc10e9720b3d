//! Orders: the types every order shares, generic over how an order names a place.
//!
//! `Order<Place>` is an order as written and understood by the grammar (a province and
//! maybe a coast); the judge works on resolved orders (`judge::MainOrder`, ...). Keeping
//! the two apart keeps "invalid" (not understood: a grammar diagnostic) apart from
//! "illegal" (understood, but impossible on this map or in this position).
//!
//! Canonical spelling (what `orders check` prints), with lower-case short place names
//! and coasts as `spa/nc`:
//!
//! | order | canonical form |
//! |---|---|
//! | hold | `A par H` |
//! | move | `A par - bur`; by convoy `A lon - bel via convoy` |
//! | support to hold | `A mun S A bur` |
//! | support to move | `A mun S A par - bur` |
//! | convoy | `F nth C A lon - bel` |
//! | retreat | `A par R bur` |
//! | disband (retreat) or remove (winter) | `A par disband` |
//! | build | `build F stp/sc` |
//! | waive a build | `waive` |
//!
//! A power prefix is written `France: A par - bur`; a board as a section header.

pub mod grammar;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::diplomacy::map::{Coast, Map, PowerId, ProvinceId, UnitType};

/// A place as written in an order: a province, and the coast if one was named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Place {
    pub province: ProvinceId,
    pub coast: Option<Coast>,
}

/// One of the two boards of a Shadow Worlds game (0 = A, 1 = B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Board(pub u8);

impl Board {
    pub const A: Board = Board(0);
    pub const B: Board = Board(1);

    pub fn letter(self) -> char {
        (b'A' + self.0) as char
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A unit as an order names it: its type, when written, and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UnitRef<L> {
    pub kind: Option<UnitType>,
    pub at: L,
}

/// An order, generic over how it names places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Order<L> {
    Hold {
        unit: UnitRef<L>,
    },
    /// A move; `via_convoy` when the order insists on a convoy.
    Move {
        unit: UnitRef<L>,
        to: L,
        via_convoy: bool,
    },
    SupportHold {
        unit: UnitRef<L>,
        supported: UnitRef<L>,
    },
    SupportMove {
        unit: UnitRef<L>,
        supported: UnitRef<L>,
        to: L,
    },
    /// `army.at` is where the convoyed army stands.
    Convoy {
        unit: UnitRef<L>,
        army: UnitRef<L>,
        to: L,
    },
    Retreat {
        unit: UnitRef<L>,
        to: L,
    },
    /// Disband after a dislodgement, or remove a unit in an adjustment phase.
    Disband {
        unit: UnitRef<L>,
    },
    Build {
        kind: Option<UnitType>,
        at: L,
    },
    Waive,
}

impl<L> Order<L> {
    /// The unit the order is given to (none for builds and waives).
    pub fn unit(&self) -> Option<&UnitRef<L>> {
        match self {
            Order::Hold { unit }
            | Order::Move { unit, .. }
            | Order::SupportHold { unit, .. }
            | Order::SupportMove { unit, .. }
            | Order::Convoy { unit, .. }
            | Order::Retreat { unit, .. }
            | Order::Disband { unit } => Some(unit),
            Order::Build { .. } | Order::Waive => None,
        }
    }
}

/// The canonical short name of a place: `par`, `spa/nc`.
pub fn place_name(map: &Map, place: Place) -> String {
    let key = &map.province(place.province).key;
    match place.coast {
        Some(c) => format!("{key}/{}", c.short()),
        None => key.clone(),
    }
}

fn unit_text(map: &Map, u: &UnitRef<Place>) -> String {
    match u.kind {
        Some(k) => format!("{} {}", k.letter(), place_name(map, u.at)),
        None => place_name(map, u.at),
    }
}

impl Order<Place> {
    /// The canonical spelling of the order (see the module documentation).
    pub fn canonical(&self, map: &Map) -> String {
        let p = |pl: Place| place_name(map, pl);
        match self {
            Order::Hold { unit } => format!("{} H", unit_text(map, unit)),
            Order::Move { unit, to, via_convoy } => {
                let via = if *via_convoy { " via convoy" } else { "" };
                format!("{} - {}{via}", unit_text(map, unit), p(*to))
            }
            Order::SupportHold { unit, supported } => {
                format!("{} S {}", unit_text(map, unit), unit_text(map, supported))
            }
            Order::SupportMove { unit, supported, to } => {
                format!("{} S {} - {}", unit_text(map, unit), unit_text(map, supported), p(*to))
            }
            Order::Convoy { unit, army, to } => {
                format!("{} C {} - {}", unit_text(map, unit), unit_text(map, army), p(*to))
            }
            Order::Retreat { unit, to } => format!("{} R {}", unit_text(map, unit), p(*to)),
            Order::Disband { unit } => format!("{} disband", unit_text(map, unit)),
            Order::Build { kind: Some(k), at } => format!("build {} {}", k.letter(), p(*at)),
            Order::Build { kind: None, at } => format!("build {}", p(*at)),
            Order::Waive => "waive".to_string(),
        }
    }
}

/// The power an order was written for: its name as printed in canonical orders.
pub fn power_label(map: &Map, power: PowerId) -> &str {
    &map.power(power).name
}
