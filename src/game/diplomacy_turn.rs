//! Diplomacy (standard and Shadow Worlds) as a [`TurnGame`]: the same contract the small
//! games implement, over the Diplomacy engine.
//!
//! A seat is a power (seat `i` is `PowerId(i)`); a turn file is a power's orders; the
//! game awaits the powers that still owe orders; nothing is automatic (a phase is
//! adjudicated when the master or the deadline says so), and forcing adjudicates the
//! phase with the defaults for missing orders. Diplomacy rolls no dice. The Diplomacy
//! store, journal and mail path ([`crate::game::session`], [`crate::host`]) keep
//! their own journal format, which predates this contract.

use crate::game::engine::Game;
use crate::game::state::GameEnd;
use crate::map::PowerId;
use crate::turn::{Awaiting, Ending, LineAnswer, TurnAck, TurnContext, TurnGame};

impl TurnGame for Game {
    fn kind(&self) -> &'static str {
        self.settings.variant.name()
    }

    fn players(&self) -> Vec<String> {
        self.map.powers().iter().map(|p| p.name.clone()).collect()
    }

    fn submit(&mut self, player: usize, text: &str, _ctx: &mut TurnContext<'_>) -> TurnAck {
        let Ok(seat) = u8::try_from(player) else {
            return TurnAck {
                lines: vec![LineAnswer::refused(1, 1, format!("no power {player}"))],
                events: Vec::new(),
            };
        };
        if self.map.power_ids().all(|p| p != PowerId(seat)) {
            return TurnAck {
                lines: vec![LineAnswer::refused(1, 1, format!("no power {player}"))],
                events: Vec::new(),
            };
        }
        let ack = Game::submit(self, PowerId(seat), text, false);
        let mut lines: Vec<LineAnswer> = ack
            .accepted
            .iter()
            .map(|a| {
                let board = a.board.map(|b| format!("[{b}] ")).unwrap_or_default();
                let note = a.note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
                LineAnswer::accepted(a.line, format!("{board}{}{note}", a.order))
            })
            .collect();
        lines.extend(ack.problems.iter().map(|p| {
            let answer = LineAnswer::refused(p.line, p.column, p.message.clone());
            match &p.hint {
                Some(h) => answer.with_hint(h.clone()),
                None => answer,
            }
        }));
        lines.sort_by_key(|l| l.line);
        TurnAck { lines, events: Vec::new() }
    }

    fn awaiting(&self) -> Awaiting {
        Awaiting {
            players: self.waiting_for().iter().map(|p| usize::from(p.0)).collect(),
            what: format!("orders for {}", self.state.phase),
            optional: false,
        }
    }

    fn advance(&mut self, _ctx: &mut TurnContext<'_>) -> Vec<String> {
        // A Diplomacy phase ends only at its deadline or by the master's word.
        Vec::new()
    }

    fn force(&mut self, _ctx: &mut TurnContext<'_>) -> Vec<String> {
        self.adjudicate().to_text().lines().map(str::to_string).collect()
    }

    fn ending(&self) -> Option<Ending> {
        match self.state.end.as_ref()? {
            GameEnd::Victory(p) => Some(Ending::Won { players: vec![usize::from(p.0)] }),
            GameEnd::Draw(_) => Some(Ending::Drawn),
        }
    }

    fn round(&self) -> u32 {
        u32::from(self.state.phase.year)
    }

    fn step_label(&self) -> String {
        self.state.phase.to_string()
    }

    fn option_lines(&self) -> Vec<String> {
        Game::option_lines(self)
    }

    fn report_text(&self) -> String {
        crate::game::status::status_text(self, None, None)
    }

    fn status_json(&self) -> serde_json::Value {
        status_json(self)
    }

    fn save(&self) -> serde_json::Value {
        serde_json::to_value(&self.state).unwrap_or_default()
    }
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
        "phase": game.state.phase.to_string(),
        "phase_code": game.state.phase.code(),
        "deadline": game.state.deadline,
        "options": game.option_lines(),
        "over": game.state.end.as_ref().map(|e| game.end_notice(e)),
        "powers": powers,
        "ledger": game.ledger(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Dice, Seed};
    use crate::game::settings::{Settings, VariantKind};
    use crate::game::state::GameState;
    use crate::map::Map;

    fn ctx_dice() -> Dice {
        Dice::new(Seed::from_bytes([1; 32]), "t", 0)
    }

    #[test]
    fn a_diplomacy_game_plays_through_the_turn_contract() {
        let map = Map::standard();
        let state = GameState::start(&map, 2);
        let mut game = Game::new(Settings::new("t", VariantKind::ShadowWorlds), map, state);
        let mut dice = ctx_dice();
        let now = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
        let mut ctx = TurnContext { dice: &mut dice, now };
        let g: &mut dyn TurnGame = &mut game;
        assert_eq!(g.kind(), "shadow-worlds");
        assert_eq!(g.players().len(), 7);
        assert_eq!(g.awaiting().players.len(), 7, "every power owes Spring orders");
        let italy = g.players().iter().position(|p| p == "Italy").unwrap();
        let ack = g.submit(italy, "Board A\nA ven - tri\nA xyz - abc\n", &mut ctx);
        assert!(ack.lines.iter().any(|l| l.accepted && l.text.contains("ven")), "{ack:?}");
        assert!(ack.lines.iter().any(|l| !l.accepted && l.line == 3), "{ack:?}");
        assert!(g.advance(&mut ctx).is_empty(), "Diplomacy has no automatic step");
        assert_eq!(g.step_label(), "Spring 1901 movement");
        let events = g.force(&mut ctx);
        assert!(!events.is_empty());
        assert_eq!(g.step_label(), "Fall 1901 movement");
        assert_eq!(dice.next_index(), 0, "Diplomacy rolls no dice");
        assert!(g.ending().is_none());
        assert_eq!(g.status_json()["phase_code"], "F1901M");
    }
}
