//! A Diplomacy game's life by mail (issue 24): draw and concession votes, absences,
//! missed deadlines and press settings, end to end through the built binary over a judge
//! directory (the `files` transport writes every mail to `outbox/`).

use std::ops::{Deref, DerefMut};

use crate::harness::Run;
use crate::judge_dir::{Eml, MailJudge, PLAYERS};
use shadowjudge::game::journal::Entry;
use shadowjudge::game::session::diplomacy as session;

/// A judge directory with one Shadow Worlds game, `g`, of three players, a master and an
/// observer; game.toml gets `options` at its top and `deadlines` in its `[deadlines]`.
struct Life(MailJudge);

impl Deref for Life {
    type Target = MailJudge;
    fn deref(&self) -> &MailJudge {
        &self.0
    }
}

impl DerefMut for Life {
    fn deref_mut(&mut self) -> &mut MailJudge {
        &mut self.0
    }
}

impl Life {
    fn new(now: &str, options: &str, deadlines: &str) -> Life {
        let mut judge = MailJudge::new(&format!("\n[deadlines]\ntick_minutes = 180\n{deadlines}"), PLAYERS);
        judge.new_game(now, "g", &["--variant", "shadow-worlds", "--observer", "obs@example.org"]);
        let toml = judge.game_dir("g").join("game.toml");
        let text = std::fs::read_to_string(&toml).unwrap();
        std::fs::write(&toml, format!("{options}\n{text}")).unwrap();
        for who in ["france", "italy", "germany", "master"] {
            judge.password(now, "g", who);
        }
        judge.mails();
        Life(judge)
    }

    /// `who` (a power or `master`) mails `body` at `now`; every mail the judge wrote.
    fn send(&mut self, now: &str, who: &str, body: &str) -> Vec<Eml> {
        self.0.send(now, "g", who, body)
    }

    /// The reply to message `n`.
    fn reply(mails: &[Eml], n: usize) -> &Eml {
        let id = format!("m{n}@example.org");
        mails.iter().find(|m| m.in_reply_to.as_deref() == Some(id.as_str())).expect("a reply")
    }

    fn tick(&mut self, now: &str) -> Vec<Eml> {
        self.cli(now, &["mail", "tick"]).ok();
        self.mails()
    }

    fn cli(&self, now: &str, args: &[&str]) -> Run {
        self.run(now, args, None)
    }

    fn game(&self) -> session::OpenGame {
        session::open_read_only(&self.game_dir("g")).unwrap()
    }

    fn journal(&self) -> Vec<Entry> {
        self.0.journal("g")
    }
}

fn to(mails: &[Eml], address: &str) -> Vec<Eml> {
    mails.iter().filter(|m| m.to == address).cloned().collect()
}

const T0: &str = "2026-12-01T12:00:00Z";

#[test]
fn grey_press_arrives_without_the_senders_power() {
    let mut life = Life::new(T0, "press = \"grey\"", "");
    let mails = life.send("2026-12-01T13:00:00Z", "france", "press to italy\nLet us share Burgundy.\nendpress\n");
    let bob = to(&mails, "bob@example.org");
    assert_eq!(bob.len(), 1, "{mails:?}");
    assert!(bob[0].body.contains("Let us share Burgundy."), "{}", bob[0].body);
    assert!(bob[0].body.contains("an unnamed power"), "{}", bob[0].body);
    for text in [&bob[0].subject, &bob[0].body] {
        assert!(!text.contains("France") && !text.contains("Ann") && !text.contains("ann@"), "{text}");
    }
    // The journal keeps who sent it, for the master.
    assert!(life.journal().iter().any(|e| matches!(e, Entry::Press { from, .. } if from == "France")));
    let status = life.send("2026-12-01T13:05:00Z", "italy", "status\n");
    assert!(Life::reply(&status, life.n).body.contains("press: grey"), "{}", status[0].body);
}

