//! The Diplomacy game's status as a role may see it, for `status` on the command line and
//! by mail.

use std::fmt::Write;

use chrono_tz::Tz;

use crate::diplomacy::engine::Game;
use crate::diplomacy::map::PowerId;
use crate::diplomacy::report::format_deadline;
use crate::game::settings::{Draws, PressRule, Settings, Votes};

/// The game as a role may see it: phase, deadline, who is in, centers and units, and a
/// power's own orders so far (never anyone else's).
pub fn status_text(game: &Game, viewer: Option<PowerId>, zone: Option<Tz>) -> String {
    let map = &game.map;
    let mut out = String::new();
    let label = crate::game::settings::variant_label(&game.settings, &game.map, false);
    let _ = writeln!(out, "{} ({label}): {}", game.settings.name, game.state.phase);
    for line in game.option_lines() {
        let _ = writeln!(out, "  {line}");
    }
    if game.settings.deadlines.early {
        let _ = writeln!(out, "  early processing: once every order is in and no power waits");
    } else {
        let _ = writeln!(out, "  no early processing: every phase waits for its deadline");
    }
    let _ = writeln!(out, "  {}", press_line(&game.settings));
    let _ = writeln!(out, "  {}", votes_line(&game.settings));
    match (&game.state.end, game.state.deadline) {
        (Some(end), _) => {
            let _ = writeln!(out, "{}", game.end_notice(end));
        }
        (None, Some(at)) => {
            let _ = writeln!(out, "Deadline: {}", format_deadline(at, zone));
        }
        (None, None) => {
            let _ = writeln!(out, "No deadline (the game is paused or run by hand).");
        }
    }
    let plus = if game.state.boards.len() > 1 { " (A+B)" } else { "" };
    for p in map.power_ids() {
        let mark = if game.state.eliminated.contains(&p) {
            "out"
        } else if game.state.submitted.contains(&p) && game.state.waiting.contains(&p) {
            "in, waits"
        } else if game.state.waiting.contains(&p) {
            "waits"
        } else if game.state.submitted.contains(&p) && !game.missing_orders(p).is_empty() {
            "some orders"
        } else if game.state.submitted.contains(&p) {
            "orders in"
        } else if game.has_duty(p) {
            "no orders"
        } else {
            "-"
        };
        let centers: Vec<String> = game.state.boards.iter().map(|b| b.ownership.count(p).to_string()).collect();
        let units: Vec<String> =
            game.state.boards.iter().map(|b| b.units.iter().filter(|u| u.power == p).count().to_string()).collect();
        let due = game.adjustment_due(p).map(|d| format!(", {d}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<8} {:<11} | centers {}{plus}, units {}{plus}{due}",
            map.power(p).name,
            mark,
            centers.join("+"),
            units.join("+")
        );
    }
    let ledger = game.ledger();
    if !ledger.is_empty() {
        let _ = writeln!(out, "Ledger: power, count (control list), units A+B, delta");
        for l in ledger {
            let _ = writeln!(
                out,
                "  {:<8} {:>3} ({:>2}) {:>2}+{:<2} {:+}",
                l.power, l.count, l.control_list, l.units_a, l.units_b, l.delta
            );
        }
    }
    if let Some(me) = viewer {
        let mine = game.kept_orders_shown(me);
        if mine.is_empty() {
            let _ = writeln!(out, "Your orders this phase: none yet.");
        } else {
            let _ = writeln!(out, "Your orders this phase:");
            for (text, note) in mine {
                match note {
                    Some(note) => {
                        let _ = writeln!(out, "  {text}  ({note})");
                    }
                    None => {
                        let _ = writeln!(out, "  {text}");
                    }
                }
            }
        }
        let missing = game.missing_orders(me);
        if !missing.is_empty() {
            let _ = writeln!(out, "Still without orders: {}", missing.join(", "));
        }
    }
    out
}

/// The game's press setting, in a line.
pub fn press_line(settings: &Settings) -> String {
    let press = match settings.press {
        PressRule::Full => "press: full",
        PressRule::Grey => "press: grey (it arrives without the sender's power)",
        PressRule::Gunboat => "press: none (a gunboat game)",
    };
    let observers = if settings.observer_press { "observers may send press" } else { "observers send none" };
    format!("{press}; {observers}")
}

/// How draws and concessions are voted, in a line.
pub fn votes_line(settings: &Settings) -> String {
    let draws = match settings.draws {
        Draws::Dias => "a draw includes every survivor",
        Draws::Named => "a draw vote names the powers in it",
    };
    let votes = match settings.votes {
        Votes::Secret => "votes are secret",
        Votes::Public => "votes are public",
    };
    format!("draws and concessions by vote of every survivor ({votes}; {draws})")
}

/// `status --json` of a Diplomacy game.
pub fn status_json(game: &Game) -> serde_json::Value {
    use serde_json::json;
    let map = &game.map;
    let powers: Vec<serde_json::Value> = game
        .map
        .power_ids()
        .map(|p| {
            let centers: Vec<usize> = game.state.boards.iter().map(|b| b.ownership.count(p)).collect();
            let units: Vec<Vec<String>> = game
                .state
                .boards
                .iter()
                .map(|b| b.units.iter().filter(|u| u.power == p).map(|u| u.describe(map)).collect())
                .collect();
            json!({
                "power": map.power(p).name,
                "player": game.settings.player(map, p).map(|pl| pl.name.clone()),
                "submitted": game.state.submitted.contains(&p),
                "waiting": game.waiting_for().contains(&p),
                "waits": game.state.waiting.contains(&p),
                "eliminated": game.state.eliminated.contains(&p),
                "centers": centers,
                "units": units,
            })
        })
        .collect();
    json!({
        "game": game.settings.name,
        "variant": game.settings.variant.name(),
        "map": game.map.variant,
        "phase": game.state.phase.to_string(),
        "phase_code": game.state.phase.code(),
        "deadline": game.state.deadline,
        "options": game.option_lines(),
        "press": game.settings.press.name(),
        "over": game.state.end.as_ref().map(|e| game.end_notice(e)),
        "powers": powers,
        "ledger": game.ledger(),
    })
}
