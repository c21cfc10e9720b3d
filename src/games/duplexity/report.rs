//! What players and programs read of a Duplexity game: the text report (the board drawn
//! as a grid, 8 location rows by 5 zone columns, each player's energy and pawns, and
//! whose move it is) and `status --json`. Sealed bids are never shown, only whether a
//! bid is in.

use serde_json::{json, Map, Value};

use super::board::{Cell, Space, Zone, LOCATIONS};
use super::rules::{Duplexity, Stage};

/// The letter a player's pawns show on the grid.
fn letter(p: u8) -> char {
    if p == 0 {
        'A'
    } else {
        'B'
    }
}

/// Where the game stands, short: `setup`, `round 3, bids`, `round 3, act`.
pub fn step_label(g: &Duplexity) -> String {
    match &g.stage {
        Stage::Setup { .. } => "setup".into(),
        Stage::Bid { .. } => format!("round {}, bids", g.round),
        Stage::Act { pending: Some(_), .. } => format!("round {}, act (a Move waits)", g.round),
        Stage::Act { .. } => format!("round {}, act", g.round),
        Stage::Over => format!("over after round {}", g.round),
    }
}

/// The step as one word for programs: `setup`, `bid`, `act`, `move` (a Move waits for
/// its direction), `over`.
pub fn step_word(g: &Duplexity) -> &'static str {
    match &g.stage {
        Stage::Setup { .. } => "setup",
        Stage::Bid { .. } => "bid",
        Stage::Act { pending: Some(_), .. } => "move",
        Stage::Act { .. } => "act",
        Stage::Over => "over",
    }
}

/// One grid cell: `A`, `B w2*` (a pawn, its Wounds, acted), `Hz2 Hv1` (tokens), `.`.
/// Once the game is over no pawn is marked as acted: there is no round left to act in.
fn cell_text(c: &Cell, over: bool) -> String {
    if let Some(p) = c.pawn {
        let mut s = letter(p.owner).to_string();
        if p.wounds > 0 {
            s.push_str(&format!(" w{}", p.wounds));
        }
        if p.acted && !over {
            s.push('*');
        }
        return s;
    }
    let mut parts = Vec::new();
    if c.hazards > 0 {
        parts.push(format!("Hz{}", c.hazards));
    }
    if c.havens > 0 {
        parts.push(format!("Hv{}", c.havens));
    }
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join(" ")
    }
}

