//! The command language of a mail body: SIGNON blocks, commands and order lines.
//!
//! ```text
//! SIGNON FRANCE@mygame secret      sign on (also: fra@mygame, f@mygame,
//!                                  `SIGNON france mygame secret`, and the classic
//!                                  one-letter form `SIGNON Fmygame secret`)
//! A par - bur                      anything that is not a command is an order line
//! status                           (or `list`) the game as you may see it
//! history                          the phases so far and the last results
//! press to italy, germany          press to some powers (`press to all`, `press all`,
//! ...text...                       `broadcast` for everyone), ended by ENDPRESS
//! endpress
//! password NEWSECRET               change your password (6-64 characters, no spaces)
//! timezone Europe/Paris            show deadlines in your zone too
//! map off                          results without the map pictures (`map on`: with)
//! reports turn                     a small game's reports before my turns only (`round`, `every`)
//! SIGNOFF                          end the block; another SIGNON may follow
//! ```
//! A power may vote (`draw`, `draw france italy`, `nodraw`, `concede france`,
//! `noconcede`) and announce an absence (`absence 2026-12-20 to 2026-12-27`).
//! An observer signs on as `observer@mygame` (`obs@mygame`, `SIGNON Omygame`) from the
//! address that observes, with the password `observe mygame PASSWORD` kept; it may read
//! and, where the game allows it, send press.
//! The master signs on as `master@mygame` (or `gm@mygame`) and may also send `process`,
//! `extend TIME`, `pause`, `resume`, `replace POWER ADDRESS` and `refuse absence POWER`. Keywords are not
//! case-sensitive. `help` anywhere asks for this text.
//!
//! This module only reads text; it never decides whether a sign-on is valid.

use chrono_tz::Tz;

use crate::game::schedule::Span;
use crate::mail::host::{MasterCommand, PlayerCommand, PressTo};
use crate::mail::inbound::BodyLine;

/// The help text sent for unknown commands and messages that cannot be placed.
pub const HELP: &str = "\
How to write to this judge:
  SIGNON FRANCE@mygame yourpassword     (also fra@mygame, f@mygame, master@mygame;
                                        a small game: your name, ann@mygame; an
                                        observer: observer@mygame, from the address
                                        that observes)
  A par - bur                           order lines, one per line (a small game:
                                        its turn lines, e.g. `bid 2`, `score 5`)
  status                                the game as you may see it
  history                               the phases so far and the last results
  press to italy, germany               press to some powers (or: press to all); a
  ...your text...                       game may send it grey (without your power)
  endpress                              or have none (a gunboat game: status says)
  password NEWPASSWORD                  change your password
  timezone Europe/Paris                 see deadlines in your own time zone
  wait / nowait                         hold this phase to its deadline, or not (by
                                        default it is processed once all orders are in)
  map off                               results without the map pictures (map on: with)
  reports turn                          a small game: mail me only the reports before my
                                        turns (reports round: one a round; reports every)
  draw / nodraw                         vote for a draw of every survivor, or take it back
                                        (a game with named draws: draw france italy)
  concede france / noconcede            concede the game to a power, or take it back
                                        (the game ends when every surviving power agrees)
  absence 2026-12-20 to 2026-12-27      away those days (your time zone): a deadline
                                        inside moves to the end (capped by the game)
  resign france                         give up your power (naming it confirms); it is
                                        vacant until someone takes it over (a small
                                        game: resign ann, your seat's name)
  SIGNOFF                               end; another SIGNON may follow
Without signing on:
  list                                  the judge's games (list mygame: one game)
  join mygame PASSWORD                  take an open seat with a password of your own;
  join mygame PASSWORD prefer fra eng   optionally the powers you prefer, best first
  leave mygame PASSWORD                 leave an open seat before the game starts
  observe mygame                        receive the game's results and broadcasts, once
                                        confirmed: `observe mygame confirm CODE` with the
                                        code mailed to the address that is to observe
  observe mygame PASSWORD               ... and sign on as observer@mygame with your own
                                        password: status, history, and press if the
                                        game lets observers send it (no orders or votes)
  takeover france@mygame PASSWORD       ask for a vacant power (a small game: ann@mygame)
  create mygame variant shadow-worlds   open a new game (game masters named by the judge;
                                        a variant: variant standard, ancmed, modern, pure,
                                        france-austria; Shadow Worlds on its map:
                                        variant shadow-worlds map ancmed;
                                        a small game: create race variant overdue seats 4)
Game master only: process, pause, resume, replace POWER ADDRESS (a small
  game: replace PLAYER ADDRESS),
  extend TIME (the deadline moves that much later: 90m, 2h, 1d, 1d12h; a number is hours),
  early on / early off (process a phase once all orders are in, or only at its deadline),
  refuse absence POWER (its absences move no deadline),
  approve france (give a vacant power to whoever asked to take it over),
  preview (the results if the phase were processed now, to you only; nothing is kept).
A password is one word of 6 to 64 characters. Njudge's words are read too: SET DRAW,
  SET ABSENCE 20 dec 2026 TO 27 dec 2026, SUMMARY, SIGNON ?mygame PASSWORD (join).
Quoted lines (starting with >), the earlier message below a reply header (\"On ... wrote:\",
Outlook's From:/Sent: lines) and everything after a signature line (-- ) are ignored.
";

/// A SIGNON line, split into its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignOn {
    /// The power (or `master`) as written.
    pub who: String,
    pub game: String,
    pub password: String,
}

/// One thing to do inside a SIGNON block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// Consecutive order lines, submitted together.
    Orders(Vec<BodyLine>),
    Status {
        line: usize,
    },
    History {
        line: usize,
    },
    Press {
        line: usize,
        to: PressTo,
        text: String,
        closed: bool,
    },
    Password {
        line: usize,
        new: String,
    },
    Timezone {
        line: usize,
        zone: Tz,
    },
    /// `wait` (true) or `nowait` (false).
    Wait {
        line: usize,
        wait: bool,
    },
    /// `map on` / `map off`: results mails with or without the map pictures.
    Pictures {
        line: usize,
        on: bool,
    },
    /// `reports every|turn|round`: which of a small game's reports the player is mailed.
    Reports {
        line: usize,
        reports: crate::game::by_mail::Reports,
    },
    Master {
        line: usize,
        command: MasterCommand,
    },
    /// A power's vote or absence.
    Player {
        line: usize,
        command: PlayerCommand,
    },
    /// `resign POWER`: the player gives up their power (the word confirms it).
    Resign {
        line: usize,
        seat: String,
    },
    Help {
        line: usize,
    },
    /// A command word used wrongly: the line, what is wrong.
    Malformed {
        line: usize,
        text: String,
        problem: String,
    },
}

