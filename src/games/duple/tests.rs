//! Rulings of Duple, one test each, on tables set up card by card; and a property test of
//! many seeded random games.

use super::draw::Band;
use super::*;
use crate::dice::{Dice, Seed};
use crate::turn::Windows;

fn at(hms: &str) -> DateTime<Utc> {
    format!("2026-03-01T{hms}Z").parse().unwrap()
}

const NAMES: [&str; 8] = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"];

/// A game on a table the test sets up.
struct Table {
    g: Duple,
    dice: Dice,
    /// The layer's hold on a step that takes input together (`TurnContext::hold`).
    hold: bool,
}

impl Table {
    fn new(n: usize, options: &[(&str, &str)]) -> Table {
        let mut dice = Dice::new(Seed::from_bytes([7; 32]), "t", 0);
        let options: Options = options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let players = NAMES[..n].iter().map(|s| s.to_string()).collect();
        let mut ctx = TurnContext { dice: &mut dice, now: at("12:00:00"), hold: false };
        let mut g = Duple::create(players, &options, &mut ctx).unwrap();
        g.state.started = true;
        g.state.dealer = 0;
        g.state.next_drawer = 0;
        g.state.drawer = 0;
        // A known category on top (the real top card goes back to the deck's discards).
        g.discard_category();
        if let Some(i) = g.state.categories.ordinary.iter().position(|c| *c == 0) {
            g.state.categories.ordinary.remove(i);
            let band = g.state.categories.bands.iter_mut().rev().find(|b| b.left > b.special).unwrap();
            band.left -= 1;
            g.state.categories.bands.retain(|b| b.left > 0);
        }
        g.state.discards.retain(|c| *c != 0);
        g.state.category = Some(0);
        assert!(g.state.categories.consistent());
        Table { g, dice, hold: false }
    }

    fn p(&self, name: &str) -> usize {
        self.g.state.players.iter().position(|n| n == name).unwrap()
    }

    /// The Letter Card with this letter and symbol.
    fn card(&self, letter: char, symbol: &str) -> u16 {
        let s = self.g.deck.symbols.iter().position(|x| x == symbol).unwrap();
        self.g.deck.letters.iter().position(|l| l.letter == letter && l.symbol == s).unwrap() as u16
    }

    /// The Wild Card showing these two symbols.
    fn wild(&self, a: &str, b: &str) -> u16 {
        let (a, b) = (
            self.g.deck.symbols.iter().position(|x| x == a).unwrap(),
            self.g.deck.symbols.iter().position(|x| x == b).unwrap(),
        );
        let w = self.g.deck.wilds.iter().position(|w| *w == [a, b] || *w == [b, a]).unwrap();
        (self.g.deck.letters.len() + w) as u16
    }

    /// Take a card out of the letter deck, keeping the counts right.
    fn take(&mut self, card: u16) -> u16 {
        let deck = &mut self.g.state.letters;
        if let Some(i) = deck.ordinary.iter().position(|c| *c == card) {
            deck.ordinary.remove(i);
            let band = deck.bands.iter_mut().rev().find(|b| b.left > b.special).unwrap();
            band.left -= 1;
        } else {
            let i = deck.special.iter().position(|c| *c == card).unwrap();
            deck.special.remove(i);
            let band = deck.bands.iter_mut().rev().find(|b| b.special > 0).unwrap();
            band.special -= 1;
            band.left -= 1;
        }
        deck.bands.retain(|b| b.left > 0);
        assert!(deck.consistent());
        card
    }

    /// Put a card on a pile (taken from the deck), as if drawn there.
    fn put(&mut self, pile: usize, letter: char, symbol: &str) -> u16 {
        let card = self.take(self.card(letter, symbol));
        let since = self.g.tick();
        self.g.state.piles[pile].cards.push(card);
        self.g.state.piles[pile].since = since;
        card
    }

    /// The letter deck is now a Wild Card on a Letter Card: drawn in that order.
    fn stack_letters(&mut self, wild: u16, letter: u16) {
        self.g.state.letters = DrawPile {
            ordinary: vec![letter],
            special: vec![wild],
            bands: vec![Band { left: 1, special: 1 }, Band { left: 1, special: 0 }],
            floating: 0,
        };
    }

    /// A player's lines, then the automatic steps, as the layer runs them.
    fn send(&mut self, who: &str, text: &str, when: &str) -> TurnAck {
        self.send_at(who, text, at(when))
    }

    fn send_at(&mut self, who: &str, text: &str, when: DateTime<Utc>) -> TurnAck {
        let p = self.p(who);
        let mut dice = self.dice.clone();
        let mut ctx = TurnContext { dice: &mut dice, now: when, hold: self.hold };
        let mut ack = self.g.submit(p, text, &mut ctx);
        if ack.changed() {
            while let events @ [_, ..] = &self.g.advance(&mut ctx)[..] {
                ack.events.extend(events.iter().cloned());
            }
            self.dice = dice;
        }
        ack
    }

    fn master(&mut self, text: &str, when: &str) -> TurnAck {
        let mut ctx = TurnContext { dice: &mut self.dice, now: at(when), hold: false };
        let mut ack = self.g.master(text, &mut ctx);
        if ack.changed() {
            while let events @ [_, ..] = &self.g.advance(&mut ctx)[..] {
                ack.events.extend(events.iter().cloned());
            }
        }
        ack
    }

    fn force(&mut self, when: DateTime<Utc>) -> Vec<String> {
        let mut ctx = TurnContext { dice: &mut self.dice, now: when, hold: false };
        let mut events = self.g.force(crate::turn::Defaulted::Deadline, &mut ctx);
        while let more @ [_, ..] = &self.g.advance(&mut ctx)[..] {
            events.extend(more.iter().cloned());
        }
        events
    }

    fn advance(&mut self, when: &str) -> Vec<String> {
        let mut ctx = TurnContext { dice: &mut self.dice, now: at(when), hold: self.hold };
        self.g.advance(&mut ctx)
    }

    fn contest(&self) -> &Contest {
        self.g.state.contest.as_ref().expect("a contest is open")
    }

