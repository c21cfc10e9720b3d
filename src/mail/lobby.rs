//! The commands a message may send without signing on to a game: a game's life before
//! and around play.
//!
//! ```text
//! list                                   the judge's games
//! list mygame                            one game: seats, phase, centers
//! join mygame PASSWORD                   take an open seat (your own password, 6-64
//! join mygame PASSWORD prefer fra eng    characters), with the powers you prefer
//! leave mygame PASSWORD                  leave an open seat before the game starts
//! observe mygame                         receive the results and broadcasts
//! observe mygame PASSWORD                ... and sign on as `observer@mygame` with it
//! takeover france@mygame PASSWORD        ask for a vacant power
//! create mygame variant shadow-worlds    open a new game (masters named in judge.toml)
//! ```
//! The answer is sent to the message's sender (Reply-To, else From): that address is
//! the one that joins, observes or asks. Passwords are hashed here and never sent on.

use std::fmt::Write;

use chrono::{DateTime, Utc};

use crate::game::seating::player_name;
use crate::mail::host::{GameHost, HostError, Identity, Role, SignOnCheck};
use crate::mail::inbound::{cap, BodyLine};
use crate::mail::password::{check_new_password, hash_password, verify_password};

/// The first words of the lobby's commands.
pub const WORDS: &[&str] = &["join", "leave", "observe", "takeover", "create"];

/// One lobby command, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `list` (no game) or `list NAME`.
    List {
        game: Option<String>,
    },
    Join {
        game: String,
        password: String,
        prefer: Vec<String>,
    },
    Leave {
        game: String,
        password: String,
    },
    Observe {
        game: String,
        /// The observer's own password, to sign on with (`observe GAME PASSWORD`).
        password: Option<String>,
        /// The code of the confirmation mailed to the address (`observe GAME confirm CODE`).
        code: Option<String>,
    },
    Takeover {
        game: String,
        seat: String,
        password: String,
    },
    Create {
        game: String,
        variant: String,
        /// The map of a Diplomacy game (`map ancmed`); none: the variant's own.
        map: Option<String>,
        /// A small game's number of seats (`seats N`); none: the fewest the game takes.
        seats: Option<usize>,
    },
}

/// A lobby line: the request, or why it could not be read (the line's text shown, with
/// any password left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobbyItem {
    pub line: usize,
    pub request: Result<Request, (String, String)>,
}

impl LobbyItem {
    /// The password the line gave, if any (never echoed in any mail).
    pub fn secret(&self) -> Option<&str> {
        match &self.request {
            Ok(
                Request::Join { password, .. } | Request::Leave { password, .. } | Request::Takeover { password, .. },
            ) => Some(password),
            Ok(Request::Observe { password, .. }) => password.as_deref(),
            _ => None,
        }
    }
}

/// What the host is asked to do for a lobby command; passwords only as hashes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LobbyRequest {
    /// `name`: what the player is known by ([`player_name`]), never an address.
    Join {
        game: String,
        password_hash: String,
        prefer: Vec<String>,
        name: String,
    },
    Leave {
        game: String,
    },
    /// `code`: the confirmation of an earlier request, with the code mailed for it.
    Observe {
        game: String,
        password_hash: Option<String>,
        code: Option<String>,
    },
    Takeover {
        game: String,
        seat: String,
        password_hash: String,
        name: String,
    },
    Create {
        game: String,
        variant: String,
        map: Option<String>,
        seats: Option<usize>,
    },
}

