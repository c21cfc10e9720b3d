//! The state of a Diplomacy game between two adjudications, as stored in `state.json`.

use serde::{Deserialize, Serialize};

use crate::game::phase::Phase;
use crate::game::position::{BoardPosition, Position};
use crate::judge::{Dislodgement, Ownership, Unit};
use crate::map::{Map, PowerId, RegionId};
use crate::order::{Board, Order, Place};

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
    pub standoffs: Vec<crate::map::ProvinceId>,
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
}

impl GameState {
    /// A game at the standard start with `boards` boards.
    pub fn start(map: &Map, boards: usize) -> GameState {
        let b = BoardPosition::start(map);
        GameState::from_position(map, &Position { phase: Phase::start(), boards: vec![b; boards] })
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
                        options: crate::judge::retreat_options(map, &b.units, &[], d, true),
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
        }
    }

    /// Units of a power on a board.
    pub fn units_of(&self, board: Board, power: PowerId) -> impl Iterator<Item = &Unit> {
        self.boards[board.0 as usize].units.iter().filter(move |u| u.power == power)
    }
}
