//! A face-down deck whose order is not decided until a card is drawn.
//!
//! The rules shuffle a deck and spread some cards through it (the Wild Cards one per band
//! of the letter deck; the All Play Cards one per band of the category deck, none in the
//! top five). A shuffle made at the start would have to be stored somewhere, and the
//! journal and the state are readable by the players: the order would be known. So the
//! judge stores only what everyone knows (which cards are still in the deck, and how many
//! of them are in each band), and makes the shuffle one card at a time, when the card is
//! drawn, with the game's verifiable dice:
//!
//! - a card shuffled back into the deck (an All Play Card nobody won) is equally likely to
//!   be at any place in the rest of the deck: it comes next with probability
//!   `shuffled back / cards left` (one roll of a die of as many sides as cards left);
//! - otherwise the next card comes from the first band: it is one of the band's special
//!   cards with probability `specials in the band / places left in the band` (one roll);
//! - which card it is: one roll among the unseen cards of its kind.
//!
//! This gives every order exactly the chance the shuffle and the spreading of the rules
//! give it, and nothing in the game's files says what comes next.

use serde::{Deserialize, Serialize};

use crate::dice::Dice;

/// The places of a deck still to be drawn from one band, and how many of them hold a
/// special card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Band {
    pub left: u32,
    pub special: u32,
}

/// A face-down deck: the unseen cards (unordered, kept sorted), and the bands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawPile {
    pub ordinary: Vec<u16>,
    pub special: Vec<u16>,
    pub bands: Vec<Band>,
    /// Special cards shuffled back anywhere into the rest of the deck.
    #[serde(default)]
    pub floating: u32,
}

impl DrawPile {
    /// A fresh deck: the special cards spread through it one per band, the bands even in
    /// size, and none of them among the first `top_free` cards.
    pub fn spread(mut ordinary: Vec<u16>, mut special: Vec<u16>, top_free: u32) -> DrawPile {
        ordinary.sort_unstable();
        special.sort_unstable();
        let n = (ordinary.len() + special.len()) as u32;
        let k = special.len() as u32;
        let mut bands = Vec::new();
        if k == 0 {
            bands.push(Band { left: n, special: 0 });
        } else {
            let free = top_free.min(n - k);
            if free > 0 {
                bands.push(Band { left: free, special: 0 });
            }
            let rest = n - free;
            let (base, extra) = (rest / k, rest % k);
            for i in 0..k {
                bands.push(Band { left: base + u32::from(i < extra), special: 1 });
            }
        }
        bands.retain(|b| b.left > 0);
        DrawPile { ordinary, special, bands, floating: 0 }
    }

