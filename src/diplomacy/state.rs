//! The state of a Diplomacy game between two adjudications, as stored in `state.json`.

use serde::{Deserialize, Serialize};

use crate::diplomacy::judge::{Dislodgement, Ownership, Unit};
use crate::diplomacy::map::{Map, PowerId, RegionId};
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::position::{BoardPosition, Position};
use crate::phase::Phase;
use crate::text::count;

/// A dislodged unit waiting for its retreat order, with the places it may go.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retreating {
    pub dislodgement: Dislodgement,
    pub options: Vec<RegionId>,
}

/// One board: its units, who owns its centers, and its dislodged units in a retreat phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardState {
    pub units: Vec<Unit>,
    pub ownership: Ownership,
    #[serde(default)]
    pub retreating: Vec<Retreating>,
    /// Provinces a standoff left empty in the last movement phase (no retreat there).
    #[serde(default)]
    pub standoffs: Vec<crate::diplomacy::map::ProvinceId>,
}

/// An order accepted from a player, kept until the phase is adjudicated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredOrder {
    pub power: PowerId,
    pub board: Board,
    pub order: Order<Place>,
    /// The line as the player wrote it.
    pub text: String,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "powers")]
pub enum GameEnd {
    Victory(PowerId),
    Draw(Vec<PowerId>),
}

/// Everything that changes from phase to phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub phase: Phase,
    pub boards: Vec<BoardState>,
    /// Orders accepted in this phase, in the order they were written.
    #[serde(default)]
    pub orders: Vec<StoredOrder>,
    /// Powers that have sent orders in this phase.
    #[serde(default)]
    pub submitted: Vec<PowerId>,
    /// Powers out of the game.
    #[serde(default)]
    pub eliminated: Vec<PowerId>,
    #[serde(default)]
    pub end: Option<GameEnd>,
    /// Powers that have voted for a draw; when every surviving power has, the game ends.
    #[serde(default)]
    pub draw_votes: Vec<PowerId>,
    /// When the current phase is due (none: no deadline, the game master adjudicates).
    #[serde(default)]
    pub deadline: Option<chrono::DateTime<chrono::Utc>>,
    /// Powers that asked (`wait`) that this phase not be processed before its deadline,
    /// though every order is in. Cleared when the phase is adjudicated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<PowerId>,
    /// Draws named by vote (`draws = "named"`): each voter and the powers it names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub draw_named: Vec<NamedDraw>,
    /// Concessions voted: each voter and the power it concedes to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub concessions: Vec<Concession>,
    /// Phases missed in a row (nothing sent while it had orders to give), per power that
    /// missed the last one; kept only while `[deadlines] abandon_after` is set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missed: Vec<Missed>,
}

/// A vote for a draw between the powers named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedDraw {
    pub power: PowerId,
    pub powers: Vec<PowerId>,
}

/// A vote to concede the game to a power.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Concession {
    pub power: PowerId,
    pub to: PowerId,
}

/// A power's phases missed in a row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missed {
    pub power: PowerId,
    pub phases: u32,
}

impl GameState {
    /// A game at the standard start with `boards` boards.
    pub fn start(map: &Map, boards: usize) -> GameState {
        let b = BoardPosition::start(map);
        let phase = Phase::new(map.first_year, crate::phase::Season::Spring, crate::phase::PhaseKind::Movement);
        GameState::from_position(map, &Position { phase, boards: vec![b; boards] })
    }

    pub fn from_position(map: &Map, position: &Position) -> GameState {
        let boards = position
            .boards
            .iter()
            .map(|b| {
                let retreating = b
                    .dislodged
                    .iter()
                    .map(|d| Retreating {
                        dislodgement: *d,
                        options: crate::diplomacy::judge::retreat_options(map, &b.units, &[], d, true),
                    })
                    .collect();
                BoardState { units: b.units.clone(), ownership: b.ownership.clone(), retreating, standoffs: Vec::new() }
            })
            .collect();
        GameState {
            phase: position.phase,
            boards,
            orders: Vec::new(),
            submitted: Vec::new(),
            eliminated: Vec::new(),
            end: None,
            draw_votes: Vec::new(),
            deadline: None,
            waiting: Vec::new(),
            draw_named: Vec::new(),
            concessions: Vec::new(),
            missed: Vec::new(),
        }
    }