#[test]
fn a_gunboat_game_has_no_press_and_no_players_names_in_mail() {
    let mut life = Life::new(T0, "press = \"none\"", "");
    let mut all = Vec::new();
    let mails = life.send("2026-12-01T13:00:00Z", "france", "press to all\nHello, Bob!\nendpress\nA par - bur\n");
    let reply = Life::reply(&mails, life.n).clone();
    assert!(reply.body.contains("gunboat game"), "{}", reply.body);
    assert!(to(&mails, "bob@example.org").is_empty(), "{mails:?}");
    assert!(!life.journal().iter().any(|e| matches!(e, Entry::Press { .. })));
    all.extend(mails);
    // The master still writes to everyone.
    let mails = life.send("2026-12-01T13:10:00Z", "master", "broadcast\nWelcome to a gunboat game.\nendpress\n");
    assert_eq!(to(&mails, "bob@example.org").len(), 1, "{mails:?}");
    all.extend(mails);
    all.extend(life.send("2026-12-01T13:20:00Z", "italy", "status\nhistory\n"));
    all.extend(life.send("2026-12-01T13:30:00Z", "master", "process\n"));
    all.extend(life.tick("2026-12-01T13:40:00Z"));
    assert!(all.iter().any(|m| m.to == "bob@example.org" && m.subject.contains("results")), "{all:?}");
    // No mail to a player names another player or gives their address.
    let players = [("ann@example.org", "Ann"), ("bob@example.org", "Bob"), ("cy@example.org", "Cy")];
    for m in &all {
        for (address, name) in players.iter().filter(|(a, _)| *a != m.to && m.to != "gm@example.org") {
            let text = format!("{}\n{}", m.subject, m.body);
            assert!(!text.contains(address), "a mail to {} gives {address}:\n{text}", m.to);
            assert!(!text.split(|c: char| !c.is_alphanumeric()).any(|w| w == *name), "{name} in:\n{text}");
        }
    }
}

fn everyone() -> Vec<&'static str> {
    vec!["ann@example.org", "bob@example.org", "cy@example.org", "gm@example.org", "obs@example.org"]
}

fn addresses(mails: &[Eml], subject: &str) -> Vec<String> {
    let mut v: Vec<String> = mails.iter().filter(|m| m.subject == subject).map(|m| m.to.clone()).collect();
    v.sort();
    v
}

#[test]
fn a_draw_voted_by_every_survivor_ends_the_game_and_votes_stay_secret() {
    let mut life = Life::new(T0, "", "");
    // A named draw in a game of DIAS draws is refused, and says why.
    let mails = life.send("2026-12-01T13:00:00Z", "france", "draw france italy\n");
    assert!(Life::reply(&mails, life.n).body.contains("a draw includes every survivor"), "{mails:?}");
    let mails = life.send("2026-12-01T13:01:00Z", "france", "draw\n");
    assert_eq!(mails.len(), 1, "a secret vote tells no one else: {mails:?}");
    assert!(mails[0].body.contains("Votes are secret"), "{}", mails[0].body);
    // Taken back, it no longer counts.
    life.send("2026-12-01T13:02:00Z", "germany", "draw\n");
    life.send("2026-12-01T13:03:00Z", "germany", "nodraw\n");
    let mails = life.send("2026-12-01T13:04:00Z", "italy", "draw\nstatus\n");
    assert_eq!(mails.len(), 1);
    assert!(!mails[0].body.contains("France vot"), "{}", mails[0].body);
    assert!(life.game().game.state.end.is_none());
    // The last survivor's vote ends the game at once: the final results to everyone.
    let mails = life.send("2026-12-01T13:05:00Z", "germany", "draw\n");
    assert_eq!(addresses(&mails, "g: the game is over"), everyone(), "{mails:?}");
    let over = mails.iter().find(|m| m.subject == "g: the game is over").unwrap();
    assert!(over.body.contains("The game is drawn between"), "{}", over.body);
    assert!(over.body.contains("Centers at the end:"), "{}", over.body);
    assert!(over.body.contains("France   3+3 (A+B)"), "{}", over.body);
    for secret in ["France vot", "Germany vot", "Italy vot"] {
        assert!(!over.body.contains(secret), "{}", over.body);
    }
    assert!(life.game().game.state.end.is_some());
    assert!(over.body.contains("Every surviving power voted for it."), "{}", over.body);
    let votes = life.journal().iter().filter(|e| matches!(e, Entry::Vote { .. })).count();
    assert_eq!(votes, 5);
    // The master's history names the voters; the players' does not.
    let history = life.cli("2026-12-01T13:05:00Z", &["history", "games/g"]).ok().stdout;
    assert!(history.contains("Germany withdraws its draw vote"), "{history}");
    let mails = life.send("2026-12-01T13:06:00Z", "france", "A par - bur\ndraw\n");
    assert!(Life::reply(&mails, life.n).body.contains("the game is over"), "{mails:?}");
    // Nothing more to process.
    assert!(life.tick("2026-12-04T13:00:00Z").is_empty());
}

