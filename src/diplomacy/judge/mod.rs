//! Pure adjudication: movement, retreats and adjustments on one board.
//!
//! Input is a map, the units on the board and one resolved order per unit; output is an
//! outcome per order that says why, naming the order responsible. No IO, no clock, no
//! randomness: the same input always gives the same output.

pub mod adjustment;
pub mod batch;
pub mod legality;
pub mod movement;
pub mod possible;
pub mod random;
pub mod retreat;
pub mod rulebook;

pub use legality::{resolve_main_order, Illegal, MainOrder};
pub use movement::{adjudicate_movement, MovementResult, OrderOutcome, Reason};
pub use rulebook::{Edition, Rulebook};

use serde::{Deserialize, Serialize};

use crate::diplomacy::map::{Map, PowerId, ProvinceId, RegionId, UnitType};

/// A unit on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Unit {
    pub power: PowerId,
    pub kind: UnitType,
    pub region: RegionId,
}

impl Unit {
    /// `A par`, `F stp/sc`.
    pub fn describe(&self, map: &Map) -> String {
        let mut text = String::new();
        self.push_describe(&mut text, map);
        text
    }

    /// [`Unit::describe`], appended to a longer text.
    pub fn push_describe(&self, out: &mut String, map: &Map) {
        out.push(self.kind.letter());
        out.push(' ');
        map.push_region_name(out, self.region);
    }
}

/// Who owns each supply center, indexed by province id (non-centers stay `None`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ownership(pub Vec<Option<PowerId>>);

impl Ownership {
    pub fn new(map: &Map) -> Ownership {
        Ownership(vec![None; map.provinces().len()])
    }

    /// Each power owns its home centers; neutral centers are unowned.
    pub fn initial(map: &Map) -> Ownership {
        let mut o = Ownership::new(map);
        for p in map.province_ids() {
            o.0[p.0 as usize] = map.province(p).home;
        }
        o
    }

    pub fn owner(&self, p: ProvinceId) -> Option<PowerId> {
        self.0.get(p.0 as usize).copied().flatten()
    }

    pub fn set(&mut self, p: ProvinceId, owner: Option<PowerId>) {
        self.0[p.0 as usize] = owner;
    }

    /// The centers a power owns.
    pub fn centers_of(&self, power: PowerId) -> impl Iterator<Item = ProvinceId> + '_ {
        self.0.iter().enumerate().filter(move |(_, o)| **o == Some(power)).map(|(i, _)| ProvinceId(i as u16))
    }

    pub fn count(&self, power: PowerId) -> usize {
        self.0.iter().filter(|o| **o == Some(power)).count()
    }
}

/// A unit dislodged in a movement phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dislodgement {
    /// The dislodged unit (where it stood when it was dislodged).
    pub unit: Unit,
    /// The province the successful attack came from.
    pub attacker_from: ProvinceId,
    /// Whether the successful attack came by convoy.
    pub via_convoy: bool,
}

/// Where a dislodged unit may retreat: a region its type can move to from where it stood,
/// that is not occupied after the moves, not left vacant by a standoff, and not the
/// province the attack came from (unless the attack came by convoy, DATC 4.A.5 / 2023
/// rulebook, or `rulebook_allows_convoy_origin` is false under an older edition).
pub fn retreat_options(
    map: &Map,
    units_after: &[Unit],
    standoffs: &[ProvinceId],
    dislodged: &Dislodgement,
    convoyed_attack_opens_origin: bool,
) -> Vec<RegionId> {
    let from = dislodged.unit.region;
    map.neighbours(dislodged.unit.kind, from)
        .filter(|r| {
            let p = map.province_of(*r);
            let occupied = units_after.iter().any(|u| map.province_of(u.region) == p);
            let origin_closed = p == dislodged.attacker_from && !(dislodged.via_convoy && convoyed_attack_opens_origin);
            !occupied && !standoffs.contains(&p) && !origin_closed
        })
        .collect()
}