    /// Queue the matches of a pile's top card and run the automatic steps.
    fn reveal(&mut self, pile: usize) -> Vec<String> {
        self.g.state.drawer = self.g.state.piles[pile].owner;
        self.g.queue_matches_of(pile);
        self.advance("12:00:00")
    }

    fn refused(ack: &TurnAck) -> String {
        assert!(!ack.changed(), "{ack:?}");
        ack.lines.iter().map(|l| l.text.clone()).collect::<Vec<_>>().join(" | ")
    }
}

fn accepted(ack: &TurnAck) {
    assert!(ack.lines.iter().all(|l| l.accepted), "{ack:?}");
}

#[test]
fn a_symbol_match_opens_a_faceoff_for_those_two_players_only() {
    let mut t = Table::new(3, &[]);
    t.put(0, 'R', "star");
    t.put(1, 'E', "star");
    t.put(2, 'A', "sun");
    let events = t.reveal(1);
    assert!(events.iter().any(|e| e.starts_with("Faceoff 1:")), "{events:?}");
    assert_eq!(t.contest().players, vec![1, 0], "the drawer first");
    assert_eq!(t.contest().letters, vec!['E', 'R']);
    assert_eq!(t.g.awaiting().players, vec![1, 0]);
    let outsider = t.send("cat", "answer tree", "12:01:00");
    assert!(Table::refused(&outsider).contains("you are not in faceoff 1"), "{outsider:?}");
}

#[test]
fn two_unlike_symbols_face_off_through_the_wild_card() {
    let mut t = Table::new(3, &[]);
    t.put(0, 'D', "sun");
    t.put(1, 'N', "wave");
    assert!(t.g.all_matches().is_empty(), "no Wild Card yet: no match");
    t.g.state.wild = Some(t.take(t.wild("sun", "wave")));
    let events = t.advance("12:00:00");
    assert!(events.iter().any(|e| e.contains("by the Wild Card sun + wave")), "{events:?}");
    assert!(matches!(t.contest().kind, ContestKind::Faceoff { by_wild: true, .. }));
}

#[test]
fn several_matches_are_played_one_after_another_in_seat_order_from_the_drawer() {
    let mut t = Table::new(4, &[]);
    t.put(0, 'O', "moon");
    t.put(3, 'R', "moon");
    t.put(1, 'T', "sun");
    t.put(2, 'E', "moon");
    t.reveal(2); // cat drew: dan (next in seat order) first, then ann
    let ContestKind::Faceoff { piles, .. } = t.contest().kind else { panic!() };
    assert_eq!(piles, [2, 3]);
    t.send("cat", "answer Emerald", "12:00:10");
    t.force(at("12:00:10") + Duration::hours(12));
    // cat won against dan; dan's pile is empty now; cat's E (moon) still matches ann's A.
    assert_eq!(t.g.state.won[2].len(), 1);
    let ContestKind::Faceoff { piles, .. } = t.contest().kind else { panic!() };
    assert_eq!(piles, [2, 0]);
}

#[test]
fn answers_need_both_letters_twice_when_equal_and_one_word_unless_proper() {
    let mut t = Table::new(3, &[]);
    t.put(0, 'E', "moon");
    t.put(1, 'E', "heart");
    t.g.state.wild = Some(t.take(t.wild("moon", "heart")));
    t.advance("12:00:00");
    assert_eq!(t.contest().letters, vec!['E', 'E']);
    let one_e = t.send("ann", "answer ten", "12:00:01");
    assert!(Table::refused(&one_e).contains("1 E where 2 are needed"), "{one_e:?}");
    let two_words = t.send("ann", "answer green tea", "12:00:01");
    assert!(Table::refused(&two_words).contains("one word"), "{two_words:?}");
    accepted(&t.send("ann", "answer \"Eve Green\" proper", "12:00:02"));
    accepted(&t.send("bob", "answer tree", "12:00:03"));
    let again = t.send("bob", "answer TREE", "12:00:04");
    assert!(Table::refused(&again).contains("already answered"), "{again:?}");
}

#[test]
fn the_first_answer_received_wins_once_its_challenge_window_closes() {
    let mut t = Table::new(3, &[]);
    let d = t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let category = t.g.state.category;
    accepted(&t.send("bob", "answer ladle", "12:00:20"));
    // ann's answer counts as received earlier (the judge's clock decides): it is first.
    let ack = t.send("ann", "answer leopard", "12:00:10");
    accepted(&ack);
    let c = t.contest();
    // ann's answer was received earlier: it takes over from bob's at once, with its own
    // challenge window from now.
    assert_eq!(Duple::candidate(c).map(|i| c.answers[i].player), Some(0));
    assert_eq!(t.g.deadline(), Some(at("12:00:10") + Duration::hours(12)));
    let events = t.force(at("12:00:10") + Duration::hours(12));
    assert!(events.iter().any(|e| e.contains("ann wins faceoff 1 with leopard")), "{events:?}");
    assert_eq!(t.g.state.won[0], vec![d], "the winner takes the loser's top card");
    assert_ne!(t.g.state.category, category, "the category changes after a faceoff");
    assert!(t.g.state.discards.contains(&category.unwrap()));
}

