//! The seats: players files, the particulars game.toml keeps, and the check that
//! game.toml still names the players the game was created for.

use super::*;
use crate::game::roster;

/// A seat: the player's name (one word; what they sign on with), address, zone, password.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnPlayer {
    pub name: String,
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<String>,
    /// Which reports they are mailed (none chosen: what
    /// [`crate::game::by_mail::Reports::default_for`] gives the game's number of players).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reports: Option<crate::game::by_mail::Reports>,
}

/// Whether `name` can name a seat: one word of letters, digits, `-` or `_`, not a word
/// the judge keeps for itself.
pub fn plausible_player_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        && !matches!(name.to_ascii_lowercase().as_str(), "none" | "all")
        // No seat takes a role's name: it would capture that role's sign-on.
        && !crate::game::by_mail::names_master(name)
        && !crate::game::by_mail::names_observer(name)
}

/// Read a players file for a turn game: one line each, `name, email[, time zone]`, seat
/// order = file order; `#` starts a comment.
pub fn parse_turn_players(text: &str, file: &str) -> Result<Vec<TurnPlayer>, String> {
    let mut players: Vec<TurnPlayer> = Vec::new();
    for l in roster::lines(text, file, 2, 3, "`name, email` (and optionally a time zone)")? {
        let (at, name) = (&l.at, l.fields[0]);
        if !plausible_player_name(name) {
            return Err(format!(
                "{at}: `{name}` cannot be a player's name: one word of letters, digits, `-` or `_` (players sign on with it)"
            ));
        }
        if players.iter().any(|p| p.name.eq_ignore_ascii_case(name)) {
            return Err(format!("{at}: two players are called `{name}`"));
        }
        let (email, timezone) = (l.email(1)?, l.timezone(2)?);
        players.push(TurnPlayer { name: name.to_string(), email, timezone, password_hash: None, reports: None });
    }
    Ok(players)
}

/// The seats' particulars as game.toml keeps them (the master's and every player's).
pub(super) fn seats(settings: &TurnSettings) -> Vec<Particulars> {
    let master = Particulars {
        who: MASTER.to_string(),
        address: settings.master.email.clone(),
        timezone: settings.master.timezone.clone(),
        password_hash: settings.master.password_hash.clone(),
    };
    let players = settings.players.iter().map(|p| Particulars {
        who: p.name.clone(),
        address: Some(p.email.clone()),
        timezone: p.timezone.clone(),
        password_hash: p.password_hash.clone(),
    });
    let observers = crate::game::by_mail::observer_particulars(&settings.observer_passwords);
    std::iter::once(master).chain(players).chain(observers).collect()
}

/// Refuse a game.toml whose players are not the ones the game was created for (seats are
/// matched by name, so their order in game.toml does not matter).
pub(super) fn check_players(
    dir: &GameDir,
    settings: &TurnSettings,
    entries: &[(u64, DateTime<Utc>, TurnEntry)],
) -> Result<(), GameError> {
    let Some((_, _, TurnEntry::Created { players, .. })) = entries.first() else {
        return Err(GameError::Damaged(format!(
            "{}: the journal does not start with the game's creation",
            dir.path().join(crate::store::JOURNAL_FILE).display()
        )));
    };
    let key = |names: &mut dyn Iterator<Item = &String>| {
        let mut v: Vec<String> = names.map(|n| n.to_lowercase()).collect();
        v.sort();
        v
    };
    if key(&mut settings.players.iter().map(|p| &p.name)) != key(&mut players.iter()) {
        let listed: Vec<&str> = settings.players.iter().map(|p| p.name.as_str()).collect();
        return Err(GameError::Damaged(format!(
            "{}: the players listed are {}, but the game was created for {}; put the [[players]] back (their \
             order does not matter, their names do)",
            dir.path().join(crate::store::SETTINGS_FILE).display(),
            listed.join(", "),
            players.join(", ")
        )));
    }
    Ok(())
}

impl OpenTurnGame {
    /// A seat by name (any case).
    pub fn player_index(&self, name: &str) -> Option<usize> {
        self.game.players().iter().position(|p| p.eq_ignore_ascii_case(name.trim()))
    }

    /// The seats' names, in seat order.
    pub fn player_names(&self) -> Vec<String> {
        self.game.players().to_vec()
    }

    /// A player's particulars in game.toml, by name (any case).
    pub fn player_settings(&self, name: &str) -> Option<&TurnPlayer> {
        self.settings.players.iter().find(|p| p.name.eq_ignore_ascii_case(name.trim()))
    }
}
