//! A turn file taken: the engine's answer per line, the automatic steps after it, and an
//! answer given again for a message already carried out.

use super::*;

/// Run the automatic steps until none is left (each call may unlock the next).
pub(super) fn run_automatic(game: &mut dyn TurnGame, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
    // An engine that keeps answering with events would loop for ever: a bound far above
    // any real chain of steps keeps a bug from hanging the judge.
    for _ in 0..10_000 {
        let more = game.advance(ctx);
        if more.is_empty() {
            return;
        }
        events.extend(more);
    }
}

impl OpenTurnGame {
    /// The change of a submission or a forced deadline, once the engine ran: build the step,
    /// reveal the seed if the game just ended, journal it. `waited` is what the game
    /// awaited before a submission: when it still awaits the same input of the same
    /// players (someone else's turn sent ahead, say), the deadline stays where it was.
    pub(super) fn finish(
        &mut self,
        lock: &mut GameLock,
        dice: &mut Dice,
        events: Vec<String>,
        now: DateTime<Utc>,
        waited: Option<(Awaiting, String)>,
        entry: impl FnOnce(Step) -> TurnEntry,
    ) -> Result<u64, GameError> {
        let over = self.game.ending().is_some();
        let unchanged = waited.as_ref().is_some_and(|(awaiting, label)| {
            *awaiting == self.game.awaiting()
                && *label == self.game.step_label()
                && crate::turn::own_deadline(self.game.as_ref()).is_none()
        });
        // A held step goes on at the deadline it had when its input was awaited.
        let held = self.game.together().is_held()
            && waited.is_some()
            && crate::turn::own_deadline(self.game.as_ref()).is_none();
        let deadline = if (unchanged || held) && !over && !self.meta.paused {
            self.meta.deadline
        } else {
            deadline_after(&self.settings, self.game.as_ref(), self.meta.paused, now)?
        };
        let rolls = dice.take_rolls();
        let step = Step {
            rolls,
            events,
            label: self.game.step_label(),
            round: self.game.round(),
            next_roll: dice.next_index(),
            deadline,
            state: self.game.save(),
            patch: None,
            mail: true,
        };
        let next_seq = lock.last_seq() + 1;
        apply_step(&mut self.meta, &step, next_seq);
        settle_waits(&mut self.kept.meta, self.kept.game.as_ref(), waited.as_ref().map(|(_, label)| label.as_str()));
        let seq = self.record(lock, now, entry(step))?;
        if over && self.meta.revealed.is_none() {
            self.reveal_locked(lock, now)?;
        }
        Ok(seq)
    }