/// A SIGNON and what follows it, up to SIGNOFF, the next SIGNON or the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The line of the SIGNON.
    pub line: usize,
    /// The sign-on, or why the SIGNON line could not be read.
    pub signon: Result<SignOn, String>,
    pub items: Vec<Item>,
}

/// A whole body, read.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Script {
    pub blocks: Vec<Block>,
    /// Non-empty lines outside any block (not commands the judge can place).
    pub stray: Vec<BodyLine>,
    /// `help` was asked for outside a block.
    pub help: bool,
    /// Commands that need no sign-on (`list`, `join`, `observe`, `takeover`, ...),
    /// wherever they stand.
    pub lobby: Vec<crate::mail::lobby::LobbyItem>,
}

/// Read the player's lines into blocks. Never fails: whatever cannot be read becomes a
/// stray line or a malformed item, reported in the reply.
pub fn parse_script(lines: &[BodyLine]) -> Script {
    let mut script = Script::default();
    let mut current: Option<Block> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        i += 1;
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        let written: Vec<&str> = text.split_whitespace().collect();
        // Njudge's words for what this judge writes otherwise: read as ours, or answered
        // with how this judge writes it (never taken for an order).
        let translated = match njudge(&written, current.is_some()) {
            Ok(words) => words,
            Err(hint) => {
                match current.as_mut() {
                    Some(block) => block.items.push(malformed(line, hint)),
                    None => script.lobby.push(crate::mail::lobby::LobbyItem {
                        line: line.number,
                        request: Err((crate::mail::inbound::cap(written[0], 20), hint)),
                    }),
                }
                continue;
            }
        };
        let words: Vec<&str> = translated.iter().map(String::as_str).collect();
        let keyword = words[0].to_ascii_lowercase();
        match keyword.as_str() {
            "signon" => {
                if let Some(done) = current.take() {
                    script.blocks.push(done);
                }
                current = Some(Block { line: line.number, signon: parse_signon(&words[1..]), items: Vec::new() });
                continue;
            }
            "signoff" => {
                if let Some(done) = current.take() {
                    script.blocks.push(done);
                }
                continue;
            }
            _ if mistyped_signon(&words) => {
                // Read as a SIGNON that cannot sign on: what follows is not applied under
                // another sign-on, and the line (with its password) is never quoted back.
                if let Some(done) = current.take() {
                    script.blocks.push(done);
                }
                let problem = format!(
                    "`{}` is not SIGNON; write `SIGNON POWER@GAME PASSWORD`, e.g. `SIGNON france@mygame secret`",
                    crate::mail::inbound::cap(words[0], 20)
                );
                current = Some(Block { line: line.number, signon: Err(problem), items: Vec::new() });
                continue;
            }
            _ => {}
        }
        // `list` inside a block is the game's status; anywhere else, and every other lobby
        // word anywhere, needs no sign-on.
        if !(current.is_some() && keyword == "list" && words.len() == 1) {
            if let Some(item) = crate::mail::lobby::parse(&words, line) {
                script.lobby.push(item);
                continue;
            }
        }
        let Some(block) = current.as_mut() else {
            if keyword == "help" {
                script.help = true;
            } else {
                script.stray.push(line.clone());
            }
            continue;
        };
        let item = match keyword.as_str() {
            "press" | "broadcast" => {
                let to = if keyword == "broadcast" { Ok(PressTo::All) } else { parse_press_to(&words[1..]) };
                let (body, closed, used) = press_body(&lines[i..]);
                i += used;
                match to {
                    Ok(to) => Item::Press { line: line.number, to, text: body, closed },
                    Err(problem) => malformed(line, problem),
                }
            }
            "endpress" => malformed(line, "`endpress` without a `press` before it".into()),
            "status" | "list" => match words.len() {
                1 => Item::Status { line: line.number },
                _ => malformed(line, format!("`{keyword}` takes nothing after it")),
            },
            "history" => Item::History { line: line.number },
            "wait" | "nowait" => match words.len() {
                1 => Item::Wait { line: line.number, wait: keyword == "wait" },
                _ => malformed(line, format!("`{keyword}` takes nothing after it")),
            },
            "early" => match words.as_slice() {
                [_, on] if on.eq_ignore_ascii_case("on") || on.eq_ignore_ascii_case("off") => Item::Master {
                    line: line.number,
                    command: MasterCommand::Early { on: on.eq_ignore_ascii_case("on") },
                },
                _ => malformed(line, "write `early on` or `early off`".into()),
            },
            "help" => Item::Help { line: line.number },
            "password" => match words.as_slice() {
                [_, new] => match crate::mail::password::check_new_password(new) {
                    Ok(()) => Item::Password { line: line.number, new: new.to_string() },
                    Err(p) => malformed_hidden(line, "password", p.into()),
                },
                _ => malformed_hidden(line, "password", "write `password NEWPASSWORD` (one word)".into()),
            },
            "timezone" | "tz" => match words.as_slice() {
                [_, zone] => match zone.parse::<Tz>() {
                    Ok(zone) => Item::Timezone { line: line.number, zone },
                    Err(_) => malformed(
                        line,
                        format!(
                            "`{}` is not a time zone name; use one like `Europe/Paris` or `America/New_York`",
                            cap_word(zone)
                        ),
                    ),
                },
                _ => malformed(line, "write `timezone Europe/Paris`".into()),
            },
            "map" => match words.as_slice() {
                [_, w] if w.eq_ignore_ascii_case("on") => Item::Pictures { line: line.number, on: true },
                [_, w] if w.eq_ignore_ascii_case("off") => Item::Pictures { line: line.number, on: false },
                _ => malformed(line, "write `map off` or `map on`".into()),
            },
            "reports" => match words.as_slice() {
                [_, w] if crate::game::by_mail::Reports::parse(w).is_some() => Item::Reports {
                    line: line.number,
                    reports: crate::game::by_mail::Reports::parse(w).expect("checked"),
                },
                _ => malformed(line, "write `reports every`, `reports turn` or `reports round`".into()),
            },
            "resign" => match words.as_slice() {
                [_, power] => Item::Resign { line: line.number, seat: cap_word(power) },
                _ => {
                    malformed(line, "write `resign POWER`, naming your power to confirm (e.g. `resign france`)".into())
                }
            },
            "approve" => match words.as_slice() {
                [_, power] => {
                    Item::Master { line: line.number, command: MasterCommand::Approve { power: cap_word(power) } }
                }
                _ => malformed(line, "write `approve POWER` (a vacant power someone asked to take over)".into()),
            },
            "preview" => match words.len() {
                1 => Item::Master { line: line.number, command: MasterCommand::Preview },
                _ => malformed(line, "`preview` takes nothing after it".into()),
            },
            "process" | "pause" | "resume" => match words.len() {
                1 => Item::Master {
                    line: line.number,
                    command: match keyword.as_str() {
                        "process" => MasterCommand::Process,
                        "pause" => MasterCommand::Pause,
                        _ => MasterCommand::Resume,
                    },
                },
                _ => malformed(line, format!("`{keyword}` takes nothing after it")),
            },
            "extend" => match words.as_slice() {
                [_] => malformed(line, format!("write `extend TIME`: {EXTEND_FORM}")),
                [_, time @ ..] => match parse_extension(&cap_word(&time.join(" "))) {
                    Ok(by) => Item::Master { line: line.number, command: MasterCommand::Extend { by } },
                    Err(e) => malformed(line, e),
                },
                [] => unreachable!("a line with a keyword has a word"),
            },
            "draw" => {
                let powers: Vec<String> =
                    words[1..].iter().flat_map(|w| w.split(',')).filter(|w| !w.is_empty()).map(cap_word).collect();
                Item::Player { line: line.number, command: PlayerCommand::Draw { powers } }
            }
            "nodraw" | "noconcede" => match words.len() {
                1 => Item::Player {
                    line: line.number,
                    command: if keyword == "nodraw" { PlayerCommand::NoDraw } else { PlayerCommand::NoConcede },
                },
                _ => malformed(line, format!("`{keyword}` takes nothing after it")),
            },
            "concede" => match words.as_slice() {
                [_, power] => {
                    Item::Player { line: line.number, command: PlayerCommand::Concede { power: cap_word(power) } }
                }
                _ => malformed(line, "write `concede POWER`, e.g. `concede france`".into()),
            },
            "absence" => match parse_absence(&words[1..]) {
                Some((from, to)) => Item::Player { line: line.number, command: PlayerCommand::Absence { from, to } },
                None => malformed(line, "write `absence 2026-12-20 to 2026-12-27` (both days included)".into()),
            },
            "refuse" => match words.as_slice() {
                [_, what, power] if what.eq_ignore_ascii_case("absence") => {
                    Item::Master { line: line.number, command: MasterCommand::RefuseAbsence { power: cap_word(power) } }
                }
                _ => malformed(line, "write `refuse absence POWER`, e.g. `refuse absence france`".into()),
            },
            "replace" => match words.as_slice() {
                [_, power, address] if plausible_address(address) => Item::Master {
                    line: line.number,
                    command: MasterCommand::Replace { power: power.to_string(), address: address.to_string() },
                },
                _ => malformed(
                    line,
                    "write `replace POWER new.player@example.org` (a small game: the player's name)".into(),
                ),
            },
            _ => {
                // An order line: gather it with the order lines right after it.
                let mut orders = vec![line.clone()];
                while i < lines.len() && is_order_line(&lines[i]) {
                    orders.push(lines[i].clone());
                    i += 1;
                }
                orders.retain(|l| !l.text.trim().is_empty());
                Item::Orders(orders)
            }
        };
        block.items.push(item);
    }
    if let Some(done) = current.take() {
        script.blocks.push(done);
    }
    script
}