    /// Cards left.
    pub fn len(&self) -> usize {
        self.ordinary.len() + self.special.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every card left is special (drawing one gives a special card for sure).
    pub fn only_special(&self) -> bool {
        self.ordinary.is_empty()
    }

    /// Draw the top card (`None`: the deck is empty). `what` names the deck in the rolls.
    pub fn draw(&mut self, dice: &mut Dice, what: &str) -> Option<u16> {
        let total = self.len() as u32;
        if total == 0 {
            return None;
        }
        if self.floating > 0 {
            let shuffled_back =
                self.floating >= total || dice.roll(total, format!("{what}: a card shuffled back?")) <= self.floating;
            if shuffled_back {
                self.floating -= 1;
                return Some(take(&mut self.special, dice, what));
            }
        }
        while self.bands.first().is_some_and(|b| b.left == 0) {
            self.bands.remove(0);
        }
        let Some(band) = self.bands.first_mut() else {
            // Never happens while the counts agree (see `consistent`); if they did not,
            // the cards are still drawn, from whatever is left.
            return Some(if self.ordinary.is_empty() {
                take(&mut self.special, dice, what)
            } else {
                take(&mut self.ordinary, dice, what)
            });
        };
        let special = band.special > 0
            && (band.special >= band.left
                || dice.roll(band.left, format!("{what}: the special card here?")) <= band.special);
        band.left -= 1;
        if special {
            band.special -= 1;
        }
        let pool = if special || self.ordinary.is_empty() { &mut self.special } else { &mut self.ordinary };
        Some(take(pool, dice, what))
    }

    /// Shuffle a special card back anywhere into the rest of the deck.
    pub fn shuffle_back(&mut self, card: u16) {
        let at = self.special.binary_search(&card).unwrap_or_else(|e| e);
        self.special.insert(at, card);
        self.floating += 1;
    }

    /// Put these ordinary cards under the deck, shuffled (a used-up deck made again from
    /// its discards).
    pub fn refill(&mut self, cards: Vec<u16>) {
        if cards.is_empty() {
            return;
        }
        self.bands.push(Band { left: cards.len() as u32, special: 0 });
        self.ordinary.extend(cards);
        self.ordinary.sort_unstable();
    }

    /// Whether the bands and the cards agree.
    pub fn consistent(&self) -> bool {
        let placed: u32 = self.bands.iter().map(|b| b.left).sum();
        let specials: u32 = self.bands.iter().map(|b| b.special).sum::<u32>() + self.floating;
        self.bands.iter().all(|b| b.special <= b.left)
            && placed + self.floating == self.len() as u32
            && specials == self.special.len() as u32
    }
}

/// Take one card of `pool` at random (no roll when only one is left).
fn take(pool: &mut Vec<u16>, dice: &mut Dice, what: &str) -> u16 {
    let i = if pool.len() <= 1 { 0 } else { dice.roll(pool.len() as u32, format!("{what}: which card")) as usize - 1 };
    pool.remove(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Seed;

    fn dice(k: u8) -> Dice {
        Dice::new(Seed::from_bytes([k; 32]), "draw", 0)
    }

    #[test]
    fn every_band_of_the_letter_deck_holds_one_wild_card() {
        for k in 0..50u8 {
            let mut d = dice(k);
            let mut pile = DrawPile::spread((0..64).collect(), (64..72).collect(), 0);
            assert_eq!(pile.bands.len(), 8);
            let order: Vec<u16> = std::iter::from_fn(|| pile.draw(&mut d, "letters")).collect();
            assert_eq!(order.len(), 72);
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, (0..72).collect::<Vec<_>>(), "every card once");
            for band in order.chunks(9) {
                assert_eq!(band.iter().filter(|c| **c >= 64).count(), 1, "{order:?}");
            }
        }
    }

    #[test]
    fn no_all_play_card_is_among_the_top_five_and_they_are_spread() {
        let mut seen_positions = std::collections::BTreeSet::new();
        for k in 0..50u8 {
            let mut d = dice(k);
            let mut pile = DrawPile::spread((0..44).collect(), (44..48).collect(), 5);
            let order: Vec<u16> = std::iter::from_fn(|| pile.draw(&mut d, "categories")).collect();
            let all_play: Vec<usize> = order.iter().enumerate().filter(|(_, c)| **c >= 44).map(|(i, _)| i).collect();
            assert_eq!(all_play.len(), 4);
            assert!(all_play[0] >= 5, "{all_play:?}");
            // Bands of 11, 11, 11 and 10 after the first five.
            let bands = [5..16, 16..27, 27..38, 38..48];
            for (p, band) in all_play.iter().zip(bands) {
                assert!(band.contains(p), "{all_play:?}");
            }
            seen_positions.extend(all_play);
        }
        assert!(seen_positions.len() > 20, "the places vary with the dice: {seen_positions:?}");
    }

    #[test]
    fn a_card_shuffled_back_comes_out_again_and_the_counts_agree() {
        let mut d = dice(3);
        let mut pile = DrawPile::spread((0..6).collect(), vec![6], 5);
        let mut drawn = Vec::new();
        while let Some(c) = pile.draw(&mut d, "c") {
            assert!(pile.consistent());
            if c == 6 && !drawn.contains(&6) {
                pile.shuffle_back(6);
                assert!(pile.consistent());
            }
            drawn.push(c);
        }
        assert_eq!(drawn.iter().filter(|c| **c == 6).count(), 2, "{drawn:?}");
        pile.refill(vec![1, 2]);
        assert!(pile.consistent());
        assert_eq!(pile.len(), 2);
    }
}
