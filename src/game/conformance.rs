//! The conformance check every game kind passes, played on the store as the judge plays
//! it (a game directory, its journal and cache, its dice): random play from the game's
//! own candidate lines, with the deadline now and then. At every step:
//! - a refused turn file changes nothing, in the game or in the journal;
//! - a message carried out again (the same message tag, after a crash) is kept once;
//! - the game read back from its journal alone (the cache deleted) is the game played.
//!
//! Then a rollback to an earlier round gives that round's start again (its windows moved
//! to the rollback's time), play goes on from there, the seed is revealed and `verify`
//! proves every roll and replays the whole journal.
//!
//! One check for every game, the toy one under `tests/` included: a game that passes it
//! keeps the judge's promises (nothing accepted is lost or applied twice; every roll can
//! be checked).

#![cfg(test)]

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Duration, TimeZone, Utc};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::session::turn::{self, OpenTurnGame, Seat, TurnPlayer, TurnSettings};
use super::settings::Master;
use crate::dice::{Dice, Seed};
use crate::games::{GameKind, Options};
use crate::turn::{TurnContext, TurnGame};

const NAMES: [&str; 10] = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon"];

/// What a run did, to check that the check checked something.
#[derive(Debug, Default)]
pub struct Played {
    pub accepted: usize,
    pub refused: usize,
    pub deadlines: usize,
    pub redelivered: usize,
    pub rolled_back: bool,
    pub ended: bool,
    pub rolls_verified: usize,
}

fn settings(kind: &GameKind, players: usize) -> TurnSettings {
    TurnSettings {
        name: format!("{}-check", kind.name),
        game: kind.name.to_string(),
        observers: Vec::new(),
        observer_passwords: Default::default(),
        deadlines: Default::default(),
        players: NAMES[..players]
            .iter()
            .map(|n| TurnPlayer {
                name: n.to_string(),
                email: format!("{n}@example.org"),
                timezone: None,
                password_hash: None,
                reports: None,
            })
            .collect(),
        master: Master::default(),
        word_list: None,
        seats: Default::default(),
    }
}

fn journal_len(g: &OpenTurnGame) -> usize {
    g.entries.len()
}

/// The game read back from its journal alone must be the game played.
fn assert_replays(dir: &Path, g: &OpenTurnGame, context: &str) {
    let _ = std::fs::remove_file(dir.join(crate::store::STATE_FILE));
    let again = turn::open_read_only(dir).expect("the game opens from its journal");
    assert_eq!(again.game.save(), g.game.save(), "{context}: the journal replays to the state played");
    assert_eq!(again.meta.next_roll, g.meta.next_roll, "{context}: the dice stand where they stood");
}

/// A game that says every candidate line is legal: each one, tried alone on a copy,
/// is accepted whole.
fn assert_all_accepted(
    kind: &GameKind,
    game: &dyn TurnGame,
    player: usize,
    lines: &[String],
    now: DateTime<Utc>,
    context: &str,
) {
    for line in lines {
        let mut trial = (kind.load)(&game.save()).expect("a saved game loads back");
        let mut dice = Dice::new(Seed::from_bytes([0; 32]), "trial", 0);
        let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
        let ack = trial.submit(player, line, &mut ctx);
        assert!(
            !ack.lines.is_empty() && ack.lines.iter().all(|l| l.accepted),
            "{context}: `{line}` is a candidate of a game that lists only legal lines, yet refused: {:?}",
            ack.lines
        );
    }
}

