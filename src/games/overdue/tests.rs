//! One test per ruling of docs/overdue.md, then random games as a property test.
//!
//! Rulings tests set the dice by hand after the setup roll (the state is plain data) and
//! read the squeeze-in rolls the seed will give before they are made, so every outcome
//! tested is known in advance.

use super::*;
use crate::dice::Seed;

fn seed(byte: u8) -> Seed {
    Seed::from_bytes([byte; 32])
}

fn options(pairs: &[(&str, &str)]) -> Options {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn names(n: usize) -> Vec<String> {
    ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim"][..n]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// A game under test and its dice.
struct Table {
    g: Overdue,
    dice: Dice,
}

impl Table {
    /// `n` players, ann first, every player's dice set to `hands` (seat order).
    fn new(n: usize, opts: &[(&str, &str)], hands: &[&[u8]]) -> Table {
        let mut dice = Dice::new(seed(7), "t", 0);
        let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
        let mut g = Overdue::new(names(n), &options(opts), &mut ctx).unwrap();
        g.first = 0;
        for (p, hand) in g.players.iter_mut().zip(hands) {
            p.dice = hand.iter().map(|&value| Die { value, used: None }).collect();
        }
        dice.take_rolls();
        Table { g, dice }
    }

    fn ctx(&mut self) -> TurnContext<'_> {
        TurnContext { dice: &mut self.dice, now: chrono::DateTime::UNIX_EPOCH, hold: false }
    }

    /// Submit for `who` and run the automatic steps: the answers and the events.
    fn play(&mut self, who: usize, text: &str) -> (TurnAck, Vec<String>) {
        let mut dice = self.dice.clone();
        let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
        let ack = self.g.submit(who, text, &mut ctx);
        let events = self.g.advance(&mut ctx);
        self.dice = dice;
        (ack, events)
    }

    /// Play a turn that must be accepted.
    fn ok(&mut self, who: usize, text: &str) -> Vec<String> {
        let (ack, events) = self.play(who, text);
        assert!(ack.lines.iter().all(|l| l.accepted), "{text:?} refused: {ack:?}");
        events
    }

    /// Play a turn file that must be refused whole; the first reason.
    fn refused(&mut self, who: usize, text: &str) -> String {
        let before = self.g.clone();
        let (ack, _) = self.play(who, text);
        assert!(ack.lines.iter().all(|l| !l.accepted), "{text:?} accepted: {ack:?}");
        assert_eq!(self.g, before, "a refused turn changes nothing");
        ack.lines[0].text.clone()
    }

    /// The next `k` results of a d6 from the dice, without rolling them.
    fn upcoming(&self, k: usize) -> Vec<u8> {
        let mut d = self.dice.clone();
        (0..k).map(|_| d.roll(6, "peek") as u8).collect()
    }
}

#[test]
fn setup_rolls_the_first_player_and_every_die_and_sets_the_time() {
    let mut dice = Dice::new(seed(1), "g", 0);
    let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
    let g = Overdue::new(names(4), &options(&[("dice_per_player", "5")]), &mut ctx).unwrap();
    let rolls = dice.take_rolls();
    assert_eq!(rolls[0].n, 4, "the first player is drawn among the 4");
    assert_eq!(g.first, rolls[0].result as usize - 1);
    assert_eq!(rolls.len(), 1 + 4 * 5, "every die of every player rolled at once");
    let values: Vec<u8> = g.players.iter().flat_map(|p| p.dice.iter().map(|d| d.value)).collect();
    assert_eq!(values, rolls[1..].iter().map(|r| r.result as u8).collect::<Vec<_>>());
    assert!(g.players.iter().all(|p| p.total == 0 && p.round_score == 0 && !p.cashed));
    assert_eq!(g.time, 4, "the time is the number of players");
    let mut dice = Dice::new(seed(1), "g", 0);
    let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
    assert_eq!(Overdue::new(names(8), &Options::new(), &mut ctx).unwrap().time, 6, "at most 6");
}

#[test]
fn players_and_options_are_checked() {
    let mut dice = Dice::new(seed(1), "g", 0);
    let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
    let two = Overdue::new(names(2), &Options::new(), &mut ctx).unwrap_err();
    assert!(two.contains("3 to 10 players") && two.contains("not 2"), "{two}");
    assert!(Overdue::new(names(11), &Options::new(), &mut ctx).is_err());
    for (k, v, says) in [
        ("rounds", "0", "1 to 100"),
        ("rounds", "ten", "1 to 100"),
        ("dice_per_player", "2", "3 to 12"),
        ("rotate_first", "maybe", "true or false"),
        ("speed", "9", "unknown option `speed`"),
    ] {
        let e = Overdue::new(names(3), &options(&[(k, v)]), &mut ctx).unwrap_err();
        assert!(e.contains(says), "{k}={v}: {e}");
    }
    let g = Overdue::new(names(3), &options(&[("rounds", "8"), ("rotate_first", "no")]), &mut ctx).unwrap();
    assert_eq!(g.rules, Rules { rounds: 8, dice_per_player: 3, rotate_first: false });
    assert_eq!(g.option_lines(), ["rounds = 8", "dice_per_player = 3", "rotate_first = false"]);
}

#[test]
fn score_sets_a_die_aside_and_adds_its_value() {
    let mut t = Table::new(3, &[], &[&[5, 5, 2], &[1, 1, 1], &[1, 1, 1]]);
    let (ack, _) = t.play(0, "score 5");
    assert_eq!(ack.lines[0].text, "ann scores 5 (round score 5)");
    assert_eq!(t.g.players[0].dice[0].used, Some(Use::Score));
    assert_eq!(t.g.players[0].dice[1].used, None, "only one die of the two fives");
    assert_eq!(t.g.to_play(), Some(1));
}

#[test]
fn a_die_the_player_does_not_hold_unused_is_refused() {
    let mut t = Table::new(3, &[], &[&[5, 3, 2], &[1, 1, 1], &[1, 1, 1]]);
    let why = t.refused(0, "s 4");
    assert!(why.contains("no unused 4: your unused dice show 5, 3, 2"), "{why}");
    t.ok(0, "s 5");
    t.ok(1, "d 1");
    t.ok(2, "d 1");
    let why = t.refused(0, "time 5");
    assert!(why.contains("no unused 5"), "a used die is not held unused: {why}");
}

#[test]
fn time_rises_above_and_falls_at_or_below() {
    let mut t = Table::new(3, &[], &[&[6, 3, 1], &[4, 4, 4], &[1, 1, 1]]);
    assert_eq!(t.g.time, 3);
    let (ack, _) = t.play(0, "time 6");
    assert_eq!(ack.lines[0].text, "ann puts 6 on the time: above 3, the time rises to 4");
    assert_eq!(t.g.time, 4);
    let (ack, _) = t.play(1, "t 4");
    assert_eq!(ack.lines[0].text, "bob puts 4 on the time: not above 4, the time falls to 3");
    assert_eq!(t.g.time, 3, "equal is not greater: down");
}

#[test]
fn the_time_decays_after_each_pass() {
    let mut t = Table::new(3, &[], &[&[6, 3, 1], &[4, 4, 4], &[1, 1, 1]]);
    t.ok(0, "d 1");
    t.ok(1, "d 4");
    let events = t.ok(2, "d 1");
    assert_eq!(events, ["End of pass 1: the time decays to 2."]);
    assert_eq!((t.g.time, t.g.pass, t.g.to_play()), (2, 2, Some(0)));
}

#[test]
fn a_time_turn_that_reaches_zero_brings_the_deadline_at_once() {
    let mut t = Table::new(3, &[("rounds", "2")], &[&[1, 1, 1], &[1, 1, 1], &[6, 6, 6]]);
    t.g.time = 1;
    t.ok(0, "score 1");
    let events = t.ok(1, "time 1");
    assert_eq!(events[0], "Round 1: the deadline arrives.", "{events:?}");
    assert_eq!(t.g.round, 2, "cat never played: turns stopped at once");
    assert_eq!(t.g.last_round[2].round_score, 0);
}

#[test]
fn cash_locks_the_round_score_and_then_only_time_or_discard() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    t.ok(0, "score 6");
    t.ok(1, "d 1");
    t.ok(2, "d 1");
    let (ack, _) = t.play(0, "cash");
    assert_eq!(ack.lines[0].text, "ann cashes 6");
    t.ok(1, "d 1");
    t.ok(2, "d 1");
    let why = t.refused(0, "score 5");
    assert!(why.contains("you have cashed this round"), "{why}");
    let why = t.refused(0, "cash");
    assert!(why.contains("already cashed"), "{why}");
    assert_eq!(t.g.awaiting().what, "a turn (time or discard)");
    t.ok(0, "discard 5");
}

