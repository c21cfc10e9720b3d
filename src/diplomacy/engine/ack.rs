//! The acknowledgement of a submission: what the judge understood, what it did not,
//! what is still missing.

use serde::{Deserialize, Serialize};

use crate::answer::{Nouns, Receipt, Refusal, Taken};
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
