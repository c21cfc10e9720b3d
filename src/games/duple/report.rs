//! What players see of a Duple table: the report and the JSON of `status --json`.

use super::*;

impl Duple {
    pub(super) fn contest_label(&self, c: &Contest) -> String {
        match c.kind {
            ContestKind::Faceoff { piles: [a, b], .. } => {
                let (oa, ob) = (self.state.piles[a].owner, self.state.piles[b].owner);
                if oa == ob {
                    format!("faceoff {}: {}'s two piles", c.number, self.name(oa))
                } else {
                    format!("faceoff {}: {} v {}", c.number, self.name(oa), self.name(ob))
                }
            }
            ContestKind::AllPlay { .. } => format!("All Play {}", c.number),
        }
    }

    pub(super) fn answer_json(&self, c: &Contest, i: usize) -> serde_json::Value {
        let a = &c.answers[i];
        let state = if let Some(why) = &a.out {
            format!("out: {why}")
        } else if Self::candidate(c) == Some(i) {
            "under consideration".to_string()
        } else {
            "waiting".to_string()
        };
        json!({
            "player": self.name(a.player),
            "answer": a.text,
            "proper": a.proper,
            "at": a.at,
            "state": state,
            "challenge_until": a.window_end,
            "ruling": a.ruling.map(|r| if r { "upheld" } else { "rejected" }),
            "challenge": a.challenge.as_ref().map(|ch| json!({
                "by": self.name(ch.by),
                "at": ch.at,
                "voters": ch.voters.iter().map(|v| self.name(*v)).collect::<Vec<_>>(),
                "votes": ch.votes.iter().map(|(v, acc)| json!({"player": self.name(*v), "vote": if *acc { "accept" } else { "reject" }})).collect::<Vec<_>>(),
            })),
        })
    }

    pub(super) fn card_json(&self, card: Option<u16>) -> serde_json::Value {
        match card {
            Some(c) => {
                let l = self.deck.letter(c);
                json!({"letter": l.letter.to_string(), "symbol": self.deck.symbols[l.symbol]})
            }
            None => serde_json::Value::Null,
        }
    }

    /// The whole table at a glance, for players.
    pub(super) fn report(&self) -> String {
        let s = &self.state;
        let mut out = String::new();
        out.push_str(&format!(
            "Table (dealer {}; next to draw {}):\n",
            self.name(s.dealer),
            if s.winners.is_some() { "nobody" } else { self.name(s.next_drawer) }
        ));
        let width = s.players.iter().map(|p| p.len()).max().unwrap_or(0);
        for p in 0..self.n() {
            let piles: Vec<String> = (0..s.piles.len())
                .filter(|i| s.piles[*i].owner == p)
                .map(|i| {
                    let top = self.top(i).map_or("-".to_string(), |c| self.deck.describe_letter(c));
                    format!("{top:<10} pile {:>2}", s.piles[i].cards.len())
                })
                .collect();
            out.push_str(&format!(
                "  {:<width$}  {}   won {}, {} All Play = {}\n",
                self.name(p),
                piles.join("   "),
                count(s.won[p].len(), "Letter Card", "Letter Cards"),
                s.won_all_play[p].len(),
                count(self.score(p), "point", "points")
            ));
        }
        out.push_str(&format!(
            "Wild Card: {}\n",
            s.wild.map_or("none yet".to_string(), |w| self.deck.describe_wild(w))
        ));
        out.push_str(&format!("Category: {}\n", self.category_text()));
        out.push_str(&format!(
            "Cards left: {} in the letter deck, {} in the category deck.\n",
            s.letters.len(),
            s.categories.len()
        ));
        if let Some(c) = &s.contest {
            out.push('\n');
            match c.kind {
                ContestKind::Faceoff { piles: [a, b], cards, by_wild } => {
                    out.push_str(&format!(
                        "Faceoff {}: {} {} and {} {}{}.\n",
                        c.number,
                        self.pile_name(a),
                        self.deck.describe_letter(cards[0]),
                        self.pile_name(b),
                        self.deck.describe_letter(cards[1]),
                        if by_wild { " (by the Wild Card)" } else { "" }
                    ));
                    let who: Vec<&str> = c.players.iter().map(|p| self.name(*p)).collect();
                    out.push_str(&format!(
                        "  {} answer: a word in {} with {}.\n",
                        who.join(" and "),
                        self.category_text(),
                        Self::letters_text(&c.letters)
                    ));
                }
                ContestKind::AllPlay { .. } => {
                    out.push_str(&format!(
                        "All Play {}: everyone answers: one word, no proper noun, with {}.\n",
                        c.number,
                        Self::letters_text(&c.letters)
                    ));
                }
            }
            if c.tiebreaks > 0 || c.stuck > 0 {
                out.push_str(&format!(
                    "  Tiebreaks: {}; new categories (stuck): {} of {MAX_STUCK}.\n",
                    c.tiebreaks, c.stuck
                ));
            }
            out.push_str(&format!(
                "  Answers {} {}.\n",
                if c.answers_closed { "closed at" } else { "until" },
                when(c.closes)
            ));
            let mut order = (0..c.answers.len()).collect::<Vec<_>>();
            order.sort_by_key(|i| (c.answers[*i].at, c.answers[*i].seq));
            let candidate = Self::candidate(c);
            for i in order {
                let a = &c.answers[i];
                let mut line = format!(
                    "  - {} {}{} at {}",
                    self.name(a.player),
                    a.text,
                    if a.proper { " (proper)" } else { "" },
                    when(a.at)
                );
                if let Some(why) = &a.out {
                    line.push_str(&format!(": out, {why}"));
                } else if candidate == Some(i) {
                    line.push_str(&format!(
                        ": under consideration, challenge until {}",
                        a.window_end.map_or("?".into(), when)
                    ));
                    if let Some(ch) = &a.challenge {
                        let acc = ch.votes.iter().filter(|v| v.1).count();
                        line.push_str(&format!(
                            "; challenged by {} ({} accept, {} reject of {})",
                            self.name(ch.by),
                            acc,
                            ch.votes.len() - acc,
                            count(ch.voters.len(), "voter", "voters")
                        ));
                    }
                }
                out.push_str(&line);
                out.push('\n');
            }
        }
        if let Some(w) = &s.winners {
            let names: Vec<&str> = w.iter().map(|p| self.name(*p)).collect();
            out.push_str(&format!(
                "\nFinal points: {}. {} {}.\n",
                (0..self.n()).map(|p| format!("{} {}", self.name(p), self.score(p))).collect::<Vec<_>>().join(", "),
                names.join(" and "),
                if w.len() == 1 { "wins" } else { "share the win" }
            ));
        }
        out
    }

