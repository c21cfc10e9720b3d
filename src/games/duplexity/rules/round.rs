//! The automatic steps of a round, as far as they go without input, and the end check:
//! who won, or a draw.

use super::{other, Duplexity, Log, Stage};
use crate::dice::Dice;
use crate::turn::Ending;

impl Duplexity {
    /// Run the automatic steps as far as they go without input: the first round after
    /// setup, the Initiative once both bids are in, the March, the Future and the end
    /// check once nobody has a pawn left to activate, and the next round's Energize.
    pub fn settle(&mut self, dice: &mut Dice, log: &mut Log) {
        loop {
            match &mut self.stage {
                Stage::Bid { bids: [Some(a), Some(b)] } => {
                    let (a, b) = (*a, *b);
                    self.initiative(a, b, dice, log);
                }
                Stage::Act { turn, pending: None, .. } => {
                    let t = *turn;
                    if self.board.has_unspent(t) {
                        return;
                    }
                    if self.board.has_unspent(other(t)) {
                        if let Stage::Act { turn, .. } = &mut self.stage {
                            *turn = other(t);
                        }
                        return;
                    }
                    self.end_of_round(dice, log);
                }
                _ => return,
            }
        }
    }

    /// The March, the Future, the end check; then the next round, unless the game ends.
    fn end_of_round(&mut self, dice: &mut Dice, log: &mut Log) {
        self.march(log);
        self.future(dice, log);
        let alive = [self.board.count_pawns(0) > 0, self.board.count_pawns(1) > 0];
        let ending = match alive {
            [true, true] if self.settings.max_rounds.is_some_and(|m| self.round >= m) => {
                say!(log, "Round {} was the last (max_rounds): the game is drawn.", self.round);
                Some(Ending::Drawn)
            }
            [true, true] => None,
            [true, false] | [false, true] => {
                let w = if alive[0] { 0 } else { 1 };
                say!(log, "{} has no pawn left on the board: {} wins.", self.name(other(w)), self.name(w));
                Some(Ending::Won { players: vec![usize::from(w)] })
            }
            [false, false] => {
                say!(log, "Neither player has a pawn on the board: both lose.");
                Some(Ending::Lost)
            }
        };
        match ending {
            Some(e) => {
                self.ending = Some(e);
                self.stage = Stage::Over;
            }
            None => self.start_round(log),
        }
    }
}