/// Njudge's words, read as this judge's (`SET DRAW` is `draw`, `SUMMARY` is `status` in a
/// block and `list` outside one, `SIGNON ?GAME PASSWORD` is `join GAME PASSWORD`), or the
/// answer that says how this judge writes it. Other lines come back as they are.
fn njudge(words: &[&str], in_block: bool) -> Result<Vec<String>, String> {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let owned = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    let first = lower[0].as_str();
    match first {
        "signon" if words.get(1).is_some_and(|w| w.starts_with('?') && w.len() > 1) => {
            let mut out = vec!["join".to_string(), words[1][1..].to_string()];
            out.extend(owned(&words[2..]));
            Ok(out)
        }
        "summary" if words.len() == 1 => Ok(vec![if in_block { "status" } else { "list" }.to_string()]),
        "whois" => Err("this judge writes it `list GAME`: it names who plays each power (a gunboat game keeps \
                        that secret until its end)"
            .into()),
        "set" => match lower.get(1).map(String::as_str) {
            Some("draw") => Ok(owned(&words[1..])),
            Some("nodraw") => Ok(vec!["nodraw".into()]),
            Some("no") if lower.get(2).is_some_and(|w| w == "draw") => Ok(vec!["nodraw".into()]),
            Some("wait" | "nowait" | "password" | "absence") => Ok(owned(&words[1..])),
            Some("preference" | "preferences") => Err("this judge writes it `join GAME PASSWORD prefer fra eng` \
                                                         (best first), before the game starts"
                .into()),
            _ => Err("`set` is how Njudge writes its settings; this judge writes each as a command of its own \
                      (`draw`, `wait`, `password NEW`, `absence 2026-12-20 to 2026-12-27`): send `help`"
                .into()),
        },
        "get" | "diary" | "phase" | "postal" | "become" | "eject" | "promote" | "unstart" | "terminate" => Err(
            format!("`{first}` is an Njudge command this judge does not have; send `help` for this judge's commands"),
        ),
        _ => Ok(owned(words)),
    }
}