    /// The table as JSON (`status --json`).
    pub(super) fn status(&self) -> serde_json::Value {
        let s = &self.state;
        let table: Vec<serde_json::Value> = (0..self.n())
            .map(|p| {
                let piles: Vec<serde_json::Value> = (0..s.piles.len())
                    .filter(|i| s.piles[*i].owner == p)
                    .map(|i| json!({"top": self.card_json(self.top(i)), "size": s.piles[i].cards.len()}))
                    .collect();
                json!({"player": self.name(p), "top": piles[0]["top"].clone(), "piles": piles})
            })
            .collect();
        let open = s.contest.as_ref().map(|c| {
            let (kind, cards) = match c.kind {
                ContestKind::Faceoff { cards, .. } => ("faceoff", vec![self.card_json(Some(cards[0])), self.card_json(Some(cards[1]))]),
                ContestKind::AllPlay { .. } => ("all_play", Vec::new()),
            };
            json!({
                "kind": kind,
                "number": c.number,
                "players": c.players.iter().map(|p| self.name(*p)).collect::<Vec<_>>(),
                "cards": cards,
                "letters": c.letters.iter().map(|l| l.to_string()).collect::<Vec<_>>(),
                "category": if kind == "faceoff" { serde_json::Value::from(self.category_text()) } else { serde_json::Value::Null },
                "opened": c.opened,
                "deadline": c.closes,
                "answers_until": c.closes,
                "challenge_until": Self::open_window(c),
                "answers_closed": c.answers_closed,
                "stuck": c.stuck,
                "tiebreaks": c.tiebreaks,
                "answers": (0..c.answers.len()).map(|i| self.answer_json(c, i)).collect::<Vec<_>>(),
            })
        });
        let won: Vec<serde_json::Value> = (0..self.n())
            .map(|p| {
                json!({
                    "player": self.name(p),
                    "letter_cards": s.won[p].len(),
                    "all_play_cards": s.won_all_play[p].len(),
                    "points": self.score(p),
                })
            })
            .collect();
        let awaiting = self.awaiting();
        // The game's deadline is the earlier of the two: say which.
        let deadline_for = s.contest.as_ref().filter(|_| s.winners.is_none()).and_then(|c| {
            match (Self::open_window(c), (!c.answers_closed).then_some(c.closes)) {
                (Some(w), Some(a)) if w > a => Some("answers"),
                (Some(_), _) => Some("challenge"),
                (None, Some(_)) => Some("answers"),
                (None, None) => None,
            }
        });
        let mut status = json!({
            "game": KIND,
            "deadline_for": deadline_for,
            "step": self.step_label(),
            "round": s.contests,
            "players": s.players,
            "dealer": self.name(s.dealer),
            "next_to_draw": self.name(s.next_drawer),
            "awaiting": awaiting.players.iter().map(|p| self.name(*p)).collect::<Vec<_>>(),
            "awaiting_what": awaiting.what,
            "options": self.option_lines(),
            "table": table,
            "wild": s.wild.map(|w| match self.deck.drawn(w) {
                Drawn::Wild([a, b]) => json!({"symbols": [self.deck.symbols[a], self.deck.symbols[b]]}),
                Drawn::Letter(_) => serde_json::Value::Null,
            }),
            "category": s.category.map(|c| self.deck.category_name(c).to_string()),
            "open": open,
            "won": won,
            "cards_left": s.letters.len(),
            "categories_left": s.categories.len(),
        });
        crate::games::insert_ending(&mut status, self.ending().as_ref(), &self.players());
        status
    }
}
