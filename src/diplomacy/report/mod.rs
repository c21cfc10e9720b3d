//! Results reports: one [`PhaseReport`] per adjudicated phase, rendered as text for players
//! (the form known from email judges) and serialized as JSON for machines. Both come from
//! the same value, so they never disagree.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::phase::Phase;

/// What happened in one phase of one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseReport {
    pub game: String,
    pub variant: String,
    /// The options in force (variant options, rulebook), one line each.
    pub options: Vec<String>,
    pub phase: Phase,
    pub boards: Vec<BoardReport>,
    /// Shadow Worlds: the combined ledger (after each Fall and in Winter).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ledger: Vec<LedgerLine>,
    /// Shadow Worlds Winter: each adjustment order of each power with its outcome.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adjustments: Vec<OrderLine>,
    /// Centers and units per power after the phase.
    pub standings: Vec<Standing>,
    /// Defaults applied to powers that sent no or too few orders.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defaults: Vec<String>,
    pub next_phase: Option<Phase>,
    /// Victory, draw or elimination notices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardReport {
    /// `A` or `B` in Shadow Worlds; none in a one-board game.
    pub board: Option<char>,
    pub orders: Vec<OrderLine>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dislodged: Vec<DislodgedLine>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ownership_changes: Vec<String>,
}

/// One order and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderLine {
    pub power: String,
    /// The board, for Shadow Worlds Winter orders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<char>,
    /// The order in canonical form.
    pub order: String,
    /// `succeeds`, `fails`, `illegal`, `ignored`, `cancelled`, `default`.
    pub result: String,
    /// Why (empty when an order simply succeeded).
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DislodgedLine {
    pub power: String,
    pub unit: String,
    pub attacked_from: String,
    pub retreats: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerLine {
    pub power: String,
    pub centers_a: Vec<String>,
    pub centers_b: Vec<String>,
    pub doubled: Vec<String>,
    pub control_list: usize,
    pub count: usize,
    pub units_a: usize,
    pub units_b: usize,
    pub delta: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub power: String,
    /// Centers per board.
    pub centers: Vec<usize>,
    /// Units per board.
    pub units: Vec<usize>,
    /// Builds (positive) or removals (negative) due next Winter, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjustment: Option<i64>,
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

impl PhaseReport {
    /// The text report players receive.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}: {} results ({})", self.game, self.phase, self.variant);
        for o in &self.options {
            let _ = writeln!(out, "  {o}");
        }
        for b in &self.boards {
            out.push('\n');
            if let Some(letter) = b.board {
                let _ = writeln!(out, "=== Board {letter} ===");
            }
            let mut last_power = "";
            for o in &b.orders {
                if o.power != last_power {
                    let _ = writeln!(out, "{}:", o.power);
                    last_power = &o.power;
                }
                write_order(&mut out, o);
            }
            if b.orders.is_empty() {
                let _ = writeln!(out, "No orders on this board this phase.");
            }
            if !b.dislodged.is_empty() {
                let _ = writeln!(out, "\nDislodged units:");
                for d in &b.dislodged {
                    let options = if d.retreats.is_empty() {
                        "cannot retreat: disbanded".to_string()
                    } else {
                        format!("may retreat to {}", d.retreats.join(", "))
                    };
                    let _ = writeln!(out, "  {} {} (attacked from {}): {options}", d.power, d.unit, d.attacked_from);
                }
            }
            if !b.ownership_changes.is_empty() {
                let _ = writeln!(out, "\nOwnership changes:");
                for c in &b.ownership_changes {
                    let _ = writeln!(out, "  {c}");
                }
            }
        }
        if !self.defaults.is_empty() {
            let _ = writeln!(out, "\nDefaults applied:");
            for d in &self.defaults {
                let _ = writeln!(out, "  {d}");
            }
        }
        if !self.ledger.is_empty() {
            let _ = writeln!(out, "\nLedger (both boards):");
            let _ = writeln!(
                out,
                "  {:<9} {:>3} {:>3} {:>7} {:>7} {:>5} {:>5} {:>5} {:>5}",
                "Power", "A", "B", "doubled", "control", "count", "units", "A+B", "delta"
            );
            for l in &self.ledger {
                let _ = writeln!(
                    out,
                    "  {:<9} {:>3} {:>3} {:>7} {:>7} {:>5} {:>5} {:>5} {:>5}",
                    l.power,
                    l.centers_a.len(),
                    l.centers_b.len(),
                    l.doubled.len(),
                    l.control_list,
                    l.count,
                    l.units_a + l.units_b,
                    format!("{}+{}", l.units_a, l.units_b),
                    signed(l.delta)
                );
            }
            for l in &self.ledger {
                if l.count > 0 {
                    let doubled = if l.doubled.is_empty() {
                        String::new()
                    } else {
                        format!("; doubled: {}", l.doubled.join(" "))
                    };
                    let _ = writeln!(
                        out,
                        "  {}: A: {}; B: {}{doubled}",
                        l.power,
                        join_or_none(&l.centers_a),
                        join_or_none(&l.centers_b)
                    );
                }
            }
        }
        if !self.adjustments.is_empty() {
            let _ = writeln!(out, "\nAdjustments:");
            let mut last_power = "";
            for o in &self.adjustments {
                if o.power != last_power {
                    let _ = writeln!(out, "{}:", o.power);
                    last_power = &o.power;
                }
                write_order(&mut out, o);
            }
        }
        if !self.standings.is_empty() {
            let _ = writeln!(out, "\nCenters and units:");
            for s in &self.standings {
                let centers = s.centers.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("+");
                let units = s.units.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("+");
                let adj = match s.adjustment {
                    Some(n) if n > 0 => format!(", builds {n}"),
                    Some(n) if n < 0 => format!(", removes {}", -n),
                    _ => String::new(),
                };
                let _ = writeln!(out, "  {:<9} centers {centers}, units {units}{adj}", s.power);
            }
        }
        for n in &self.notices {
            let _ = writeln!(out, "\n{n}");
        }
        match self.next_phase {
            Some(p) => {
                let _ = writeln!(out, "\nNext phase: {p}.");
            }
            None => {
                let _ = writeln!(out, "\nThe game is over.");
            }
        }
        out
    }
}

fn join_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(" ")
    }
}

fn write_order(out: &mut String, o: &OrderLine) {
    let board = o.board.map(|b| format!("[{b}] ")).unwrap_or_default();
    let reason = if o.reason.is_empty() { String::new() } else { format!(": {}", o.reason) };
    let _ = writeln!(out, "  {board}{:<28} {}{reason}", o.order, o.result);
}

/// A deadline in UTC and, when the reader has a zone, in their own time:
/// `Sat 2025-03-01 18:00 UTC (Sat 2025-03-01 19:00 CET, Europe/Paris)`.
pub fn format_deadline(at: DateTime<Utc>, zone: Option<Tz>) -> String {
    let utc = at.format("%a %Y-%m-%d %H:%M UTC").to_string();
    match zone {
        Some(zone) if zone != chrono_tz::UTC => {
            let local = at.with_timezone(&zone);
            format!("{utc} ({}, {})", local.format("%a %Y-%m-%d %H:%M %Z"), zone.name())
        }
        _ => utc,
    }
}

/// A deadline as the game master's commands print it (`Saturday 1 March 2025, 18:00 UTC`),
/// or `none`.
pub fn deadline_text(d: Option<DateTime<Utc>>) -> String {
    match d {
        Some(d) => d.format("%A %-d %B %Y, %H:%M UTC").to_string(),
        None => "none".into(),
    }
}