const COMMANDS: &[&str] = &[
    "signon",
    "signoff",
    "press",
    "broadcast",
    "endpress",
    "status",
    "wait",
    "nowait",
    "early",
    "list",
    "history",
    "help",
    "password",
    "timezone",
    "tz",
    "map",
    "reports",
    "process",
    "pause",
    "resume",
    "extend",
    "replace",
    "draw",
    "nodraw",
    "concede",
    "noconcede",
    "absence",
    "refuse",
    "resign",
    "approve",
    "preview",
    "join",
    "leave",
    "observe",
    "takeover",
    "create",
];

/// Whether a line that is not a SIGNON was meant to be one: its first word is one letter
/// off `signon` or its letters swapped (`SIGNIN`, `SINGON`, `sign-on`, `SIGNON:`, `sign on`),
/// or it is two or three words, not a command, with a `POWER@GAME` among the first two (no
/// order names one).
fn mistyped_signon(words: &[&str]) -> bool {
    if signon_keyword(words) > 0 {
        return true;
    }
    // `france@mygame secret` or `SIGNN france@mygame secret`: a POWER@GAME word among
    // two or three words.
    !COMMANDS.contains(&words[0].to_ascii_lowercase().as_str())
        && (2..=3).contains(&words.len())
        && words[..2].iter().any(|w| is_power_at_game(w))
}

