//! Seasons and phases: `Spring 1901 movement`, `Fall 1901 retreats`, `Winter 1901 adjustments`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Season {
    Spring,
    Fall,
    Winter,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PhaseKind {
    Movement,
    Retreats,
    Adjustments,
}

/// One phase of a Diplomacy game. Ordered in play order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Phase {
    pub year: u16,
    pub season: Season,
    pub kind: PhaseKind,
}

impl Phase {
    /// The last year a position or a stored game may be in (files are checked against it,
    /// so that no year runs past what the phase can count).
    pub const MAX_YEAR: u16 = 9999;

    pub const fn new(year: u16, season: Season, kind: PhaseKind) -> Phase {
        Phase { year, season, kind }
    }

    /// Spring 1901 movement.
    pub const fn start() -> Phase {
        Phase::new(1901, Season::Spring, PhaseKind::Movement)
    }

    /// The short code used in file names and commands: `S1901M`, `F1901R`, `W1901A`.
    pub fn code(&self) -> String {
        let s = match self.season {
            Season::Spring => 'S',
            Season::Fall => 'F',
            Season::Winter => 'W',
        };
        let k = match self.kind {
            PhaseKind::Movement => 'M',
            PhaseKind::Retreats => 'R',
            PhaseKind::Adjustments => 'A',
        };
        format!("{s}{}{k}", self.year)
    }

    /// The movement phase that follows this season's (Spring -> Fall -> next Spring).
    pub fn next_movement(&self) -> Phase {
        match self.season {
            Season::Spring => Phase::new(self.year, Season::Fall, PhaseKind::Movement),
            // Saturating: a year past MAX_YEAR never comes from a checked file.
            Season::Fall | Season::Winter => {
                Phase::new(self.year.saturating_add(1), Season::Spring, PhaseKind::Movement)
            }
        }
    }

    pub fn retreats(&self) -> Phase {
        Phase::new(self.year, self.season, PhaseKind::Retreats)
    }

    pub fn winter(&self) -> Phase {
        Phase::new(self.year, Season::Winter, PhaseKind::Adjustments)
    }
}

impl fmt::Display for Season {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Season::Spring => "Spring",
            Season::Fall => "Fall",
            Season::Winter => "Winter",
        })
    }
}

impl fmt::Display for PhaseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PhaseKind::Movement => "movement",
            PhaseKind::Retreats => "retreats",
            PhaseKind::Adjustments => "adjustments",
        })
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.season, self.year, self.kind)
    }
}

/// A phase written as a code (`S1901M`, `f1901r`, `W1901A`) or in words
/// (`Spring 1901 movement`, `fall 1902 retreats`, `winter 1901`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a phase: write it as S1901M, F1901R, W1901A or \"Spring 1901 movement\"")]
pub struct PhaseParseError(pub String);

impl FromStr for Phase {
    type Err = PhaseParseError;

    fn from_str(s: &str) -> Result<Phase, PhaseParseError> {
        let err = || PhaseParseError(s.to_string());
        let t = s.trim().to_ascii_lowercase();
        let words: Vec<&str> = t.split_whitespace().collect();
        let (season, year, kind) = if words.len() == 1 {
            let w = words[0];
            if w.len() < 3 || !w.is_ascii() {
                return Err(err());
            }
            let season = &w[..1];
            let rest = &w[1..];
            let (year, kind) = match rest.chars().last() {
                Some(c) if c.is_ascii_alphabetic() => (&rest[..rest.len() - 1], Some(c.to_string())),
                _ => (rest, None),
            };
            (season.to_string(), year.to_string(), kind)
        } else if words.len() == 2 || words.len() == 3 {
            (words[0].to_string(), words[1].to_string(), words.get(2).map(|k| k.to_string()))
        } else {
            return Err(err());
        };
        let season = match season.as_str() {
            "s" | "spring" => Season::Spring,
            "f" | "fall" | "autumn" | "a" => Season::Fall,
            "w" | "winter" => Season::Winter,
            _ => return Err(err()),
        };
        let year: u16 = year.parse().map_err(|_| err())?;
        let kind = match (season, kind.as_deref()) {
            (Season::Winter, None | Some("a" | "b" | "adjustments" | "adjustment" | "builds")) => {
                PhaseKind::Adjustments
            }
            (Season::Winter, _) => return Err(err()),
            (_, None | Some("m" | "movement" | "moves")) => PhaseKind::Movement,
            (_, Some("r" | "retreats" | "retreat")) => PhaseKind::Retreats,
            _ => return Err(err()),
        };
        Ok(Phase::new(year, season, kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_read_as_codes_and_words() {
        assert_eq!("S1901M".parse::<Phase>().unwrap(), Phase::start());
        assert_eq!("fall 1902 retreats".parse::<Phase>().unwrap(), Phase::new(1902, Season::Fall, PhaseKind::Retreats));
        assert_eq!("W1901".parse::<Phase>().unwrap(), Phase::new(1901, Season::Winter, PhaseKind::Adjustments));
        assert!("W1901R".parse::<Phase>().is_err());
        assert!("é".parse::<Phase>().is_err());
        assert_eq!(Phase::new(1901, Season::Fall, PhaseKind::Retreats).code(), "F1901R");
    }

    #[test]
    fn phases_sort_in_play_order() {
        let s = Phase::start();
        assert!(s < s.retreats());
        assert!(s.retreats() < s.next_movement());
        assert!(s.next_movement().retreats() < s.winter());
        assert!(s.winter() < s.winter().next_movement());
    }
}
