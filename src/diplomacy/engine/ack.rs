//! The acknowledgement of a submission: what the judge understood, what it did not,
//! what is still missing.

use serde::{Deserialize, Serialize};

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
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(out, "Orders for {}, {}:", self.power, self.phase);
        for a in &self.accepted {
            let board = a.board.map(|b| format!("[{b}] ")).unwrap_or_default();
            match &a.note {
                Some(n) => {
                    let _ = writeln!(out, "  line {:>3}: {board}{}  ({n})", a.line, a.order);
                }
                None => {
                    let _ = writeln!(out, "  line {:>3}: {board}{}", a.line, a.order);
                }
            }
        }
        if self.accepted.is_empty() {
            let _ = writeln!(out, "  no orders understood");
        }
        if !self.problems.is_empty() {
            let _ = writeln!(out, "Not accepted:");
            for p in &self.problems {
                let hint = p.hint.as_ref().map(|h| format!(" ({h})")).unwrap_or_default();
                let _ = writeln!(out, "  line {}, column {}: {}{hint}", p.line, p.column, p.message);
            }
        }
        if self.missing.is_empty() {
            let _ = writeln!(out, "{}", self.complete_words());
        } else {
            let _ = writeln!(out, "Still without orders: {}", self.missing.join(", "));
        }
        out
    }
}

impl Acknowledgement {
    /// What the acknowledgement says when nothing is missing, the same on the command line
    /// and by mail.
    pub fn complete_words(&self) -> &'static str {
        match self.phase.kind {
            PhaseKind::Movement => "Every unit has an order.",
            PhaseKind::Retreats => "Every dislodged unit has an order.",
            PhaseKind::Adjustments => "Every adjustment has orders.",
        }
    }
}
