//! A game's settings, as the game master keeps them in `game.toml`.
//!
//! ```toml
//! name = "mygame"
//! variant = "shadow-worlds"      # or "standard"
//! map = "standard"               # a shipped map name or a path
//! observers = ["watcher@example.org"]   # optional: they get every results mail
//! [observer_passwords]           # set by `observe mygame PASSWORD` (mail), as hashes
//! "watcher@example.org" = "$argon2id$..."
//!
//! [rules]                        # the judge's rulebook (see judge::rulebook)
//! edition = "2023"
//!
//! [shadow]                       # Shadow Worlds options
//! short_game = true              # victory at 18 centers instead of 34
//! victory_counts = "distinct"    # or "ledger"
//!
//! [deadlines]                    # see game::schedule; all optional
//! grace_hours = 0                # a number is hours; "90m", "2h", "1d12h" have units
//! remind_hours_before = 24
//! [deadlines.schedule]
//! kind = "interval"
//! movement_hours = 48
//!
//! [[players]]
//! power = "france"
//! name = "Ann Smith"
//! email = "ann@example.org"
//! timezone = "Europe/Paris"      # optional, for deadlines in mail
//! password_hash = "$argon2id$..." # set by `shadowjudge mail password`
//!
//! [master]                       # optional
//! email = "gm@example.org"
//! password_hash = "$argon2id$..."
//!
//! press = "full"                 # or "grey" (without the sender's power), "none" (gunboat)
//! observer_press = false         # whether observers may send press
//! votes = "secret"               # or "public": who voted for a draw or concession
//! draws = "dias"                 # or "named": a draw vote names the powers in it
//! ```

use serde::{Deserialize, Serialize};

use crate::diplomacy::judge::rulebook::Rulebook;
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::variant::shadow::ShadowOptions;
use crate::game::schedule::DeadlinePolicy;
use crate::game::seating::Seating;

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

/// The game as people name it: `standard`, `shadow-worlds`, and the map when it is not
/// the standard one (`ancmed, Ancient Mediterranean`, `shadow-worlds on Pure`); `short`,
/// as they ask for it (`ancmed`, `shadow-worlds on pure`: what `list` shows).
pub fn variant_label(settings: &Settings, map: &Map, short: bool) -> String {
    let map_words = if short { map.variant.clone() } else { format!("{}, {}", map.variant, map.title) };
    match settings.map.as_str() {
        "standard" => settings.variant.name().to_string(),
        _ if settings.variant == VariantKind::Standard => map_words,
        _ => format!("{} on {}", settings.variant.name(), if short { &map.variant } else { &map.title }),
    }
}

