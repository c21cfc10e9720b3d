//! What the benches of a judge directory share: a standard game of seven players.

use std::path::Path;

use chrono::{DateTime, Utc};
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::state::GameState;
use shadowjudge::game::schedule::DeadlinePolicy;
use shadowjudge::game::session::diplomacy as session;
use shadowjudge::game::settings::{Player, Settings, VariantKind};

/// Create the standard game `name` on `map` in `dir` at `now`, with `deadlines` and a
/// player for every power, each mailing from `email(power)`.
pub fn standard_game(
    dir: &Path,
    name: &str,
    map: &Map,
    deadlines: &DeadlinePolicy,
    email: impl Fn(&str) -> String,
    now: DateTime<Utc>,
) {
    let mut settings = Settings::new(name, VariantKind::Standard);
    settings.deadlines = deadlines.clone();
    settings.players = map
        .powers()
        .iter()
        .map(|p| Player {
            power: p.key.clone(),
            name: p.name.clone(),
            email: email(&p.key),
            timezone: None,
            password_hash: None,
            pictures: true,
        })
        .collect();
    session::create(dir, &settings, GameState::start(map, 1), now).expect("a game");
}
