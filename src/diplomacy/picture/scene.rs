//! What a picture shows: per board, the units where they stood, who owns each center, the
//! orders with what became of them, and dislodged units with their retreat options. Built
//! from a game's state (a position) or from a phase's results.

use crate::diplomacy::judge::{Ownership, Unit};
use crate::diplomacy::map::{Map, PowerId, RegionId};
use crate::diplomacy::order::grammar::OrderParser;
use crate::diplomacy::order::{Order, Place};
use crate::diplomacy::report::{LedgerLine, OrderLine, PhaseReport};
use crate::diplomacy::state::GameState;
use crate::phase::{Phase, PhaseKind};

/// What became of an order, as far as the picture shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It succeeded.
    Succeeded,
    /// The power sent no order and the judge's default was carried out (a hold, a
    /// disband, a removal in civil disorder).
    Default,
    /// It was valid and failed (a bounce, a cut support, a disrupted convoy).
    Failed,
    /// It was illegal, ignored or cancelled: nothing was done.
    Void,
}

impl Outcome {
    /// Whether what the order (or the default) says was done.
    pub fn carried_out(self) -> bool {
        matches!(self, Outcome::Succeeded | Outcome::Default)
    }

    /// The outcome of a report line's result word.
    pub fn from_result(result: &str) -> Outcome {
        match result {
            "succeeds" => Outcome::Succeeded,
            "default" => Outcome::Default,
            "fails" => Outcome::Failed,
            _ => Outcome::Void,
        }
    }
}

/// One order on the picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneOrder {
    pub power: PowerId,
    pub order: Order<Place>,
    pub outcome: Outcome,
}

/// A dislodged unit and the regions it may retreat to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneDislodged {
    pub unit: Unit,
    pub options: Vec<RegionId>,
}

/// One board of a picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardScene {
    /// `A` or `B` in Shadow Worlds.
    pub board: Option<char>,
    /// The units where the orders found them.
    pub units: Vec<Unit>,
    /// Center owners after the phase.
    pub ownership: Ownership,
    pub orders: Vec<SceneOrder>,
    /// Units dislodged in this phase (or waiting to retreat in the position drawn).
    pub dislodged: Vec<SceneDislodged>,
}

/// A whole picture: a title, one or two boards, and in a Shadow Worlds Winter the ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scene {
    pub title: String,
    pub phase: Phase,
    pub boards: Vec<BoardScene>,
    pub ledger: Vec<LedgerLine>,
}

/// A picture that cannot be made from the data given: what and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SceneError(pub String);

impl Scene {
    /// Only board `letter` (`A` or `B`) of a two-board scene, without the ledger, its
    /// title saying which; refused for a scene of one board.
    pub fn only_board(&mut self, letter: char) -> Result<(), SceneError> {
        if self.boards.len() < 2 {
            return Err(SceneError("this game has one board: leave out --board".into()));
        }
        self.boards.retain(|s| s.board == Some(letter));
        self.ledger.clear();
        self.title = format!("{} (board {letter})", self.title);
        Ok(())
    }

    /// The position of a game state: its units, owners and units waiting to retreat.
    pub fn from_state(title: &str, state: &GameState) -> Scene {
        let boards = state
            .boards
            .iter()
            .enumerate()
            .map(|(i, b)| BoardScene {
                board: board_letter(state.boards.len(), i),
                units: b.units.clone(),
                ownership: b.ownership.clone(),
                orders: Vec::new(),
                dislodged: b
                    .retreating
                    .iter()
                    .map(|r| SceneDislodged { unit: r.dislodgement.unit, options: r.options.clone() })
                    .collect(),
            })
            .collect();
        Scene {
            title: format!("{title}: {}", phase_words(state.phase)),
            phase: state.phase,
            boards,
            ledger: Vec::new(),
        }
    }