#[test]
fn pass_only_without_dice_and_cashed_players_without_dice_are_skipped() {
    let mut t = Table::new(3, &[], &[&[2], &[6], &[6]]);
    t.g.time = 6;
    let why = t.refused(0, "pass");
    assert!(why.contains("only with no die left"), "{why}");
    t.ok(0, "score 2");
    t.ok(1, "time 6");
    t.ok(2, "d 6");
    assert_eq!(t.g.awaiting().what, "a turn (cash or pass)");
    t.ok(0, "cash");
    t.ok(1, "pass");
    t.ok(2, "cash");
    // Pass 3: ann and cat have cashed and hold no die: only bob plays.
    assert_eq!(t.g.to_play(), Some(1));
    let time = t.g.time;
    let events = t.ok(1, "pass");
    assert_eq!(events[0], format!("End of pass 3: the time decays to {}.", time - 1));
    assert_eq!(t.g.to_play(), Some(1), "skipped again");
}

#[test]
fn when_everyone_is_skipped_the_time_runs_out_by_itself() {
    let mut t = Table::new(3, &[("rounds", "1")], &[&[2], &[3], &[4]]);
    t.g.time = 5;
    t.ok(0, "cash");
    t.ok(1, "cash");
    t.ok(2, "cash");
    t.ok(0, "d 2");
    t.ok(1, "d 3");
    let events = t.ok(2, "d 4");
    assert!(events.iter().any(|e| e == "End of pass 5: the time decays to 0."), "{events:?}");
    assert_eq!(t.g.stage, Stage::Over);
}

