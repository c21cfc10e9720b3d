//! Diplomacy as a game kind: the engine ([`crate::diplomacy::engine::Game`]) behind the
//! turn-game contract ([`TurnGame`]) that every kind of the registry offers, so that the
//! same conformance check, replay and rollback run standard Diplomacy and Shadow Worlds
//! beside the small games.
//!
//! Each seat is a power, in the map's order (Austria, England, ... Turkey on the standard
//! map); a seat's turn file is that power's orders, read by the order grammar exactly as
//! a submission to a Diplomacy game is. Every power's orders are taken together: once
//! every power with something to order has sent orders the phase is adjudicated (unless
//! held by the early-processing rule), and at the deadline the defaults apply (units
//! hold, missing retreats disband, builds are waived, removals go by civil disorder).
//! Diplomacy rolls no dice.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::diplomacy::engine::Game;
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::state::{GameEnd, GameState};
use crate::game::settings::{Settings, VariantKind};
use crate::turn::{Awaiting, Ending, LineAnswer, TurnAck, TurnContext, TurnGame};

/// A Diplomacy game played through the turn-game contract.
#[derive(Clone, Debug)]
pub struct DiplomacyGame {
    game: Game,
}

/// What is stored of one (state.json, the journal's steps).
#[derive(Serialize, Deserialize)]
struct Saved {
    variant: VariantKind,
    #[serde(default)]
    short_game: bool,
    state: GameState,
}

/// The name a kind has in the registry.
fn kind_name(variant: VariantKind) -> &'static str {
    match variant {
        VariantKind::Standard => "standard",
        VariantKind::ShadowWorlds => "shadow-worlds",
    }
}

impl DiplomacyGame {
    /// A new game of `variant` on the standard map, from the first Spring.
    pub fn new(variant: VariantKind, short_game: bool) -> DiplomacyGame {
        let map = crate::diplomacy::map::cache::standard();
        let state = GameState::start(&map, variant.boards());
        DiplomacyGame::of(variant, short_game, map, state)
    }

    fn of(variant: VariantKind, short_game: bool, map: Arc<Map>, state: GameState) -> DiplomacyGame {
        let mut settings = Settings::new(kind_name(variant), variant);
        settings.shadow.short_game = short_game;
        DiplomacyGame { game: Game::new(settings, map, state) }
    }

    /// A stored game read back.
    pub fn load(value: &serde_json::Value) -> Result<DiplomacyGame, String> {
        let saved: Saved = serde_json::from_value(value.clone()).map_err(|e| format!("a Diplomacy game: {e}"))?;
        let map = crate::diplomacy::map::cache::standard();
        if saved.state.boards.len() != saved.variant.boards() {
            return Err(format!(
                "a {} game has {} boards, not {}",
                kind_name(saved.variant),
                saved.variant.boards(),
                saved.state.boards.len()
            ));
        }
        Ok(DiplomacyGame::of(saved.variant, saved.short_game, map, saved.state))
    }

    /// The engine's game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    fn power(&self, seat: usize) -> Option<PowerId> {
        self.game.map.power_ids().nth(seat)
    }

    fn seat(&self, power: PowerId) -> usize {
        self.game.map.power_ids().position(|p| p == power).unwrap_or(0)
    }

    /// Adjudicate the phase under way; the report's headline as an event.
    fn adjudicate(&mut self) -> Vec<String> {
        let phase = self.game.state.phase;
        self.game.decide();
        let mut events = vec![format!("{phase} is adjudicated.")];
        match &self.game.state.end {
            Some(end) => events.push(self.game.end_notice(end)),
            None => events.push(format!("Now: {}.", self.game.state.phase)),
        }
        events
    }
}

impl TurnGame for DiplomacyGame {
    fn players(&self) -> Vec<String> {
        self.game.map.power_ids().map(|p| self.game.map.power(p).name.clone()).collect()
    }

    fn submit(&mut self, player: usize, text: &str, _ctx: &mut TurnContext<'_>) -> TurnAck {
        let Some(power) = self.power(player) else {
            return TurnAck { lines: vec![LineAnswer::refused(1, 1, "no such power")], events: Vec::new() };
        };
        if self.game.state.end.is_some() {
            return TurnAck { lines: vec![LineAnswer::refused(1, 1, "the game is over")], events: Vec::new() };
        }
        let receipt = self.game.submit(power, text, false).receipt();
        let mut lines: Vec<LineAnswer> = receipt
            .taken
            .iter()
            .map(|t| LineAnswer::accepted(t.line, t.words.clone()))
            .chain(receipt.refused.iter().map(|r| LineAnswer::from(r.clone())))
            .collect();
        lines.sort_by_key(|l| l.line);
        TurnAck { lines, events: Vec::new() }
    }

