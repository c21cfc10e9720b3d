//! The position of an Overdue game for people (a table at a glance) and for machines
//! (`status --json`). Both show the same things: the round and pass, the time die, each
//! player's dice (used and unused), round score, whether they cashed, game total and
//! squeeze-in line, how the last round ended, and the winners at the end.

use serde_json::{json, Value};

use super::{Overdue, Squeeze, Stage, Use};
use crate::text::count;
use crate::turn::TurnGame;

fn die_text(value: u8, used: Option<Use>) -> String {
    match used {
        None => value.to_string(),
        Some(Use::Score) => format!("{value}s"),
        Some(Use::Time) => format!("{value}t"),
        Some(Use::Discard) => format!("{value}d"),
    }
}

fn use_word(used: Option<Use>) -> Value {
    match used {
        None => Value::Null,
        Some(Use::Score) => "score".into(),
        Some(Use::Time) => "time".into(),
        Some(Use::Discard) => "discard".into(),
    }
}

/// The position as text.
pub fn text(g: &Overdue) -> String {
    let mut out = String::new();
    let first = &g.players[g.first].name;
    match g.stage {
        Stage::Over => out.push_str(&format!("Final totals after round {} of {}.\n", g.round, g.rules.rounds)),
        _ => out.push_str(&format!(
            "Round {} of {}, pass {}. Time: {}. {first} plays first this round.\n",
            g.round, g.rules.rounds, g.pass, g.time
        )),
    }
    let over = g.stage == Stage::Over;
    let mut rows: Vec<[String; 6]> = vec![[
        "player".into(),
        if over { String::new() } else { "dice".into() },
        if over { String::new() } else { "round".into() },
        if over { String::new() } else { "cashed".into() },
        "total".into(),
        "squeeze".into(),
    ]];
    for p in &g.players {
        let dice = p.dice.iter().map(|d| die_text(d.value, d.used)).collect::<Vec<_>>().join(" ");
        let squeeze = match p.squeeze.filter(|s| *s != Squeeze::DEFAULT) {
            Some(s) if s.rerolls == 0 => format!("on {}, no re-roll", s.number),
            Some(s) => format!("on {}, up to {}", s.number, count(s.rerolls, "re-roll", "re-rolls")),
            None => "on 6, no re-roll (default)".into(),
        };
        rows.push([
            p.name.clone(),
            if over { String::new() } else { dice },
            if over { String::new() } else { p.round_score.to_string() },
            if over { String::new() } else { (if p.cashed { "yes" } else { "no" }).into() },
            p.total.to_string(),
            squeeze,
        ]);
    }
    let widths: Vec<usize> = (0..6).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    out.push('\n');
    for r in &rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if widths[c] == 0 {
                continue;
            }
            line.push_str(&format!("{cell:<w$}  ", w = widths[c]));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    // The turns sent ahead under the table, each player's wrapped: a file holds up to 20.
    let ahead: Vec<_> = g.players.iter().filter(|p| !p.queue.is_empty()).collect();
    if !over && !ahead.is_empty() {
        out.push_str("Sent ahead, used in order on the player's next turns this round:\n");
        for p in ahead {
            let turns: Vec<String> = p.queue.iter().map(|t| t.to_string()).collect();
            out.push_str(&wrapped(&format!("  {}:", p.name), &turns, ",", 4));
        }
    }
    if !over {
        out.push_str("Key: a plain number is unused; s scored, t put on the time, d discarded.\n");
    }
    if !g.last_round.is_empty() {
        let last = if over { g.round } else { g.round - 1 };
        let parts: Vec<String> = g
            .players
            .iter()
            .zip(&g.last_round)
            .map(|(p, r)| match &r.squeeze {
                None if r.cashed => format!("{} cashed a round score of {}", p.name, r.round_score),
                None => format!("{} scored {}", p.name, r.round_score),
                Some(s) => {
                    let paid = if s.cost > 0 {
                        format!(" and paid {} points for {}", s.cost, count(s.rerolls, "re-roll", "re-rolls"))
                    } else {
                        String::new()
                    };
                    if s.hit {
                        format!(
                            "{} squeezed in on {}, cashing a round score of {}{paid}",
                            p.name, s.number, r.round_score
                        )
                    } else {
                        format!(
                            "{} missed the squeeze-in on {}, losing a round score of {}{paid}",
                            p.name, s.number, r.round_score
                        )
                    }
                }
            })
            .collect();
        let mut parts = parts;
        if let Some(end) = parts.last_mut() {
            end.push('.');
        }
        out.push('\n');
        out.push_str(&wrapped(&format!("Round {last}:"), &parts, ";", 2));
    }
    out
}

/// The most characters a report line takes, where the report can choose.
const WIDTH: usize = 100;

/// `head`, then `items` each followed by `sep` but the last, a space apart, in lines of at
/// most [`WIDTH`] characters: the lines after the first are indented by `indent`
/// spaces. An item longer than a line stands alone on its line. Ends with a newline.
fn wrapped(head: &str, items: &[String], sep: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut line = head.to_string();
    let mut on_line = 0;
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() { format!("{item}{sep}") } else { item.clone() };
        if on_line > 0 && line.chars().count() + 1 + piece.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(indent);
            on_line = 0;
        }
        if !line.trim().is_empty() || on_line > 0 {
            line.push(' ');
        }
        line.push_str(&piece);
        on_line += 1;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The position as JSON (the layer adds `name`, `deadline` and `dice`).
pub fn json(g: &Overdue) -> Value {
    let names = |seats: &[usize]| -> Vec<String> { seats.iter().map(|&s| g.players[s].name.clone()).collect() };
    let players: Vec<Value> = g
        .players
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "dice": p.dice.iter().map(|d| json!({"value": d.value, "used": use_word(d.used)})).collect::<Vec<_>>(),
                "round_score": p.round_score,
                "cashed": p.cashed,
                "total": p.total,
                // The default line (`squeeze 6 rerolls 0`) is no standing line.
                "squeeze": p.squeeze.filter(|s| *s != Squeeze::DEFAULT).map(|s| s.to_string()),
                "sent_ahead": p.queue.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut status = json!({
        "game": super::KIND,
        "step": g.step_label(),
        "round": g.round,
        "rounds": g.rules.rounds,
        "pass": g.pass,
        "time": g.time,
        "first": g.players[g.first].name,
        "awaiting": names(&g.to_play().into_iter().collect::<Vec<_>>()),
        "players": players,
        "last_round": g.last_round,
        "options": {
            "rounds": g.rules.rounds,
            "dice_per_player": g.rules.dice_per_player,
            "rotate_first": g.rules.rotate_first,
        },
    });
    crate::games::insert_ending(&mut status, g.ending().as_ref(), &g.players());
    status
}