#[test]
fn an_uncashed_player_squeezes_in_on_6_by_default_and_a_hit_cashes() {
    let mut t = Table::new(3, &[("rounds", "2")], &[&[4], &[1], &[1]]);
    t.g.time = 1;
    t.ok(0, "score 4");
    t.ok(1, "cash");
    let next = t.upcoming(1)[0];
    let events = t.ok(2, "time 1");
    let ann = &t.g.last_round[0];
    let squeeze = ann.squeeze.as_ref().expect("ann had not cashed");
    assert_eq!((squeeze.number, squeeze.rolls.as_slice(), squeeze.cost), (6, &[next][..], 0));
    assert_eq!(squeeze.hit, next == 6);
    assert_eq!(t.g.players[0].total, if next == 6 { 4 } else { 0 });
    assert!(t.g.last_round[1].squeeze.is_none(), "bob cashed: no squeeze-in");
    assert!(events[1].starts_with("ann squeezes in on 6: rolls "), "{events:?}");
    // cat had not cashed either, and comes after ann in seat order.
    assert!(events[2].starts_with("cat squeezes in on 6"), "{events:?}");
}

/// The squeeze-in of ann (round score 5, total `total`, line `line`), with the dice set
/// so that the first roll misses and the second hits.
fn squeeze_after_a_miss(total: u32, line: &str) -> Table {
    for byte in 0..=255u8 {
        let mut t = Table::new(3, &[("rounds", "3")], &[&[5], &[1], &[1]]);
        t.dice = Dice::new(seed(byte), "t", 0);
        let next = t.upcoming(2);
        if next[0] == next[1] {
            continue;
        }
        t.g.players[0].total = total;
        t.g.time = 1;
        t.ok(0, &format!("score 5\n{}", line.replace('N', &next[1].to_string())));
        t.ok(1, "cash");
        t.ok(2, "time 1");
        return t;
    }
    unreachable!("some seed gives two different rolls")
}

#[test]
fn a_bought_re_roll_costs_10_and_can_squeeze_in() {
    let t = squeeze_after_a_miss(23, "squeeze N rerolls 2");
    let s = t.g.last_round[0].squeeze.clone().unwrap();
    assert_eq!((s.rerolls, s.cost, s.hit, s.rolls.len()), (1, 10, true, 2), "one re-roll, then the hit: {s:?}");
    assert_eq!(t.g.players[0].total, 23 - 10 + 5);
}

#[test]
fn no_re_roll_without_10_points_nor_beyond_the_line() {
    let t = squeeze_after_a_miss(9, "squeeze N rerolls 5");
    let s = t.g.last_round[0].squeeze.clone().unwrap();
    assert_eq!((s.rerolls, s.cost, s.hit), (0, 0, false), "9 points buy nothing");
    assert_eq!(t.g.players[0].total, 9, "the total never goes below 0 and the score is lost");
    let t = squeeze_after_a_miss(100, "squeeze N rerolls 0");
    assert_eq!(t.g.last_round[0].squeeze.as_ref().unwrap().rerolls, 0);
    assert_eq!(t.g.players[0].total, 100);
}

#[test]
fn at_most_five_re_rolls_and_a_miss_loses_the_round_score() {
    // ann names a number the next six rolls never show, if there is one: five re-rolls.
    for byte in 0..=255u8 {
        let mut t = Table::new(3, &[("rounds", "3")], &[&[5], &[1], &[1]]);
        t.dice = Dice::new(seed(byte), "t", 0);
        let next = t.upcoming(6);
        let Some(never) = (1..=6).find(|v| !next.contains(v)) else { continue };
        t.g.players[0].total = 100;
        t.g.time = 1;
        t.ok(0, &format!("score 5\nsqueeze {never} rerolls 5"));
        t.ok(1, "cash");
        t.ok(2, "time 1");
        let s = t.g.last_round[0].squeeze.clone().unwrap();
        assert_eq!((s.rerolls, s.cost, s.hit, s.rolls.len()), (5, 50, false, 6));
        assert_eq!(t.g.players[0].total, 50, "paid 50, banked nothing");
        assert_eq!(t.g.last_round[0].banked, 0);
        return;
    }
    panic!("no seed of 256 left a number out of six rolls");
}