#[test]
fn a_public_concession_ends_the_game_with_a_winner() {
    let mut life = Life::new(T0, "votes = \"public\"", "");
    let mails = life.send("2026-12-01T13:00:00Z", "italy", "concede france\n");
    let told = addresses(&mails, "g: a vote");
    assert_eq!(told, ["ann@example.org", "cy@example.org", "gm@example.org", "obs@example.org"]);
    assert!(mails.iter().any(|m| m.body.contains("Italy concedes the game to France.")), "{mails:?}");
    let mails = life.send("2026-12-01T13:01:00Z", "germany", "concede italy\n");
    assert!(mails.iter().all(|m| m.subject != "g: the game is over"));
    let mails = life.send("2026-12-01T13:02:00Z", "germany", "concede germany\nconcede france\n");
    assert!(Life::reply(&mails, life.n).body.contains("cannot concede to itself"), "{mails:?}");
    assert_eq!(addresses(&mails, "g: the game is over"), everyone(), "{mails:?}");
    let over = mails.iter().find(|m| m.subject == "g: the game is over").unwrap();
    assert!(over.body.contains("France wins the game."), "{}", over.body);
}

#[test]
fn a_named_draw_passes_when_every_survivor_names_the_same_powers() {
    let mut life = Life::new(T0, "draws = \"named\"", "");
    life.send("2026-12-01T13:00:00Z", "france", "draw france italy\n");
    life.send("2026-12-01T13:01:00Z", "italy", "draw italy, france\n");
    let mails = life.send("2026-12-01T13:02:00Z", "germany", "draw\n");
    assert!(mails.iter().all(|m| m.subject != "g: the game is over"), "{mails:?}");
    let mails = life.send("2026-12-01T13:03:00Z", "germany", "draw italy france\n");
    let over = mails.iter().find(|m| m.subject == "g: the game is over").expect("over");
    assert!(over.body.contains("The game is drawn between France and Italy."), "{}", over.body);
}