/// The board as a grid: a row per location, a column per zone from the past.
pub fn grid(g: &Duplexity) -> String {
    let over = g.ending.is_some();
    let cells: Vec<Vec<String>> = (1..=LOCATIONS)
        .map(|l| Zone::ALL.iter().filter_map(|z| Space::new(*z, l)).map(|s| cell_text(g.board.cell(s), over)).collect())
        .collect();
    let width = cells.iter().flatten().map(String::len).max().unwrap_or(1).max(3);
    let mut out = String::from("Loc");
    for z in Zone::ALL {
        out.push_str(&format!(" | {:<width$}", z.code()));
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out.push_str("----");
    for _ in Zone::ALL {
        out.push_str(&format!("+{}", "-".repeat(width + 2)));
    }
    out.push('\n');
    for (i, row) in cells.iter().enumerate() {
        out.push_str(&format!("{:>3}", i + 1));
        for c in row {
            out.push_str(&format!(" | {c:<width$}"));
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push('\n');
    }
    out
}

/// The whole report: the step, the grid, the players, whose move it is.
pub fn text(g: &Duplexity) -> String {
    let mut out = String::new();
    let round = match g.settings.max_rounds {
        Some(m) => format!("Round {} of {m}", g.round),
        None => format!("Round {}", g.round),
    };
    out.push_str(&match &g.stage {
        Stage::Setup { .. } => "Setup: the first pawns are placed.\n\n".to_string(),
        Stage::Bid { .. } => format!("{round}: the Initiative.\n\n"),
        Stage::Act { .. } => format!("{round}: the Act.\n\n"),
        Stage::Over => format!("The game ended in round {}.\n\n", g.round),
    });
    out.push_str(&grid(g));
    out.push('\n');
    for p in 0..2u8 {
        let pawns: Vec<String> = g
            .board
            .pawns_of(p)
            .map(|(s, pawn)| {
                let mut t = s.to_string();
                if pawn.wounds > 0 {
                    t.push_str(&format!(" (w{})", pawn.wounds));
                }
                if pawn.acted && g.ending.is_none() {
                    t.push('*');
                }
                t
            })
            .collect();
        out.push_str(&format!(
            "{} = {}: {} energy; {}.\n",
            letter(p),
            g.name(p),
            g.energy(p),
            if pawns.is_empty() {
                "no pawn on the board".to_string()
            } else {
                format!("pawns at {}", pawns.join(", "))
            }
        ));
    }
    out.push_str(if g.ending.is_some() {
        "Key: A, B a player's pawn; w1, w2 its Wounds; Hz Hazards; Hv Havens.\n"
    } else {
        "Key: A, B a player's pawn; w1, w2 its Wounds; * it has acted this round; Hz Hazards; Hv Havens.\n"
    });
    out.push('\n');
    match &g.stage {
        Stage::Setup { first, next, .. } if first == next => {
            out.push_str(&format!("{} places the first pawn, in any Present space.\n", g.name(*next)));
        }
        Stage::Setup { next, .. } => {
            let allowed: Vec<String> = g.placeable(*next).iter().map(Space::to_string).collect();
            out.push_str(&format!(
                "{} places a pawn in the Present, neither on the other pawn nor 4 steps from it: {}.\n",
                g.name(*next),
                allowed.join(", ")
            ));
        }
        Stage::Bid { bids } => {
            let said = |p: usize| if bids[p].is_some() { "has bid" } else { "has not bid yet" };
            // Both in and still here: the bids are held to the deadline (early processing
            // off, or a `wait`); the layer above says why.
            let sealed = if bids.iter().all(Option::is_some) {
                "Both bids are in; they stay sealed until the step goes on."
            } else {
                "Bids stay sealed until both are in."
            };
            out.push_str(&format!(
                "Initiative: {} {}, {} {}. {sealed}\n",
                g.players[0].name,
                said(0),
                g.players[1].name,
                said(1)
            ));
        }
        Stage::Act { first, turn, pending } => {
            out.push_str(&format!("{} acts first this round.\n", g.name(*first)));
            match pending {
                Some(p) => out.push_str(&format!(
                    "{}'s pawn at {} rolled {} to Move: it goes to {} or {} (`to {}` or `to {}`).\n",
                    g.name(p.player),
                    p.pawn,
                    p.roll,
                    p.choices[0],
                    p.choices[1],
                    p.choices[0].location(),
                    p.choices[1].location()
                )),
                None => {
                    let unspent: Vec<String> = g.unspent(*turn).iter().map(Space::to_string).collect();
                    out.push_str(&format!(
                        "Next: {} activates a pawn ({} can act).\n",
                        g.name(*turn),
                        unspent.join(", ")
                    ));
                }
            }
        }
        Stage::Over => {}
    }
    out
}

/// `status --json`: the common fields of the issue (`game`, `round`, `step`,
/// `awaiting`, `players`, `board`, `ended`, `winner`) and a few more.
pub fn status_json(g: &Duplexity) -> Value {
    let mut board = Map::new();
    for (s, c) in g.board.occupied() {
        let v = match c.pawn {
            Some(p) => json!({"pawn": g.name(p.owner), "wounds": p.wounds, "acted": p.acted && g.ending.is_none()}),
            None => json!({"hazards": c.hazards, "havens": c.havens}),
        };
        board.insert(s.to_string(), v);
    }
    let bids = match &g.stage {
        Stage::Bid { bids } => Some(bids),
        _ => None,
    };
    let players: Vec<Value> = (0..2u8)
        .map(|p| {
            let pawns: Vec<String> = g.board.pawns_of(p).map(|(s, _)| s.to_string()).collect();
            let mut v = json!({"name": g.name(p), "energy": g.energy(p), "pawns": pawns});
            if let Some(b) = bids {
                v["bid_in"] = json!(b[usize::from(p)].is_some());
            }
            v
        })
        .collect();
    let awaiting: Vec<&str> = g.awaited().into_iter().map(|p| g.name(p)).collect();
    let (first, turn, pending) = match &g.stage {
        Stage::Act { first, turn, pending } => (
            json!(g.name(*first)),
            json!(g.name(*turn)),
            match pending {
                Some(p) => json!({
                    "player": g.name(p.player),
                    "pawn": p.pawn.to_string(),
                    "roll": p.roll,
                    "to": [p.choices[0].location(), p.choices[1].location()],
                }),
                None => Value::Null,
            },
        ),
        _ => (Value::Null, Value::Null, Value::Null),
    };
    let mut status = json!({
        "game": super::KIND,
        "round": g.round,
        "step": step_word(g),
        "label": step_label(g),
        "awaiting": awaiting,
        "players": players,
        "board": board,
        "acts_first": first,
        "turn": turn,
        "move": pending,
        "options": {"pawn_limit": g.settings.pawn_limit, "max_rounds": g.settings.max_rounds},
    });
    let names: Vec<String> = g.players.iter().map(|p| p.name.clone()).collect();
    crate::games::insert_ending(&mut status, g.ending.as_ref(), &names);
    status
}
