//! The acknowledgement of a submission: what the judge understood, what it did not,
//! what is still missing.

use serde::{Deserialize, Serialize};

use crate::answer::{Nouns, Receipt, Refusal, Taken};
use crate::diplomacy::judge::legality::{resolve_main_order, Illegal};
use crate::diplomacy::judge::rulebook::Rulebook;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::order::{Board, Order, Place};
use crate::phase::{Phase, PhaseKind};

/// One order of a submission as the judge understood it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckLine {
    pub line: usize,
    pub board: Option<char>,
    pub order: String,
    /// A warning about an order that was kept: illegal (the unit will hold), or how a
    /// Winter order stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A line of a submission that was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub line: usize,
    pub column: usize,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The acknowledgement of a submission: what was understood, what was not, what is missing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acknowledgement {
    pub power: String,
    pub phase: Phase,
    pub accepted: Vec<AckLine>,
    pub problems: Vec<Problem>,
    /// Units (or adjustments) still without orders, e.g. `[A] F bre`.
    pub missing: Vec<String>,
}

impl Acknowledgement {
    /// What the submission caused, to be rendered ([`Receipt::render`]): every line keeps
    /// its number, an order of one board names it, an illegal (but kept) order its note.
    pub fn receipt(&self) -> Receipt {
        Receipt {
            who: self.power.clone(),
            step: self.phase.to_string(),
            taken: self
                .accepted
                .iter()
                .map(|a| Taken {
                    line: a.line,
                    words: format!("{}{}", a.board.map(|b| format!("[{b}] ")).unwrap_or_default(), a.order),
                    note: a.note.clone(),
                })
                .collect(),
            refused: self
                .problems
                .iter()
                .map(|p| Refusal { line: p.line, column: p.column, reason: p.message.clone(), hint: p.hint.clone() })
                .collect(),
            events: Vec::new(),
            awaited: Some(self.missing.clone()),
            nouns: Nouns { complete: self.complete_words(), ..Nouns::ORDERS },
        }
    }
}

impl Acknowledgement {
    /// What the acknowledgement says when nothing is missing.
    pub fn complete_words(&self) -> &'static str {
        match self.phase.kind {
            PhaseKind::Movement => "Every unit has an order.",
            PhaseKind::Retreats => "Every dislodged unit has an order.",
            PhaseKind::Adjustments => "Every adjustment has orders.",
        }
    }
}

/// A submission as the judge decided it, in values: what was kept (and how each kept order
/// stands), what was refused, what is still missing. Its words ([`Submission::words`]) are
/// made only when asked: a program that submits again and again need not pay for them.
#[derive(Clone, Debug)]
pub struct Submission {
    pub power: PowerId,
    pub phase: Phase,
    pub accepted: Vec<Kept>,
    pub problems: Vec<Problem>,
    pub missing: Missing,
    /// A movement phase: the units of each board as they stood, and the rules, for the
    /// notes on illegal orders, worked out with the words (the adjudication checks every
    /// order again: only the acknowledgement needs them now).
    pub position: Option<(Vec<Vec<Unit>>, Rulebook)>,
}

/// One order of a submission, kept.
#[derive(Clone, Debug)]
pub struct Kept {
    pub line: usize,
    /// The board the order is for, and as the acknowledgement names it (Shadow Worlds;
    /// none for a waive).
    pub on: Board,
    pub board: Option<char>,
    pub order: Order<Place>,
    pub note: Option<Note>,
}

/// Why an order kept will not be carried out as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// A movement order the rules do not allow: the unit holds.
    Illegal(Illegal),
    /// A retreat to a place the unit may not retreat to: it is disbanded.
    NoRetreat,
    /// How a Winter order stands, as the Winter preview words it.
    Winter(String),
}

impl Note {
    /// The note on a movement order given on a board with these units, if it is illegal.
    pub fn movement(map: &Map, units: &[Unit], power: PowerId, order: &Order<Place>, rules: &Rulebook) -> Option<Note> {
        resolve_main_order(map, units, Some(power), order, rules).err().map(Note::Illegal)
    }

    pub fn words(&self, map: &Map) -> String {
        match self {
            Note::Illegal(illegal) => format!("illegal, the unit will hold: {}", illegal.describe(map)),
            Note::NoRetreat => "illegal, the unit will be disbanded: it cannot retreat there".into(),
            Note::Winter(words) => words.clone(),
        }
    }
}

/// What a power still has to order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// Units without orders: each with its board's name (Shadow Worlds), and whether it is
    /// a dislodged unit (a retreat phase).
    Units(Vec<(Option<char>, Unit, bool)>),
    /// A Winter's shortfall, worded by the adjustment rules.
    Words(Vec<String>),
}

impl Missing {
    pub fn words(&self, map: &Map) -> Vec<String> {
        match self {
            Missing::Units(units) => units
                .iter()
                .map(|(board, unit, dislodged)| {
                    let mut line = board.map(|c| format!("[{c}] ")).unwrap_or_default();
                    unit.push_describe(&mut line, map);
                    if *dislodged {
                        line.push_str(" (dislodged)");
                    }
                    line
                })
                .collect(),
            Missing::Words(words) => words.clone(),
        }
    }
}

/// An order as acknowledgements, `status` and Winter reports show it: a Winter removal as
/// `remove A par`, anything else in its canonical form.
pub fn order_words(map: &Map, kind: PhaseKind, order: &Order<Place>) -> String {
    match (kind, order) {
        (PhaseKind::Adjustments, Order::Disband { .. }) => {
            format!("remove {}", order.canonical(map).trim_end_matches(" disband"))
        }
        _ => order.canonical(map),
    }
}

impl Submission {
    /// Why a movement order kept will not be carried out, if it will not.
    fn illegal(&self, map: &Map, kept: &Kept) -> Option<Note> {
        let (units, rules) = self.position.as_ref()?;
        let units = units.get(kept.on.0 as usize)?;
        Note::movement(map, units, self.power, &kept.order, rules)
    }

    /// The acknowledgement in words.
    pub fn words(&self, map: &Map) -> Acknowledgement {
        Acknowledgement {
            power: map.power(self.power).name.clone(),
            phase: self.phase,
            accepted: self
                .accepted
                .iter()
                .map(|k| AckLine {
                    line: k.line,
                    board: k.board,
                    order: order_words(map, self.phase.kind, &k.order),
                    note: k.note.clone().or_else(|| self.illegal(map, k)).map(|n| n.words(map)),
                })
                .collect(),
            problems: self.problems.clone(),
            missing: self.missing.words(map),
        }
    }
}