/// How many of the first words are a sign-on keyword as the reader takes one: `SIGNON`,
/// one letter off it or its letters swapped (`SIGNIN`, `SINGON`, `sign-on`, `SIGNON:`),
/// 1; `sign on` or `log on`, 2; none, 0.
pub fn signon_keyword(words: &[&str]) -> usize {
    let Some(first) = words.first() else { return 0 };
    let first: String = first.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    let mut letters: Vec<char> = first.chars().collect();
    letters.sort_unstable();
    if matches!(first.as_str(), "sign" | "log") && words.get(1).is_some_and(|w| w.eq_ignore_ascii_case("on")) {
        2
    } else if edit_distance(&first, "signon") <= 1 || letters == ['g', 'i', 'n', 'n', 'o', 's'] {
        1
    } else {
        0
    }
}

/// Whether a word is a `POWER@GAME` as a sign-on writes it (`france@mygame`), not an
/// address (an address has a dot after the @; a game name rarely does).
pub fn is_power_at_game(word: &str) -> bool {
    word.split_once('@').is_some_and(|(who, game)| {
        let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_');
        plain(who) && plain(game)
    })
}

/// The Levenshtein distance of two short words (longer ones are simply far apart).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > 16 || b.len() > 16 {
        return usize::MAX;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb)).min(above + 1).min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Whether a word (lowercase) is one of the command words.
pub fn is_command_word(word: &str) -> bool {
    COMMANDS.contains(&word)
}

fn is_order_line(line: &BodyLine) -> bool {
    let words: Vec<&str> = line.text.split_whitespace().collect();
    let first = words.first().unwrap_or(&"").to_ascii_lowercase();
    !COMMANDS.contains(&first.as_str()) && (words.is_empty() || !mistyped_signon(&words))
}

fn malformed(line: &BodyLine, problem: String) -> Item {
    Item::Malformed { line: line.number, text: crate::mail::inbound::cap(line.text.trim(), 200), problem }
}

/// A malformed line that must not be echoed (it may hold a password).
fn malformed_hidden(line: &BodyLine, keyword: &str, problem: String) -> Item {
    Item::Malformed { line: line.number, text: format!("{keyword} ..."), problem }
}