/// Read a lobby line (`words[0]` one of [`WORDS`], or `list` with a name). `None`: not a
/// lobby line.
pub fn parse(words: &[&str], line: &BodyLine) -> Option<LobbyItem> {
    let keyword = words.first()?.to_ascii_lowercase();
    let game_ok = |w: &str| crate::mail::home::check_game_name(w).is_ok();
    let bad = |shown: String, problem: &str| Err((shown, problem.to_string()));
    let hidden = |w: &str| format!("{} ...", w);
    let request = match keyword.as_str() {
        "list" => match words {
            [_] => Ok(Request::List { game: None }),
            [_, game] if game_ok(game) => Ok(Request::List { game: Some(game.to_string()) }),
            _ => bad(cap(line.text.trim(), 80), "write `list` or `list GAME`"),
        },
        "join" => match words {
            [_, game, password, rest @ ..] if game_ok(game) => match check_new_password(password) {
                Err(p) => bad(hidden(words[0]), p),
                Ok(()) => {
                    let rest: Vec<String> = rest
                        .iter()
                        .flat_map(|w| w.split(','))
                        .map(|w| w.trim().to_string())
                        .filter(|w| !w.is_empty())
                        .collect();
                    let prefer = match rest.first().map(|w| w.to_ascii_lowercase()) {
                        None => Ok(Vec::new()),
                        Some(w) if matches!(w.as_str(), "prefer" | "preference" | "preferences" | "pref") => {
                            Ok(rest[1..].iter().map(|w| cap(w, 40)).collect())
                        }
                        Some(_) => Err(()),
                    };
                    match prefer {
                        Ok(prefer) if prefer.len() <= 40 => {
                            Ok(Request::Join { game: game.to_string(), password: password.to_string(), prefer })
                        }
                        _ => bad(
                            hidden(words[0]),
                            "write `join GAME PASSWORD`, or `join GAME PASSWORD prefer POWER POWER ...` \
                             (the powers you prefer, best first)",
                        ),
                    }
                }
            },
            _ => bad(hidden(words[0]), "write `join GAME PASSWORD` (a password of your own, 6 to 64 characters)"),
        },
        "leave" => match words {
            [_, game, password] if game_ok(game) => {
                Ok(Request::Leave { game: game.to_string(), password: password.to_string() })
            }
            _ => bad(hidden(words[0]), "write `leave GAME PASSWORD` (the password you joined with)"),
        },
        "observe" => match words {
            [_, game] if game_ok(game) => Ok(Request::Observe { game: game.to_string(), password: None, code: None }),
            [_, game, confirm, code] if game_ok(game) && confirm.eq_ignore_ascii_case("confirm") => {
                Ok(Request::Observe { game: game.to_string(), password: None, code: Some(cap(code, 40)) })
            }
            [_, game, password] if game_ok(game) => match check_new_password(password) {
                Ok(()) => {
                    Ok(Request::Observe { game: game.to_string(), password: Some(password.to_string()), code: None })
                }
                Err(p) => bad(hidden(words[0]), p),
            },
            _ => bad(
                hidden(words[0]),
                "write `observe GAME`, or `observe GAME PASSWORD` (a password of your own, 6 to 64 characters, \
                 to sign on as an observer); the judge then mails a code to confirm with `observe GAME confirm CODE`",
            ),
        },
        "takeover" => {
            let parts = match words {
                [_, at, password] => at.split_once('@').map(|(s, g)| (s.to_string(), g.to_string(), *password)),
                [_, seat, game, password] => Some((seat.to_string(), game.to_string(), *password)),
                _ => None,
            };
            match parts {
                Some((seat, game, password)) if !seat.is_empty() && game_ok(&game) => {
                    match check_new_password(password) {
                        Ok(()) => Ok(Request::Takeover { game, seat: cap(&seat, 40), password: password.to_string() }),
                        Err(p) => bad(hidden(words[0]), p),
                    }
                }
                _ => bad(
                    hidden(words[0]),
                    "write `takeover POWER@GAME PASSWORD`, e.g. `takeover france@mygame secret` \
                     (a password of your own, 6 to 64 characters)",
                ),
            }
        }
        "create" => {
            // `create GAME [variant] KIND [map MAP] [seats N]`
            let (seats, words) = match words {
                [rest @ .., s, n] if s.eq_ignore_ascii_case("seats") => (n.parse::<usize>().ok().map(Some), rest),
                _ => (Some(None), words),
            };
            let (map, words) = match words {
                [rest @ .., m, name] if m.eq_ignore_ascii_case("map") => (Some(cap(name, 40)), rest),
                _ => (None, words),
            };
            let create = |game: &str, variant: &str, seats| {
                Ok(Request::Create { game: game.to_string(), variant: cap(variant, 40), map: map.clone(), seats })
            };
            match (seats, words) {
                (Some(seats), [_, game]) if game_ok(game) => create(game, "standard", seats),
                (Some(seats), [_, game, v, variant]) if game_ok(game) && v.eq_ignore_ascii_case("variant") => {
                    create(game, variant, seats)
                }
                (Some(seats), [_, game, variant]) if game_ok(game) => create(game, variant, seats),
                _ => bad(
                    cap(line.text.trim(), 80),
                    "write `create GAME variant shadow-worlds` (or `variant standard`, or a variant's map: \
                     `variant ancmed`; Shadow Worlds on it: `variant shadow-worlds map ancmed`), or for a small \
                     game `create GAME variant overdue seats 4`",
                ),
            }
        }
        _ => return None,
    };
    Some(LobbyItem { line: line.number, request })
}