#[test]
fn a_challenged_answer_rejected_by_vote_is_out_and_the_next_one_is_considered() {
    let mut t = Table::new(4, &[]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    accepted(&t.send("bob", "answer ladle", "12:00:30"));
    let ch = t.send("bob", "challenge", "13:00:00");
    accepted(&ch);
    assert!(ch.lines[0].text.contains("cat and dan vote"), "{ch:?}");
    let own = t.send("ann", "vote accept", "13:00:01");
    assert!(Table::refused(&own).contains("you are in faceoff 1"), "{own:?}");
    accepted(&t.send("cat", "vote reject", "13:10:00"));
    let twice = t.send("cat", "vote accept", "13:11:00");
    assert!(Table::refused(&twice).contains("already voted"), "{twice:?}");
    let ack = t.send("dan", "vote reject", "13:20:00");
    accepted(&ack);
    assert!(ack.events.iter().any(|e| e.contains("lard is rejected by vote, 0 accept, 2 reject")), "{ack:?}");
    let c = t.contest();
    let i = Duple::candidate(c).unwrap();
    assert_eq!(c.answers[i].text, "ladle", "the next answer received is considered");
    assert_eq!(c.answers[i].window_end, Some(at("13:20:00") + Duration::hours(12)));
    let late = t.send("ann", "challenge", "23:00:00");
    accepted(&late);
}

#[test]
fn a_challenge_after_its_window_is_refused_and_no_vote_or_a_tie_lets_the_answer_stand() {
    let mut t = Table::new(4, &[]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let late = t.send("bob", "challenge", "12:00:11");
    accepted(&late);
    accepted(&t.send("cat", "vote reject", "13:00:00"));
    accepted(&t.send("dan", "vote accept", "13:00:00"));
    assert!(t.g.state.won[0].len() == 1, "all voted, a tie: the answer stands");

    let mut t = Table::new(3, &[]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let too_late = t.send("bob", "challenge", "12:00:11");
    accepted(&too_late);
    let mut t = Table::new(3, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let too_late = t.send("bob", "challenge", "13:00:11");
    assert!(Table::refused(&too_late).contains("too late: the challenge window for lard closed at 2026-03-01 13:00:10"));
}

/// Issue 28, item 13: a window in minutes closes that many minutes after it opens.
#[test]
fn a_challenge_window_in_minutes_closes_that_many_minutes_later() {
    for (given, open_until, closed_at) in
        [("90m", "13:30:09", "13:30:10"), ("1h30m", "13:30:09", "13:30:10"), ("2", "14:00:09", "14:00:10")]
    {
        let mut t = Table::new(3, &[("challenge_hours", given)]);
        t.put(1, 'D', "moon");
        t.put(0, 'L', "moon");
        t.reveal(0);
        accepted(&t.send("ann", "answer lard", "12:00:10"));
        let mut late = Table::new(3, &[("challenge_hours", given)]);
        late.put(1, 'D', "moon");
        late.put(0, 'L', "moon");
        late.reveal(0);
        accepted(&late.send("ann", "answer lard", "12:00:10"));
        accepted(&t.send("bob", "challenge", open_until));
        let refused = Table::refused(&late.send("bob", "challenge", closed_at)).to_string();
        assert!(refused.contains(&format!("closed at 2026-03-01 {closed_at}")), "{given}: {refused}");
    }
    let t = Table::new(3, &[("challenge_hours", "90m")]);
    assert!(t.g.option_lines().contains(&"challenge_hours = 1h30m".to_string()));
    assert!(Table::new(3, &[]).g.option_lines().contains(&"challenge_hours = 12".to_string()));
}

#[test]
fn the_master_settles_a_challenge_and_votes_are_refused_when_the_master_rules() {
    let mut t = Table::new(3, &[("challenges", "master")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    accepted(&t.send("bob", "challenge", "12:30:00"));
    let vote = t.send("cat", "vote reject", "12:31:00");
    assert!(Table::refused(&vote).contains("the game master settles challenges"), "{vote:?}");
    let by_player = t.send("cat", "reject", "12:31:00");
    assert!(Table::refused(&by_player).contains("only the game master"), "{by_player:?}");
    let ack = t.master("reject", "12:40:00");
    accepted(&ack);
    assert!(ack.events.iter().any(|e| e.contains("lard is rejected by the game master")), "{ack:?}");
    assert!(t.g.state.contest.is_some(), "no other answer yet: the faceoff goes on");
    accepted(&t.send("bob", "answer idle", "12:50:00"));
    let ack = t.master("uphold", "12:51:00");
    assert!(ack.events.iter().any(|e| e.contains("bob wins faceoff 1 with idle (by the game master)")), "{ack:?}");
}

#[test]
fn answers_in_the_same_second_go_to_a_tiebreak_with_a_new_category() {
    let mut t = Table::new(3, &[]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let before = t.g.state.category;
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let ack = t.send("bob", "answer ladle", "12:00:10");
    accepted(&ack);
    assert!(ack.events.iter().any(|e| e.contains("ann and bob answered in the same second: a tiebreak")), "{ack:?}");
    let c = t.contest();
    assert_eq!(c.tiebreaks, 1);
    assert!(c.answers.is_empty());
    assert_eq!(c.letters, vec!['L', 'D'], "the same letters");
    assert_ne!(t.g.state.category, before);
    assert!(!t.g.deck.is_all_play(t.g.state.category.unwrap()));
}

#[test]
fn an_all_play_card_that_comes_up_in_a_tiebreak_goes_back_into_the_deck() {
    let mut t = Table::new(3, &[]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let all_play = t.g.deck.categories.len() as u16;
    let next = 5u16;
    t.g.state.categories = DrawPile {
        ordinary: vec![next],
        special: vec![all_play],
        bands: vec![Band { left: 1, special: 1 }, Band { left: 1, special: 0 }],
        floating: 0,
    };
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let ack = t.send("bob", "answer ladle", "12:00:10");
    assert!(ack.events.iter().any(|e| e.contains("An All Play Card came up")), "{ack:?}");
    assert_eq!(t.g.state.category, Some(next));
    assert_eq!(t.g.state.categories.special, vec![all_play], "back in the deck");
}

#[test]
fn a_stuck_faceoff_gets_a_new_category_twice_then_lapses_and_no_card_moves() {
    let mut t = Table::new(3, &[]);
    let d = t.put(1, 'D', "moon");
    let l = t.put(0, 'L', "moon");
    t.reveal(0);
    let mut now = at("12:00:00");
    for stuck in 1..=2u8 {
        let before = t.g.state.category;
        now += Duration::hours(24);
        assert_eq!(t.g.deadline(), Some(now));
        let events = t.force(now);
        assert!(events.iter().any(|e| e.contains(&format!("Stuck ({stuck} of 2)"))), "{events:?}");
        assert_eq!(t.contest().stuck, stuck);
        assert_ne!(t.g.state.category, before);
    }
    now += Duration::hours(24);
    // Nothing more to draw: the pair stays on top.
    t.g.state.letters = DrawPile::spread(Vec::new(), Vec::new(), 0);
    let events = t.force(now);
    assert!(events.iter().any(|e| e.contains("it lapses and no card moves")), "{events:?}");
    assert_eq!(t.g.state.piles[0].cards[0], l);
    assert_eq!(t.g.state.piles[1].cards[0], d);
    assert!(t.g.state.won.iter().all(Vec::is_empty));
    assert!(t.g.lapsed(l, d), "a lapsed pair does not face off again");
}

#[test]
fn a_revealed_match_is_played_before_the_next_draw() {
    let mut t = Table::new(3, &[]);
    t.put(1, 'S', "bolt"); // bob's card under his top card
    t.put(2, 'T', "bolt");
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let events = t.force(at("12:00:10") + Duration::hours(12));
    assert!(events.iter().any(|e| e.contains("bob's pile shows S (bolt) again")), "{events:?}");
    assert!(
        events.iter().any(|e| e.starts_with("Faceoff 2: bob's pile shows S (bolt), cat's pile shows T (bolt)")),
        "{events:?}"
    );
    assert_eq!(t.g.state.turns, 0, "nobody drew in between");
}

#[test]
fn a_wild_card_drawn_replaces_the_old_one_and_the_drawer_draws_again() {
    let mut t = Table::new(3, &[]);
    let old = t.take(t.wild("moon", "leaf"));
    t.g.state.wild = Some(old);
    t.put(1, 'D', "sun");
    t.put(2, 'N', "wave");
    let wild = t.wild("sun", "wave");
    let letter = t.card('E', "star");
    t.stack_letters(wild, letter);
    let events = t.advance("12:00:00");
    assert!(events[0].starts_with("ann draws a Wild Card: sun + wave"), "{events:?}");
    assert_eq!(t.g.state.old_wilds, vec![old]);
    let ContestKind::Faceoff { piles, by_wild, .. } = t.contest().kind else { panic!() };
    assert_eq!((piles, by_wild), ([1, 2], true), "the match it causes is played first");
    accepted(&t.send("bob", "answer Dune", "12:00:05"));
    let events = t.force(at("12:00:05") + Duration::hours(12));
    assert!(events.iter().any(|e| e.starts_with("Turn 1: ann draws E (star)")), "{events:?}");
    assert!(events.iter().any(|e| e.contains("the game is over")), "the deck was two cards: {events:?}");
}

#[test]
fn an_all_play_is_for_everyone_with_every_face_up_letter_and_is_worth_two() {
    let mut t = Table::new(3, &[]);
    t.put(0, 'S', "sun");
    t.put(1, 'A', "leaf");
    t.put(2, 'T', "bolt");
    let all_play = t.g.deck.categories.len() as u16;
    t.g.state.categories.special.retain(|c| *c != all_play);
    if let Some(b) = t.g.state.categories.bands.iter_mut().rev().find(|b| b.special > 0) {
        b.special -= 1;
        b.left -= 1;
    }
    t.g.state.category = Some(all_play);
    let events = t.advance("12:00:00");
    assert!(events.iter().any(|e| e.starts_with("All Play 1: everyone")), "{events:?}");
    assert_eq!(t.contest().letters, vec!['S', 'A', 'T']);
    let proper = t.send("cat", "answer Tara proper", "12:00:01");
    assert!(Table::refused(&proper).contains("no proper nouns"), "{proper:?}");
    let short = t.send("cat", "answer rat", "12:00:01");
    assert!(Table::refused(&short).contains("no S"), "{short:?}");
    accepted(&t.send("cat", "answer stay", "12:00:01"));
    let events = t.force(at("12:00:01") + Duration::hours(12));
    assert!(events.iter().any(|e| e.contains("cat wins All Play 1 with stay")), "{events:?}");
    assert_eq!(t.g.score(2), 2);
    assert!(t.g.state.categories.consistent());
}

#[test]
fn an_all_play_nobody_answers_is_shuffled_back() {
    let mut t = Table::new(3, &[]);
    t.put(0, 'S', "sun");
    let all_play = t.g.deck.categories.len() as u16;
    t.g.state.categories.special.retain(|c| *c != all_play);
    if let Some(b) = t.g.state.categories.bands.iter_mut().rev().find(|b| b.special > 0) {
        b.special -= 1;
        b.left -= 1;
    }
    t.g.state.category = Some(all_play);
    t.advance("12:00:00");
    let events = t.force(at("12:00:00") + Duration::hours(24));
    assert!(events.iter().any(|e| e.contains("shuffled back into the category deck")), "{events:?}");
    assert!(t.g.state.categories.special.contains(&all_play));
    assert!(t.g.state.categories.consistent());
}

#[test]
fn two_players_keep_two_piles_and_a_match_within_one_player_is_for_both() {
    let mut t = Table::new(2, &[]);
    assert_eq!(t.g.state.piles.len(), 4);
    // ann draws onto her first pile, bob onto his first, ann onto her second, bob onto
    // his second; bob's S (sun) then matches ann's D (sun): an ordinary faceoff.
    let cards = [t.card('D', "sun"), t.card('E', "moon"), t.card('A', "leaf"), t.card('S', "sun")];
    for (i, c) in cards.into_iter().enumerate() {
        assert!(t.g.state.contest.is_none(), "no match before the fourth card ({i})");
        t.take(c);
        let rest = std::mem::replace(&mut t.g.state.letters, DrawPile::spread(vec![c], Vec::new(), 0));
        t.g.draw_turn(&mut TurnContext { dice: &mut t.dice, now: at("12:00:00"), hold: false }, &mut Vec::new());
        t.g.state.letters = rest;
        if t.g.state.contest.is_none() {
            // Open the faceoff the draw queued, without drawing on.
            if let Some(m) = t.g.next_match() {
                t.g.open_faceoff(m, at("12:00:00"), &mut Vec::new());
            }
        }
    }
    assert_eq!(t.g.state.piles[0].cards, vec![cards[0]]);
    assert_eq!(t.g.state.piles[2].cards, vec![cards[1]]);
    assert_eq!(t.g.state.piles[1].cards, vec![cards[2]]);
    assert_eq!(t.g.state.piles[3].cards, vec![cards[3]]);
    assert_eq!(t.contest().players, vec![1, 0]);

    let mut t = Table::new(2, &[]);
    t.put(0, 'S', "sun");
    let just = t.put(1, 'D', "sun");
    t.reveal(1);
    assert_eq!(t.contest().players, vec![0, 1], "both players answer a match within ann's piles");
    accepted(&t.send("bob", "answer Sandy", "12:00:03"));
    t.force(at("12:00:03") + Duration::hours(12));
    assert_eq!(t.g.state.won[1], vec![just], "the winner takes the card just drawn");
}

#[test]
fn the_game_ends_when_the_letter_deck_is_empty_and_equal_points_share_the_win() {
    let mut t = Table::new(3, &[]);
    t.g.state.letters = DrawPile::spread(Vec::new(), Vec::new(), 0);
    t.g.state.won[0] = vec![1, 2];
    t.g.state.won_all_play[1] = vec![t.g.deck.categories.len() as u16];
    let events = t.advance("12:00:00");
    assert!(events.iter().any(|e| e.contains("Points: ann 2, bob 2, cat 0. ann and bob share the win.")), "{events:?}");
    assert_eq!(t.g.ending(), Some(Ending::Won { players: vec![0, 1] }));
    assert!(t.g.awaiting().players.is_empty());
    let after = t.send("ann", "answer cat", "12:00:01");
    assert!(Table::refused(&after).contains("over"));
}

#[test]
fn bad_input_gets_a_reason_per_line_and_changes_nothing() {
    let mut t = Table::new(3, &[]);
    let none = t.send("ann", "answer cat", "12:00:01");
    assert!(Table::refused(&none).contains("no faceoff or All Play is open"));
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let before = t.g.save();
    let junk = t.send("ann", "\u{0}\u{1}junk\nanswer cat\nvote accept\nchallenge\nanswer \"x", "12:00:02");
    assert_eq!(junk.lines.len(), 5);
    assert!(junk.lines.iter().all(|l| !l.accepted));
    assert_eq!(junk.lines[1].text, "cat has no D, no L (it needs L and D)");
    assert_eq!(t.g.save(), before);
    let master = t.master("answer lad", "12:00:03");
    assert!(Table::refused(&master).contains("the game master does not answer"));
}

#[test]
fn options_are_checked() {
    let mut dice = Dice::new(Seed::from_bytes([1; 32]), "t", 0);
    let mut ctx = TurnContext { dice: &mut dice, now: at("12:00:00"), hold: false };
    let players = |n: usize| NAMES[..n].iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let opt = |k: &str, v: &str| Options::from([(k.to_string(), v.to_string())]);
    assert!(Duple::create(players(1), &Options::new(), &mut ctx).unwrap_err().contains("2 to 8 players"));
    assert!(Duple::create(players(3), &opt("faceoff_hours", "0"), &mut ctx)
        .unwrap_err()
        .contains("from 1 minute to 30 days"));
    let bad = Duple::create(players(3), &opt("allplay_hours", "90x"), &mut ctx).unwrap_err();
    assert!(bad.starts_with("option allplay_hours = `90x`: give a time from 1 minute to 30 days (`90m`"), "{bad}");
    assert!(Duple::create(players(3), &opt("pawn_limit", "3"), &mut ctx).unwrap_err().contains("unknown option"));
    assert!(Duple::create(players(3), &opt("deck", "mydeck.toml"), &mut ctx).unwrap_err().contains("deck=@FILE"));
    let custom = deck::STANDARD_TEXT.replace("all_play = 4", "all_play = 2");
    let g = Duple::create(players(3), &opt("deck", &custom), &mut ctx).unwrap();
    assert_eq!(g.category_cards_accounted(), 46);
    assert_eq!(Duple::load(&g.save()).unwrap().save(), g.save());
}

/// One random action on a game, for the property test.
#[derive(Clone, Debug)]
enum Act {
    Send(usize, String, DateTime<Utc>),
    Master(String, DateTime<Utc>),
    Force(DateTime<Utc>),
}

fn apply(g: &mut Duple, dice: &mut Dice, act: &Act) {
    let now = match act {
        Act::Send(_, _, t) | Act::Master(_, t) | Act::Force(t) => *t,
    };
    dice.take_rolls();
    let mut trial = g.clone();
    let mut trial_dice = dice.clone();
    let mut ctx = TurnContext { dice: &mut trial_dice, now, hold: false };
    let changed = match act {
        Act::Send(p, text, _) => trial.submit(*p, text, &mut ctx).changed(),
        Act::Master(text, _) => trial.master(text, &mut ctx).changed(),
        Act::Force(_) => {
            trial.force(crate::turn::Defaulted::Deadline, &mut ctx);
            true
        }
    };
    if !changed {
        assert!(ctx.dice.pending_rolls().is_empty(), "nothing taken, nothing rolled: {act:?}");
        return;
    }
    while !trial.advance(&mut ctx).is_empty() {}
    *g = trial;
    *dice = trial_dice;
}

fn check_cards(g: &Duple) {
    assert_eq!(g.letter_cards_accounted(), 72, "64 + 8 cards");
    assert_eq!(g.category_cards_accounted(), 48, "44 + 4 cards");
    assert!(g.state.letters.consistent() && g.state.categories.consistent());
}

/// A random game: random answers (some without the letters, some junk), challenges,
/// votes, rulings and deadlines.
fn random_game(seed: u64) -> Duple {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let n = rng.gen_range(2..=8);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_be_bytes());
    let mut dice = Dice::new(Seed::from_bytes(seed_bytes), "prop", 0);
    let mut now = at("12:00:00");
    let players = NAMES[..n].iter().map(|s| s.to_string()).collect();
    let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
    let mut g = Duple::create(players, &Options::new(), &mut ctx).unwrap();
    while !g.advance(&mut ctx).is_empty() {}
    for _ in 0..5_000 {
        check_cards(&g);
        if g.ending().is_some() {
            break;
        }
        if rng.gen_bool(0.5) {
            now += Duration::seconds(rng.gen_range(1..4_000));
        }
        let c = g.state.contest.clone().expect("an open contest while the game goes on");
        let who = rng.gen_range(0..n);
        let act = match rng.gen_range(0..10) {
            0..=3 => {
                let mut word: String = c.letters.iter().collect();
                if rng.gen_bool(0.2) {
                    word.pop();
                }
                word.push(['a', 'e', 'o'][rng.gen_range(0..3)]);
                word.push(char::from(b'a' + rng.gen_range(0..26u8)));
                Act::Send(who, format!("answer {word}"), now)
            }
            4 => Act::Send(who, "challenge".into(), now),
            5 => Act::Send(who, format!("vote {}", if rng.gen_bool(0.5) { "accept" } else { "reject" }), now),
            6 => Act::Master(if rng.gen_bool(0.5) { "uphold" } else { "reject" }.into(), now),
            7 => Act::Send(who, "answer \"Two Words\" proper\n\u{1}junk\nvote maybe".into(), now),
            _ => {
                now = now.max(g.deadline().unwrap_or(now));
                Act::Force(now)
            }
        };
        apply(&mut g, &mut dice, &act);
    }
    g
}

/// That a game replays from its journal is the shared conformance check's
/// (`game::conformance`).
#[test]
fn a_thousand_random_games_end_with_every_card_accounted_for() {
    let mut ended = 0;
    for seed in 0..1_000u64 {
        let g = random_game(seed);
        check_cards(&g);
        if g.ending().is_some() {
            ended += 1;
        }
    }
    assert_eq!(ended, 1_000, "every game ends");
}

/// A vote is a step that takes every voter's input together: held (early processing off
/// or a `wait`: the layer's `TurnContext::hold`), the last vote does not end it; let go, the votes
/// are counted at once; at the window's close they are counted whatever the hold.
#[test]
fn a_held_vote_is_counted_when_let_go_or_when_its_window_closes() {
    for let_go in [true, false] {
        let mut t = Table::new(4, &[]);
        t.put(1, 'D', "moon");
        t.put(0, 'L', "moon");
        t.reveal(0);
        accepted(&t.send("ann", "answer lard", "12:00:10"));
        assert_eq!(t.g.together(), crate::turn::Together::Not, "answers are a race, not a step taken together");
        accepted(&t.send("bob", "challenge", "13:00:00"));
        assert_eq!(t.g.together(), crate::turn::Together::Gathering);
        t.hold = true;
        accepted(&t.send("cat", "vote reject", "13:10:00"));
        let last = t.send("dan", "vote reject", "13:20:00");
        accepted(&last);
        assert!(!last.events.iter().any(|e| e.contains("rejected by vote")), "{last:?}");
        assert_eq!(t.g.together(), crate::turn::Together::Held);
        let events = if let_go {
            t.hold = false;
            t.advance("13:30:00")
        } else {
            let window_end = t.contest().answers[0].window_end.expect("the window is open");
            t.force(window_end)
        };
        assert!(events.iter().any(|e| e.contains("lard is rejected by vote, 0 accept, 2 reject")), "{events:?}");
        assert!(!t.g.together().is_held());
    }
}

/// The faceoff of a table where ann's L and bob's D (moon) lapsed and ann's E (star), drawn
/// over her L, faces cat's R (star): cat wins, ann's L shows again.
fn lapse_then_reveal(edition: u8) -> Table {
    let mut t = Table::new(3, &[]);
    t.g.state.edition = edition;
    let d = t.put(1, 'D', "moon");
    let l = t.put(0, 'L', "moon");
    t.put(2, 'R', "star");
    let cover = t.take(t.card('E', "star"));
    t.reveal(0);
    t.g.state.letters = DrawPile::spread(vec![cover], Vec::new(), 0);
    let mut now = at("12:00:00");
    for _ in 0..=MAX_STUCK {
        now += Duration::hours(24);
        t.force(now);
    }
    let ContestKind::Faceoff { piles, cards, .. } = t.contest().kind else { panic!() };
    assert_eq!((piles, cards[0]), ([0, 2], cover), "ann drew E (star) over her L: it faces cat's R");
    assert_eq!(t.g.state.lapsed.is_empty(), edition > 0, "covered, the lapsed pair is forgotten");
    let answered = now + Duration::minutes(1);
    accepted(&t.send_at("cat", "answer tree", answered));
    let events = t.force(answered + Duration::hours(12));
    assert!(events.iter().any(|e| e.contains("ann's pile shows L (moon) again")), "{events:?}");
    assert_eq!(t.g.top(0), Some(l));
    assert_eq!(t.g.top(1), Some(d));
    t
}

/// Issue 30, item 1: a lapsed faceoff is not played again while both cards stay on top;
/// once one was covered and shows again, it is a Revealed Match like any other.
#[test]
fn a_lapsed_faceoff_is_played_again_once_one_of_its_cards_was_covered_and_revealed() {
    let t = lapse_then_reveal(EDITION);
    let ContestKind::Faceoff { piles, .. } = t.contest().kind else { panic!("{:?}", t.g.state.contest) };
    assert_eq!(piles, [0, 1], "ann's L and bob's D face off again");
    // A game begun before this ruling replays as it was played: never again.
    let old = lapse_then_reveal(0);
    assert!(old.g.state.winners.is_some(), "the lapsed pair was skipped and the deck ran out");
}

/// Issue 30, item 2: the master's `uphold` and `reject` are taken while the challenge
/// window is open, like every other line; at its end the answer is settled as it stood.
#[test]
fn the_masters_ruling_after_the_window_closed_is_too_late_even_before_the_tick() {
    let mut t = Table::new(3, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let late = t.master("reject", "13:00:10");
    assert_eq!(
        Table::refused(&late),
        "too late: the challenge window for lard closed at 2026-03-01 13:00:10 UTC, and lard stood then"
    );
    let events = t.force(at("13:20:00"));
    assert!(events.iter().any(|e| e.contains("ann wins faceoff 1 with lard (unchallenged)")), "{events:?}");

    let mut t = Table::new(3, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let in_time = t.master("reject", "13:00:09");
    assert!(in_time.events.iter().any(|e| e.contains("lard is rejected by the game master")), "{in_time:?}");
}

/// Issue 30, item 3: a match within one player's piles (two players): the winner takes
/// the card that made the match, the one that came on top last, even when it was revealed
/// by a loss and the other was drawn after it.
#[test]
fn a_match_within_ones_piles_gives_the_card_that_came_on_top_last() {
    let mut t = Table::new(2, &[]);
    let revealed = t.put(1, 'T', "sun"); // under ann's second pile
    let drawn = t.put(0, 'A', "sun"); // ann's first pile, drawn after it
    t.put(1, 'L', "moon");
    t.put(2, 'D', "moon"); // bob's first pile
    t.reveal(2);
    accepted(&t.send("bob", "answer lard", "12:00:10"));
    let events = t.force(at("12:00:10") + Duration::hours(12));
    assert!(events.iter().any(|e| e.contains("ann's pile 2 shows T (sun) again")), "{events:?}");
    let ContestKind::Faceoff { piles, .. } = t.contest().kind else { panic!() };
    assert_eq!(piles, [1, 0], "a Revealed Match within ann's piles");
    assert_eq!(t.contest().players, vec![1, 0], "for both players, from the drawer");
    let answered = at("12:00:10") + Duration::hours(12) + Duration::minutes(1);
    accepted(&t.send_at("bob", "answer tea", answered));
    t.force(answered + Duration::hours(12));
    assert_eq!(t.g.state.won[1].last(), Some(&revealed), "the revealed T, not the A drawn after it");
    assert!(!t.g.state.won.iter().any(|w| w.contains(&drawn)), "the A stays on ann's pile");
}

/// Issue 30, item 4: once the answer under consideration has won (its window closed and
/// nothing rejected it), an answer sent before the tick is told it is too late; when the
/// vote rejected it, the next answer received still counts.
#[test]
fn an_answer_after_the_winning_answers_window_closed_is_too_late() {
    let mut t = Table::new(3, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let late = t.send("bob", "answer ladle", "13:30:00");
    assert_eq!(
        Table::refused(&late),
        "too late: ann's answer lard won faceoff 1 when its challenge window closed at 2026-03-01 13:00:10 UTC"
    );

    let mut t = Table::new(4, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    accepted(&t.send("bob", "challenge", "12:10:00"));
    accepted(&t.send("cat", "vote reject", "12:20:00"));
    let next = t.send("bob", "answer ladle", "13:30:00");
    accepted(&next);
    assert!(next.events.iter().any(|e| e.contains("lard is rejected by vote, 0 accept, 1 reject")), "{next:?}");
    let c = t.contest();
    assert_eq!(Duple::candidate(c).map(|i| c.answers[i].text.as_str()), Some("ladle"));
}

/// Issue 30, item 5: a window closes at its time: a challenge, a vote or an answer
/// received in that very second is refused, as the tick would have closed it.
#[test]
fn a_line_in_the_second_a_window_closes_is_too_late() {
    let mut t = Table::new(4, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let last = t.send("bob", "challenge", "13:00:10");
    assert_eq!(Table::refused(&last), "too late: the challenge window for lard closed at 2026-03-01 13:00:10 UTC");
    accepted(&t.send("bob", "challenge", "13:00:09"));

    let mut t = Table::new(4, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    accepted(&t.send("bob", "challenge", "12:30:00"));
    let vote = t.send("cat", "vote reject", "13:00:10");
    assert_eq!(Table::refused(&vote), "too late: voting on lard closed at 2026-03-01 13:00:10 UTC");

    let mut t = Table::new(3, &[]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let answers_end = t.contest().closes;
    let at_end = t.send_at("ann", "answer lard", answers_end);
    assert!(Table::refused(&at_end).starts_with("too late: answers to faceoff 1 closed at"), "{at_end:?}");
}

/// Issue 30, item 6: the next faceoff opens when the step before it ends (here the tick
/// twenty minutes after the window closed), and its time runs from then.
#[test]
fn the_next_faceoff_opens_when_the_one_before_is_settled() {
    let mut t = Table::new(3, &[("challenge_hours", "1")]);
    t.put(1, 'S', "bolt");
    t.put(2, 'T', "bolt");
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    t.force(at("13:20:00"));
    let c = t.contest();
    assert_eq!((c.number, c.opened), (2, at("13:20:00")));
    assert_eq!(c.closes, at("13:20:00") + Duration::hours(24));
}

/// Issue 30, item 7: `status --json` names both deadlines and says which is the game's.
#[test]
fn status_json_names_the_answers_deadline_and_the_challenge_window() {
    let mut t = Table::new(3, &[("challenge_hours", "30")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let s = t.g.status_json();
    assert_eq!(s["deadline_for"], "answers");
    assert_eq!(s["open"]["answers_until"], json!(at("12:00:00") + Duration::hours(24)));
    assert!(s["open"]["challenge_until"].is_null());
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let s = t.g.status_json();
    assert_eq!(s["open"]["challenge_until"], json!(at("12:00:10") + Duration::hours(30)));
    assert_eq!(s["deadline_for"], "answers", "the answers close first");
    t.force(at("12:00:00") + Duration::hours(24));
    let s = t.g.status_json();
    assert_eq!(s["deadline_for"], "challenge");
    assert_eq!(json!(t.g.deadline()), s["open"]["challenge_until"]);
}

/// Issue 23, item 10: a player has at most MAX_ANSWERS answers under way in a faceoff;
/// the reply says so, and an answer that is out frees its place.
#[test]
fn a_player_has_at_most_a_few_answers_under_way() {
    let mut t = Table::new(3, &[("challenges", "master")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let many: String = (0..100).map(|i| format!("answer lad{}\n", "a".repeat(i + 1))).collect();
    let ack = t.send("ann", &many, "12:00:10");
    let taken: Vec<_> = ack.lines.iter().filter(|l| l.accepted).collect();
    assert_eq!(taken.len(), MAX_ANSWERS);
    assert!(taken[MAX_ANSWERS - 1].text.ends_with("(3 answers under way: the most one player may have)"), "{ack:?}");
    assert_eq!(
        ack.lines[MAX_ANSWERS].text,
        "you have 3 answers under way in faceoff 1, the most one player may have; another is taken once one of them is out"
    );
    assert_eq!(ack.lines[MAX_ANSWERS + 1].text, "3 answers under way, as at line 4", "in brief after the first");
    assert_eq!(t.contest().answers.len(), MAX_ANSWERS);
    accepted(&t.send("bob", "answer dull", "12:00:20"));
    accepted(&t.master("reject", "12:01:00"));
    accepted(&t.send("ann", "answer landed", "12:02:00"));
    let full = t.send("ann", "answer ladled", "12:03:00");
    assert!(Table::refused(&full).starts_with("you have 3 answers under way"), "{full:?}");
}

/// Issue 23 item 13: `#` starts a comment anywhere on a line, as in every small game.
#[test]
fn the_comment_rule_of_every_game_holds_in_duple() {
    let mut t = Table::new(4, &[]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let ack = t.send("ann", "# my answer\n\nanswer lard # a fat word", "12:00:10");
    accepted(&ack);
    assert_eq!(ack.lines.iter().map(|l| l.line).collect::<Vec<_>>(), [3], "{ack:?}");
    accepted(&t.send("bob", "challenge # surely not", "13:00:00"));
    let vote = t.send("cat", "vote reject # no", "13:10:00");
    accepted(&vote);
    assert!(vote.lines[0].text.contains("reject"), "{vote:?}");
}

/// docs/duple.md with its lines joined: what a player reads, for the tests that hold the
/// docs to what the judge does.
fn docs() -> String {
    include_str!("../../../docs/duple.md").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Issue 43, item 1: a game of the old edition takes an answer received after the answer
/// under consideration won by its window closing (its journal replays so): it changes
/// nothing, and taking it settles the faceoff for the winner. The docs' list of what old
/// games keep says so.
#[test]
fn an_old_game_takes_an_answer_after_the_winner_as_its_docs_say() {
    let mut t = Table::new(3, &[("challenge_hours", "1")]);
    t.g.state.edition = 0;
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let late = t.send("bob", "answer ladle", "13:30:00");
    accepted(&late);
    assert!(late.events.iter().any(|e| e.contains("ann wins faceoff 1 with lard (unchallenged)")), "{late:?}");
    assert_eq!(t.g.state.won[1], Vec::<u16>::new(), "bob won nothing");
    let docs = docs();
    let kept = &docs[docs.find("Games created before these rulings").expect("the old edition's paragraph")..];
    let kept = &kept[..kept.find("A `rollback DIR N`").expect("the paragraph after it")];
    assert!(
        kept.contains("an answer received after the answer under consideration has won is taken, not refused"),
        "{kept}"
    );
}

/// Issue 43, item 4: when the challenge window and the answers end in the same second,
/// the game's deadline is the challenge window's: the answer is settled first, and the
/// answers close in the same second (if the vote rejected it and no answer is left, the
/// faceoff is stuck).
#[test]
fn a_challenge_window_ending_with_the_answers_is_settled_first() {
    let same = |players: usize| {
        let mut t = Table::new(players, &[]);
        t.put(1, 'D', "moon");
        t.put(0, 'L', "moon");
        t.reveal(0);
        let closes = t.contest().closes;
        accepted(&t.send_at("ann", "answer lard", closes - Duration::hours(12)));
        assert_eq!(Duple::open_window(t.contest()), Some(closes), "both end in the same second");
        let s = t.g.status_json();
        assert_eq!(s["deadline_for"], "challenge", "{s}");
        assert_eq!(t.g.deadline(), Some(closes));
        (t, closes)
    };
    let (mut t, closes) = same(3);
    let events = t.force(closes);
    assert_eq!(events[0], "The window for ann's answer lard is closed.", "{events:?}");
    assert!(!events.iter().any(|e| e.starts_with("Answers to")), "{events:?}");
    assert!(events.iter().any(|e| e.contains("ann wins faceoff 1 with lard (unchallenged)")), "{events:?}");

    let (mut t, closes) = same(4);
    accepted(&t.send_at("bob", "challenge", closes - Duration::hours(1)));
    accepted(&t.send_at("cat", "vote reject", closes - Duration::minutes(30)));
    let events = t.force(closes);
    assert!(events.iter().any(|e| e.contains("lard is rejected by vote, 0 accept, 1 reject")), "{events:?}");
    assert!(events.iter().any(|e| e.contains("Stuck (1 of 2)")), "answers closed too: {events:?}");

    let docs = docs();
    assert!(
        docs.contains(
            "When both end in the same second, `deadline_for` is `challenge`: the answer under consideration \
             is settled first"
        ),
        "docs/duple.md says what happens when both windows end in the same second"
    );
}

/// Issue 43, item 5: once a window closed, what is awaited at that time does not name it,
/// even before the tick settles it.
#[test]
fn a_window_that_closed_is_not_awaited_before_the_tick() {
    let mut t = Table::new(4, &[("challenge_hours", "1")]);
    t.put(1, 'D', "moon");
    t.put(0, 'L', "moon");
    t.reveal(0);
    let closes = t.contest().closes;
    assert_eq!(t.g.awaiting_at(at("12:30:00")), t.g.awaiting(), "answers are open");
    let late = t.g.awaiting_at(closes);
    assert!(late.players.is_empty() && !late.master, "{late:?}");
    assert!(late.what.starts_with("nobody: answers to faceoff 1: ann v bob closed at"), "{late:?}");
    accepted(&t.send("ann", "answer lard", "12:00:10"));
    let open = t.g.awaiting_at(at("13:00:09"));
    assert_eq!((open.players, open.what.as_str()), (vec![1], "a challenge to lard, if any"));
    let closed = t.g.awaiting_at(at("13:00:10"));
    assert_eq!(
        (closed.players, closed.what.as_str()),
        (
            Vec::new(),
            "nobody: the challenge window for lard closed at 2026-03-01 13:00:10 UTC; the judge's next tick settles it"
        )
    );
    // A challenge the vote rejects when its window closes: answers are taken still.
    accepted(&t.send("bob", "challenge", "12:10:00"));
    accepted(&t.send("cat", "vote reject", "12:20:00"));
    assert_eq!(t.g.awaiting_at(at("12:30:00")).what, "votes on the challenge to lard");
    let after = t.g.awaiting_at(at("13:30:00"));
    assert_eq!((after.players, after.what.as_str()), (vec![0, 1], "answers to faceoff 1: ann v bob"));
}