/// Play one game of `kind` at random from `seed` for at most `steps` steps, checking the
/// store's promises as it goes (see the module's comment).
pub fn check(kind: &GameKind, seed: u64, steps: usize) -> Played {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (low, high) = kind.players;
    let players = rng.gen_range(low..=high.min(NAMES.len()));
    let tmp = tempfile::tempdir().expect("a scratch directory");
    let dir = tmp.path().join("game");
    let mut now: DateTime<Utc> = Utc.with_ymd_and_hms(2027, 1, 1, 12, 0, 0).unwrap();
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_be_bytes());
    let mut g = turn::create(&dir, &settings(kind, players), &Options::new(), Seed::from_bytes(seed_bytes), now)
        .unwrap_or_else(|e| panic!("{}: a game of {players} with the default options: {e}", kind.name));
    // What the kind offers is what its games do: master lines are a capability the game has
    // or not, never a method that refuses them.
    assert_eq!(
        g.game.master_lines().is_some(),
        kind.offers.master_lines,
        "{}: the game's master lines and the kind's offer disagree",
        kind.name
    );
    let mut played = Played::default();
    // The state at the start of each round, as a rollback must give it back.
    let mut starts: BTreeMap<u32, serde_json::Value> = BTreeMap::new();
    starts.insert(g.game.round(), g.game.save());
    let mut last_sent: Option<(String, Seat, String)> = None;
    let rollback_at = rng.gen_range(steps / 4..steps / 2);
    for step in 0..steps {
        let over = g.game.ending().is_some();
        if over && (played.rolled_back || starts.len() < 2) {
            break;
        }
        let context = format!("{} seed {seed} step {step}", kind.name);
        now += Duration::seconds(rng.gen_range(1..600));
        let awaiting = g.game.awaiting();
        let master_lines = g.game.candidate_lines(Seat::Master);
        let choice: Option<(Seat, String)> = if over {
            None
        } else if awaiting.master && !master_lines.is_empty() && rng.gen_bool(0.7) {
            Some((Seat::Master, master_lines[rng.gen_range(0..master_lines.len())].clone()))
        } else if rng.gen_bool(0.85) {
            // Mostly whoever is awaited; now and then anyone (out of turn: refused).
            let p = match awaiting.players.as_slice() {
                [] => rng.gen_range(0..players),
                some if rng.gen_bool(0.9) => some[rng.gen_range(0..some.len())],
                _ => rng.gen_range(0..players),
            };
            let lines = g.game.candidate_lines(Seat::Player(p));
            if kind.offers.legal_candidates {
                assert_all_accepted(kind, g.game.as_ref(), p, &lines, now, &context);
            }
            if rng.gen_bool(0.1) {
                // A line no game takes: refused, and nothing changes.
                Some((Seat::Player(p), "xyzzy 42 ~!".to_string()))
            } else {
                (!lines.is_empty()).then(|| (Seat::Player(p), lines[rng.gen_range(0..lines.len())].clone()))
            }
        } else {
            None
        };
        match choice {
            Some((seat, line)) => {
                let before = (g.game.save(), journal_len(&g));
                let tag = format!("message-{step}");
                g.carry_out(Some(tag.clone()));
                let sent = g.submit(seat, &line, now, now).unwrap_or_else(|e| panic!("{context}: `{line}`: {e}"));
                g.carry_out(None);
                if sent.seq.is_some() {
                    played.accepted += 1;
                    last_sent = Some((tag, seat, line));
                } else {
                    played.refused += 1;
                    assert_eq!((g.game.save(), journal_len(&g)), before, "{context}: refused `{line}` changed nothing");
                }
            }
            None if over => {}
            None => {
                // The deadline passes: the defaults for whatever is awaited.
                now = now.max(g.meta.deadline.unwrap_or(now));
                let step_name = g.clock_step();
                match g.force(true, Some(&step_name), now) {
                    Ok(_) => played.deadlines += 1,
                    Err(e) => panic!("{context}: the deadline: {e}"),
                }
            }
        }
        // The last accepted message carried out again, as after a crash before its
        // answer went out: kept once.
        if rng.gen_bool(0.1) {
            if let Some((tag, seat, line)) = &last_sent {
                let before = (g.game.save(), journal_len(&g));
                let mut again = turn::open(&dir).expect("the game opens again");
                again.carry_out(Some(tag.clone()));
                assert!(again.has_message(tag), "{context}: the journal names the message it carried out");
                let _ = again.submit(*seat, line, now, now);
                g = turn::open(&dir).expect("the game opens again");
                assert_eq!(
                    (g.game.save(), journal_len(&g)),
                    before,
                    "{context}: `{line}` carried out again is kept once"
                );
                played.redelivered += 1;
            }
        }
        starts.entry(g.game.round()).or_insert_with(|| g.game.save());
        if step % 10 == 0 {
            assert_replays(&dir, &g, &context);
        }
        if (step == rollback_at || over) && !played.rolled_back && starts.len() > 1 {
            let (&round, start) = starts.iter().nth(rng.gen_range(0..starts.len() - 1)).expect("an earlier round");
            g.rollback(round, now).unwrap_or_else(|e| panic!("{context}: rollback to round {round}: {e}"));
            let mut expected = (kind.load)(start).expect("a saved start loads");
            if let Some(windows) = expected.windows_mut() {
                windows.rebase(now);
            }
            assert_eq!(g.game.save(), expected.save(), "{context}: rolled back to the start of round {round}");
            assert_replays(&dir, &g, &context);
            starts.retain(|r, _| *r <= round);
            played.rolled_back = true;
        }
    }
    played.ended = g.game.ending().is_some();
    if !played.ended {
        g.reveal(true, now).expect("the seed can be revealed");
    }
    let g = turn::open_read_only(&dir).expect("the game opens");
    played.rolls_verified = g.verify().unwrap_or_else(|e| panic!("{} seed {seed}: verify: {e:?}", kind.name));
    assert_eq!(played.rolls_verified, g.journaled_rolls().len());
    assert_replays(&dir, &g, &format!("{} seed {seed}, the end", kind.name));
    played
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::KINDS;

    /// Every game the judge runs, Diplomacy's kinds among them (and the toy one beside
    /// the tests), keeps the store's promises under random play.
    #[test]
    fn every_game_kind_passes_the_conformance_check() {
        let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        for kind in ["standard", "shadow-worlds", "duplexity", "overdue", "duple", "pebbles"] {
            assert!(names.contains(&kind), "{kind} is not in the registry: {names:?}");
        }
        for kind in KINDS {
            let mut total = Played::default();
            for seed in 0..3 {
                let p = check(kind, seed, 90);
                total.accepted += p.accepted;
                total.refused += p.refused;
                total.deadlines += p.deadlines;
                total.redelivered += p.redelivered;
                total.rolled_back |= p.rolled_back;
                total.ended |= p.ended;
                total.rolls_verified += p.rolls_verified;
            }
            // The check must have exercised what it checks.
            let name = kind.name;
            assert!(total.accepted > 20, "{name}: {total:?}");
            assert!(total.refused > 0 && total.deadlines > 0 && total.redelivered > 0, "{name}: {total:?}");
            assert!(total.rolled_back, "{name}: a rollback was tried: {total:?}");
            // Verify where there are dice; a kind without them journals no roll.
            assert_eq!(total.rolls_verified > 0, kind.offers.dice, "{name}: {total:?}");
        }
    }

    #[test]
    fn the_toy_game_is_one_folder_and_one_line() {
        let toy = crate::games::kind("pebbles").expect("the toy game is registered");
        assert_eq!(toy.seats_in_words(), "2 to 4 players");
        assert!(toy.help().contains("--option max_take (default 3)"), "{}", toy.help());
        let p = check(toy, 7, 400);
        assert!(p.ended, "a game of pebbles ends: {p:?}");
    }
}
