//! The deadline defaults: what the judge does for a player who sent nothing.

use super::{Bid, Duplexity, Log, Stage};
use crate::dice::Dice;

impl Duplexity {
    /// The deadline passed: a missing placement goes to the first space allowed, a
    /// missing bid is 0, a Move waiting for its direction goes rising, and a missing
    /// activation spends the player's first unspent pawn (board order) with no action.
    pub fn force(&mut self, dice: &mut Dice, log: &mut Log) {
        match &self.stage {
            Stage::Setup { next, .. } => {
                let p = *next;
                if let Some(s) = self.placeable(p).first().copied() {
                    say!(log, "{} sent no placement by the deadline: the judge places the pawn.", self.name(p));
                    let _ = self.place(p, s, log);
                }
            }
            Stage::Bid { bids } => {
                let missing: Vec<u8> = (0..2u8).filter(|p| bids[usize::from(*p)].is_none()).collect();
                for p in missing {
                    {
                        say!(log, "{} sent no bid by the deadline: the bid is 0.", self.name(p));
                        let _ = self.bid(p, Bid { amount: 0, order: None }, &mut Log::silent());
                    }
                }
            }
            Stage::Act { pending: Some(w), .. } => {
                let (p, to) = (w.player, w.choices[0].location());
                say!(log, "{} did not say where the Move goes by the deadline: it goes rising (+).", self.name(p));
                let _ = self.choose(p, to, None, Vec::new(), dice, log);
            }
            Stage::Act { turn, pending: None, .. } => {
                let p = *turn;
                let first = self.board.pawns_of(p).find(|(_, pawn)| !pawn.acted).map(|(s, _)| s);
                if let Some(s) = first {
                    say!(
                        log,
                        "{} sent no activation by the deadline: the pawn at {s} is spent with no action.",
                        self.name(p)
                    );
                    // An activation with no action tells nothing more than the line above.
                    let _ = self.activate(p, s, Vec::new(), dice, &mut Log::silent());
                }
            }
            Stage::Over => {}
        }
        self.settle(dice, log);
    }
}
