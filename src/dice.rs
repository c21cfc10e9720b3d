//! Verifiable dice: every roll and shuffle of every game comes from here, so that no
//! player has to trust the judge.
//!
//! When a game is created the judge draws a secret 32-byte [`Seed`] from the operating
//! system and publishes its commitment, `sha256(seed)` in lowercase hex. Roll number `k`
//! (0, 1, 2, ... across the whole game, in the order made) of an `n`-sided die is
//!
//! ```text
//! u64_be(sha256(seed || utf8(game name) || u64_be(k))[0..8]) % n + 1
//! ```
//!
//! Each roll is journaled as a [`Roll`] (k, n, purpose, result). When the game ends, or
//! the master asks, the seed is revealed; [`verify`] then checks the seed against the
//! commitment and recomputes every journaled roll. Anyone holding the journal and the
//! seed can do the same with a few lines of any language.
//!
//! A rollback resets the roll counter to where it stood at the point rolled back to, so
//! the game replays with the very same dice: rolling back cannot fish for better rolls.
//!
//! This module does no IO (the seed is drawn by [`Seed::generate`] from the OS, and kept
//! on disk by the game layer).

use crate::text::{count, plural};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A game's secret seed.
#[derive(Clone, PartialEq, Eq)]
pub struct Seed([u8; 32]);

impl std::fmt::Debug for Seed {
    // Never print a secret by accident (debug output ends up in logs).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Seed(commitment {})", self.commitment())
    }
}

/// Why a seed given as text is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a seed is 64 hexadecimal digits (32 bytes); {0}")]
pub struct SeedError(String);

impl Seed {
    /// A fresh seed from the operating system's randomness.
    pub fn generate() -> Seed {
        use rand::RngCore;
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Seed(bytes)
    }

    pub fn from_bytes(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    /// Read 64 hex digits (either case, surrounding spaces ignored).
    pub fn from_hex(text: &str) -> Result<Seed, SeedError> {
        let text = text.trim();
        if text.len() != 64 {
            return Err(SeedError(format!("this one has {} characters", text.chars().count())));
        }
        let mut bytes = [0u8; 32];
        for (i, pair) in text.as_bytes().chunks(2).enumerate() {
            let digit = |b: u8| (b as char).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                (Some(h), Some(l)) => bytes[i] = (h * 16 + l) as u8,
                _ => {
                    return Err(SeedError(format!(
                        "`{}` at character {} is not hexadecimal",
                        text[i * 2..].chars().next().unwrap_or('?'),
                        i * 2 + 1
                    )))
                }
            }
        }
        Ok(Seed(bytes))
    }

    /// The seed as 64 lowercase hex digits (only to reveal it).
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    /// `sha256(seed)` in lowercase hex: published when the game starts.
    pub fn commitment(&self) -> String {
        hex(&Sha256::digest(self.0))
    }

    /// The value of roll `k` of an `sides`-sided die in game `game`, 1..=sides.
    pub fn roll(&self, game: &str, k: u64, sides: u32) -> u32 {
        assert!(sides > 0, "a die has at least one side");
        let mut h = Sha256::new();
        h.update(self.0);
        h.update(game.as_bytes());
        h.update(k.to_be_bytes());
        let digest = h.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % u64::from(sides)) as u32 + 1
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// One roll as journaled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Roll {
    /// Its number in the game: 0, 1, 2, ...
    pub k: u64,
    /// The die's sides.
    pub n: u32,
    /// What it was for, in the words of the game (`ann: move`, `Future: hazard`).
    pub purpose: String,
    pub result: u32,
}

/// The dice of one game: the seed, the game's name, and the number of the next roll.
/// Rolls made are kept until the game layer takes them to journal ([`Dice::take_rolls`]).
#[derive(Clone, Debug)]
pub struct Dice {
    seed: Seed,
    game: String,
    next: u64,
    made: Vec<Roll>,
}

impl Dice {
    /// Dice whose next roll is number `next`.
    pub fn new(seed: Seed, game: &str, next: u64) -> Dice {
        Dice { seed, game: game.to_string(), next, made: Vec::new() }
    }

    /// Roll an `sides`-sided die (1..=sides) and keep the record.
    pub fn roll(&mut self, sides: u32, purpose: impl Into<String>) -> u32 {
        let result = self.seed.roll(&self.game, self.next, sides);
        self.made.push(Roll { k: self.next, n: sides, purpose: purpose.into(), result });
        self.next += 1;
        result
    }

    /// Shuffle `items` in place (Fisher-Yates, one roll of an `i`-sided die per place
    /// from the last down to the second), every roll recorded under `purpose`.
    pub fn shuffle<T>(&mut self, items: &mut [T], purpose: &str) {
        for i in (1..items.len()).rev() {
            let j = self.roll(i as u32 + 1, purpose) as usize - 1;
            items.swap(i, j);
        }
    }

    /// The number the next roll will have (the number of rolls made so far).
    pub fn next_index(&self) -> u64 {
        self.next
    }

    /// The rolls made since the last call, in order.
    pub fn take_rolls(&mut self) -> Vec<Roll> {
        std::mem::take(&mut self.made)
    }

    /// The rolls made since the last [`Dice::take_rolls`], without taking them.
    pub fn pending_rolls(&self) -> &[Roll] {
        &self.made
    }

    pub fn commitment(&self) -> String {
        self.seed.commitment()
    }
}

