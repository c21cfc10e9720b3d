//! Taking a player's or the master's lines: answers, challenges, votes and rulings,
//! each checked against the contest under way and applied whole or not at all.

use super::*;

impl Duple {
    /// Check an answer's letters: every letter needed, as many times as needed.
    pub fn missing_letters(word: &str, needed: &[char]) -> Option<String> {
        let mut have = [0usize; 26];
        for c in word.chars().filter(char::is_ascii_alphabetic) {
            have[usize::from(c.to_ascii_uppercase() as u8 - b'A')] += 1;
        }
        let mut want = [0usize; 26];
        for c in needed.iter().filter(|c| c.is_ascii_alphabetic()) {
            want[usize::from(c.to_ascii_uppercase() as u8 - b'A')] += 1;
        }
        let short: Vec<String> = (0..26)
            .filter(|i| have[*i] < want[*i])
            .map(|i| {
                let l = (b'A' + i as u8) as char;
                match want[i] {
                    1 => format!("no {l}"),
                    w => format!("{} {l} where {w} are needed", have[i]),
                }
            })
            .collect();
        (!short.is_empty()).then(|| short.join(", "))
    }

    /// Apply one line from `who` (`None`: the game master). Nothing changes on an error.
    pub(super) fn play(
        &mut self,
        who: Option<usize>,
        line: Line,
        ctx: &mut TurnContext<'_>,
    ) -> Result<(String, Vec<String>), String> {
        let now = secs(ctx.now);
        if self.state.winners.is_some() {
            return Err("the game is over".into());
        }
        let Some(c) = self.state.contest.as_ref() else {
            return Err("no faceoff or All Play is open".into());
        };
        let in_words = match c.kind {
            ContestKind::Faceoff { .. } => format!("faceoff {}", c.number),
            ContestKind::AllPlay { .. } => format!("All Play {}", c.number),
        };
        let master_only = "only the game master rules on an answer (`uphold`, `reject`)";
        let msg = match line {
            Line::Answer { text, proper } => {
                let p = who.ok_or("the game master does not answer; the master's lines are `uphold` and `reject`")?;
                if !c.players.contains(&p) {
                    let names: Vec<&str> = c.players.iter().map(|q| self.name(*q)).collect();
                    return Err(format!("you are not in {in_words}: only {} answer", names.join(" and ")));
                }
                if now < c.opened {
                    return Err(format!("received at {}, before {in_words} opened ({})", when(now), when(c.opened)));
                }
                if c.answers_closed || self.past(now, c.closes) {
                    return Err(format!("too late: answers to {in_words} closed at {}", when(c.closes)));
                }
                if let Some(a) = Self::candidate(c).map(|i| &c.answers[i]).filter(|_| self.state.edition > 0) {
                    if let Some(end) = a.window_end.filter(|e| a.window_closed || now >= *e) {
                        if self.stands_when_closed(a) {
                            return Err(format!(
                                "too late: {}'s answer {} won {in_words} when its challenge window closed at {}",
                                self.name(a.player),
                                a.text,
                                when(end)
                            ));
                        }
                    }
                }
                if let ContestKind::AllPlay { .. } = c.kind {
                    if proper {
                        return Err("no proper nouns in an All Play: one ordinary word".into());
                    }
                }
                if let Some(missing) = Self::missing_letters(&text, &c.letters) {
                    return Err(format!("{text} has {missing} (it needs {})", Self::letters_text(&c.letters)));
                }
                if c.answers.iter().any(|a| a.player == p && a.text.eq_ignore_ascii_case(&text)) {
                    return Err(format!("you already answered {text}"));
                }
                let mine = c.answers.iter().filter(|a| a.player == p && a.out.is_none()).count();
                let capped = self.state.edition > 0;
                if capped && mine >= MAX_ANSWERS {
                    return Err(format!(
                        "{CAP_REASON}{} under way in {in_words}, the most one player may have; \
                         another is taken once one of them is out",
                        count(mine, "answer", "answers")
                    ));
                }
                let full = if capped && mine + 1 == MAX_ANSWERS {
                    format!(" ({MAX_ANSWERS} answers under way: the most one player may have)")
                } else {
                    String::new()
                };
                let c = self.state.contest.as_mut().expect("open");
                c.answers.push(Answer {
                    player: p,
                    text: text.clone(),
                    proper,
                    at: now,
                    seq: c.next_seq,
                    announced: None,
                    window_end: None,
                    window_closed: false,
                    challenge: None,
                    ruling: None,
                    out: None,
                });
                c.next_seq += 1;
                format!("answer {text}{}: received {}{full}", if proper { " (proper noun)" } else { "" }, when(now))
            }
            Line::Challenge => {
                let p = who.ok_or("the game master rules with `uphold` or `reject`, not `challenge`")?;
                let i = Self::candidate(c).ok_or("no answer is under consideration to challenge")?;
                let a = &c.answers[i];
                if a.player == p {
                    return Err("you cannot challenge your own answer".into());
                }
                if !c.players.contains(&p) {
                    return Err(format!(
                        "only the players of {in_words} may challenge its answers; you may vote if it is challenged"
                    ));
                }
                if let Some(ch) = &a.challenge {
                    return Err(format!("{} is already challenged by {}", a.text, self.name(ch.by)));
                }
                if a.ruling.is_some() {
                    return Err(format!("the game master has already ruled on {}", a.text));
                }
                let end = a.window_end.unwrap_or(now);
                if a.window_closed || self.past(now, end) {
                    return Err(format!("too late: the challenge window for {} closed at {}", a.text, when(end)));
                }
                let voters: Vec<usize> = match c.kind {
                    ContestKind::Faceoff { .. } => (0..self.n()).filter(|q| !c.players.contains(q)).collect(),
                    ContestKind::AllPlay { .. } => (0..self.n())
                        .filter(|q| *q != p && *q != a.player && !c.answers.iter().any(|x| x.player == *q))
                        .collect(),
                };
                let text = a.text.clone();
                let note = match (self.state.rules.challenges, voters.is_empty()) {
                    (Settle::Master, _) => "the game master rules on it".to_string(),
                    (Settle::Vote, true) => {
                        "nobody may vote on it: it stands unless the game master rejects it before the window closes"
                            .into()
                    }
                    (Settle::Vote, false) => {
                        let names: Vec<&str> = voters.iter().map(|q| self.name(*q)).collect();
                        let verb = crate::text::plural(names.len(), "votes", "vote");
                        format!("{} {verb} until {}", names.join(" and "), when(end))
                    }
                };
                let c = self.state.contest.as_mut().expect("open");
                c.answers[i].challenge = Some(Challenge { by: p, at: now, voters, votes: Vec::new() });
                format!("challenge to {text}: {note}")
            }
            Line::Vote(accept) => {
                let p = who.ok_or("the game master rules with `uphold` or `reject`, not by vote")?;
                if self.state.rules.challenges == Settle::Master {
                    return Err("in this game the game master settles challenges; players do not vote".into());
                }
                let i = Self::candidate(c)
                    .filter(|i| c.answers[*i].challenge.is_some())
                    .ok_or("no challenge is open to vote on")?;
                let a = &c.answers[i];
                let ch = a.challenge.as_ref().expect("challenged");
                if ch.votes.iter().any(|v| v.0 == p) {
                    return Err("you already voted on this challenge".into());
                }
                if !ch.voters.contains(&p) {
                    return Err(match c.kind {
                        ContestKind::Faceoff { .. } if c.players.contains(&p) => {
                            format!("you are in {in_words}: only the players outside it vote")
                        }
                        _ => "you may not vote on this challenge: you answered, challenged, or gave the answer".into(),
                    });
                }
                let end = a.window_end.unwrap_or(now);
                if a.window_closed || self.past(now, end) {
                    return Err(format!("too late: voting on {} closed at {}", a.text, when(end)));
                }
                let text = a.text.clone();
                let c = self.state.contest.as_mut().expect("open");
                if let Some(ch) = c.answers[i].challenge.as_mut() {
                    ch.votes.push((p, accept));
                }
                format!("vote {} {text}", if accept { "to accept" } else { "to reject" })
            }
            Line::Uphold | Line::Reject => {
                if who.is_some() {
                    return Err(master_only.into());
                }
                let i = Self::candidate(c).ok_or("no answer is under consideration")?;
                let a = &c.answers[i];
                let text = a.text.clone();
                // The master too rules only while the window is open: at its end the
                // answer was settled as it stood, whenever the tick comes.
                if let Some(end) = a.window_end.filter(|e| self.state.edition > 0 && (a.window_closed || now >= *e)) {
                    return Err(format!(
                        "too late: the challenge window for {text} closed at {}, and {text} {} then",
                        when(end),
                        if self.stands_when_closed(a) { "stood" } else { "was rejected by the vote" }
                    ));
                }
                let upheld = line == Line::Uphold;
                let c = self.state.contest.as_mut().expect("open");
                c.answers[i].ruling = Some(upheld);
                if upheld {
                    format!("uphold: {text} stands")
                } else {
                    format!("reject: {text} is out")
                }
            }
        };
        let mut events = Vec::new();
        self.settle(ctx, &mut events);
        Ok((msg, events))
    }

    pub(super) fn lines(&mut self, who: Option<usize>, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        let mut ack = TurnAck::default();
        // The cap's reason in full once a message; after that, in brief.
        let mut capped_at: Option<usize> = None;
        for read in kit::lines(text) {
            let n = read.number;
            match parse_line(&read) {
                Err(u) => ack.lines.push(u.on(n).into()),
                Ok(line) => match self.play(who, line, ctx) {
                    Ok((msg, events)) => {
                        ack.lines.push(LineAnswer::accepted(n, msg));
                        ack.events.extend(events);
                    }
                    Err(reason) if reason.starts_with(CAP_REASON) => {
                        let reason = match capped_at {
                            Some(first) => format!("{MAX_ANSWERS} answers under way, as at line {first}"),
                            None => reason,
                        };
                        capped_at.get_or_insert(n);
                        ack.lines.push(LineAnswer::refused(n, 1, reason));
                    }
                    Err(reason) => ack.lines.push(LineAnswer::refused(n, 1, reason)),
                },
            }
        }
        ack
    }
}