/// Carry out the lobby lines of a message from `sender` (and the display name it gave, if
/// any); the answer goes to `out`. Returns the games changed, and whether a game's files
/// could not be reached just now.
pub fn answer(
    items: &[LobbyItem],
    tag: &str,
    sender: Option<&str>,
    display_name: Option<&str>,
    host: &mut impl GameHost,
    now: DateTime<Utc>,
    out: &mut String,
) -> (Vec<String>, bool) {
    let mut changed = Vec::new();
    let mut try_later = false;
    for (index, item) in items.iter().enumerate().take(crate::mail::ingest::MAX_LISTINGS) {
        let line = item.line;
        // Journaled with the message's tag: carried out again after a crash, a change is
        // not made twice.
        host.carry_out(Some(format!("{tag}#lobby{}", index + 1)));
        let request = match &item.request {
            Ok(r) => r,
            Err((shown, problem)) => {
                let _ = writeln!(out, "line {line}: `{shown}`: {problem}\n");
                continue;
            }
        };
        if let Request::List { game } = request {
            match host.list_games(game.as_deref()) {
                Ok(text) => {
                    let _ = writeln!(out, "{}\n", text.trim_end());
                }
                Err(e) => {
                    try_later |= e.is_try_later();
                    let _ = writeln!(out, "line {line}: not listed: {e}\n");
                }
            }
            continue;
        }
        let Some(sender) = sender.filter(|s| s.contains('@')) else {
            let _ = writeln!(out, "line {line}: not done: the message has no sender address to join or answer.\n");
            continue;
        };
        let hashed = |password: &str| hash_password(password).map_err(|e| HostError::Refused(e.to_string()));
        let asked = match request {
            Request::List { .. } => continue,
            // Joining again (new preferences) takes the password joined with: a forged
            // From alone cannot change it. Both count toward the sign-on limit.
            Request::Join { game, password, prefer } => check_joined(host, game, sender, password, now)
                .and_then(|_| hashed(password))
                .map(|password_hash| LobbyRequest::Join {
                    game: game.clone(),
                    password_hash,
                    prefer: prefer.clone(),
                    name: player_name(display_name, sender),
                }),
            Request::Leave { game, password } => match check_joined(host, game, sender, password, now) {
                Ok(true) => Ok(LobbyRequest::Leave { game: game.clone() }),
                Ok(false) => Err(HostError::Refused(format!(
                    "{} has not joined a game `{}` that waits for players",
                    cap(sender, 80),
                    cap(game, 40)
                ))),
                Err(e) => Err(e),
            },
            Request::Observe { game, password, code } => match password.as_deref().map(hashed).transpose() {
                Ok(password_hash) => {
                    Ok(LobbyRequest::Observe { game: game.clone(), password_hash, code: code.clone() })
                }
                Err(e) => Err(e),
            },
            Request::Takeover { game, seat, password } => {
                hashed(password).map(|password_hash| LobbyRequest::Takeover {
                    game: game.clone(),
                    seat: seat.clone(),
                    password_hash,
                    name: player_name(display_name, sender),
                })
            }
            Request::Create { game, variant, map, seats } => Ok(LobbyRequest::Create {
                game: game.clone(),
                variant: variant.clone(),
                map: map.clone(),
                seats: *seats,
            }),
        };
        match asked.and_then(|asked| host.lobby(sender, &asked, now).map(|said| (asked, said))) {
            Ok((asked, said)) => {
                let game = match &asked {
                    LobbyRequest::Join { game, .. }
                    | LobbyRequest::Leave { game }
                    | LobbyRequest::Observe { game, .. }
                    | LobbyRequest::Takeover { game, .. }
                    | LobbyRequest::Create { game, .. } => game.clone(),
                };
                if !changed.contains(&game) {
                    changed.push(game);
                }
                let _ = writeln!(out, "line {line}: {}\n", said.trim_end());
            }
            Err(e) => {
                try_later |= e.is_try_later();
                let _ = writeln!(out, "line {line}: not done: {e}\n");
            }
        }
    }
    host.carry_out(None);
    if let Some(first) = items.get(crate::mail::ingest::MAX_LISTINGS) {
        let _ = writeln!(
            out,
            "line {}: not read, nor anything after it of these commands: at most {} a message.\n",
            first.line,
            crate::mail::ingest::MAX_LISTINGS
        );
    }
    (changed, try_later)
}