#[test]
fn no_re_roll_is_bought_to_save_a_round_score_of_0() {
    let mut t = Table::new(3, &[("rounds", "3")], &[&[5], &[1], &[1]]);
    t.g.players[0].total = 50;
    t.g.time = 1;
    t.ok(0, "discard 5\nsqueeze 6 rerolls 5");
    t.ok(1, "cash");
    t.ok(2, "time 1");
    let s = t.g.last_round[0].squeeze.clone().unwrap();
    assert_eq!((s.rerolls, s.cost), (0, 0));
    assert_eq!(t.g.players[0].total, 50);
}

#[test]
fn squeeze_lines_are_taken_at_any_time_and_stand_until_replaced() {
    let mut t = Table::new(3, &[("rounds", "3")], &[&[5], &[1], &[1]]);
    let (ack, _) = t.play(2, "squeeze 3 rerolls 1");
    assert!(ack.lines[0].accepted, "not cat's turn, but a squeeze line is not a turn: {ack:?}");
    assert_eq!(t.g.players[2].squeeze, Some(Squeeze { number: 3, rerolls: 1 }));
    assert_eq!(t.g.to_play(), Some(0), "and it is still ann's turn");
    t.g.time = 1;
    t.ok(0, "cash");
    t.ok(1, "cash");
    t.ok(2, "time 1");
    assert_eq!(t.g.round, 2);
    assert_eq!(t.g.players[2].squeeze, Some(Squeeze { number: 3, rerolls: 1 }), "it stands in the next round");
}

#[test]
fn squeeze_ins_go_in_seat_order_from_the_rounds_first_player() {
    let mut t = Table::new(4, &[("rounds", "3")], &[&[1], &[1], &[1], &[1]]);
    t.g.first = 2;
    t.g.time = 1;
    let events = t.ok(2, "time 1");
    let order: Vec<&str> =
        events.iter().filter_map(|e| e.split(" squeezes in").next().filter(|_| e.contains("squeezes"))).collect();
    assert_eq!(order, ["cat", "dan", "ann", "bob"]);
}

#[test]
fn the_first_player_rotates_unless_the_option_says_not() {
    for (rotate, expected) in [("true", 1), ("false", 0)] {
        let mut t = Table::new(3, &[("rotate_first", rotate)], &[&[1], &[1], &[1]]);
        t.g.time = 1;
        t.ok(0, "time 1");
        assert_eq!((t.g.round, t.g.first), (2, expected), "rotate_first = {rotate}");
        assert_eq!(t.g.to_play(), Some(expected));
        assert_eq!(t.g.time, 3, "the time is set again");
        assert!(t.g.players.iter().all(|p| p.dice.len() == 3 && p.dice.iter().all(|d| d.used.is_none())));
    }
}

#[test]
fn the_highest_total_wins_and_equal_totals_share() {
    let mut t = Table::new(3, &[("rounds", "1")], &[&[5], &[5], &[2]]);
    t.g.time = 6;
    t.ok(0, "s 5");
    t.ok(1, "s 5");
    t.ok(2, "s 2");
    t.ok(0, "cash");
    t.ok(1, "cash");
    assert!(t.g.ending().is_none());
    // Everyone cashed with no die left: skipped until the time runs out.
    let events = t.ok(2, "cash");
    assert_eq!(events.last().unwrap(), "The game is over: ann and bob share the win with 5.");
    let g = &t.g;
    assert_eq!(g.ending(), Some(Ending::Won { players: vec![0, 1] }));
    assert!(g.awaiting().players.is_empty());
}

#[test]
fn several_turns_are_used_in_order_on_the_next_turns() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    t.g.time = 6;
    let (ack, _) = t.play(0, "score 6\ns 5\ncash");
    assert!(ack.lines.iter().all(|l| l.accepted), "{ack:?}");
    assert_eq!(ack.lines[1].text, "`score 5` queued for your next turn in this round");
    assert_eq!(t.g.players[0].queue, [Turn::Score(5), Turn::Cash]);
    t.ok(1, "d 1");
    let events = t.ok(2, "d 1");
    assert!(events.contains(&"ann scores 5 (round score 11) (sent ahead).".to_string()), "{events:?}");
    assert_eq!(t.g.to_play(), Some(1), "ann's turn was taken for her");
    t.ok(1, "d 1");
    t.ok(2, "d 1");
    assert!(t.g.players[0].cashed);
    assert_eq!(t.g.players[0].round_score, 11);
}

