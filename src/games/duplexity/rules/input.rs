//! What a player sends, as values: a bid, an activation's actions, and their spelling in
//! a turn file.

use serde::{Deserialize, Serialize};

use super::super::board::Zone;

/// What the winner of the Initiative chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// The winner acts first.
    First,
    /// The other player acts first.
    Second,
}

/// A sealed bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bid {
    pub amount: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
}

impl Bid {
    /// The bid as a turn file writes it after `bid`: `2`, `2 first`, `2 second`.
    pub fn spelled(&self) -> String {
        match self.order {
            None => self.amount.to_string(),
            Some(Order::First) => format!("{} first", self.amount),
            Some(Order::Second) => format!("{} second", self.amount),
        }
    }
}

/// Which way a Move goes, or how to choose it once the die is rolled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Way {
    /// The judge rolls, then waits for `to N` (unless the roll leaves one space).
    Ask,
    /// Rising numbers: 6 -> 7 -> 8 -> 1.
    Rising,
    /// Falling numbers.
    Falling,
    /// The first of these locations the roll reaches; otherwise the judge waits.
    Prefer(Vec<u8>),
}

/// A Hazard or a Haven.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Token {
    Hazard,
    Haven,
}

impl Token {
    pub fn name(self) -> &'static str {
        match self {
            Token::Hazard => "Hazard",
            Token::Haven => "Haven",
        }
    }
}

/// One action of an activation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    Move {
        way: Way,
    },
    /// Zones toward the future (positive) or the past (negative).
    Shift {
        by: i32,
    },
    /// Exert: gain 1 energy.
    Gather,
    /// Exert: spend 1 energy to add or remove a token in another zone at the pawn's location.
    Alter {
        #[serde(with = "zone_code")]
        zone: Zone,
        add: bool,
        token: Token,
    },
}

/// The three kinds of action; each at most once an activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Move,
    Exert,
    Shift,
}

impl Action {
    pub fn kind(&self) -> Kind {
        match self {
            Action::Move { .. } => Kind::Move,
            Action::Shift { .. } => Kind::Shift,
            Action::Gather | Action::Alter { .. } => Kind::Exert,
        }
    }
}

impl std::fmt::Display for Action {
    /// The canonical spelling, as a turn file writes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Move { way: Way::Ask } => write!(f, "move"),
            Action::Move { way: Way::Rising } => write!(f, "move +"),
            Action::Move { way: Way::Falling } => write!(f, "move -"),
            Action::Move { way: Way::Prefer(list) } => {
                write!(f, "move prefer")?;
                for l in list {
                    write!(f, " {l}")?;
                }
                Ok(())
            }
            Action::Shift { by } => write!(f, "shift {by:+}"),
            Action::Gather => write!(f, "gather"),
            Action::Alter { zone, add, token } => write!(
                f,
                "alter {} {} {}",
                zone.code(),
                if *add { "add" } else { "remove" },
                token.name().to_ascii_lowercase()
            ),
        }
    }
}

impl Kind {
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Move => "Move",
            Kind::Exert => "Exert",
            Kind::Shift => "Shift",
        }
    }

    /// `a Move`, `an Exert`.
    pub(super) fn with_article(self) -> &'static str {
        match self {
            Kind::Move => "a Move",
            Kind::Exert => "an Exert",
            Kind::Shift => "a Shift",
        }
    }
}

mod zone_code {
    use super::Zone;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(z: &Zone, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(z.code())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Zone, D::Error> {
        let code = String::deserialize(d)?;
        Zone::ALL
            .into_iter()
            .find(|z| z.code() == code)
            .ok_or_else(|| serde::de::Error::custom(format!("`{code}` is not a zone (DP, IP, P, NF, FF)")))
    }
}

/// A [`Kind`] as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KindName {
    Move,
    Exert,
    Shift,
}

impl From<Kind> for KindName {
    fn from(k: Kind) -> KindName {
        match k {
            Kind::Move => KindName::Move,
            Kind::Exert => KindName::Exert,
            Kind::Shift => KindName::Shift,
        }
    }
}
