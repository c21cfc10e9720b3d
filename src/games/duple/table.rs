//! The table: piles and their matches, faceoffs and All Plays opened and settled,
//! challenges counted, cards won and the game's end.

use super::*;

impl Duple {
    pub(super) fn n(&self) -> usize {
        self.state.players.len()
    }

    pub(super) fn name(&self, p: usize) -> &str {
        self.state.players.get(p).map_or("?", String::as_str)
    }

    pub(super) fn two_player(&self) -> bool {
        self.n() == 2
    }

    pub(super) fn pile_name(&self, pile: usize) -> String {
        let owner = self.state.piles[pile].owner;
        if self.two_player() {
            format!("{}'s pile {}", self.name(owner), pile % 2 + 1)
        } else {
            format!("{}'s pile", self.name(owner))
        }
    }

    pub(super) fn top(&self, pile: usize) -> Option<u16> {
        self.state.piles.get(pile).and_then(|p| p.cards.last().copied())
    }

    pub(super) fn symbol(&self, card: u16) -> usize {
        self.deck.letter(card).symbol
    }

    /// Whether two top cards match: the same symbol, or the two symbols of the Wild Card.
    pub(super) fn cards_match(&self, a: u16, b: u16) -> Option<bool> {
        let (sa, sb) = (self.symbol(a), self.symbol(b));
        if sa == sb {
            return Some(false);
        }
        match self.state.wild.map(|w| self.deck.drawn(w)) {
            Some(Drawn::Wild([x, y])) if (sa == x && sb == y) || (sa == y && sb == x) => Some(true),
            _ => None,
        }
    }

    pub(super) fn lapsed(&self, a: u16, b: u16) -> bool {
        self.state.lapsed.iter().any(|l| (l[0] == a && l[1] == b) || (l[0] == b && l[1] == a))
    }

    /// A lapsed pair is forgotten once either card leaves the top (covered or won): when
    /// it is revealed again, the match is played like any other.
    pub(super) fn forget_lapsed(&mut self) {
        if self.state.edition == 0 {
            return;
        }
        let tops: Vec<u16> = (0..self.state.piles.len()).filter_map(|p| self.top(p)).collect();
        self.state.lapsed.retain(|l| tops.contains(&l[0]) && tops.contains(&l[1]));
    }

    /// Piles in seat order from the drawer (a player's first pile before their second).
    pub(super) fn piles_in_seat_order(&self) -> Vec<usize> {
        let n = self.n();
        let drawer = self.state.drawer;
        let mut order: Vec<usize> = (0..self.state.piles.len()).collect();
        order.sort_by_key(|&p| ((self.state.piles[p].owner + n - drawer) % n, p));
        order
    }

    pub(super) fn live(&self, a: usize, b: usize) -> Option<Match> {
        let (ca, cb) = (self.top(a)?, self.top(b)?);
        (a != b && self.cards_match(ca, cb).is_some() && !self.lapsed(ca, cb))
            .then_some(Match { piles: [a, b], cards: [ca, cb] })
    }

    /// Queue the matches of the card now on top of `pile`, in seat order from the drawer.
    pub(super) fn queue_matches_of(&mut self, pile: usize) {
        for q in self.piles_in_seat_order() {
            if let Some(m) = self.live(pile, q) {
                self.state.queue.push_back(m);
            }
        }
    }