#[test]
fn the_first_illegal_turn_is_refused_and_the_rest_dropped() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    let (ack, _) = t.play(0, "score 6\ncash\nscore 5\ndiscard 4");
    let ok: Vec<bool> = ack.lines.iter().map(|l| l.accepted).collect();
    assert_eq!(ok, [true, true, false, false]);
    assert!(ack.lines[2].text.contains("you have cashed this round"), "{}", ack.lines[2].text);
    assert!(ack.lines[3].text.contains("not used: line 3 was refused"), "{}", ack.lines[3].text);
    assert_eq!(t.g.players[0].queue, [Turn::Cash]);
}

#[test]
fn turns_sent_ahead_are_dropped_at_the_deadline() {
    let mut t = Table::new(3, &[("rounds", "2")], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    t.g.time = 1;
    t.ok(0, "score 6\nscore 5");
    t.ok(1, "time 1");
    assert_eq!(t.g.round, 2);
    assert!(t.g.players[0].queue.is_empty());
}

#[test]
fn a_time_turn_bringing_the_deadline_uses_no_later_line() {
    let mut t = Table::new(3, &[("rounds", "2")], &[&[1, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    t.g.time = 1;
    let (ack, _) = t.play(0, "time 1\nscore 5");
    assert!(ack.lines[0].accepted);
    assert!(!ack.lines[1].accepted && ack.lines[1].dropped, "{ack:?}");
}

#[test]
fn a_turn_out_of_turn_is_refused_with_whose_turn_it_is() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    let why = t.refused(1, "discard 1");
    assert_eq!(why, "not your turn: it is ann's turn");
}

#[test]
fn junk_lines_are_refused_with_line_and_column_and_stop_the_turns_after_them() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    let before = t.g.clone();
    let (ack, _) = t.play(0, "\n  hello judge\nscore 6\n\u{0}\u{fffd}");
    assert_eq!((ack.lines[0].line, ack.lines[0].column, ack.lines[0].accepted), (2, 3, false));
    assert!(ack.lines[1].text.contains("line 2 was not understood"), "{:?}", ack.lines[1]);
    assert_eq!(ack.lines.len(), 3);
    assert!(!ack.changed());
    assert_eq!(t.g, before);
    let huge = "score 6\n".repeat(8_000);
    let (ack, _) = t.play(0, &huge);
    assert_eq!(ack.lines.iter().filter(|l| l.accepted).count(), 1, "one 6: one turn, the next refused");
}

#[test]
fn a_missed_deadline_is_a_pass_even_with_dice() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    let mut g = t.g.clone();
    let mut ctx = t.ctx();
    assert_eq!(g.force(crate::turn::Defaulted::Deadline, &mut ctx), ["ann missed the turn's deadline and passes"]);
    assert_eq!(g.to_play(), Some(1));
    assert!(g.players[0].dice.iter().all(|d| d.used.is_none()));
}

/// A vacant seat passes the same way, said as such: no deadline had passed.
#[test]
fn a_vacant_seat_passes_and_says_why() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    let (mut deadline, mut vacant) = (t.g.clone(), t.g.clone());
    let mut ctx = t.ctx();
    assert_eq!(vacant.force(crate::turn::Defaulted::Vacant, &mut ctx), ["ann's seat is vacant: ann passes"]);
    deadline.force(crate::turn::Defaulted::Deadline, &mut ctx);
    assert_eq!(vacant, deadline);
}

#[test]
fn the_state_saves_and_loads_and_damage_is_named() {
    let t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    let saved = t.g.save();
    assert_eq!(Overdue::load(&saved).unwrap(), t.g);
    let mut bad = saved.clone();
    bad["players"][0]["dice"][0]["value"] = 9.into();
    assert!(Overdue::load(&bad).unwrap_err().contains("outside 1-6"));
    bad = saved.clone();
    bad["first"] = 5.into();
    assert!(Overdue::load(&bad).unwrap_err().contains("first player"));
    assert!(Overdue::load(&serde_json::json!({"x": 1})).unwrap_err().contains("not a stored game"));
}

#[test]
fn the_report_shows_dice_scores_cash_time_totals_and_squeeze() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[3, 2, 1], &[1, 1, 1]]);
    t.ok(0, "score 6\nsqueeze 4 rerolls 2");
    t.ok(1, "time 3");
    let text = t.g.report_text();
    assert!(text.starts_with("Round 1 of 10, pass 1. Time: 2. ann plays first this round."), "{text}");
    assert!(text.contains("ann     6s 5 4  6      no      0      on 4, up to 2 re-rolls"), "{text}");
    assert!(text.contains("bob     3t 2 1"), "{text}");
    let json = t.g.status_json();
    assert_eq!(json["game"], "overdue");
    assert_eq!(json["time"], 2);
    assert_eq!(json["awaiting"], serde_json::json!(["cat"]));
    assert_eq!(json["players"][0]["dice"][0], serde_json::json!({"value": 6, "used": "score"}));
    assert_eq!(json["players"][0]["dice"][1], serde_json::json!({"value": 5, "used": null}));
    assert_eq!(json["players"][1]["dice"][0]["used"], "time");
    assert_eq!(json["players"][0]["squeeze"], "squeeze 4 rerolls 2");
    assert_eq!(json["players"][1]["squeeze"], serde_json::Value::Null);
    assert_eq!(json["players"][0]["round_score"], 6);
    assert_eq!(json["winners"], serde_json::Value::Null);
}

