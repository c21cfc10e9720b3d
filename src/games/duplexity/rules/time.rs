//! The end of a round's time: the March (every zone one step into the past, the Present
//! copied) and the Future (new Hazards and Havens in the Far Future).

use super::super::board::{Pawn, Space, Zone, LOCATIONS};
use super::log::wounds;
use super::{Duplexity, Log, Token};
use crate::dice::Dice;

impl Duplexity {
    /// The March: DP leaves the game, IP moves to DP, P copies itself into IP, NF moves
    /// to P (landing), FF moves to NF.
    pub(crate) fn march(&mut self, log: &mut Log) {
        say!(log, "The March.");
        for l in 1..=LOCATIONS {
            let Some(dp) = Space::new(Zone::DistantPast, l) else { continue };
            let gone = self.board.take(dp);
            if let Some(p) = gone.pawn {
                say!(log, "{}'s pawn at {dp} passes into the Permanent Past.", self.name(p.owner));
            }
        }
        self.move_zone(Zone::ImmediatePast, Zone::DistantPast, log);
        for l in 1..=LOCATIONS {
            let (Some(p), Some(ip)) = (Space::new(Zone::Present, l), Space::new(Zone::ImmediatePast, l)) else {
                continue;
            };
            let cell = *self.board.cell(p);
            if cell.has_tokens() {
                self.land_tokens(ip, cell.hazards, cell.havens, log);
            }
            if let Some(pawn) = cell.pawn {
                let limit = self.settings.pawn_limit;
                if limit.is_some_and(|m| self.board.count_pawns(pawn.owner) >= m) {
                    say!(
                        log,
                        "{}'s pawn at {p} makes no copy at {ip}: {} has all {} pawns on the board (pawn_limit).",
                        self.name(pawn.owner),
                        self.name(pawn.owner),
                        limit.unwrap_or_default()
                    );
                } else {
                    say!(
                        log,
                        "{}'s pawn at {p} leaves a copy of itself at {ip}{}.",
                        self.name(pawn.owner),
                        if pawn.wounds > 0 { format!(" with its {}", wounds(pawn.wounds)) } else { String::new() }
                    );
                    self.land_pawn(ip, Pawn { acted: false, ..pawn }, log);
                }
            }
        }
        self.move_zone(Zone::NearFuture, Zone::Present, log);
        self.move_zone(Zone::FarFuture, Zone::NearFuture, log);
    }

    /// Everything in `from` moves to the same location in `to`, landing there.
    fn move_zone(&mut self, from: Zone, to: Zone, log: &mut Log) {
        for l in 1..=LOCATIONS {
            let (Some(a), Some(b)) = (Space::new(from, l), Space::new(to, l)) else { continue };
            let cell = self.board.take(a);
            if cell.has_tokens() {
                self.land_tokens(b, cell.hazards, cell.havens, log);
            }
            if let Some(pawn) = cell.pawn {
                say!(log, "{}'s pawn moves from {a} to {b}.", self.name(pawn.owner));
                self.land_pawn(b, pawn, log);
            }
        }
    }

    /// The Future: a d10 and a d12 for Hazards, again for Havens; each result 1-8 puts
    /// the token in that location of the Far Future.
    pub(crate) fn future(&mut self, dice: &mut Dice, log: &mut Log) {
        for token in [Token::Hazard, Token::Haven] {
            let rolls = [
                dice.roll(10, format!("the Future: {}s (d10)", token.name())),
                dice.roll(12, format!("the Future: {}s (d12)", token.name())),
            ];
            if !log.off {
                let landed: Vec<String> =
                    rolls.iter().filter_map(|r| Space::new(Zone::FarFuture, *r as u8)).map(|s| s.to_string()).collect();
                say!(
                    log,
                    "The Future: the d10 and d12 roll {} and {} for {}s: {}.",
                    rolls[0],
                    rolls[1],
                    token.name(),
                    if landed.is_empty() { "none appears".to_string() } else { format!("at {}", landed.join(" and ")) }
                );
            }
            for r in rolls {
                if let Some(s) = Space::new(Zone::FarFuture, r as u8) {
                    match token {
                        Token::Hazard => self.land_tokens(s, 1, 0, log),
                        Token::Haven => self.land_tokens(s, 0, 1, log),
                    }
                }
            }
        }
    }
}