#[test]
fn an_absence_moves_the_deadline_within_the_caps_and_the_master_may_refuse_it() {
    let mut life = Life::new(T0, "", "");
    let deadline = |life: &Life| life.game().game.state.deadline.unwrap().to_rfc3339();
    assert_eq!(deadline(&life), "2026-12-03T12:00:00+00:00");
    // France (Europe/Paris) is away from the 2nd to the 5th: back at midnight in Paris.
    let mails = life.send("2026-12-01T13:00:00Z", "france", "absence 2026-12-02 to 2026-12-05\n");
    assert_eq!(deadline(&life), "2026-12-05T23:00:00+00:00");
    let reply = Life::reply(&mails, life.n);
    assert!(reply.body.contains("Absence kept"), "{}", reply.body);
    assert_eq!(addresses(&mails, "g: the deadline moved"), everyone());
    for m in mails.iter().filter(|m| m.subject == "g: the deadline moved") {
        assert!(m.body.contains("an announced absence") && !m.body.contains("France"), "{}", m.body);
    }
    // Capped: 20 days is more than 14; a third absence at once is one too many.
    let mails = life.send("2026-12-01T13:10:00Z", "italy", "absence 2026-12-01 to 2026-12-20\n");
    assert!(Life::reply(&mails, life.n).body.contains("at most 14 days of absence per player"), "{mails:?}");
    let mails = life.send("2026-12-01T13:20:00Z", "italy", "absence 2026-12-03 to 2026-12-04\n");
    assert!(Life::reply(&mails, life.n).body.contains("Absence kept"), "{mails:?}");
    let mails = life.send("2026-12-01T13:30:00Z", "germany", "absence 2026-12-04\n");
    assert!(Life::reply(&mails, life.n).body.contains("at most 2 absences may run at once"), "{mails:?}");
    let mails = life.send("2026-12-01T13:35:00Z", "germany", "absence 2026-12-40\n");
    assert!(Life::reply(&mails, life.n).body.contains("write `absence 2026-12-20 to 2026-12-27`"), "{mails:?}");
    // The master refuses France's: the deadline goes back to the schedule's, which falls in
    // Italy's absence (the 3rd and 4th, UTC), so it moves to its end.
    let mails = life.send("2026-12-01T14:00:00Z", "master", "refuse absence france\n");
    assert!(Life::reply(&mails, life.n).body.contains("France's absences are refused"), "{mails:?}");
    assert_eq!(deadline(&life), "2026-12-05T00:00:00+00:00");
    assert_eq!(addresses(&mails, "g: the deadline moved"), everyone());
    // Italy's absence also moves the next phase's deadline, and the results say so.
    let mut mails = life.send("2026-12-01T15:00:00Z", "master", "process\n");
    mails.extend(life.tick("2026-12-01T15:10:00Z"));
    assert_eq!(life.game().game.state.phase.code(), "F1901M");
    assert_eq!(deadline(&life), "2026-12-05T00:00:00+00:00");
    let results = mails.iter().find(|m| m.to == "bob@example.org" && m.subject.contains("results")).unwrap();
    assert!(results.body.contains("The deadline is moved to the end of an announced absence."), "{}", results.body);
    // A rollback keeps the absences.
    life.cli("2026-12-01T15:20:00Z", &["rollback", "games/g", "S1901M"]).ok();
    assert!(life.journal().iter().filter(|e| matches!(e, Entry::Absence { .. })).count() == 2);
}

#[test]
fn a_late_power_gets_one_extension_and_is_declared_vacant_after_missed_phases() {
    let deadlines =
        "remind_hours_before = 0\noutage_factor = 100\nlate_extension_hours = 24\nlate_extensions = 1\nabandon_after = 2\n";
    let mut life = Life::new(T0, "", deadlines);
    let france = "Board A\nA par H\nBoard B\nA par H\n";
    let italy = "Board A\nA ven H\nBoard B\nA ven H\n";
    life.send("2026-12-01T13:00:00Z", "france", france);
    life.send("2026-12-01T13:10:00Z", "italy", italy);
    // At the deadline Germany sent nothing: extended once by 24 hours, a late notice to
    // Germany and the master, no results.
    let mails = life.tick("2026-12-03T12:10:00Z");
    assert_eq!(life.game().game.state.phase.code(), "S1901M");
    assert_eq!(life.game().game.state.deadline.unwrap().to_rfc3339(), "2026-12-04T12:10:00+00:00");
    let mut got: Vec<&str> = mails.iter().map(|m| m.to.as_str()).collect();
    got.sort();
    assert_eq!(got, ["cy@example.org", "gm@example.org"], "{mails:?}");
    let cy = mails.iter().find(|m| m.to == "cy@example.org").unwrap();
    assert!(cy.body.contains("extended once, to Fri 2026-12-04 12:10 UTC"), "{}", cy.body);
    assert!(life.journal().iter().any(|e| matches!(e, Entry::LateExtension { powers, .. } if powers == &["germany"])));
    // Once per phase: at the new deadline the phase is processed.
    let mails = life.tick("2026-12-04T12:20:00Z");
    assert_eq!(life.game().game.state.phase.code(), "F1901M");
    assert!(mails.iter().any(|m| m.to == "cy@example.org" && m.subject.contains("results")), "{mails:?}");
    // Germany has used its one extension: the next missed phase is processed at once, and
    // two missed in a row make Germany vacant.
    life.send("2026-12-04T13:00:00Z", "france", france);
    life.send("2026-12-04T13:10:00Z", "italy", italy);
    let mails = life.tick("2026-12-06T12:30:00Z");
    assert_eq!(life.game().game.state.phase.code(), "W1901A");
    let results = mails.iter().find(|m| m.to == "bob@example.org" && m.subject.contains("results")).unwrap();
    assert!(
        results.body.contains("Germany sent no orders for 2 phases in a row and is declared vacant"),
        "{}",
        results.body
    );
    assert!(life.journal().iter().any(|e| matches!(e, Entry::Abandoned { power, missed: 2 } if power == "germany")));
    // Germany's player is told too, by the same results, though no longer in the game.
    let told = mails.iter().find(|m| m.to == "cy@example.org" && m.subject.contains("results")).expect("told");
    assert!(told.body.contains("Germany sent no orders for 2 phases in a row"), "{}", told.body);
    let game = life.game();
    assert!(game.game.settings.players.iter().all(|p| p.power != "germany"));
    // A vacant power has no vote: France and Italy alone draw the game, Germany in it.
    life.send("2026-12-06T13:00:00Z", "france", "draw\n");
    let mails = life.send("2026-12-06T13:10:00Z", "italy", "draw\n");
    let over = mails.iter().find(|m| m.subject == "g: the game is over").expect("over");
    assert!(over.body.contains("Germany"), "{}", over.body);
}