/// 1,000 random games with random legal turn files: each ends after its rounds; every
/// round's totals move by the cashed scores less the re-rolls paid; no total is negative
/// (a u32 cannot be, so: no re-roll was bought without 10 points). That a game replays
/// from its journal is the shared conformance check's (`game::conformance`).
#[test]
fn random_games_keep_the_books() {
    use super::random::RandomPlayer;
    for game_no in 0..1_000u64 {
        let mut chooser = RandomPlayer::new(game_no);
        let n = 3 + chooser.below(8);
        let rounds = 1 + chooser.below(6) as u32;
        let dice_per = 3 + chooser.below(3);
        let opts = options(&[
            ("rounds", &rounds.to_string()),
            ("dice_per_player", &dice_per.to_string()),
            ("rotate_first", if chooser.below(2) == 0 { "true" } else { "false" }),
        ]);
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&game_no.to_be_bytes());
        let mut dice = Dice::new(Seed::from_bytes(bytes), "prop", 0);
        let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
        let mut g = Overdue::new(names(n), &opts, &mut ctx).unwrap();
        g.advance(&mut ctx);
        ctx.dice.take_rolls();
        let mut rounds_seen = 0;
        let mut steps = 0;
        while let Some(p) = g.to_play() {
            steps += 1;
            assert!(steps < 10_000, "game {game_no} does not end");
            let (round_before, totals_before): (u32, Vec<u32>) = (g.round, g.players.iter().map(|p| p.total).collect());
            if chooser.below(15) == 0 {
                g.force(crate::turn::Defaulted::Deadline, &mut ctx);
            } else {
                let text = chooser.turn_file(&g, p);
                let ack = g.submit(p, &text, &mut ctx);
                assert!(ack.lines.iter().all(|l| l.accepted || l.dropped), "game {game_no}: {text:?}: {ack:?}");
            }
            g.advance(&mut ctx);
            if g.round != round_before || g.stage == Stage::Over {
                rounds_seen += 1;
                for (i, r) in g.last_round.iter().enumerate() {
                    let cost = r.squeeze.as_ref().map_or(0, |s| s.cost);
                    let cashed = r.cashed || r.squeeze.as_ref().is_some_and(|s| s.hit);
                    assert_eq!(r.banked, if cashed { r.round_score } else { 0 });
                    assert_eq!(g.players[i].total + cost, totals_before[i] + r.banked, "game {game_no}");
                    if let Some(s) = &r.squeeze {
                        assert!(s.rerolls <= MAX_REROLLS && s.cost == REROLL_COST * u32::from(s.rerolls));
                        assert_eq!(s.rolls.len(), 1 + usize::from(s.rerolls));
                        assert_eq!(s.hit, s.rolls.last() == Some(&s.number));
                        assert!(totals_before[i] >= s.cost, "game {game_no}: paid more than the total");
                    }
                }
            }
        }
        assert_eq!(g.stage, Stage::Over, "game {game_no}: nobody awaited but not over");
        assert_eq!((rounds_seen, g.round), (rounds, rounds), "game {game_no}");
        let best = g.players.iter().map(|p| p.total).max().unwrap();
        let Some(Ending::Won { players }) = g.ending() else { panic!("no winner") };
        assert!(players.iter().all(|&w| g.players[w].total == best) && !players.is_empty());

        assert_eq!(Overdue::load(&g.save()).unwrap(), g);
    }
}

#[test]
fn issue_27_turns_the_deadline_drops_get_one_answer_whichever_turn_brings_it() {
    // `t 1` takes the time to 0 at once; `s 3` ends a pass whose decay takes it to 0.
    for first in ["t 1", "s 3"] {
        let mut t = Table::new(3, &[("rounds", "2")], &[&[1, 1, 1], &[1, 1, 1], &[1, 3, 4]]);
        t.g.time = 1;
        t.ok(0, "d 1");
        t.ok(1, "d 1");
        let (ack, events) = t.play(2, &format!("{first}\ncash"));
        assert!(ack.lines[0].accepted, "{first}: {ack:?}");
        assert_eq!(
            ack.lines[1].text,
            "`cash` not used: the deadline comes before your next turn (turns sent ahead are dropped then)",
            "{first}"
        );
        assert!(!ack.lines[1].accepted, "{first}: same case, same answer (and exit status)");
        assert!(events.iter().any(|e| e == "Round 1: the deadline arrives."), "{events:?}");
        assert_eq!(t.g.round, 2);
    }
    // A turn sent ahead that waits for another player's turn stays queued.
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    t.g.time = 6;
    let (ack, _) = t.play(0, "score 6\ncash");
    assert!(ack.lines.iter().all(|l| l.accepted), "{ack:?}");
}