    fn awaiting(&self) -> Awaiting {
        if self.game.state.end.is_some() {
            return Awaiting::default();
        }
        Awaiting {
            players: self.game.waiting_for().into_iter().map(|p| self.seat(p)).collect(),
            what: "orders".to_string(),
            optional: false,
            master: false,
        }
    }

    fn advance(&mut self, ctx: &mut TurnContext<'_>) -> Vec<String> {
        let mut events = Vec::new();
        // A phase where nobody has anything to order (or every order is in) goes on,
        // unless the early-processing rule holds it for its deadline.
        while self.game.ready() && !ctx.hold {
            events.extend(self.adjudicate());
        }
        events
    }

    fn force(&mut self, _why: crate::turn::Defaulted, _ctx: &mut TurnContext<'_>) -> Vec<String> {
        if self.game.state.end.is_some() {
            return Vec::new();
        }
        let late: Vec<String> =
            self.game.waiting_for().into_iter().map(|p| self.game.map.power(p).name.clone()).collect();
        let mut events = Vec::new();
        if !late.is_empty() {
            events.push(format!("The deadline passed without every order of {}: the defaults apply.", late.join(", ")));
        }
        events.extend(self.adjudicate());
        events
    }

    fn ending(&self) -> Option<Ending> {
        Some(match self.game.state.end.as_ref()? {
            GameEnd::Victory(p) => Ending::Won { players: vec![self.seat(*p)] },
            GameEnd::Draw(_) => Ending::Drawn,
        })
    }

    fn round(&self) -> u32 {
        u32::from(self.game.state.phase.year).saturating_sub(1900)
    }

    fn step_label(&self) -> String {
        self.game.state.phase.to_string()
    }

    fn option_lines(&self) -> Vec<String> {
        self.game.option_lines()
    }

    fn report_text(&self) -> String {
        let (map, state) = (&self.game.map, &self.game.state);
        let mut out = format!("{}\n", state.phase);
        for (b, board) in state.boards.iter().enumerate() {
            if state.boards.len() > 1 {
                out.push_str(&format!("Board {}\n", (b'A' + b as u8) as char));
            }
            for p in map.power_ids() {
                let units: Vec<String> = board.units.iter().filter(|u| u.power == p).map(|u| u.describe(map)).collect();
                let centers = board.ownership.count(p);
                if units.is_empty() && centers == 0 {
                    continue;
                }
                out.push_str(&format!(
                    "  {:<8} {} centers; {}\n",
                    map.power(p).name,
                    centers,
                    if units.is_empty() { "no units".to_string() } else { units.join(", ") }
                ));
            }
        }
        out
    }

    fn status_json(&self) -> serde_json::Value {
        json!({
            "phase": self.game.state.phase.code(),
            "waiting_for": self.game.waiting_for().iter().map(|p| self.game.map.power(*p).name.clone()).collect::<Vec<_>>(),
        })
    }

    fn save(&self) -> serde_json::Value {
        let saved = Saved {
            variant: self.game.settings.variant,
            short_game: self.game.settings.shadow.short_game,
            state: self.game.state.clone(),
        };
        serde_json::to_value(saved).unwrap_or(serde_json::Value::Null)
    }

    /// Every power's orders are taken together.
    fn together(&self) -> crate::turn::Together {
        if self.game.ready() {
            crate::turn::Together::Held
        } else {
            crate::turn::Together::Gathering
        }
    }

    /// Every order the power could give now, one a line, each on its board (Shadow
    /// Worlds): every one is legal, for the grammar reads each as the judge writes it.
    fn candidate_lines(&self, seat: crate::turn::Seat) -> Vec<String> {
        let crate::turn::Seat::Player(player) = seat else { return Vec::new() };
        let Some(power) = self.power(player) else { return Vec::new() };
        let map = &*self.game.map;
        let kind = self.game.state.phase.kind;
        let boards = self.game.state.boards.len();
        let possible = self.game.possible_orders(&[power]);
        let mut out = Vec::new();
        for (place, orders) in possible.iter() {
            let board = if boards > 1 { format!(" (board {})", (b'A' + place.board.0) as char) } else { String::new() };
            for o in orders {
                let words = match o {
                    crate::diplomacy::judge::possible::Possible::Waive => "waive".to_string(),
                    o => crate::diplomacy::engine::order_words(map, kind, &o.order(map)),
                };
                out.push(format!("{words}{board}"));
            }
        }
        out.dedup();
        out
    }
}