/// A Diplomacy game as people ask for it: `variant` is `standard`, `shadow-worlds` or a
/// shipped variant's name (`ancmed`: the standard game on that variant's map); `map`, when
/// given, is a shipped variant's name or a map file, for `standard` or `shadow-worlds`.
/// Returns the kind and the map as game.toml keeps it.
pub fn parse_variant(variant: &str, map: Option<&str>) -> Result<(VariantKind, String), String> {
    use crate::diplomacy::map::shipped;
    let known = || format!("standard, shadow-worlds or a variant: {}", shipped::names().join(", "));
    let map = match map {
        None => None,
        Some(m) => Some(match shipped::find(m) {
            Some(v) => v.name.to_string(),
            None if m.ends_with(".toml") => m.to_string(),
            None => return Err(format!("unknown map `{m}`: the maps are {}", shipped::names().join(", "))),
        }),
    };
    if let Some(kind) = VariantKind::parse(variant) {
        return Ok((kind, map.unwrap_or_else(standard_map)));
    }
    match (shipped::find(variant), map) {
        (Some(v), None) => Ok((VariantKind::Standard, v.name.to_string())),
        (Some(v), Some(_)) => Err(format!(
            "`{}` is a map; give it as the map of `standard` or `shadow-worlds`, or alone as the variant",
            v.name
        )),
        (None, _) => Err(format!("unknown variant `{variant}`: use {}", known())),
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
    /// Whether this player's results mails carry the map pictures (`map off` by mail
    /// turns them off).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub pictures: bool,
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
    /// Addresses that receive every results mail but play no power.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observers: Vec<String>,
    /// The passwords observers sign on with (`observe GAME PASSWORD`), as hashes.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub observer_passwords: crate::game::seating::ObserverPasswords,
    /// When phases are due, and how the mail tick treats deadlines.
    #[serde(default)]
    pub deadlines: DeadlinePolicy,
    #[serde(default)]
    pub players: Vec<Player>,
    #[serde(default, skip_serializing_if = "Master::is_empty")]
    pub master: Master,
    /// Whether results mails carry the map pictures (PNG and SVG); `pictures = false`
    /// turns them off for everyone.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub pictures: bool,
    /// What press the players may send: `full`, `grey` or `none` (gunboat).
    #[serde(default, skip_serializing_if = "PressRule::is_default")]
    pub press: PressRule,
    /// Whether observers may send press (default: no).
    #[serde(default, skip_serializing_if = "is_no")]
    pub observer_press: bool,
    /// Whether the players learn who voted for a draw or concession.
    #[serde(default, skip_serializing_if = "Votes::is_default")]
    pub votes: Votes,
    /// Whether a draw includes every survivor or the powers a vote names.
    #[serde(default, skip_serializing_if = "Draws::is_default")]
    pub draws: Draws,
    /// Open seats, players who joined, takeovers asked for (see [`crate::game::seating`]).
    #[serde(default, skip_serializing_if = "Seating::is_empty")]
    pub seats: Seating,
}

/// What press a game allows (`press` in game.toml).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PressRule {
    /// Press as sent, from the power that sent it.
    #[default]
    Full,
    /// Press arrives without the sender's power.
    Grey,
    /// No press between players (a gunboat game): no player's name or address in any
    /// mail to another player. The master may still write to everyone.
    #[serde(rename = "none")]
    Gunboat,
}

impl PressRule {
    fn is_default(&self) -> bool {
        *self == PressRule::Full
    }

    /// The setting as game.toml writes it.
    pub fn name(self) -> &'static str {
        match self {
            PressRule::Full => "full",
            PressRule::Grey => "grey",
            PressRule::Gunboat => "none",
        }
    }
}

/// Whether votes for a draw or a concession are public (`votes` in game.toml).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Votes {
    /// Nobody learns who voted, only that a proposal passed.
    #[default]
    Secret,
    /// `status` shows every power's vote.
    Public,
}

impl Votes {
    fn is_default(&self) -> bool {
        *self == Votes::Secret
    }
}

/// Who a draw includes (`draws` in game.toml).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Draws {
    /// Draws include all survivors.
    #[default]
    Dias,
    /// A vote names the powers in the draw; it passes when every survivor names the same.
    Named,
}

impl Draws {
    fn is_default(&self) -> bool {
        *self == Draws::Dias
    }
}

fn is_no(b: &bool) -> bool {
    !*b
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}

/// The game master: how the judge reaches them and the password they sign on with.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Master {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// The argon2 hash of the master's password (`SIGNON master@game`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<String>,
}

impl Master {
    pub fn is_empty(&self) -> bool {
        *self == Master::default()
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
            observers: Vec::new(),
            observer_passwords: Default::default(),
            deadlines: DeadlinePolicy::default(),
            players: Vec::new(),
            master: Master::default(),
            pictures: true,
            press: PressRule::Full,
            observer_press: false,
            votes: Votes::Secret,
            draws: Draws::Dias,
            seats: Seating::default(),
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
    for l in super::roster::lines(text, file, 3, 4, "`power, name, email` (and optionally a time zone)")? {
        let (at, fields) = (&l.at, &l.fields);
        let power = map.lookup_power(fields[0]).ok_or_else(|| format!("{at}: unknown power `{}`", fields[0]))?;
        let key = map.power(power).key.clone();
        if players.iter().any(|p| p.power == key) {
            return Err(format!("{at}: {} has two players", map.power(power).name));
        }
        let (email, timezone) = (l.email(2)?, l.timezone(3)?);
        players.push(Player {
            power: key,
            name: fields[1].to_string(),
            email,
            timezone,
            password_hash: None,
            pictures: true,
        });
    }
    Ok(players)
}