#[test]
fn issue_27_the_others_read_the_move_itself() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[3, 1, 1], &[1, 1, 1]]);
    t.g.time = 3;
    let (ack, _) = t.play(0, "score 5");
    assert_eq!(ack.events, ["ann scores 5 (round score 5)."]);
    let (ack, _) = t.play(1, "time 3");
    assert_eq!(ack.events, ["bob puts 3 on the time: not above 3, the time falls to 2."]);
}

#[test]
fn issue_27_squeeze_words_the_default_and_a_skipped_players_pass() {
    let mut t = Table::new(3, &[], &[&[6, 5, 4], &[1, 1, 1], &[1, 1, 1]]);
    let (ack, _) = t.play(1, "squeeze 4 rerolls 0");
    assert_eq!(
        ack.lines[0].text,
        "squeeze 4 rerolls 0: if the deadline finds you uncashed you roll once for 4, no re-roll; it stands until you send another"
    );
    assert!(!ack.lines[0].text.contains("at most 0"));
    let (ack, _) = t.play(1, "squeeze 6 rerolls 0");
    assert!(ack.lines[0].text.contains("back to the default"), "{ack:?}");
    assert!(t.g.report_text().contains("on 6, no re-roll (default)"), "{}", t.g.report_text());
    assert_eq!(t.g.status_json()["players"][1]["squeeze"], serde_json::Value::Null);

    // Cashed with no die left: skipped, so a `pass` sent ahead is refused, not shown.
    let mut t = Table::new(3, &[], &[&[6], &[1, 1], &[1, 1]]);
    t.g.time = 6;
    let (ack, _) = t.play(0, "score 6\ncash\npass");
    assert!(ack.lines[1].accepted, "{ack:?}");
    assert!(!ack.lines[2].accepted && ack.lines[2].text.contains("you are skipped"), "{ack:?}");
    assert_eq!(t.g.players[0].queue, [Turn::Cash]);
}

#[test]
fn issue_27_the_round_summary_says_the_round_score_and_the_re_roll_cost_apart() {
    let mut t = Table::new(3, &[("rounds", "3")], &[&[5, 1, 1], &[1, 1, 1], &[1, 1, 1]]);
    t.g.players[0].total = 30;
    t.g.time = 1;
    // ann squeezes in first: name a number none of her 3 rolls shows, so she misses
    // with 2 re-rolls bought.
    let rolls = t.upcoming(3);
    let number = (1..=6).find(|n| !rolls.contains(n)).unwrap();
    t.g.players[0].squeeze = Some(Squeeze { number, rerolls: 2 });
    t.ok(0, "score 5");
    t.ok(1, "d 1");
    t.ok(2, "d 1");
    let text = t.g.report_text();
    let line = text.lines().find(|l| l.starts_with("Round 1:")).unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(&format!(
            "ann missed the squeeze-in on {number}, losing a round score of 5 and paid 20 points for 2 re-rolls"
        )),
        "{line}"
    );
}

#[test]
fn the_comment_rule_of_every_game_holds_in_overdue() {
    let mut t = Table::new(3, &[], &[&[5, 5, 2], &[1, 1, 1], &[1, 1, 1]]);
    let (ack, _) = t.play(0, "# my plan\n\n   # still nothing\nscore 5 # the best die\nsqueeze 4#no space");
    let answered: Vec<(usize, bool)> = ack.lines.iter().map(|l| (l.line, l.accepted)).collect();
    assert_eq!(answered, [(4, true), (5, true)], "{ack:?}");
    assert_eq!(ack.lines[0].text, "ann scores 5 (round score 5)");
}