    /// Take a player's turn file. `at` is when it counts as received (journaled); `now`
    /// is the journal time. Nothing is journaled when no line was accepted.
    pub fn submit(
        &mut self,
        seat: Seat,
        text: &str,
        at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Submission, GameError> {
        if text.len() > MAX_TURN_BYTES {
            return Err(GameError::Invalid(format!(
                "{} bytes; a turn file is at most {} KiB",
                text.len(),
                MAX_TURN_BYTES / 1024
            )));
        }
        let mut lock = self.relock()?;
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        let name = match seat {
            Seat::Master => MASTER.to_string(),
            Seat::Player(p) => {
                self.game.players().get(p).cloned().ok_or_else(|| GameError::Invalid(format!("no seat {p}")))?
            }
        };
        if let Some(record) = self.book.left_before() {
            // This message was carried out before the judge was interrupted: answer as
            // then, and keep nothing again.
            let at = self.entries.iter().position(|(s, _, _)| *s == record.seq).unwrap_or_default();
            drop(lock);
            return self.answer_again(at, seat, text);
        }
        // `wait` and `nowait` lines are the judge's, taken before the rest of the turn.
        let (text, waits) = match seat {
            Seat::Player(_) => wait_lines(text),
            Seat::Master => (text.to_string(), Vec::new()),
        };
        let mut answers = Vec::new();
        let mut kept = None;
        let mut released = Vec::new();
        // One change of `wait` per turn file: the last `wait` or `nowait` line wins, so a
        // file of many cannot write many journal entries.
        let (earlier, last) = waits.split_at(waits.len().saturating_sub(1));
        let last_line = last.first().map(|(line, _)| *line).unwrap_or_default();
        // One answer for them all, however many: a file of copies gets a short answer.
        if let Some((first, _)) = earlier.first() {
            let more = match earlier.len() - 1 {
                0 => String::new(),
                n => format!(", as are {} after it", crate::text::count(n, "more", "more")),
            };
            answers.push(LineAnswer::accepted(
                *first,
                format!("`wait` or `nowait` replaced by line {last_line}{more} (only the last one counts)"),
            ));
        }
        for &(line, wait) in last {
            match self.wait_locked(&mut lock, &name, wait, now) {
                Ok(done) => {
                    answers.push(LineAnswer::accepted(line, done.said));
                    kept = done.seq.or(kept);
                    released.extend(done.events);
                }
                Err(e) => answers.push(LineAnswer::refused(line, 1, e.to_string())),
            }
        }
        let hold = self.hold_now();
        let mut dice = self.dice();
        let mut ctx = TurnContext { dice: &mut dice, now: at, hold };
        let waited = (self.game.awaiting(), self.game.step_label());
        let mut ack = seat.submit(self.game.as_mut(), &text, &mut ctx);
        let changed = ack.changed();
        ack.lines.extend(answers);
        ack.lines.sort_by_key(|l| l.line);
        if !changed {
            // Nothing taken: the game is as it was (the engine must not have rolled).
            self.game = games::load(&self.meta.game, &self.meta.state).map_err(GameError::Damaged)?;
            return Ok(Submission { ack, events: released, seq: kept });
        }
        let mut events = ack.events.clone();
        run_automatic(self.game.as_mut(), &mut ctx, &mut events);
        released.extend(events[ack.events.len()..].iter().cloned());
        let seq = self.finish(&mut lock, &mut dice, events, now, Some(waited), |step| TurnEntry::Submitted {
            player: name,
            text,
            at,
            hold,
            step,
        })?;
        Ok(Submission { ack, events: released, seq: Some(seq) })
    }

    /// `submit --check`: the answer every line of `text` would get now, on a copy of the
    /// game; nothing is kept and no lock is taken. A roll the turn needs is made with
    /// stand-in dice, never the game's own (whose next rolls must stay unknown): the
    /// second value is whether any was made. `wait` lines are left to the real submission.
    pub fn check(&self, seat: Seat, text: &str, at: DateTime<Utc>) -> Result<(TurnAck, bool), GameError> {
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        let mut copy = games::load(&self.meta.game, &self.game.save()).map_err(GameError::Damaged)?;
        let text = match seat {
            Seat::Player(_) => wait_lines(text).0,
            Seat::Master => text.to_string(),
        };
        let mut dice = Dice::new(Seed::from_bytes([0; 32]), "a check, not the game", 0);
        let mut ctx = TurnContext { dice: &mut dice, now: at, hold: self.hold_now() };
        let ack = seat.submit(copy.as_mut(), &text, &mut ctx);
        Ok((ack, dice.next_index() > 0))
    }

    /// The answer that a message carried out before an interruption got (its journal
    /// entries begin at index `at`): its turn played again on the game as it was then.
    /// Nothing is kept again.
    fn answer_again(&mut self, at: usize, seat: Seat, text: &str) -> Result<Submission, GameError> {
        let tag = self.book.carrying_out().map(str::to_owned);
        let (_, waits) = match seat {
            Seat::Player(_) => wait_lines(text),
            Seat::Master => (String::new(), Vec::new()),
        };
        let mut ack = TurnAck::default();
        let mut events = Vec::new();
        let mut seq = None;
        for (s, when, entry) in &self.entries[at..] {
            if self.book.get(*s).and_then(|r| r.msg.as_deref()) != tag.as_deref() {
                continue;
            }
            seq = Some(*s);
            let TurnEntry::Submitted { text, at: received, hold, step, .. } = entry else { continue };
            let index = self.entries.iter().position(|(e, _, _)| e == s).unwrap_or_default();
            let before = self.entries[..index].iter().rev().find_map(|(_, _, e)| e.step()).ok_or_else(|| {
                GameError::Damaged(format!("journal entry {s}: a turn before the game's creation ({when})"))
            })?;
            let mut game = games::load(&self.meta.game, &before.state).map_err(GameError::Damaged)?;
            let mut dice = Dice::new(self.seed.clone(), &self.settings.name, before.next_roll);
            let mut ctx = TurnContext { dice: &mut dice, now: *received, hold: *hold };
            ack = seat.submit(game.as_mut(), text, &mut ctx);
            events = step.events.get(ack.events.len()..).unwrap_or_default().to_vec();
        }
        for (line, wait) in waits {
            let word = if wait { "wait" } else { "nowait" };
            ack.lines.push(LineAnswer::accepted(line, format!("{word}: taken when this message was first read")));
        }
        ack.lines.sort_by_key(|l| l.line);
        Ok(Submission { ack, events, seq })
    }
}