#[test]
fn without_the_options_a_missed_deadline_is_processed_as_before() {
    let mut life = Life::new(T0, "", "remind_hours_before = 0\n");
    life.tick("2026-12-03T12:10:00Z");
    assert_eq!(life.game().game.state.phase.code(), "F1901M");
    assert!(life.journal().iter().all(|e| !matches!(e, Entry::LateExtension { .. } | Entry::Abandoned { .. })));
    assert!(life.game().game.state.missed.is_empty());
}

/// A vote is counted, when the journal is replayed, among the voters of its time; a
/// resignation counts the votes again among the players left (issue 42.3: before, the
/// resignation of the only player who had not voted ended nothing), live and on replay
/// alike.
#[test]
fn a_replayed_vote_counts_among_the_voters_of_its_time() {
    let mut life = Life::new(T0, "", "");
    life.send("2026-12-01T13:00:00Z", "france", "draw\n");
    life.send("2026-12-01T13:01:00Z", "italy", "draw\n");
    assert!(life.game().game.state.end.is_none(), "Germany has not voted");
    let mails = life.send("2026-12-01T13:02:00Z", "germany", "resign germany\n");
    assert!(Life::reply(&mails, life.n).body.to_lowercase().contains("resign"), "{mails:?}");
    assert!(life.game().game.state.end.is_some(), "France and Italy, the players left, agree");
    // The state is rebuilt from the journal: the same end.
    let live = life.game().game.state.clone();
    std::fs::remove_file(life.root.join("games/g/state.json")).unwrap();
    let game = life.game();
    assert_eq!(game.game.state, live);
    assert_eq!(game.game.voters().len(), 2, "France and Italy vote now");
    let mut recorded = life.journal().into_iter().filter_map(|e| match e {
        Entry::Vote { voters, .. } => voters,
        _ => None,
    });
    assert_eq!(recorded.next_back().unwrap(), ["france", "germany", "italy"]);
}