/// docs/overdue.md with its lines joined, for the tests that hold the docs to the judge.
fn docs() -> String {
    include_str!("../../../docs/overdue.md").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Issue 43, item 2: the third way the deadline is sure to come before a turn sent
/// ahead: another player's turn sent ahead earlier brings it (here ann's `time 1`, used
/// once cat's turn ends the pass). Cat's turn after it is answered `not used` at once,
/// and the docs name this case.
#[test]
fn another_players_turn_sent_ahead_that_brings_the_deadline_drops_mine_at_once() {
    let mut t = Table::new(3, &[("rounds", "2")], &[&[1, 1, 1], &[1, 1, 1], &[5, 4, 3]]);
    t.g.time = 2;
    let (ack, _) = t.play(0, "d 1\nt 1");
    assert!(ack.lines.iter().all(|l| l.accepted), "{ack:?}");
    assert_eq!(t.g.players[0].queue, [Turn::Time(1)], "ann's `time 1` waits for her next turn");
    t.ok(1, "d 1");
    let (ack, events) = t.play(2, "s 5\ns 4");
    assert!(ack.lines[0].accepted, "{ack:?}");
    assert!(!ack.lines[1].accepted && ack.lines[1].dropped, "{ack:?}");
    assert_eq!(
        ack.lines[1].text,
        "`score 4` not used: the deadline comes before your next turn (turns sent ahead are dropped then)"
    );
    assert!(events.contains(&"ann puts 1 on the time: not above 1, the time falls to 0 (sent ahead).".to_string()));
    assert!(events.iter().any(|e| e == "Round 1: the deadline arrives."), "{events:?}");
    assert!(
        docs().contains(
            "or, before your turn comes round again, turns the other players sent ahead earlier take the time to 0"
        ),
        "docs/overdue.md names the third way"
    );
}

/// Issue 43, item 6: with many turns sent ahead (three files of 20 turns, 12 dice each,
/// 10 players, a round of re-rolls behind them) no report line runs past the report's
/// width: the turns sent ahead are listed under the table, wrapped, and so is the last
/// round's summary; nothing is left out.
#[test]
fn the_report_keeps_its_lines_short_with_many_turns_sent_ahead() {
    let hand: &[u8] = &[1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6];
    let mut t = Table::new(10, &[("dice_per_player", "12")], &[hand; 10]);
    t.g.round = 2;
    for p in &mut t.g.players {
        p.total = 1234;
        p.squeeze = Some(Squeeze { number: 4, rerolls: 5 });
    }
    t.g.last_round = (0..10)
        .map(|i| RoundResult {
            round_score: 108,
            cashed: false,
            squeeze: Some(SqueezeResult { number: 6, rolls: vec![1; 6], rerolls: 5, cost: 50, hit: i % 2 == 0 }),
            banked: 0,
        })
        .collect();
    let file: String = hand.iter().map(|v| format!("discard {v}\n")).chain((0..8).map(|_| "pass\n".into())).collect();
    for who in 0..3 {
        let (ack, _) = t.play(who, &file);
        assert!(ack.lines.iter().all(|l| l.accepted) && ack.lines.len() == MAX_TURNS_PER_FILE, "{ack:?}");
        assert_eq!(t.g.players[who].queue.len(), MAX_TURNS_PER_FILE - 1);
    }
    let text = t.g.report_text();
    let longest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest <= 100, "a line of {longest} characters:\n{text}");
    let ahead = &text[text.find("Sent ahead").unwrap_or_else(|| panic!("{text}"))..text.find("Key:").unwrap()];
    assert_eq!(ahead.matches("discard").count(), 3 * 11, "{text}");
    assert_eq!(ahead.matches("pass").count(), 3 * 8, "{text}");
    assert!(ahead.contains("\n  ann: discard 2, discard 3,"), "{text}");
    let summary = &text[text.find("\nRound 1:").unwrap()..];
    assert_eq!(summary.matches(" on 6, ").count(), 10, "every player's round: {text}");
    assert!(summary.trim_end().ends_with("paid 50 points for 5 re-rolls."), "{text}");
    assert_eq!(t.g.status_json()["players"][0]["sent_ahead"].as_array().unwrap().len(), MAX_TURNS_PER_FILE - 1);
}

/// Issue 38.5: a turn refused is told apart by its kind, and said in the same words.
#[test]
fn a_refused_turn_is_told_by_its_kind() {
    let mut p = Player {
        name: "ann".into(),
        dice: vec![Die { value: 3, used: None }, Die { value: 5, used: Some(Use::Time) }],
        round_score: 0,
        cashed: true,
        total: 0,
        squeeze: None,
        queue: Vec::new(),
    };
    assert_eq!(p.check(Turn::Score(3)), Err(TurnRefusal::ScoreAfterCash));
    assert_eq!(p.check(Turn::Cash), Err(TurnRefusal::CashedAlready));
    assert_eq!(p.check(Turn::Time(5)), Err(TurnRefusal::NoSuchDie { value: 5, unused: vec![3] }));
    let pass = p.check(Turn::Pass).unwrap_err();
    assert_eq!(pass, TurnRefusal::PassWithDice { unused: vec![3] });
    assert_eq!(
        pass.to_string(),
        "you may pass only with no die left; your unused dice show 3: discard one if you want none of them"
    );
    assert_eq!(p.check(Turn::Discard(3)), Ok(()));
    p.dice[0].used = Some(Use::Discard);
    assert_eq!(p.check(Turn::Time(3)), Err(TurnRefusal::AllDiceUsed { value: 3 }));
    assert_eq!(p.check(Turn::Pass), Err(TurnRefusal::Skipped));
}