fn cap_word(w: &str) -> String {
    crate::mail::inbound::cap(w, 60)
}

fn parse_signon(words: &[&str]) -> Result<SignOn, String> {
    const FORM: &str = "write `SIGNON POWER@GAME PASSWORD`, e.g. `SIGNON france@mygame secret`";
    let (who, game, password) = match words {
        [id, password] => match id.split_once('@') {
            Some((who, game)) => (who.to_string(), game.to_string(), password.to_string()),
            None => {
                // The classic form: one letter for the power, then the game's name.
                let mut chars = id.chars();
                let initial = chars.next().map(String::from).unwrap_or_default();
                (initial, chars.as_str().to_string(), password.to_string())
            }
        },
        [who, game, password] => (who.to_string(), game.to_string(), password.to_string()),
        _ => return Err(FORM.to_string()),
    };
    let word_ok =
        |w: &str| !w.is_empty() && w.len() <= 64 && w.chars().all(|c| c.is_alphanumeric() || "-_.".contains(c));
    if !word_ok(&who) || !word_ok(&game) {
        return Err(FORM.to_string());
    }
    if password.len() > 128 {
        return Err("that password is too long".to_string());
    }
    Ok(SignOn { who, game, password })
}

fn parse_press_to(words: &[&str]) -> Result<PressTo, String> {
    let rest: Vec<&str> = match words.first().map(|w| w.to_ascii_lowercase()) {
        None => return Ok(PressTo::All),
        Some(w) if w == "to" => words[1..].to_vec(),
        Some(_) => words.to_vec(),
    };
    let names: Vec<String> = rest
        .iter()
        .flat_map(|w| w.split(','))
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| crate::mail::inbound::cap(w, 40))
        .collect();
    if names.is_empty() {
        return Err("write `press to france, italy` or `press to all`".into());
    }
    if names.iter().any(|n| n.eq_ignore_ascii_case("all") || n.eq_ignore_ascii_case("everyone")) {
        return Ok(PressTo::All);
    }
    Ok(PressTo::Powers(names))
}

/// The press text after a `press` line: up to `endpress` (closed), or up to a SIGNON,
/// SIGNOFF or the end (not closed). Returns the text, whether it was closed, and how
/// many lines were used (including `endpress`).
fn press_body(rest: &[BodyLine]) -> (String, bool, usize) {
    let mut text = String::new();
    for (n, line) in rest.iter().enumerate() {
        let words: Vec<&str> = line.text.split_whitespace().collect();
        let first = words.first().unwrap_or(&"").to_ascii_lowercase();
        match first.as_str() {
            "endpress" => return (text, true, n + 1),
            "signon" | "signoff" => return (text, false, n),
            // A mistyped SIGNON ends the press too: its password is never sent on.
            _ if !words.is_empty() && mistyped_signon(&words) => return (text, false, n),
            _ => {
                text.push_str(&line.text);
                text.push('\n');
            }
        }
    }
    (text, false, rest.len())
}

/// `2026-12-20 to 2026-12-27`, `2026-12-20 2026-12-27` or one day, `2026-12-20`.
fn parse_absence(words: &[&str]) -> Option<(chrono::NaiveDate, chrono::NaiveDate)> {
    // A day as `2026-12-20`, or as Njudge writes it, `20 dec 2026`.
    let day = |ws: &[&str]| match ws {
        [w] => chrono::NaiveDate::parse_from_str(w, "%Y-%m-%d").ok(),
        [d, m, y] => chrono::NaiveDate::parse_from_str(&format!("{d} {m} {y}"), "%d %b %Y").ok(),
        _ => None,
    };
    let is_to = |w: &&str| ["to", "-", "until", "till"].iter().any(|t| w.eq_ignore_ascii_case(t));
    match words.iter().position(is_to) {
        Some(at) => Some((day(&words[..at])?, day(&words[at + 1..])?)),
        None => match words {
            [from, to] => Some((day(&[from])?, day(&[to])?)),
            one => day(one).map(|d| (d, d)),
        },
    }
}

/// How `extend` is written, for its error answers.
const EXTEND_FORM: &str = "`90m`, `2h`, `1d12h` or a number of hours, from 1 minute to 30 days";

/// The longest one `extend` moves a deadline.
pub const MAX_EXTENSION: Span = Span::hours(720);