/// Whether `sender` has joined `game` (still waiting for players), with `password` the
/// one they joined with; a wrong one is refused and counted, as a wrong sign-on is, under
/// its own name (`ADDRESS (joined)`), so guesses are as limited as at a SIGNON.
fn check_joined(
    host: &mut impl GameHost,
    game: &str,
    sender: &str,
    password: &str,
    now: DateTime<Utc>,
) -> Result<bool, HostError> {
    use crate::mail::ingest::{LOCKOUT_FAILURES, LOCKOUT_WINDOW_MINUTES};
    let Some(hash) = host.joined_hash(game, sender) else { return Ok(false) };
    let who = Identity {
        game: game.to_string(),
        role: Role::Seat(format!("{} (joined)", sender.to_lowercase())),
        address: Some(sender.to_string()),
        timezone: None,
    };
    let window = chrono::Duration::minutes(LOCKOUT_WINDOW_MINUTES);
    match host.check_sign_on(&who, now, now - window, LOCKOUT_FAILURES, &mut || verify_password(password, &hash))? {
        SignOnCheck::Right => Ok(true),
        SignOnCheck::Wrong { .. } => Err(HostError::Refused(
            "wrong password: give the one you joined with (to change your preferences, join again with it; to \
             start afresh, `leave` with it)"
                .into(),
        )),
        SignOnCheck::Closed { .. } => Err(HostError::Refused(format!(
            "closed after {LOCKOUT_FAILURES} wrong passwords; it opens again within the hour. The password was not \
             checked and nothing was done."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(text: &str) -> Option<LobbyItem> {
        let words: Vec<&str> = text.split_whitespace().collect();
        parse(&words, &BodyLine { number: 1, text: text.into() })
    }

    #[test]
    fn the_lobby_words_leniently() {
        assert_eq!(item("LIST").unwrap().request, Ok(Request::List { game: None }));
        assert_eq!(item("list g1").unwrap().request, Ok(Request::List { game: Some("g1".into()) }));
        assert_eq!(
            item("Join g1 secret1 prefer fra, England,ita").unwrap().request,
            Ok(Request::Join {
                game: "g1".into(),
                password: "secret1".into(),
                prefer: vec!["fra".into(), "England".into(), "ita".into()]
            })
        );
        assert_eq!(
            item("takeover France@g1 secret1").unwrap().request,
            Ok(Request::Takeover { game: "g1".into(), seat: "France".into(), password: "secret1".into() })
        );
        assert_eq!(
            item("create g2 variant shadow-worlds").unwrap().request,
            Ok(Request::Create { game: "g2".into(), variant: "shadow-worlds".into(), map: None, seats: None })
        );
        assert_eq!(
            item("create g3 variant shadow-worlds map ancmed").unwrap().request,
            Ok(Request::Create {
                game: "g3".into(),
                variant: "shadow-worlds".into(),
                map: Some("ancmed".into()),
                seats: None
            })
        );
        assert!(item("A par - bur").is_none());
        // A bad line never shows its password.
        for bad in ["join g1 abc", "join g1 secret1 france", "takeover g1 secret1", "leave g1"] {
            let (shown, problem) = item(bad).unwrap().request.unwrap_err();
            assert!(!shown.contains("secret1") && !shown.contains("abc"), "{bad}: {shown}");
            assert!(problem.starts_with("write") || problem.contains("password"), "{bad}: {problem}");
        }
    }
}
