//! The start of a round: Energize, the sealed bids, and the Initiative that decides who
//! acts first.

use super::{other, Bid, Duplexity, Log, Order, Refusal, Stage};
use crate::dice::Dice;

impl Duplexity {
    /// Initiative: a sealed bid (it may be changed until the other bid is in).
    pub fn bid(&mut self, player: u8, bid: Bid, log: &mut Log) -> Result<String, Refusal> {
        self.over()?;
        let energy = self.energy(player);
        let Stage::Bid { bids } = &mut self.stage else {
            return Err(Refusal::new("bids are made only at the Initiative, at the start of a round"));
        };
        if bids.iter().all(Option::is_some) {
            // Both are in and still here: held to the deadline (a `wait`, or early
            // processing off), when they are opened as they are.
            return Err(Refusal::new(
                "both bids are in and held until the deadline, when they are opened: a bid can no longer be changed",
            ));
        }
        if bid.amount > energy {
            return Err(Refusal::new(format!("a bid of {} is more than your {energy} energy", bid.amount))
                .hint(format!("bid {energy} or less")));
        }
        let before = bids[usize::from(player)].replace(bid);
        if before.is_some() {
            say!(log, "{} has changed the bid (sealed until both bids are in).", self.name(player));
        } else {
            say!(log, "{} has bid (sealed until both bids are in).", self.name(player));
        }
        Ok(match before {
            Some(b) => answer!(log, "bid {} (replaces your bid of {})", bid.spelled(), b.spelled()),
            None => answer!(log, "bid {}", bid.spelled()),
        })
    }

    /// Energize and open the bids.
    pub(super) fn start_round(&mut self, log: &mut Log) {
        self.round += 1;
        self.board.refresh();
        let gains = [self.board.count_pawns(0), self.board.count_pawns(1)];
        for (p, g) in gains.iter().enumerate() {
            self.players[p].energy = self.players[p].energy.saturating_add(*g);
        }
        say!(
            log,
            "Round {} begins. Energize: {} gains {} (has {}), {} gains {} (has {}).",
            self.round,
            self.players[0].name,
            gains[0],
            self.players[0].energy,
            self.players[1].name,
            gains[1],
            self.players[1].energy
        );
        self.stage = Stage::Bid { bids: [None; 2] };
    }

    /// Both bids are in: reveal, spend, decide who acts first.
    pub(super) fn initiative(&mut self, a: Bid, b: Bid, dice: &mut Dice, log: &mut Log) {
        let bids = [a, b];
        for (p, bid) in bids.iter().enumerate() {
            self.players[p].energy = self.players[p].energy.saturating_sub(bid.amount);
        }
        let describe = |p: usize| match bids[p].order {
            Some(Order::First) => format!("{} bids {} (to act first)", self.players[p].name, bids[p].amount),
            Some(Order::Second) => format!("{} bids {} (to act second)", self.players[p].name, bids[p].amount),
            None => format!("{} bids {}", self.players[p].name, bids[p].amount),
        };
        say!(log, "Initiative: {} and {}; both bids are spent.", describe(0), describe(1));
        let winner: u8 = if a.amount > b.amount {
            0
        } else if b.amount > a.amount {
            1
        } else {
            let mut tries = 0;
            loop {
                tries += 1;
                let ra = dice.roll(6, format!("initiative tie: {}'s d6", self.players[0].name));
                let rb = dice.roll(6, format!("initiative tie: {}'s d6", self.players[1].name));
                say!(
                    log,
                    "The bids tie{}: {} rolls {ra}, {} rolls {rb}.",
                    if tries > 1 { " again" } else { "" },
                    self.players[0].name,
                    self.players[1].name
                );
                if ra != rb {
                    break if ra > rb { 0 } else { 1 };
                }
            }
        };
        let first = match bids[usize::from(winner)].order {
            Some(Order::Second) => other(winner),
            _ => winner,
        };
        say!(log, "{} wins the Initiative; {} acts first.", self.name(winner), self.name(first));
        self.stage = Stage::Act { first, turn: first, pending: None };
    }
}
