//! The deadline defaults: what the judge does for a player who sent nothing.

use super::{Bid, Duplexity, Log, Stage};
use crate::dice::Dice;
use crate::turn::Defaulted;

impl Duplexity {
    /// The deadline passed: a missing placement goes to the first space allowed, a
    /// missing bid is 0, a Move waiting for its direction goes rising, and a missing
    /// activation spends the player's first unspent pawn (board order) with no action.
    pub fn force(&mut self, dice: &mut Dice, log: &mut Log) {
        self.force_as(Defaulted::Deadline, dice, log);
    }

    /// The defaults of [`force`](Self::force), worded for why they apply: `ann sent no
    /// bid by the deadline: ...` or `ann's seat is vacant: ...`.
    pub fn force_as(&mut self, why: Defaulted, dice: &mut Dice, log: &mut Log) {
        let missed = |name: &str, what: &str| match why {
            Defaulted::Deadline => format!("{name} {what} by the deadline"),
            Defaulted::Vacant => format!("{name}'s seat is vacant"),
        };
        match &self.stage {
            Stage::Setup { next, .. } => {
                let p = *next;
                if let Some(s) = self.placeable(p).first().copied() {
                    say!(log, "{}: the judge places the pawn.", missed(self.name(p), "sent no placement"));
                    let _ = self.place(p, s, log);
                }
            }
            Stage::Bid { bids } => {
                let missing: Vec<u8> = (0..2u8).filter(|p| bids[usize::from(*p)].is_none()).collect();
                for p in missing {
                    {
                        say!(log, "{}: the bid is 0.", missed(self.name(p), "sent no bid"));
                        let _ = self.bid(p, Bid { amount: 0, order: None }, &mut Log::silent());
                    }
                }
            }
            Stage::Act { pending: Some(w), .. } => {
                let (p, to) = (w.player, w.choices[0].location());
                let said = missed(self.name(p), "did not say where the Move goes");
                say!(log, "{said}: it goes rising (+).");
                let _ = self.choose(p, to, None, Vec::new(), dice, log);
            }
            Stage::Act { turn, pending: None, .. } => {
                let p = *turn;
                let first = self.board.pawns_of(p).find(|(_, pawn)| !pawn.acted).map(|(s, _)| s);
                if let Some(s) = first {
                    let said = missed(self.name(p), "sent no activation");
                    say!(log, "{said}: the pawn at {s} is spent with no action.");
                    // An activation with no action tells nothing more than the line above.
                    let _ = self.activate(p, s, Vec::new(), dice, &mut Log::silent());
                }
            }
            Stage::Over => {}
        }
        self.settle(dice, log);
    }
}
