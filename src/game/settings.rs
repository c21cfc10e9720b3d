//! A game's settings, as the game master keeps them in `game.toml`.
//!
//! ```toml
//! name = "mygame"
//! variant = "shadow-worlds"      # or "standard"
//! map = "standard"               # a shipped map name or a path
//!
//! [rules]                        # the judge's rulebook (see judge::rulebook)
//! edition = "2023"
//!
//! [shadow]                       # Shadow Worlds options
//! short_game = true              # victory at 18 centers instead of 34
//! victory_counts = "distinct"    # or "ledger"
//!
//! [[players]]
//! power = "france"
//! name = "Ann Smith"
//! email = "ann@example.org"
//! timezone = "Europe/Paris"      # optional, for deadlines in mail
//! ```

use serde::{Deserialize, Serialize};

use crate::judge::rulebook::Rulebook;
use crate::map::{Map, PowerId};
use crate::variant::shadow::ShadowOptions;

/// Which game a directory holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VariantKind {
    Standard,
    ShadowWorlds,
}

impl VariantKind {
    pub fn boards(self) -> usize {
        match self {
            VariantKind::Standard => 1,
            VariantKind::ShadowWorlds => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            VariantKind::Standard => "standard",
            VariantKind::ShadowWorlds => "shadow-worlds",
        }
    }

    pub fn parse(s: &str) -> Option<VariantKind> {
        match s.to_ascii_lowercase().replace(['_', ' '], "-").as_str() {
            "standard" => Some(VariantKind::Standard),
            "shadow-worlds" | "shadow" | "shadowworlds" => Some(VariantKind::ShadowWorlds),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// The power's key in the map (`france`).
    pub power: String,
    pub name: String,
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// The argon2 hash of the player's password (mail sign-on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub name: String,
    pub variant: VariantKind,
    #[serde(default = "standard_map")]
    pub map: String,
    #[serde(default)]
    pub rules: Rulebook,
    #[serde(default)]
    pub shadow: ShadowOptions,
    /// Standard game: centers for victory (default: the map's, 18 on the standard map).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victory_centers: Option<usize>,
    #[serde(default)]
    pub deadlines: Deadlines,
    #[serde(default)]
    pub players: Vec<Player>,
}

/// How long each kind of phase lasts (`[deadlines]` in game.toml).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Deadlines {
    pub movement_hours: u32,
    pub retreat_hours: u32,
    pub adjustment_hours: u32,
}

impl Default for Deadlines {
    fn default() -> Deadlines {
        Deadlines { movement_hours: 48, retreat_hours: 24, adjustment_hours: 24 }
    }
}

impl Deadlines {
    /// The deadline of a phase that starts at `now`.
    pub fn deadline_for(
        &self,
        kind: crate::game::phase::PhaseKind,
        now: chrono::DateTime<chrono::Utc>,
    ) -> chrono::DateTime<chrono::Utc> {
        use crate::game::phase::PhaseKind;
        let hours = match kind {
            PhaseKind::Movement => self.movement_hours,
            PhaseKind::Retreats => self.retreat_hours,
            PhaseKind::Adjustments => self.adjustment_hours,
        };
        now + chrono::Duration::hours(i64::from(hours))
    }
}

fn standard_map() -> String {
    "standard".into()
}

impl Settings {
    pub fn new(name: &str, variant: VariantKind) -> Settings {
        Settings {
            name: name.to_string(),
            variant,
            map: standard_map(),
            rules: Rulebook::default(),
            shadow: ShadowOptions::default(),
            victory_centers: None,
            deadlines: Deadlines::default(),
            players: Vec::new(),
        }
    }

    /// The player of a power, if any.
    pub fn player(&self, map: &Map, power: PowerId) -> Option<&Player> {
        self.players.iter().find(|p| map.lookup_power(&p.power) == Some(power))
    }
}

/// Read a players file: one player per line, `power, name, email` (a fourth field, the
/// time zone, is optional); `#` starts a comment.
pub fn parse_players(text: &str, file: &str, map: &Map) -> Result<Vec<Player>, String> {
    let mut players: Vec<Player> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("{file}:{}", i + 1);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() < 3 || fields.len() > 4 {
            return Err(format!("{at}: expected `power, name, email` (and optionally a time zone), found `{line}`"));
        }
        let power = map.lookup_power(fields[0]).ok_or_else(|| format!("{at}: unknown power `{}`", fields[0]))?;
        let key = map.power(power).key.clone();
        if players.iter().any(|p| p.power == key) {
            return Err(format!("{at}: {} has two players", map.power(power).name));
        }
        let email = fields[2];
        if !email.contains('@') || email.contains(char::is_whitespace) {
            return Err(format!("{at}: `{email}` is not an email address"));
        }
        let timezone = match fields.get(3) {
            Some(tz) if tz.parse::<chrono_tz::Tz>().is_err() => {
                return Err(format!("{at}: unknown time zone `{tz}` (write it like Europe/Paris)"))
            }
            Some(tz) => Some(tz.to_string()),
            None => None,
        };
        players.push(Player {
            power: key,
            name: fields[1].to_string(),
            email: email.to_string(),
            timezone,
            password_hash: None,
        });
    }
    Ok(players)
}