/// A journaled roll that the seed does not give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub k: u64,
    pub n: u32,
    pub purpose: String,
    pub journaled: u32,
    pub computed: Option<u32>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.computed {
            Some(c) => write!(
                f,
                "roll {} (d{}, {}): the journal says {}, the seed gives {}",
                self.k, self.n, self.purpose, self.journaled, c
            ),
            None => write!(f, "roll {} ({}): a die of {} sides cannot be rolled", self.k, self.purpose, self.n),
        }
    }
}

/// Why a set of rolls does not verify.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the seed does not match the commitment: sha256(seed) is {actual}, the game published {published}")]
    Commitment { published: String, actual: String },
    #[error("{} {} not match the seed", count(.0.len(), "roll", "rolls"), plural(.0.len(), "does", "do"))]
    Rolls(Vec<Mismatch>),
}

/// Check `seed` against the published `commitment`, then recompute every roll. Returns
/// the number of rolls verified.
pub fn verify(seed: &Seed, commitment: &str, game: &str, rolls: &[Roll]) -> Result<usize, VerifyError> {
    let actual = seed.commitment();
    if !actual.eq_ignore_ascii_case(commitment.trim()) {
        return Err(VerifyError::Commitment { published: commitment.to_string(), actual });
    }
    let mismatches: Vec<Mismatch> = rolls
        .iter()
        .filter_map(|r| {
            let computed = (r.n > 0).then(|| seed.roll(game, r.k, r.n));
            (computed != Some(r.result)).then(|| Mismatch {
                k: r.k,
                n: r.n,
                purpose: r.purpose.clone(),
                journaled: r.result,
                computed,
            })
        })
        .collect();
    if mismatches.is_empty() {
        Ok(rolls.len())
    } else {
        Err(VerifyError::Rolls(mismatches))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> Seed {
        Seed::from_hex(&format!("{}01", "00".repeat(31))).unwrap()
    }

    #[test]
    fn a_roll_is_the_formula_of_the_spec() {
        // The formula spelled out byte by byte: seed || "g" || u64_be(0).
        let s = seed();
        let mut h = Sha256::new();
        h.update([0u8; 31]);
        h.update([1u8]);
        h.update(b"g");
        h.update(0u64.to_be_bytes());
        let d = h.finalize();
        let v = u64::from_be_bytes(d[..8].try_into().unwrap());
        assert_eq!(s.roll("g", 0, 6), (v % 6) as u32 + 1);
        // The same value from Python's hashlib, independently of this code.
        assert_eq!(s.roll("g", 0, 6), 1);
        assert_ne!(s.roll("g", 0, 1_000_000), s.roll("h", 0, 1_000_000), "the game name is part of the roll");
    }

    #[test]
    fn commitment_is_sha256_of_the_seed_in_lowercase_hex() {
        let s = Seed::from_bytes([0u8; 32]);
        // sha256 of 32 zero bytes, a well-known value.
        assert_eq!(s.commitment(), "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
    }

    #[test]
    fn hex_round_trips_and_bad_hex_is_refused_with_where() {
        let s = Seed::generate();
        assert_eq!(Seed::from_hex(&s.to_hex().to_uppercase()).unwrap(), s);
        assert!(Seed::from_hex("abc").unwrap_err().to_string().contains("3 characters"));
        let bad = format!("{}zz", "0".repeat(62));
        assert!(Seed::from_hex(&bad).unwrap_err().to_string().contains("character 63"));
    }

    #[test]
    fn dice_number_rolls_and_verify_finds_a_tampered_one() {
        let mut d = Dice::new(seed(), "game", 0);
        let a = d.roll(6, "ann: move");
        let b = d.roll(12, "Future: hazard");
        assert!((1..=6).contains(&a) && (1..=12).contains(&b));
        let mut rolls = d.take_rolls();
        assert_eq!(rolls.iter().map(|r| r.k).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(verify(&seed(), &seed().commitment(), "game", &rolls), Ok(2));
        rolls[1].result = rolls[1].result % 12 + 1;
        match verify(&seed(), &seed().commitment(), "game", &rolls) {
            Err(VerifyError::Rolls(m)) => {
                assert_eq!(m.len(), 1);
                assert_eq!(m[0].k, 1);
            }
            other => panic!("expected a mismatch, got {other:?}"),
        }
        let other = Seed::from_bytes([9u8; 32]);
        assert!(matches!(verify(&other, &seed().commitment(), "game", &rolls), Err(VerifyError::Commitment { .. })));
    }

    #[test]
    fn dice_restarted_at_k_roll_the_same_again() {
        let mut first = Dice::new(seed(), "game", 0);
        let all: Vec<u32> = (0..10).map(|_| first.roll(20, "x")).collect();
        let mut again = Dice::new(seed(), "game", 4);
        assert_eq!(again.roll(20, "x"), all[4]);
    }

    #[test]
    fn shuffle_is_a_permutation_and_seeded() {
        let mut d = Dice::new(seed(), "game", 0);
        let mut v: Vec<u32> = (0..72).collect();
        d.shuffle(&mut v, "deck");
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..72).collect::<Vec<_>>());
        assert_ne!(v, (0..72).collect::<Vec<_>>());
        assert_eq!(d.next_index(), 71);
    }

    #[test]
    fn rolls_are_roughly_uniform() {
        let s = seed();
        let mut counts = [0u32; 6];
        for k in 0..6000 {
            counts[s.roll("u", k, 6) as usize - 1] += 1;
        }
        assert!(counts.iter().all(|&c| (850..1150).contains(&c)), "{counts:?}");
    }
}