/// The reply to the vote that ends the game shows no next deadline: a finished game has
/// none (before: the deadline of the phase the vote ended).
#[test]
fn the_reply_to_the_vote_that_ends_the_game_shows_no_deadline() {
    let mut life = Life::new(T0, "", "");
    let mails = life.send("2026-12-01T13:00:00Z", "france", "draw\n");
    assert!(Life::reply(&mails, life.n).body.contains("Deadline:"), "{mails:?}");
    life.send("2026-12-01T13:01:00Z", "italy", "draw\n");
    let mails = life.send("2026-12-01T13:02:00Z", "germany", "draw\n");
    assert!(mails.iter().any(|m| m.subject == "g: the game is over"), "{mails:?}");
    let reply = Life::reply(&mails, life.n);
    assert!(!reply.body.contains("Deadline:"), "{}", reply.body);
    // Nor does anything read later.
    let mails = life.send("2026-12-01T13:03:00Z", "italy", "status\n");
    let reply = Life::reply(&mails, life.n);
    assert!(!reply.body.contains("Deadline:"), "{}", reply.body);
    let list = life.cli("2026-12-01T13:04:00Z", &["list", "--judge", "."]).ok().stdout;
    assert!(!list.contains("deadline"), "{list}");
}

impl Life {
    /// `from` mails `body` (no SIGNON added) at `now`; every mail the judge wrote.
    /// `observe` from `from`, confirmed with the code mailed to it; the confirmation's
    /// mails.
    fn observe(&mut self, now: &str, from: &str, body: &str) -> Vec<Eml> {
        let mails = self.mail_from(now, from, body);
        let line = crate::judge_dir::confirmation(&mails, from);
        self.mail_from(now, from, &line)
    }

    fn mail_from(&mut self, now: &str, from: &str, body: &str) -> Vec<Eml> {
        self.n += 1;
        let raw = crate::judge_dir::message(from, &self.last_id(), body);
        assert_eq!(self.deliver(now, &raw), 0);
        self.mails()
    }

    /// Set a top-level option of game.toml (before its first table).
    fn set_option(&self, line: &str) {
        let toml = self.game_dir("g").join("game.toml");
        let text = std::fs::read_to_string(&toml).unwrap();
        std::fs::write(&toml, format!("{line}\n{text}")).unwrap();
    }
}

const OBS: &str = "obs@example.org";

