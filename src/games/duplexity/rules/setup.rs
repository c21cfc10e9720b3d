//! Setup: who places first, and the first two pawns in the Present.

use super::super::board::{Board, Pawn, Space, Zone, LOCATIONS};
use super::{other, Duplexity, Log, Player, Refusal, Settings, Stage, START_ENERGY};
use crate::dice::Dice;

impl Duplexity {
    /// A new game for two players (seat order). Who places first is rolled as at the
    /// table: each player's d6, again while tied; the higher places first.
    pub fn new(names: [String; 2], settings: Settings, dice: &mut Dice, log: &mut Log) -> Duplexity {
        let first: u8 = loop {
            let a = dice.roll(6, format!("setup: {}'s d6 for who places first", names[0]));
            let b = dice.roll(6, format!("setup: {}'s d6 for who places first", names[1]));
            say!(log, "Who places first: {} rolls {a}, {} rolls {b}.", names[0], names[1]);
            if a != b {
                break if a > b { 0 } else { 1 };
            }
        };
        say!(log, "{} places the first pawn.", names[usize::from(first)]);
        Duplexity {
            settings,
            players: names.map(|name| Player { name, energy: START_ENERGY }),
            board: Board::default(),
            round: 0,
            stage: Stage::Setup { first, next: first, ahead: None },
            ending: None,
        }
    }

    /// Setup: place a pawn in a Present space.
    pub fn place(&mut self, player: u8, space: Space, log: &mut Log) -> Result<String, Refusal> {
        self.over()?;
        let Stage::Setup { first, next, ahead } = self.stage else {
            return Err(Refusal::new("pawns are placed only at the start of the game"));
        };
        if space.zone != Zone::Present {
            return Err(Refusal::new(format!("{space} is not in the Present: the first pawns go in the Present"))
                .hint(format!("place P{}", space.location())));
        }
        if player != next && next == first && player < 2 {
            // The second player's placement before the first pawn is down: kept, and
            // made as soon as that pawn is, if it is still allowed then.
            self.stage = Stage::Setup { first, next, ahead: Some(space) };
            return Ok(match ahead {
                Some(before) => answer!(
                    log,
                    "place {space} kept (replaces {before}): {} places first; yours is made right after, if it is still allowed",
                    self.name(first)
                ),
                None => answer!(
                    log,
                    "place {space} kept: {} places first; yours is made right after, if it is still allowed",
                    self.name(first)
                ),
            });
        }
        self.not_awaited(player, "place a pawn")?;
        if let Some((theirs, _)) = self.board.pawns().next() {
            if theirs == space {
                return Err(Refusal::new(format!("{space} already holds {}'s pawn", self.name(other(player)))));
            }
            if Space::ring_distance(theirs.location(), space.location()) == LOCATIONS / 2 {
                return Err(Refusal::new(format!(
                    "{space} is 4 steps from {}'s pawn at {theirs}: the second pawn may not go there",
                    self.name(other(player))
                )));
            }
        }
        self.board.cell_mut(space).pawn = Some(Pawn { owner: player, wounds: 0, acted: false });
        say!(log, "{} places a pawn at {space}.", self.name(player));
        if next == first {
            self.stage = Stage::Setup { first, next: other(first), ahead: None };
            if let Some(kept) = ahead {
                let second = other(first);
                if let Err(r) = self.place(second, kept, log) {
                    say!(
                        log,
                        "{}'s placement sent ahead, {kept}, cannot be made: {}; {} places again.",
                        self.name(second),
                        r.reason,
                        self.name(second)
                    );
                }
            }
        } else {
            // Both pawns are down: the first round begins (Energize, then the bids).
            self.stage = Stage::Bid { bids: [None; 2] };
            self.start_round(log);
        }
        Ok(answer!(log, "place {space}"))
    }

    /// The spaces where `player` may place a pawn now, in board order.
    pub fn placeable(&self, player: u8) -> Vec<Space> {
        (1..=LOCATIONS)
            .filter_map(|l| Space::new(Zone::Present, l))
            .filter(|s| {
                let mut probe = self.clone();
                probe.place(player, *s, &mut Log::silent()).is_ok()
            })
            .collect()
    }
}
