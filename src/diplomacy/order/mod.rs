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

fn push_place(out: &mut String, map: &Map, place: Place) {
    out.push_str(&map.province(place.province).key);
    if let Some(c) = place.coast {
        out.push('/');
        out.push_str(c.short());
    }
}

fn push_unit(out: &mut String, map: &Map, u: &UnitRef<Place>) {
    if let Some(k) = u.kind {
        out.push(k.letter());
        out.push(' ');
    }
    push_place(out, map, u.at);
}

impl Order<Place> {
    /// The canonical spelling of the order (see the module documentation).
    pub fn canonical(&self, map: &Map) -> String {
        // Written piece by piece into one string: reports and acknowledgements spell
        // every order, so this is on the judge's hot path.
        let mut out = String::with_capacity(32);
        let o = &mut out;
        match self {
            Order::Hold { unit } => {
                push_unit(o, map, unit);
                o.push_str(" H");
            }
            Order::Move { unit, to, via_convoy } => {
                push_unit(o, map, unit);
                o.push_str(" - ");
                push_place(o, map, *to);
                if *via_convoy {
                    o.push_str(" via convoy");
                }
            }
            Order::SupportHold { unit, supported } => {
                push_unit(o, map, unit);
                o.push_str(" S ");
                push_unit(o, map, supported);
            }
            Order::SupportMove { unit, supported, to } | Order::Convoy { unit, army: supported, to } => {
                push_unit(o, map, unit);
                o.push_str(if matches!(self, Order::Convoy { .. }) { " C " } else { " S " });
                push_unit(o, map, supported);
                o.push_str(" - ");
                push_place(o, map, *to);
            }
            Order::Retreat { unit, to } => {
                push_unit(o, map, unit);
                o.push_str(" R ");
                push_place(o, map, *to);
            }
            Order::Disband { unit } => {
                push_unit(o, map, unit);
                o.push_str(" disband");
            }
            Order::Build { kind, at } => {
                o.push_str("build ");
                if let Some(k) = kind {
                    o.push(k.letter());
                    o.push(' ');
                }
                push_place(o, map, *at);
            }
            Order::Waive => o.push_str("waive"),
        }
        out
    }
}

/// The power an order was written for: its name as printed in canonical orders.
pub fn power_label(map: &Map, power: PowerId) -> &str {
    &map.power(power).name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diplomacy::map::cache;

    /// Every kind of order spelled as the table at the top of this file says.
    #[test]
    fn canonical_spellings_follow_the_table() {
        let map = cache::standard();
        let at = |key: &str, coast: Option<Coast>| Place { province: map.lookup_province(key).expect(key), coast };
        let unit = |kind: UnitType, key: &str| UnitRef { kind: Some(kind), at: at(key, None) };
        let army = |key: &str| unit(UnitType::Army, key);
        let cases: Vec<(Order<Place>, &str)> = vec![
            (Order::Hold { unit: army("par") }, "A par H"),
            (Order::Move { unit: army("par"), to: at("bur", None), via_convoy: false }, "A par - bur"),
            (Order::Move { unit: army("lon"), to: at("bel", None), via_convoy: true }, "A lon - bel via convoy"),
            (Order::SupportHold { unit: army("mun"), supported: army("bur") }, "A mun S A bur"),
            (
                Order::SupportMove { unit: army("mun"), supported: army("par"), to: at("bur", None) },
                "A mun S A par - bur",
            ),
            (
                Order::Convoy { unit: unit(UnitType::Fleet, "nth"), army: army("lon"), to: at("bel", None) },
                "F nth C A lon - bel",
            ),
            (Order::Retreat { unit: army("par"), to: at("bur", None) }, "A par R bur"),
            (Order::Disband { unit: army("par") }, "A par disband"),
            (Order::Build { kind: Some(UnitType::Fleet), at: at("stp", Some(Coast::South)) }, "build F stp/sc"),
            (Order::Build { kind: None, at: at("par", None) }, "build par"),
            (Order::Waive, "waive"),
            (
                Order::Move {
                    unit: UnitRef { kind: None, at: at("spa", Some(Coast::North)) },
                    to: at("por", None),
                    via_convoy: false,
                },
                "spa/nc - por",
            ),
        ];
        for (order, spelled) in cases {
            assert_eq!(order.canonical(&map), spelled);
        }
    }
}