/// Issue 24, item 8: an observer keeps a password of their own with `observe GAME
/// PASSWORD`, signs on as `observer@GAME` from the address that observes, and sends press
/// only when the game's `observer_press` is on; never orders, votes or settings.
#[test]
fn an_observer_signs_on_with_their_own_password_and_sends_press_when_the_game_allows_it() {
    let mut life = Life::new(T0, "", "");
    let press = "press to all\nGood luck, all of you.\nendpress\n";
    // Listed by the master without a password: no sign-on yet, and the reply says how.
    let mails = life.mail_from("2026-12-01T12:10:00Z", OBS, "SIGNON observer@g obssecret1\nstatus\n");
    let reply = Life::reply(&mails, life.n).body.clone();
    assert!(reply.contains("observes g without a password yet") && reply.contains("observe g PASSWORD"), "{reply}");
    let mails = life.observe("2026-12-01T12:20:00Z", OBS, "observe g obssecret1\n");
    let reply = Life::reply(&mails, life.n).body.clone();
    assert!(reply.contains("You already observe g.") && reply.contains("Your password is kept"), "{reply}");
    assert!(!reply.contains("obssecret1"), "{reply}");
    let toml = std::fs::read_to_string(life.game_dir("g").join("game.toml")).unwrap();
    assert!(toml.contains("[observer_passwords]") && toml.contains("$argon2"), "{toml}");
    assert!(!toml.contains("obssecret1"), "{toml}");
    // Signed on, the observer reads; press is refused while observer_press is off, and so
    // are orders, votes and settings.
    let body = format!("SIGNON observer@g obssecret1\nstatus\n{press}A par - bur\ndraw\nwait\ntimezone Europe/Paris\n");
    let mails = life.mail_from("2026-12-01T12:30:00Z", OBS, &body);
    assert_eq!(mails.len(), 1, "{mails:?}");
    let reply = &mails[0].body;
    assert!(reply.contains("signed on as the observer obs@example.org in g"), "{reply}");
    assert!(reply.contains("Status:"), "{reply}");
    assert!(reply.contains("observer_press is off"), "{reply}");
    assert_eq!(reply.matches("an observer sends no orders, votes or settings").count(), 4, "{reply}");
    assert!(!life.journal().iter().any(|e| matches!(e, Entry::Press { .. } | Entry::Vote { .. })));
    // With observer_press on, press reaches every player, to all or to the powers named.
    life.set_option("observer_press = true");
    let mails = life.mail_from("2026-12-01T13:00:00Z", OBS, &format!("SIGNON observer@g obssecret1\n{press}"));
    let press_mails: Vec<&Eml> =
        mails.iter().filter(|m| m.subject == "g: press from an observer (obs@example.org)").collect();
    let mut to_whom: Vec<&str> = press_mails.iter().map(|m| m.to.as_str()).collect();
    to_whom.sort();
    // ... and the game master reads a copy (issue 41.2).
    assert_eq!(to_whom, ["ann@example.org", "bob@example.org", "cy@example.org", "gm@example.org"], "{mails:?}");
    assert!(press_mails[0].body.contains("Good luck, all of you."), "{}", press_mails[0].body);
    let head = "Press from an observer (obs@example.org), to everyone:";
    assert!(press_mails[0].body.starts_with(head), "{}", press_mails[0].body);
    assert!(Life::reply(&mails, life.n).body.contains("Press sent (to everyone) to 4 readers."), "{mails:?}");
    // The classic one-letter sign-on too; press to one power goes to its player (and the
    // master's copy) only.
    let body = "SIGNON Og obssecret1\npress to italy\nWatch Trieste.\nendpress\n";
    let mails = life.mail_from("2026-12-01T13:10:00Z", OBS, body);
    let mut sent: Vec<&str> =
        mails.iter().filter(|m| m.subject.contains("press from")).map(|m| m.to.as_str()).collect();
    sent.sort();
    assert_eq!(sent, ["bob@example.org", "gm@example.org"], "{mails:?}");
    // Journaled like any press, kept by a rollback, and in the master's history.
    let from_observer = |life: &Life| {
        life.journal()
            .iter()
            .filter(|e| matches!(e, Entry::Press { from, .. } if from == "observer obs@example.org"))
            .count()
    };
    assert_eq!(from_observer(&life), 2);
    life.send("2026-12-01T13:20:00Z", "master", "process\n");
    life.cli("2026-12-01T13:30:00Z", &["rollback", "games/g", "S1901M"]).ok();
    assert_eq!(from_observer(&life), 2);
    let history = life.cli("2026-12-01T13:40:00Z", &["history", "games/g"]).ok().stdout;
    assert!(history.contains("press from observer obs@example.org to everyone"), "{history}");
    // Only from the address that observes.
    let mails =
        life.mail_from("2026-12-01T14:00:00Z", "bob@example.org", &format!("SIGNON observer@g obssecret1\n{press}"));
    let reply = &Life::reply(&mails, life.n).body;
    assert!(reply.contains("bob@example.org does not observe g"), "{reply}");
    assert_eq!(mails.len(), 1, "{mails:?}");
}

