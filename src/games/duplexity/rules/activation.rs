//! The Act: an activation line, and the direction of a Move that waited for it; the
//! actions in order, and the answer that tells what was done and what was not.

use super::super::board::{Space, Zone};
use super::actions::Done;
use super::{other, Action, Duplexity, KindName, Log, PendingMove, Refusal, Stage};
use crate::dice::Dice;

/// The parts of an activation's answer, one per action, kept only when the log listens:
/// the actions carried out, and those not done with why.
struct Parts {
    words: bool,
    list: Vec<String>,
    not_done: Vec<String>,
}

impl Parts {
    fn new(log: &Log) -> Parts {
        Parts { words: !log.off, list: Vec::new(), not_done: Vec::new() }
    }

    fn push(&mut self, part: impl FnOnce() -> String) {
        if self.words {
            self.list.push(part());
        }
    }

    fn not_done(&mut self, action: &Action, why: impl FnOnce() -> String) {
        if self.words {
            self.not_done.push(format!("Not done: `{action}`, as {}.", why()));
        }
    }

    /// The answer after `head` (`pawn P3`, `to 7`). When an action was not done, it says
    /// plainly that the pawn acted all the same, and which actions were carried out.
    fn answer(&self, head: &str) -> String {
        if self.not_done.is_empty() {
            return format!("{head}: {}", self.list.join(", "));
        }
        let done = if self.list.is_empty() { "nothing".to_string() } else { self.list.join(", ") };
        format!("{head}: the pawn has acted. Done: {done}. {}", self.not_done.join(" "))
    }

    /// The report's line for an activation with actions not done (the others are told
    /// as they happen).
    fn summary(&self, log: &mut Log, who: &str, pawn: Space) {
        if !self.not_done.is_empty() {
            say!(log, "{who}'s pawn from {pawn} has acted. {}", self.not_done.join(" "));
        }
    }
}

impl Duplexity {
    /// Act: activate one of `player`'s pawns that has not acted, with these actions in
    /// order. The answer is the activation in canonical words, with each action refused
    /// and why. A Move that waits for its direction holds the rest of the actions.
    pub fn activate(
        &mut self,
        player: u8,
        pawn: Space,
        actions: Vec<Action>,
        dice: &mut Dice,
        log: &mut Log,
    ) -> Result<String, Refusal> {
        self.over()?;
        let Stage::Act { pending, .. } = &self.stage else {
            return Err(Refusal::new("pawns act only in the Act, after the bids"));
        };
        self.not_awaited(player, "activate a pawn")?;
        if let Some(p) = pending {
            return Err(Refusal::new(format!("your pawn at {} rolled {} and waits for where it goes", p.pawn, p.roll))
                .hint(format!("to {} or to {}", p.choices[0].location(), p.choices[1].location())));
        }
        let refusal = match self.board.pawn(pawn) {
            None => Some(format!("there is no pawn at {pawn}")),
            Some(p) if p.owner != player => Some(format!("the pawn at {pawn} is {}'s", self.name(p.owner))),
            Some(p) if p.acted => Some(format!("your pawn at {pawn} has acted this round")),
            Some(_) => None,
        };
        if let Some(reason) = refusal {
            let mine: Vec<String> = self.unspent(player).iter().map(|s| s.to_string()).collect();
            return Err(Refusal::new(reason).hint(format!("your pawns that can act: {}", mine.join(", "))));
        }
        let mut used: Vec<KindName> = Vec::with_capacity(3);
        for a in &actions {
            let k = a.kind();
            if used.contains(&k.into()) {
                return Err(Refusal::new(format!(
                    "a pawn does each of Move, Exert and Shift at most once: this one has two {}s",
                    k.name()
                )));
            }
            used.push(k.into());
        }
        if let Some(p) = self.board.cell_mut(pawn).pawn.as_mut() {
            p.acted = true;
        }
        let mut parts = Parts::new(log);
        if actions.is_empty() {
            parts.push(|| "no action".to_string());
            say!(log, "{}'s pawn at {pawn} acts with no action.", self.name(player));
        }
        let waits = self.run_actions(player, pawn, &actions, used, dice, log, &mut parts);
        self.after_activation(player, waits);
        if !log.off {
            parts.summary(log, &self.players[usize::from(player)].name.clone(), pawn);
        }
        Ok(answer!(log, "{}", parts.answer(&format!("pawn {pawn}"))))
    }