    /// Whether every id in the state means something on `map`, with `boards` boards: the
    /// check on a state read from `state.json` or the journal (hand-edited files), before
    /// anything indexes the map with it. The error names the key (`boards[0].units[3].region`).
    pub fn check(&self, map: &Map, boards: usize) -> Result<(), String> {
        let powers = map.powers().len();
        let provinces = map.provinces().len();
        let regions = map.region_count();
        let power = |key: &str, p: PowerId| {
            if usize::from(p.0) < powers {
                Ok(())
            } else {
                Err(format!("{key}: power {} does not exist (the map has {powers} powers, 0 to {})", p.0, powers - 1))
            }
        };
        let province = |key: &str, p: crate::diplomacy::map::ProvinceId| {
            if usize::from(p.0) < provinces {
                Ok(())
            } else {
                Err(format!("{key}: province {} does not exist (the map has {provinces}, 0 to {})", p.0, provinces - 1))
            }
        };
        let region = |key: &str, r: RegionId| {
            if usize::from(r.0) < regions {
                Ok(())
            } else {
                Err(format!("{key}: region {} does not exist (the map has {regions}, 0 to {})", r.0, regions - 1))
            }
        };
        let place = |key: &str, p: Place| province(key, p.province);
        if self.phase.year == 0 || self.phase.year > Phase::MAX_YEAR {
            return Err(format!("phase: year {} is not between 1 and {}", self.phase.year, Phase::MAX_YEAR));
        }
        if self.boards.len() != boards {
            return Err(format!(
                "boards: {}, but this game is played on {boards}",
                count(self.boards.len(), "board", "boards")
            ));
        }
        for (b, board) in self.boards.iter().enumerate() {
            let mut occupied = vec![false; provinces];
            for (i, u) in board.units.iter().enumerate() {
                let key = format!("boards[{b}].units[{i}]");
                power(&format!("{key}.power"), u.power)?;
                region(&format!("{key}.region"), u.region)?;
                let at = map.region(u.region).province;
                if std::mem::replace(&mut occupied[usize::from(at.0)], true) {
                    return Err(format!("{key}: a second unit in {}", map.province(at).key));
                }
            }
            if board.ownership.0.len() != provinces {
                return Err(format!(
                    "boards[{b}].ownership: {} entries, but the map has {provinces} provinces",
                    board.ownership.0.len()
                ));
            }
            for (i, owner) in board.ownership.0.iter().enumerate() {
                if let Some(p) = owner {
                    power(&format!("boards[{b}].ownership[{i}]"), *p)?;
                }
            }
            for (i, r) in board.retreating.iter().enumerate() {
                let key = format!("boards[{b}].retreating[{i}]");
                power(&format!("{key}.dislodgement.unit.power"), r.dislodgement.unit.power)?;
                region(&format!("{key}.dislodgement.unit.region"), r.dislodgement.unit.region)?;
                province(&format!("{key}.dislodgement.attacker_from"), r.dislodgement.attacker_from)?;
                for (j, o) in r.options.iter().enumerate() {
                    region(&format!("{key}.options[{j}]"), *o)?;
                }
            }
            for (i, p) in board.standoffs.iter().enumerate() {
                province(&format!("boards[{b}].standoffs[{i}]"), *p)?;
            }
        }
        for (i, o) in self.orders.iter().enumerate() {
            let key = format!("orders[{i}]");
            power(&format!("{key}.power"), o.power)?;
            if usize::from(o.board.0) >= boards {
                return Err(format!("{key}.board: board {} does not exist", o.board.0));
            }
            for at in order_places(&o.order) {
                place(&format!("{key}.order"), at)?;
            }
        }
        for (key, list) in
            [("submitted", &self.submitted), ("eliminated", &self.eliminated), ("draw_votes", &self.draw_votes)]
        {
            for (i, p) in list.iter().enumerate() {
                power(&format!("{key}[{i}]"), *p)?;
            }
        }
        for (i, d) in self.draw_named.iter().enumerate() {
            power(&format!("draw_named[{i}].power"), d.power)?;
            for (j, p) in d.powers.iter().enumerate() {
                power(&format!("draw_named[{i}].powers[{j}]"), *p)?;
            }
        }
        for (i, c) in self.concessions.iter().enumerate() {
            power(&format!("concessions[{i}].power"), c.power)?;
            power(&format!("concessions[{i}].to"), c.to)?;
        }
        for (i, m) in self.missed.iter().enumerate() {
            power(&format!("missed[{i}].power"), m.power)?;
        }
        match &self.end {
            Some(GameEnd::Victory(p)) => power("end.powers", *p)?,
            Some(GameEnd::Draw(ps)) => {
                for (i, p) in ps.iter().enumerate() {
                    power(&format!("end.powers[{i}]"), *p)?;
                }
            }
            None => {}
        }
        Ok(())
    }

    /// Units of a power on a board.
    pub fn units_of(&self, board: Board, power: PowerId) -> impl Iterator<Item = &Unit> {
        self.boards[board.0 as usize].units.iter().filter(move |u| u.power == power)
    }
}

/// Every place an order names.
fn order_places(order: &Order<Place>) -> Vec<Place> {
    match order {
        Order::Hold { unit } | Order::Disband { unit } => vec![unit.at],
        Order::Move { unit, to, .. } | Order::Retreat { unit, to } => vec![unit.at, *to],
        Order::SupportHold { unit, supported } => vec![unit.at, supported.at],
        Order::SupportMove { unit, supported, to } => vec![unit.at, supported.at, *to],
        Order::Convoy { unit, army, to } => vec![unit.at, army.at, *to],
        Order::Build { at, .. } => vec![*at],
        Order::Waive => Vec::new(),
    }
}