/// Grey press shows "an observer" without the address; a gunboat game refuses
/// observers' press and says why.
#[test]
fn an_observers_press_follows_the_games_press_setting() {
    let mut life = Life::new(T0, "press = \"grey\"\nobserver_press = true", "");
    life.observe("2026-12-01T12:10:00Z", OBS, "observe g obssecret1\n");
    let body = "SIGNON observer@g obssecret1\npress to all\nPeace in our time.\nendpress\n";
    let mails = life.mail_from("2026-12-01T12:20:00Z", OBS, body);
    let ann = to(&mails, "ann@example.org");
    assert_eq!(ann.len(), 1, "{mails:?}");
    assert_eq!(ann[0].subject, "g: press from an observer");
    assert!(ann[0].body.contains("Press from an observer, to everyone:"), "{}", ann[0].body);
    assert!(!ann[0].body.contains("obs@") && !ann[0].subject.contains("obs@"), "{}", ann[0].body);
    // The site shows press to everyone as its readers got it: grey press without the
    // sender's power (before: with it), an observer's without the address.
    life.send("2026-12-01T12:30:00Z", "france", "press to all\nFrom the west.\nendpress\n");
    let public = shadowjudge::game::public::of_diplomacy(&life.game());
    let from: Vec<&str> = public.press.iter().map(|p| p.from.as_str()).collect();
    assert_eq!(from, ["an observer", "an unnamed power"]);
    // Issue 42.14: press sent grey stays grey on the site when the game's press changes.
    let toml = life.game_dir("g").join("game.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text.replace("press = \"grey\"", "press = \"none\"")).unwrap();
    let public = shadowjudge::game::public::of_diplomacy(&life.game());
    let from: Vec<&str> = public.press.iter().map(|p| p.from.as_str()).collect();
    assert_eq!(from, ["an observer", "an unnamed power"]);

    let mut life = Life::new(T0, "press = \"none\"\nobserver_press = true", "");
    life.observe("2026-12-01T12:10:00Z", OBS, "observe g obssecret1\n");
    let mails = life.mail_from("2026-12-01T12:20:00Z", OBS, body);
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert!(mails[0].body.contains("this is a gunboat game"), "{}", mails[0].body);
}

/// Wrong observer passwords count toward the same sign-on limit as a seat's; an
/// observer's password is not replaced by another `observe`, only by `password` signed on
/// (journaled), or by whoever runs the judge.
#[test]
fn an_observers_password_is_guarded_as_a_seats() {
    let mut life = Life::new(T0, "observer_press = true", "");
    life.observe("2026-12-01T12:10:00Z", OBS, "observe g obssecret1\n");
    // Another `observe` does not replace it, and does not say whether it was right.
    let mails = life.mail_from("2026-12-01T12:11:00Z", OBS, "observe g guessing1\n");
    assert!(Life::reply(&mails, life.n).body.contains("it is not changed"), "{mails:?}");
    for i in 0..5 {
        let mails = life.mail_from(&format!("2026-12-01T12:2{i}:00Z"), OBS, "SIGNON observer@g wrongpass\nstatus\n");
        let reply = &Life::reply(&mails, life.n).body;
        assert!(reply.contains("wrong password for the observer obs@example.org in g"), "{reply}");
        if i == 4 {
            let notice = to(&mails, "gm@example.org");
            assert_eq!(notice.len(), 1, "{mails:?}");
            assert!(notice[0].body.contains("mail password g obs@example.org --mail"), "{}", notice[0].body);
        }
    }
    let mails = life.mail_from("2026-12-01T12:30:00Z", OBS, "SIGNON observer@g obssecret1\nstatus\n");
    assert!(Life::reply(&mails, life.n).body.contains("is closed after 5 wrong passwords"), "{mails:?}");
    // An hour later it opens; `password` changes it, journaled as a fingerprint.
    let mails = life.mail_from("2026-12-01T13:30:00Z", OBS, "SIGNON observer@g obssecret1\npassword newsecret2\n");
    assert!(Life::reply(&mails, life.n).body.contains("password changed"), "{mails:?}");
    assert!(life.journal().iter().any(
        |e| matches!(e, Entry::PlayerChanged { who, what, .. } if who == "observer obs@example.org" && what == "password")
    ));
    let mails = life.mail_from("2026-12-01T13:40:00Z", OBS, "SIGNON obs@g newsecret2\nstatus\n");
    assert!(Life::reply(&mails, life.n).body.contains("signed on as the observer"), "{mails:?}");
    // Whoever runs the judge sets one for an observer as for a seat.
    let out = life.cli("2026-12-01T13:50:00Z", &["mail", "password", "g", OBS]).ok().stdout;
    assert!(out.contains("SIGNON observer@g "), "{out}");
    // A name that is no one's says an observer is named by address.
    let wrong = life.cli("2026-12-01T13:50:00Z", &["mail", "password", "g", "observer"]);
    assert!(wrong.stderr.contains("or an observer's address"), "{}", wrong.stderr);
}