    /// The direction of a Move that waits: `to` a location the roll reaches, then the
    /// actions held from the activation line and any given here.
    pub fn choose(
        &mut self,
        player: u8,
        to: u8,
        zone: Option<Zone>,
        more: Vec<Action>,
        dice: &mut Dice,
        log: &mut Log,
    ) -> Result<String, Refusal> {
        self.over()?;
        let Stage::Act { pending: Some(p), .. } = &self.stage else {
            return Err(Refusal::new("no Move waits for a direction"));
        };
        self.not_awaited(player, "say where a Move goes")?;
        let hint = || format!("to {} or to {}", p.choices[0].location(), p.choices[1].location());
        if zone.is_some_and(|z| z != p.pawn.zone) {
            return Err(Refusal::new(format!("a Move stays in its zone: the pawn is at {}", p.pawn)).hint(hint()));
        }
        let Some(dest) = p.choices.iter().copied().find(|c| c.location() == to) else {
            return Err(
                Refusal::new(format!("a roll of {} from {} does not reach location {to}", p.roll, p.pawn)).hint(hint())
            );
        };
        let p = p.clone();
        let mut used = p.used.clone();
        for a in &more {
            let k = a.kind();
            if used.contains(&k.into()) {
                return Err(Refusal::new(format!(
                    "a pawn does each of Move, Exert and Shift at most once: this activation already has {}",
                    k.with_article()
                )));
            }
            used.push(k.into());
        }
        let mut parts = Parts::new(log);
        parts.push(|| format!("the pawn at {} moves to {dest}", p.pawn));
        self.make_move(player, p.pawn, dest, p.roll, log);
        let mut actions = p.rest;
        actions.extend(more);
        if let Stage::Act { pending, .. } = &mut self.stage {
            *pending = None;
        }
        let waits = self.run_actions(player, dest, &actions, used, dice, log, &mut parts);
        self.after_activation(player, waits);
        if !log.off {
            parts.summary(log, &self.players[usize::from(player)].name.clone(), p.pawn);
        }
        Ok(answer!(log, "{}", parts.answer(&format!("to {}", dest.location()))))
    }

    /// The activation is done (or waits for a direction): whose turn is next.
    fn after_activation(&mut self, player: u8, waits: Option<PendingMove>) {
        let Stage::Act { turn, pending, .. } = &mut self.stage else { return };
        match waits {
            Some(w) => *pending = Some(w),
            None => {
                *pending = None;
                *turn = other(player);
            }
        }
    }

    /// Do `actions` for the pawn at `at`, in order. Returns the Move that waits for its
    /// direction, if one does (holding the actions after it).
    #[allow(clippy::too_many_arguments)]
    fn run_actions(
        &mut self,
        player: u8,
        mut at: Space,
        actions: &[Action],
        used: Vec<KindName>,
        dice: &mut Dice,
        log: &mut Log,
        parts: &mut Parts,
    ) -> Option<PendingMove> {
        for (i, action) in actions.iter().enumerate() {
            if self.board.pawn(at).is_none_or(|p| p.owner != player) {
                parts.not_done(action, || "the pawn has left the game".to_string());
                continue;
            }
            match self.act(player, at, action, dice, log) {
                Ok(Done::At(s)) if s != at => {
                    parts.push(|| format!("{action} (now at {s})"));
                    at = s;
                }
                Ok(Done::At(_)) => parts.push(|| action.to_string()),
                Ok(Done::Waits { roll, choices }) => {
                    parts.push(|| {
                        format!(
                            "move: rolled {roll}, waiting for `to {}` or `to {}`",
                            choices[0].location(),
                            choices[1].location()
                        )
                    });
                    say!(
                        log,
                        "{}'s pawn at {at} rolled {roll} to Move: it can go to {} or {}.",
                        self.name(player),
                        choices[0],
                        choices[1]
                    );
                    return Some(PendingMove {
                        player,
                        pawn: at,
                        roll,
                        choices,
                        rest: actions[i + 1..].to_vec(),
                        used,
                    });
                }
                Err(reason) => parts.not_done(action, || reason.to_string()),
            }
        }
        None
    }
}