    /// Every match on the table, in seat order from the drawer.
    pub(super) fn all_matches(&self) -> Vec<Match> {
        let order = self.piles_in_seat_order();
        let mut out = Vec::new();
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                if let Some(m) = self.live(a, b) {
                    out.push(m);
                }
            }
        }
        out
    }

    /// The next match still on the table: the queue first, then anything left.
    pub(super) fn next_match(&mut self) -> Option<Match> {
        while let Some(m) = self.state.queue.pop_front() {
            if self.live(m.piles[0], m.piles[1]).is_some_and(|now| now.cards == m.cards) {
                return Some(m);
            }
        }
        let all = self.all_matches();
        let first = all.first().cloned();
        self.state.queue.extend(all.into_iter().skip(1));
        first
    }

    pub(super) fn tick(&mut self) -> u64 {
        self.state.clock += 1;
        self.state.clock
    }

    pub(super) fn face_up_letters(&self) -> Vec<char> {
        (0..self.state.piles.len()).filter_map(|p| self.top(p)).map(|c| self.deck.letter(c).letter).collect()
    }

    pub(super) fn category_text(&self) -> String {
        match self.state.category {
            Some(c) => self.deck.category_name(c).to_string(),
            None => "none".into(),
        }
    }

    pub(super) fn discard_category(&mut self) {
        if let Some(c) = self.state.category.take() {
            if self.deck.is_all_play(c) {
                self.state.categories.shuffle_back(c);
            } else {
                self.state.discards.push(c);
            }
        }
    }

    /// Turn up the next category card. Without `all_play`, an All Play Card that comes up
    /// goes back into the deck (during a tiebreak or a stuck faceoff).
    pub(super) fn draw_category(&mut self, ctx: &mut TurnContext<'_>, all_play: bool, events: &mut Vec<String>) {
        for _ in 0..1_000 {
            if self.state.categories.is_empty() || (!all_play && self.state.categories.only_special()) {
                if self.state.discards.is_empty() {
                    break;
                }
                let cards = std::mem::take(&mut self.state.discards);
                self.state.categories.refill(cards);
                events.push("The used Category Cards are shuffled into a new category deck.".into());
            }
            let Some(card) = self.state.categories.draw(ctx.dice, "category deck") else { break };
            if self.deck.is_all_play(card) && !all_play {
                self.state.categories.shuffle_back(card);
                events.push("An All Play Card came up during the faceoff; it goes back into the deck.".into());
                continue;
            }
            self.state.category = Some(card);
            return;
        }
        self.state.category = None;
    }

    pub(super) fn change_category(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        self.discard_category();
        self.draw_category(ctx, true, events);
    }

    pub(super) fn letters_text(letters: &[char]) -> String {
        let l: Vec<String> = letters.iter().map(|c| c.to_string()).collect();
        match l.len() {
            0 => "no letters".into(),
            1 => l[0].clone(),
            _ => format!("{} and {}", l[..l.len() - 1].join(", "), l[l.len() - 1]),
        }
    }

    pub(super) fn open_faceoff(&mut self, m: Match, now: DateTime<Utc>, events: &mut Vec<String>) {
        let [a, b] = m.piles;
        let by_wild = self.cards_match(m.cards[0], m.cards[1]) == Some(true);
        let (oa, ob) = (self.state.piles[a].owner, self.state.piles[b].owner);
        let players: Vec<usize> = if oa == ob {
            let n = self.n();
            (0..n).map(|i| (self.state.drawer + i) % n).collect()
        } else {
            vec![oa, ob]
        };
        let letters = vec![self.deck.letter(m.cards[0]).letter, self.deck.letter(m.cards[1]).letter];
        self.state.contests += 1;
        let closes = now + hours(self.state.rules.faceoff_hours);
        let how = if by_wild {
            format!("match by the Wild Card {}", self.deck.describe_wild(self.state.wild.unwrap_or_default()))
        } else {
            "match".to_string()
        };
        let who: Vec<&str> = players.iter().map(|p| self.name(*p)).collect();
        events.push(format!(
            "Faceoff {}: {} shows {}, {} shows {}: a {}. {}: a word in {} with {}; answers until {}.",
            self.state.contests,
            self.pile_name(a),
            self.deck.describe_letter(m.cards[0]),
            self.pile_name(b),
            self.deck.describe_letter(m.cards[1]),
            how,
            who.join(" and "),
            self.category_text(),
            Self::letters_text(&letters),
            when(closes)
        ));
        self.state.contest = Some(Contest {
            number: self.state.contests,
            kind: ContestKind::Faceoff { piles: m.piles, cards: m.cards, by_wild },
            players,
            letters,
            opened: now,
            closes,
            answers_closed: false,
            stuck: 0,
            tiebreaks: 0,
            answers: Vec::new(),
            next_seq: 0,
        });
    }

    pub(super) fn open_all_play(
        &mut self,
        card: u16,
        letters: Vec<char>,
        now: DateTime<Utc>,
        events: &mut Vec<String>,
    ) {
        self.state.contests += 1;
        let closes = now + hours(self.state.rules.allplay_hours);
        events.push(format!(
            "All Play {}: everyone, one word (no proper noun, no category) with {}; answers until {}.",
            self.state.contests,
            Self::letters_text(&letters),
            when(closes)
        ));
        let n = self.n();
        self.state.contest = Some(Contest {
            number: self.state.contests,
            kind: ContestKind::AllPlay { card },
            players: (0..n).map(|i| (self.state.drawer + i) % n).collect(),
            letters,
            opened: now,
            closes,
            answers_closed: false,
            stuck: 0,
            tiebreaks: 0,
            answers: Vec::new(),
            next_seq: 0,
        });
    }

    pub(super) fn end_game(&mut self, events: &mut Vec<String>) {
        let scores: Vec<usize> = (0..self.n()).map(|p| self.score(p)).collect();
        let best = scores.iter().copied().max().unwrap_or(0);
        let winners: Vec<usize> = (0..self.n()).filter(|p| scores[*p] == best).collect();
        let table: Vec<String> = (0..self.n()).map(|p| format!("{} {}", self.name(p), scores[p])).collect();
        let names: Vec<&str> = winners.iter().map(|p| self.name(*p)).collect();
        events.push(format!(
            "The letter deck is empty: the game is over. Points: {}. {} {}.",
            table.join(", "),
            names.join(" and "),
            if winners.len() == 1 { "wins" } else { "share the win" }
        ));
        self.state.winners = Some(winners);
    }

    /// Points: each Letter Card won 1, each All Play Card 2.
    pub fn score(&self, p: usize) -> usize {
        self.state.won[p].len() + 2 * self.state.won_all_play[p].len()
    }

    /// Draw for the player whose turn it is.
    pub(super) fn draw_turn(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let p = self.state.next_drawer;
        let Some(card) = self.state.letters.draw(ctx.dice, "letter deck") else {
            self.end_game(events);
            return;
        };
        self.state.drawer = p;
        match self.deck.drawn(card) {
            Drawn::Wild(_) => {
                if let Some(old) = self.state.wild.replace(card) {
                    self.state.old_wilds.push(old);
                }
                events.push(format!(
                    "{} draws a Wild Card: {}. It replaces the Wild Card before it; {} draws again after its faceoffs.",
                    self.name(p),
                    self.deck.describe_wild(card),
                    self.name(p)
                ));
                for m in self.all_matches() {
                    if self.cards_match(m.cards[0], m.cards[1]) == Some(true) {
                        self.state.queue.push_back(m);
                    }
                }
            }
            Drawn::Letter(_) => {
                let per = if self.two_player() { 2 } else { 1 };
                let pile = p * per + self.state.next_pile[p];
                self.state.next_pile[p] = (self.state.next_pile[p] + 1) % per;
                let since = self.tick();
                self.state.piles[pile].cards.push(card);
                self.state.piles[pile].since = since;
                self.state.turns += 1;
                self.state.next_drawer = (p + 1) % self.n();
                self.forget_lapsed();
                events.push(format!(
                    "Turn {}: {} draws {}{}.",
                    self.state.turns,
                    self.name(p),
                    self.deck.describe_letter(card),
                    if self.two_player() { format!(" onto pile {}", pile % 2 + 1) } else { String::new() }
                ));
                self.queue_matches_of(pile);
            }
        }
    }

    // ---- answers, challenges and their windows ----

    /// Indexes of the answers not out, first received first.
    pub(super) fn live_answers(c: &Contest) -> Vec<usize> {
        let mut live: Vec<usize> = (0..c.answers.len()).filter(|i| c.answers[*i].out.is_none()).collect();
        live.sort_by_key(|i| (c.answers[*i].at, c.answers[*i].seq));
        live
    }

    /// A vote on a challenge under way (the players vote, the window is open, no ruling):
    /// `Some(true)` once every voter has voted.
    pub(super) fn vote_under_way(&self) -> Option<bool> {
        let c = self.state.contest.as_ref().filter(|_| self.state.winners.is_none())?;
        let a = &c.answers[Self::candidate(c)?];
        let ch = a.challenge.as_ref()?;
        let counted = self.state.rules.challenges == Settle::Vote && !ch.voters.is_empty();
        (counted && a.ruling.is_none() && !a.window_closed).then_some(ch.votes.len() == ch.voters.len())
    }

    /// Whether a window that ends at `end` is over at `now`. A window closes at its time:
    /// a line received in that very second is too late (edition 0: it was still taken).
    pub(super) fn past(&self, now: DateTime<Utc>, end: DateTime<Utc>) -> bool {
        if self.state.edition > 0 {
            now >= end
        } else {
            now > end
        }
    }

    /// Whether an answer stands when its challenge window closes, as things are: the
    /// master's ruling, else the votes cast (in a game that votes), else it stands.
    pub(super) fn stands_when_closed(&self, a: &Answer) -> bool {
        match (a.ruling, &a.challenge) {
            (Some(upheld), _) => upheld,
            (None, Some(ch)) if self.state.rules.challenges == Settle::Vote => {
                let accept = ch.votes.iter().filter(|v| v.1).count();
                ch.votes.len() - accept <= accept
            }
            _ => true,
        }
    }

    /// When the challenge window of the answer under consideration ends, while it is open.
    pub(super) fn open_window(c: &Contest) -> Option<DateTime<Utc>> {
        Self::candidate(c).filter(|i| !c.answers[*i].window_closed).and_then(|i| c.answers[i].window_end)
    }

    /// The answer under consideration (announced, not out).
    pub(super) fn candidate(c: &Contest) -> Option<usize> {
        Self::live_answers(c).into_iter().next().filter(|i| c.answers[*i].announced.is_some())
    }

    /// Settle what can be settled at `now`: windows that ended, ties, challenges decided.
    pub(super) fn settle(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let now = secs(ctx.now);
        for _ in 0..1_000 {
            let challenge_hours = hours(self.state.rules.challenge_hours);
            let Some(c) = self.state.contest.as_mut() else { return };
            if !c.answers_closed && now >= c.closes {
                c.answers_closed = true;
            }
            let live = Self::live_answers(c);
            let Some(&first) = live.first() else {
                if c.answers_closed {
                    self.nobody_answered(ctx, events);
                    continue;
                }
                return;
            };
            let first_at = c.answers[first].at;
            let mut tied: Vec<usize> =
                live.iter().filter(|i| c.answers[**i].at == first_at).map(|i| c.answers[*i].player).collect();
            tied.dedup();
            tied.sort();
            tied.dedup();
            if tied.len() >= 2 {
                self.tie(ctx, &tied, events);
                continue;
            }
            let a = &mut c.answers[first];
            if a.announced.is_none() {
                a.announced = Some(now);
                a.window_end = Some(now + challenge_hours);
                let text = format!(
                    "{}'s answer {} (received {}) is the one to beat; a challenge may be made until {}.",
                    self.state.players[a.player],
                    a.text,
                    when(a.at),
                    when(now + challenge_hours)
                );
                events.push(text);
            }
            let a = &self.state.contest.as_ref().expect("open").answers[first];
            let closed = a.window_closed || a.window_end.is_some_and(|e| now >= e);
            let verdict = match (&a.ruling, &a.challenge) {
                (Some(r), _) => Some((*r, "by the game master".to_string())),
                (None, Some(ch)) => {
                    let accept = ch.votes.iter().filter(|v| v.1).count();
                    let reject = ch.votes.len() - accept;
                    // Every vote in ends the vote early, unless it is held (early processing
                    // off, or a `wait`): then it is counted when the window closes.
                    let all_in = !ch.voters.is_empty() && ch.votes.len() == ch.voters.len() && !ctx.hold;
                    let counted = self.state.rules.challenges == Settle::Vote;
                    if counted && (all_in || closed) {
                        Some((reject <= accept, format!("by vote, {accept} accept, {reject} reject")))
                    } else if closed {
                        Some((true, "no ruling came before the window closed".to_string()))
                    } else {
                        None
                    }
                }
                (None, None) => closed.then(|| (true, "unchallenged".to_string())),
            };
            match verdict {
                None => return,
                Some((true, how)) => {
                    self.win(first, &how, ctx, events);
                }
                Some((false, how)) => {
                    let c = self.state.contest.as_mut().expect("open");
                    let a = &mut c.answers[first];
                    a.out = Some(format!("rejected {how}"));
                    let text =
                        format!("{}'s answer {} is rejected {how}: it is out.", self.state.players[a.player], a.text);
                    events.push(text);
                }
            }
        }
    }

    pub(super) fn tie(&mut self, ctx: &mut TurnContext<'_>, tied: &[usize], events: &mut Vec<String>) {
        let now = secs(ctx.now);
        let names: Vec<&str> = tied.iter().map(|p| self.name(*p)).collect();
        let names = names.join(" and ");
        let c = self.state.contest.as_ref().expect("open");
        match c.kind {
            ContestKind::Faceoff { .. } => {
                let before = self.category_text();
                self.discard_category();
                self.draw_category(ctx, false, events);
                let closes = now + hours(self.state.rules.faceoff_hours);
                let category = self.category_text();
                let c = self.state.contest.as_mut().expect("open");
                c.tiebreaks += 1;
                c.stuck = 0;
                c.answers.clear();
                c.opened = now;
                c.closes = closes;
                c.answers_closed = false;
                events.push(format!(
                    "{names} answered in the same second: a tiebreak. The category changes from {before} to {category}; \
                     the same letters, {}; answers until {}.",
                    Self::letters_text(&c.letters),
                    when(closes)
                ));
            }
            ContestKind::AllPlay { .. } => {
                let closes = now + hours(self.state.rules.allplay_hours);
                let c = self.state.contest.as_mut().expect("open");
                c.tiebreaks += 1;
                c.answers.clear();
                c.opened = now;
                c.closes = closes;
                c.answers_closed = false;
                events.push(format!(
                    "{names} answered in the same second: the All Play starts again with the same letters; answers until {}.",
                    when(closes)
                ));
            }
        }
    }

    pub(super) fn nobody_answered(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let now = secs(ctx.now);
        let c = self.state.contest.clone().expect("open");
        match c.kind {
            ContestKind::Faceoff { .. } if c.stuck < MAX_STUCK => {
                self.discard_category();
                self.draw_category(ctx, false, events);
                let closes = now + hours(self.state.rules.faceoff_hours);
                let category = self.category_text();
                let c = self.state.contest.as_mut().expect("open");
                c.stuck += 1;
                c.answers.clear();
                c.opened = now;
                c.closes = closes;
                c.answers_closed = false;
                events.push(format!(
                    "Faceoff {}: no acceptable answer in time. Stuck ({} of {MAX_STUCK}): the category changes to {category}; \
                     the faceoff reopens until {}.",
                    c.number,
                    c.stuck,
                    when(closes)
                ));
            }
            ContestKind::Faceoff { cards, .. } => {
                self.state.lapsed.push(cards);
                self.state.contest = None;
                events.push(format!(
                    "Faceoff {}: no acceptable answer after {MAX_STUCK} new categories: it lapses and no card moves.",
                    c.number
                ));
                self.change_category(ctx, events);
                self.announce_category(events);
            }
            ContestKind::AllPlay { card } => {
                self.state.contest = None;
                self.state.category = None;
                self.state.categories.shuffle_back(card);
                events.push(format!(
                    "All Play {}: no acceptable answer in time; the All Play Card is shuffled back into the category deck.",
                    c.number
                ));
                self.draw_category(ctx, true, events);
                self.announce_category(events);
            }
        }
    }

    pub(super) fn announce_category(&self, events: &mut Vec<String>) {
        events.push(format!("The category is now {}.", self.category_text()));
    }

    pub(super) fn win(&mut self, answer: usize, how: &str, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let c = self.state.contest.take().expect("open");
        let a = &c.answers[answer];
        let p = a.player;
        match c.kind {
            ContestKind::Faceoff { piles: [x, y], .. } => {
                let (ox, oy) = (self.state.piles[x].owner, self.state.piles[y].owner);
                let from = if ox == oy {
                    // A match within one player's piles: the winner takes the card just drawn.
                    if self.state.piles[x].since > self.state.piles[y].since {
                        x
                    } else {
                        y
                    }
                } else if ox == p {
                    y
                } else {
                    x
                };
                let Some(card) = self.state.piles[from].cards.pop() else { return };
                self.state.won[p].push(card);
                events.push(format!(
                    "{} wins faceoff {} with {} ({how}) and takes {} from {}.",
                    self.name(p),
                    c.number,
                    a.text,
                    self.deck.describe_letter(card),
                    self.pile_name(from)
                ));
                let since = self.tick();
                self.state.piles[from].since = since;
                self.forget_lapsed();
                match self.top(from) {
                    Some(top) => {
                        events.push(format!("{} shows {} again.", self.pile_name(from), self.deck.describe_letter(top)))
                    }
                    None => events.push(format!("{} is empty.", self.pile_name(from))),
                }
                self.queue_matches_of(from);
                self.change_category(ctx, events);
            }
            ContestKind::AllPlay { card } => {
                self.state.won_all_play[p].push(card);
                self.state.category = None;
                events.push(format!(
                    "{} wins All Play {} with {} ({how}) and takes the All Play Card (2 points).",
                    self.name(p),
                    c.number,
                    a.text
                ));
                self.draw_category(ctx, true, events);
            }
        }
        self.announce_category(events);
    }

    /// Every card of the letter deck, wherever it is: (in piles, won, deck, Wild Cards
    /// out), for the accounting checks.
    pub fn letter_cards_accounted(&self) -> usize {
        self.state.piles.iter().map(|p| p.cards.len()).sum::<usize>()
            + self.state.won.iter().map(Vec::len).sum::<usize>()
            + self.state.letters.len()
            + usize::from(self.state.wild.is_some())
            + self.state.old_wilds.len()
    }

    /// Every card of the category deck, wherever it is.
    pub fn category_cards_accounted(&self) -> usize {
        self.state.categories.len()
            + usize::from(self.state.category.is_some())
            + self.state.discards.len()
            + self.state.won_all_play.iter().map(Vec::len).sum::<usize>()
    }
}
