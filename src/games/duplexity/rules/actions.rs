//! The four actions of a pawn: Move (a d6 around the ring), Shift (through time, for
//! energy), Gather and Alter.

use super::super::board::{Pawn, Space};
use super::refusal::Unable;
use super::{Action, Duplexity, Log, Token, Way, MAX_SHIFT};
use crate::dice::Dice;

impl Duplexity {
    /// One action of the pawn at `at`. `Ok` with where the pawn is after it.
    pub(super) fn act(
        &mut self,
        player: u8,
        at: Space,
        action: &Action,
        dice: &mut Dice,
        log: &mut Log,
    ) -> Result<Done, Unable> {
        match action {
            Action::Shift { by } => {
                let cost = by.unsigned_abs();
                if !(1..=MAX_SHIFT).contains(&cost) {
                    return Err(Unable::ShiftSize);
                }
                let energy = self.energy(player);
                if energy < cost {
                    return Err(Unable::ShiftCost { cost, energy });
                }
                let Some(zone) = at.zone.shifted(*by) else { return Err(Unable::OffBoard { at }) };
                *self.energy_mut(player) -= cost;
                let to = at.in_zone(zone);
                say!(log, "{}'s pawn at {at} shifts {by:+} to {to} ({cost} energy).", self.name(player));
                if let Some(pawn) = self.lift(at) {
                    self.land_pawn(to, pawn, log);
                }
                Ok(Done::At(to))
            }
            Action::Move { way } => {
                let roll = dice.roll(6, format!("{}: Move of the pawn at {at}", self.name(player))) as u8;
                let choices = [at.around(roll, true), at.around(roll, false)];
                let dest = if choices[0] == choices[1] {
                    Some(choices[0])
                } else {
                    match way {
                        Way::Rising => Some(choices[0]),
                        Way::Falling => Some(choices[1]),
                        Way::Prefer(list) => {
                            list.iter().find_map(|l| choices.iter().copied().find(|c| c.location() == *l))
                        }
                        Way::Ask => None,
                    }
                };
                match dest {
                    Some(to) => {
                        self.make_move(player, at, to, roll, log);
                        Ok(Done::At(to))
                    }
                    None => Ok(Done::Waits { roll, choices }),
                }
            }
            Action::Gather => {
                let e = self.energy(player).saturating_add(1);
                *self.energy_mut(player) = e;
                say!(log, "{}'s pawn at {at} gathers power: {} has {e} energy.", self.name(player), self.name(player));
                Ok(Done::At(at))
            }
            Action::Alter { zone, add, token } => {
                if *zone == at.zone {
                    return Err(Unable::AlterOwnZone { zone: at.zone });
                }
                let energy = self.energy(player);
                if energy < 1 {
                    return Err(Unable::AlterEnergy);
                }
                let target = at.in_zone(*zone);
                let cell = self.board.cell(target);
                let there = match token {
                    Token::Hazard => cell.hazards,
                    Token::Haven => cell.havens,
                };
                if !*add && there == 0 {
                    return Err(Unable::NoToken { token: *token, at: target });
                }
                *self.energy_mut(player) -= 1;
                if *add {
                    say!(
                        log,
                        "{}'s pawn at {at} alters fate: a {} is placed at {target}.",
                        self.name(player),
                        token.name()
                    );
                    match token {
                        Token::Hazard => self.land_tokens(target, 1, 0, log),
                        Token::Haven => self.land_tokens(target, 0, 1, log),
                    }
                } else {
                    say!(
                        log,
                        "{}'s pawn at {at} alters fate: a {} is removed from {target}.",
                        self.name(player),
                        token.name()
                    );
                    let cell = self.board.cell_mut(target);
                    match token {
                        Token::Hazard => cell.hazards -= 1,
                        Token::Haven => cell.havens -= 1,
                    }
                }
                Ok(Done::At(at))
            }
        }
    }

    pub(super) fn make_move(&mut self, player: u8, from: Space, to: Space, roll: u8, log: &mut Log) {
        say!(log, "{}'s pawn at {from} rolled {roll} and moves to {to}.", self.name(player));
        if let Some(pawn) = self.lift(from) {
            self.land_pawn(to, pawn, log);
        }
    }

    /// Take the pawn off a space (which holds nothing else, by the invariant).
    fn lift(&mut self, at: Space) -> Option<Pawn> {
        self.board.cell_mut(at).pawn.take()
    }
}

/// What one action left.
pub(super) enum Done {
    /// Done; the pawn is (or was last) at this space.
    At(Space),
    /// A Move rolled and waits for its direction.
    Waits { roll: u8, choices: [Space; 2] },
}