    /// The results of one phase: `before` is the state the phase was played from, `after`
    /// the state it left. Orders come from the report, read back with the map's grammar.
    pub fn from_results(
        map: &Map,
        title: &str,
        before: &GameState,
        report: &PhaseReport,
        after: &GameState,
    ) -> Result<Scene, SceneError> {
        let parser = OrderParser::new(map);
        let n = before.boards.len();
        let mut boards = Vec::with_capacity(n);
        for (i, b) in before.boards.iter().enumerate() {
            let letter = board_letter(n, i);
            let mut lines: Vec<&OrderLine> = Vec::new();
            if let Some(r) = report.boards.iter().find(|r| r.board == letter || n == 1) {
                lines.extend(r.orders.iter());
            }
            lines.extend(report.adjustments.iter().filter(|o| o.board == letter || (n == 1 && o.board.is_none())));
            let mut orders = Vec::with_capacity(lines.len());
            for l in lines {
                if l.order == "waive" {
                    continue;
                }
                let power = map
                    .lookup_power(&l.power)
                    .ok_or_else(|| SceneError(format!("{}: results name no power `{}`", report.phase, l.power)))?;
                let order = read_order(&parser, &l.order).ok_or_else(|| {
                    SceneError(format!("{}: the order `{}` of {} cannot be read back", report.phase, l.order, l.power))
                })?;
                orders.push(SceneOrder { power, order, outcome: Outcome::from_result(&l.result) });
            }
            // Retreat phases: the dislodged units are the ones that were ordered.
            let dislodged: Vec<SceneDislodged> = if before.phase.kind == PhaseKind::Retreats {
                b.retreating
                    .iter()
                    .map(|r| SceneDislodged { unit: r.dislodgement.unit, options: r.options.clone() })
                    .collect()
            } else {
                after
                    .boards
                    .get(i)
                    .map(|a| {
                        a.retreating
                            .iter()
                            .map(|r| SceneDislodged { unit: r.dislodgement.unit, options: r.options.clone() })
                            .collect()
                    })
                    .unwrap_or_default()
            };
            // A unit dislodged with nowhere to go was disbanded at once: the results
            // name it, the state after does not.
            let mut dislodged = dislodged;
            if before.phase.kind == PhaseKind::Movement {
                let lines =
                    report.boards.iter().filter(|r| r.board == letter || n == 1).flat_map(|r| r.dislodged.iter());
                for l in lines.filter(|l| l.retreats.is_empty()) {
                    let found = read_order(&parser, &format!("{} H", l.unit)).and_then(|o| {
                        let at = o.unit()?.at.province;
                        b.units.iter().find(|u| map.province_of(u.region) == at).copied()
                    });
                    if let Some(unit) = found {
                        if !dislodged.iter().any(|d| d.unit == unit) {
                            dislodged.push(SceneDislodged { unit, options: Vec::new() });
                        }
                    }
                }
            }
            let ownership = after.boards.get(i).map_or_else(|| b.ownership.clone(), |a| a.ownership.clone());
            boards.push(BoardScene { board: letter, units: b.units.clone(), ownership, orders, dislodged });
        }
        let ledger = if report.phase.kind == PhaseKind::Adjustments { report.ledger.clone() } else { Vec::new() };
        Ok(Scene {
            title: format!("{title}: {} results", phase_words(report.phase)),
            phase: report.phase,
            boards,
            ledger,
        })
    }
}

fn board_letter(boards: usize, i: usize) -> Option<char> {
    (boards > 1).then(|| (b'A' + i as u8) as char)
}

/// `Spring 1901 movement` as players say it: `Spring 1901 Movement`, `Winter 1901`.
pub fn phase_words(p: Phase) -> String {
    let season = p.season.to_string();
    let mut s = String::new();
    let mut chars = season.chars();
    if let Some(c) = chars.next() {
        s.extend(c.to_uppercase());
        s.push_str(chars.as_str());
    }
    match p.kind {
        PhaseKind::Movement => format!("{s} {} Movement", p.year),
        PhaseKind::Retreats => format!("{s} {} Retreats", p.year),
        PhaseKind::Adjustments => format!("{s} {} Adjustments", p.year),
    }
}

/// A report's order text as an order (`remove A par` is a removal).
fn read_order(parser: &OrderParser, text: &str) -> Option<Order<Place>> {
    if let Ok((_, o)) = parser.parse_order_line(text) {
        return Some(o);
    }
    let unit = text.strip_prefix("remove ")?;
    match parser.parse_order_line(&format!("{unit} disband")) {
        Ok((_, o)) => Some(o),
        Err(_) => None,
    }
}