/// `extend`'s time: a [`Span`] from a minute to [`MAX_EXTENSION`].
fn parse_extension(w: &str) -> Result<Span, String> {
    let by = Span::parse(w)?;
    if by.is_zero() || by > MAX_EXTENSION {
        return Err(format!("`{w}`: an extension is {EXTEND_FORM}"));
    }
    Ok(by)
}

fn plausible_address(a: &str) -> bool {
    a.len() <= 254
        && a.split_once('@').is_some_and(|(l, d)| !l.is_empty() && d.contains('.'))
        && a.chars().all(|c| c.is_ascii_graphic() && !"<>,;\"()[]\\".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<BodyLine> {
        text.lines().enumerate().map(|(i, t)| BodyLine { number: i + 1, text: t.to_string() }).collect()
    }

    /// The help names every shipped variant a master may create.
    #[test]
    fn the_help_names_every_shipped_variant() {
        let words: Vec<&str> = HELP.split(|c: char| !c.is_ascii_alphanumeric() && c != '-').collect();
        for name in crate::diplomacy::map::shipped::names() {
            assert!(words.contains(&name), "{name}");
        }
    }

    /// Issue 41.3: Njudge's words are read as this judge's, or answered with how it writes
    /// them; never taken for orders (no province hint for a command word).
    #[test]
    fn njudge_words_are_read_as_the_judges_own_or_answered() {
        let s = parse_script(&lines(
            "SIGNON france@g secret1\nSET DRAW\nSET ABSENCE 20 dec 2026 TO 27 dec 2026\nSUMMARY\nWHOIS germany\nSET NO DRAW\nSET FOO",
        ));
        let items = &s.blocks[0].items;
        assert!(matches!(&items[0], Item::Player { command: PlayerCommand::Draw { powers }, .. } if powers.is_empty()));
        let day = |d| chrono::NaiveDate::from_ymd_opt(2026, 12, d).unwrap();
        assert!(
            matches!(&items[1], Item::Player { command: PlayerCommand::Absence { from, to }, .. } if *from == day(20) && *to == day(27)),
            "{:?}",
            items[1]
        );
        assert!(matches!(items[2], Item::Status { .. }));
        assert!(matches!(&items[3], Item::Malformed { problem, .. } if problem.contains("`list GAME`")));
        assert!(matches!(&items[4], Item::Player { command: PlayerCommand::NoDraw, .. }));
        assert!(matches!(&items[5], Item::Malformed { problem, .. } if problem.contains("send `help`")));
        assert!(!items.iter().any(|i| matches!(i, Item::Orders(_))), "{items:?}");
        // Without a sign-on: Njudge's join, and SUMMARY as `list`.
        let s = parse_script(&lines("SIGNON ?mygame secret1\nSUMMARY"));
        assert!(s.blocks.is_empty(), "{:?}", s.blocks);
        assert!(
            matches!(&s.lobby[0].request, Ok(crate::mail::lobby::Request::Join { game, password, .. }) if game == "mygame" && password == "secret1")
        );
        assert!(matches!(&s.lobby[1].request, Ok(crate::mail::lobby::Request::List { game: None })));
        // ISO days still read as before.
        assert_eq!(parse_absence(&["2026-12-20", "to", "2026-12-27"]), Some((day(20), day(27))));
        assert_eq!(parse_absence(&["2026-12-20"]), Some((day(20), day(20))));
    }

    #[test]
    fn signon_forms() {
        for (line, who, game) in [
            ("SIGNON FRANCE@mygame pw", "FRANCE", "mygame"),
            ("signon fra@mygame pw", "fra", "mygame"),
            ("SignOn france mygame pw", "france", "mygame"),
            ("SIGNON Fmygame pw", "F", "mygame"),
        ] {
            let s = parse_script(&lines(line));
            let signon = s.blocks[0].signon.clone().unwrap();
            assert_eq!((signon.who.as_str(), signon.game.as_str(), signon.password.as_str()), (who, game, "pw"));
        }
        assert!(parse_script(&lines("SIGNON")).blocks[0].signon.is_err());
        assert!(parse_script(&lines("SIGNON a@b c d e")).blocks[0].signon.is_err());
    }

    #[test]
    fn a_mistyped_signon_is_a_block_that_cannot_sign_on_and_hides_its_password() {
        for typo in [
            "SIGNIN france@g hunter22",
            "sign-on france@g hunter22",
            "SIGNON: france@g hunter22",
            "Sigon france@g hunter22",
            "singon france@g hunter22",
            "SIGN ON france@g hunter22",
            "france@g hunter22",
        ] {
            let s = parse_script(&lines(&format!("SIGNON italy@g pw\nA ven h\n{typo}\nA par - bur")));
            assert_eq!(s.blocks.len(), 2, "{typo}");
            assert_eq!(s.blocks[0].items.len(), 1, "{typo}: the first block keeps only its own order");
            let problem = s.blocks[1].signon.clone().unwrap_err();
            assert!(problem.contains("is not SIGNON"), "{typo}: {problem}");
            assert!(!problem.contains("hunter22"), "{typo}: {problem}");
            assert!(s.blocks[1].items.iter().all(|i| matches!(i, Item::Orders(_))), "{typo}");
        }
        // Real commands and orders are not mistaken for one.
        let s = parse_script(&lines("SIGNON master@g pw\nreplace italy new@example.org\nsignoff\nA par - bur"));
        assert_eq!(s.blocks.len(), 1);
        assert!(matches!(&s.blocks[0].items[0], Item::Master { .. }));
        assert_eq!(s.stray.len(), 1);
        let s = parse_script(&lines("SIGNON italy@g pw\nA ven h\nSigned, your friend\nAnn <ann@example.org> wrote:"));
        assert_eq!(s.blocks.len(), 1);
        assert_eq!(edit_distance("signin", "signon"), 1);
        assert_eq!(edit_distance("status", "signon"), 5);
    }

    /// Issue 28, item 13: `extend` takes minutes, hours and days; a bare number is hours.
    #[test]
    fn extend_takes_a_time_with_units() {
        for (text, minutes) in
            [("extend 90m", 90), ("extend 24", 1440), ("EXTEND 1d 12h", 2160), ("extend 720h", 43200)]
        {
            let s = parse_script(&lines(&format!("SIGNON master@g pw\n{text}")));
            let by = match &s.blocks[0].items[0] {
                Item::Master { command: MasterCommand::Extend { by }, .. } => *by,
                other => panic!("{text}: {other:?}"),
            };
            assert_eq!(by, Span::minutes(minutes), "{text}");
        }
        for (text, says) in [
            ("extend 90x", "`90x`: a duration is a number with m, h or d"),
            ("extend 0m", "`0m`: an extension is `90m`, `2h`, `1d12h` or a number of hours, from 1 minute to 30 days"),
            ("extend 31d", "`31d`: an extension is"),
            ("extend", "write `extend TIME`: `90m`"),
        ] {
            let s = parse_script(&lines(&format!("SIGNON master@g pw\n{text}")));
            match &s.blocks[0].items[0] {
                Item::Malformed { problem, .. } => assert!(problem.contains(says), "{text}: {problem}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn blocks_orders_press_and_commands() {
        let s = parse_script(&lines(
            "hello\nSIGNON fra@g pw\nA par - bur\nF bre - mao\nstatus\npress to ita, ger\nhi\nendpress\n\
             SIGNOFF\nSIGNON master@g2 pw\nextend 24h\nreplace italy new@example.org\ntimezone Mars/Olympus",
        ));
        assert_eq!(s.stray.len(), 1);
        assert_eq!(s.blocks.len(), 2);
        let first = &s.blocks[0].items;
        assert!(matches!(&first[0], Item::Orders(o) if o.len() == 2 && o[1].number == 4));
        assert!(matches!(first[1], Item::Status { line: 5 }));
        assert!(matches!(&first[2], Item::Press { to: PressTo::Powers(p), text, closed: true, .. }
            if p == &["ita".to_string(), "ger".to_string()] && text == "hi\n"));
        let second = &s.blocks[1].items;
        assert!(
            matches!(second[0], Item::Master { command: MasterCommand::Extend { by }, .. } if by == Span::hours(24))
        );
        assert!(matches!(&second[1], Item::Master { command: MasterCommand::Replace { .. }, .. }));
        assert!(matches!(&second[2], Item::Malformed { .. }));
    }

    #[test]
    fn map_on_and_off() {
        let s = parse_script(&lines("SIGNON fra@g pw\nmap off\nMAP On\nmap please"));
        let items = &s.blocks[0].items;
        assert!(matches!(items[0], Item::Pictures { line: 2, on: false }));
        assert!(matches!(items[1], Item::Pictures { line: 3, on: true }));
        assert!(
            matches!(&items[2], Item::Malformed { line: 4, problem, .. } if problem == "write `map off` or `map on`")
        );
    }
}
