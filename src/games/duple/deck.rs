//! The Duple deck as data: the symbols, the Letter Cards, the Wild Cards, the Category
//! Cards and the number of All Play Cards. The project's deck is `games/duple/deck.toml`,
//! compiled in; a game may bring its own file of the same shape.
//!
//! Cards are numbered: Letter Cards first (0..64 in the standard deck), then the Wild
//! Cards; in the category deck the Category Cards, then the All Play Cards. This module
//! only reads and checks a deck; it never shuffles.

use serde::{Deserialize, Serialize};

/// The deck shipped with the judge.
pub const STANDARD_TEXT: &str = include_str!("../../../games/duple/deck.toml");

/// One Letter Card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LetterCard {
    pub letter: char,
    /// Index into [`Deck::symbols`].
    pub symbol: usize,
}

/// A whole deck, checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deck {
    pub symbols: Vec<String>,
    pub letters: Vec<LetterCard>,
    /// Each Wild Card's two symbols.
    pub wilds: Vec<[usize; 2]>,
    pub categories: Vec<String>,
    pub all_play: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeck {
    symbols: Vec<String>,
    letters: toml::Table,
    wild: RawWild,
    category: RawCategory,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWild {
    cards: Vec<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCategory {
    cards: Vec<String>,
    all_play: usize,
}

/// A card of either deck as the players see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    Letter(LetterCard),
    Wild([usize; 2]),
}

impl Deck {
    /// The deck shipped with the judge.
    pub fn standard() -> Deck {
        Deck::parse(STANDARD_TEXT).expect("the shipped deck is checked by a test")
    }

    /// Read and check a deck file's text. The error names the key at fault.
    pub fn parse(text: &str) -> Result<Deck, String> {
        let raw: RawDeck = toml::from_str(text).map_err(|e| format!("the deck file: {}", e.message()))?;
        let symbols: Vec<String> = raw.symbols.iter().map(|s| s.trim().to_string()).collect();
        if symbols.len() < 2 {
            return Err("the deck file: `symbols` needs at least 2 symbols".into());
        }
        for (i, s) in symbols.iter().enumerate() {
            if s.is_empty() || s.len() > 20 {
                return Err(format!("the deck file: symbol {} must be a name of 1 to 20 characters", i + 1));
            }
            if symbols[..i].iter().any(|t| t.eq_ignore_ascii_case(s)) {
                return Err(format!("the deck file: the symbol `{s}` is listed twice"));
            }
        }
        let symbol_of = |name: &str, at: &str| {
            symbols
                .iter()
                .position(|s| s.eq_ignore_ascii_case(name.trim()))
                .ok_or_else(|| format!("the deck file: {at}: `{name}` is not one of the symbols"))
        };
        for key in raw.letters.keys() {
            symbol_of(key, "[letters]")?;
        }
        let mut letters = Vec::new();
        for (si, s) in symbols.iter().enumerate() {
            let Some(value) = raw.letters.iter().find(|(k, _)| k.eq_ignore_ascii_case(s)).map(|(_, v)| v) else {
                return Err(format!("the deck file: [letters] has no cards for the symbol `{s}`"));
            };
            let Some(text) = value.as_str() else {
                return Err(format!("the deck file: [letters] `{s}` must be a string of letters, like \"EAIT\""));
            };
            for c in text.chars().filter(|c| !c.is_whitespace()) {
                if !c.is_ascii_alphabetic() {
                    return Err(format!("the deck file: [letters] `{s}`: `{c}` is not a letter A to Z"));
                }
                letters.push(LetterCard { letter: c.to_ascii_uppercase(), symbol: si });
            }
        }
        if letters.len() < 2 {
            return Err("the deck file: [letters] needs at least 2 Letter Cards".into());
        }
        let mut wilds = Vec::new();
        for (i, pair) in raw.wild.cards.iter().enumerate() {
            let at = format!("[wild] card {}", i + 1);
            let [a, b] = pair.as_slice() else {
                return Err(format!("the deck file: {at} must name two symbols"));
            };
            let (a, b) = (symbol_of(a, &at)?, symbol_of(b, &at)?);
            if a == b {
                return Err(format!(
                    "the deck file: {at} shows `{}` twice; a Wild Card shows two different symbols",
                    symbols[a]
                ));
            }
            wilds.push([a, b]);
        }
        let categories: Vec<String> = raw.category.cards.iter().map(|c| c.trim().to_string()).collect();
        if categories.len() < 6 {
            return Err("the deck file: [category] needs at least 6 Category Cards".into());
        }
        if let Some(i) = categories.iter().position(|c| c.is_empty() || c.len() > 60) {
            return Err(format!("the deck file: [category] card {} must be a name of 1 to 60 characters", i + 1));
        }
        if raw.category.all_play > 16 {
            return Err("the deck file: [category] all_play is at most 16".into());
        }
        if letters.len() + wilds.len() > 1000 || categories.len() > 1000 {
            return Err("the deck file: a deck holds at most 1,000 cards of each kind".into());
        }
        Ok(Deck { symbols, letters, wilds, categories, all_play: raw.category.all_play })
    }

    /// Cards in the letter deck (Letter and Wild Cards).
    pub fn letter_deck_size(&self) -> usize {
        self.letters.len() + self.wilds.len()
    }

    /// Cards in the category deck (Category and All Play Cards).
    pub fn category_deck_size(&self) -> usize {
        self.categories.len() + self.all_play
    }

    /// A card of the letter deck by its number.
    pub fn drawn(&self, card: u16) -> Drawn {
        let i = usize::from(card);
        match self.letters.get(i) {
            Some(l) => Drawn::Letter(*l),
            None => Drawn::Wild(self.wilds[i - self.letters.len()]),
        }
    }

    /// A Letter Card by its number (a Wild Card number gives a card with no letter: `?`).
    pub fn letter(&self, card: u16) -> LetterCard {
        match self.drawn(card) {
            Drawn::Letter(l) => l,
            Drawn::Wild(_) => LetterCard { letter: '?', symbol: 0 },
        }
    }

    pub fn is_all_play(&self, card: u16) -> bool {
        usize::from(card) >= self.categories.len()
    }

    /// A category card's name (`All Play` for an All Play Card).
    pub fn category_name(&self, card: u16) -> &str {
        self.categories.get(usize::from(card)).map_or("All Play", String::as_str)
    }

    /// `R (star)`.
    pub fn describe_letter(&self, card: u16) -> String {
        let l = self.letter(card);
        format!("{} ({})", l.letter, self.symbols[l.symbol])
    }

    /// `sun + wave`.
    pub fn describe_wild(&self, card: u16) -> String {
        match self.drawn(card) {
            Drawn::Wild([a, b]) => format!("{} + {}", self.symbols[a], self.symbols[b]),
            Drawn::Letter(_) => self.describe_letter(card),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn the_shipped_deck_has_the_cards_the_rulings_list() {
        let deck = Deck::parse(STANDARD_TEXT).unwrap();
        assert_eq!(deck.symbols.len(), 8);
        assert_eq!(deck.letters.len(), 64, "64 Letter Cards");
        assert_eq!(deck.wilds.len(), 8, "8 Wild Cards");
        assert_eq!(deck.categories.len(), 44, "44 Category Cards");
        assert_eq!(deck.all_play, 4, "4 All Play Cards");
        // Every symbol on 8 Letter Cards, and no symbol carries a letter twice.
        for s in 0..8 {
            let on: Vec<char> = deck.letters.iter().filter(|l| l.symbol == s).map(|l| l.letter).collect();
            assert_eq!(on.len(), 8, "symbol {}", deck.symbols[s]);
            let mut unique = on.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), 8, "symbol {} repeats a letter: {on:?}", deck.symbols[s]);
        }
        let mut count: BTreeMap<char, usize> = BTreeMap::new();
        for l in &deck.letters {
            *count.entry(l.letter).or_default() += 1;
        }
        assert_eq!(count.len(), 26, "all 26 letters appear: {count:?}");
        let least_common = "EARIOTNSL".chars().map(|c| count[&c]).min().unwrap();
        let others = count.iter().filter(|(c, _)| !"EARIOTNSL".contains(**c)).map(|(_, n)| *n).max().unwrap();
        assert!(least_common > others, "common letters appear more often than any other: {count:?}");
        for rare in "JQXZ".chars() {
            assert_eq!(count[&rare], 1, "{rare} appears once");
        }
        // Every Wild Card shows two different symbols, every symbol on exactly two.
        let mut on_wilds = [0usize; 8];
        for [a, b] in &deck.wilds {
            assert_ne!(a, b);
            on_wilds[*a] += 1;
            on_wilds[*b] += 1;
        }
        assert_eq!(on_wilds, [2; 8]);
        let mut names = deck.categories.clone();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 44, "no category twice");
    }

    #[test]
    fn a_bad_deck_file_is_refused_with_the_key_at_fault() {
        let bad_letter = STANDARD_TEXT.replace("sun = \"EAITSDMY\"", "sun = \"EAIT5DMY\"");
        assert!(Deck::parse(&bad_letter).unwrap_err().contains("[letters] `sun`: `5` is not a letter"));
        let same = STANDARD_TEXT.replace("[\"sun\", \"wave\"]", "[\"sun\", \"sun\"]");
        assert!(Deck::parse(&same).unwrap_err().contains("[wild] card 1 shows `sun` twice"));
        let unknown = STANDARD_TEXT.replace("[\"sun\", \"wave\"]", "[\"sun\", \"comet\"]");
        assert!(Deck::parse(&unknown).unwrap_err().contains("`comet` is not one of the symbols"));
        let missing = STANDARD_TEXT.replace("crown = \"AITSCHWZ\"\n", "");
        assert!(Deck::parse(&missing).unwrap_err().contains("no cards for the symbol `crown`"));
        assert!(Deck::parse("not toml at all [").unwrap_err().starts_with("the deck file:"));
    }
}
