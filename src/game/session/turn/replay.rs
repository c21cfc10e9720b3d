//! Replay: the journal played again with the game's dice, every roll and state checked
//! against the record.

use super::*;

/// Rebuild the state from the journal by re-running every submission and deadline with
/// the game's dice; every roll and every state must match the record.
pub fn replay(
    settings: &TurnSettings,
    seed: &Seed,
    entries: &[(u64, DateTime<Utc>, TurnEntry)],
) -> Result<TurnState, GameError> {
    replay_checking(settings, seed, entries, false)
}

/// [`replay`], and with `events` every step's journaled events (what the players read)
/// checked against the ones the replay tells too: `verify` proves the story as well as
/// the state. (Opening a game does not: a judge whose wording of an event changed still
/// opens the games it journaled before.)
pub fn replay_checking(
    settings: &TurnSettings,
    seed: &Seed,
    entries: &[(u64, DateTime<Utc>, TurnEntry)],
    events_too: bool,
) -> Result<TurnState, GameError> {
    let err = |index: u64, message: String| GameError::Replay(ReplayError { index: index as usize, message });
    let mut meta: Option<TurnState> = None;
    let mut game: Option<Box<dyn TurnGame>> = None;
    for (seq, at, entry) in entries {
        let seq = *seq;
        match entry {
            TurnEntry::Created { game: kind, players, options, commitment, step } => {
                if *commitment != seed.commitment() {
                    return Err(err(seq, "the seed file does not match the commitment published at creation".into()));
                }
                let mut dice = Dice::new(seed.clone(), &settings.name, 0);
                let mut ctx = TurnContext { dice: &mut dice, now: *at, hold: false };
                let mut g = games::create(kind, players.clone(), options, &mut ctx).map_err(|e| err(seq, e))?;
                let mut events = Vec::new();
                run_automatic(g.as_mut(), &mut ctx, &mut events);
                check_step(seq, &mut dice, g.as_ref(), step)?;
                check_events(seq, events_too, &events, step)?;
                meta = Some(TurnState {
                    game: kind.clone(),
                    commitment: commitment.clone(),
                    next_roll: step.next_roll,
                    rolls: step.rolls.len() as u64,
                    deadline: step.deadline,
                    paused: false,
                    deadline_seq: seq,
                    revealed: None,
                    state: step.state.clone(),
                    waiting: Vec::new(),
                });
                game = Some(g);
            }
            other => {
                let (Some(m), Some(g)) = (meta.as_mut(), game.as_mut()) else {
                    return Err(err(seq, "the journal does not start with the game's creation".into()));
                };
                match other {
                    TurnEntry::Submitted { player, text, at, hold, step } => {
                        let seat = if player == MASTER {
                            Seat::Master
                        } else {
                            Seat::Player(
                                g.players()
                                    .iter()
                                    .position(|n| n == player)
                                    .ok_or_else(|| err(seq, format!("no player `{player}`")))?,
                            )
                        };
                        let mut dice = Dice::new(seed.clone(), &settings.name, m.next_roll);
                        let mut ctx = TurnContext { dice: &mut dice, now: *at, hold: *hold };
                        let before = g.step_label();
                        let mut events = seat.submit(g.as_mut(), text, &mut ctx).events;
                        run_automatic(g.as_mut(), &mut ctx, &mut events);
                        check_step(seq, &mut dice, g.as_ref(), step)?;
                        check_events(seq, events_too, &events, step)?;
                        apply_step(m, step, seq);
                        settle_waits(m, g.as_ref(), Some(&before));
                    }
                    TurnEntry::Forced { step, .. } | TurnEntry::Released { step } => {
                        let mut dice = Dice::new(seed.clone(), &settings.name, m.next_roll);
                        let mut ctx = TurnContext { dice: &mut dice, now: *at, hold: false };
                        let mut events = match other {
                            TurnEntry::Forced { vacant: true, .. } => g.force(crate::turn::Defaulted::Vacant, &mut ctx),
                            TurnEntry::Forced { .. } => g.force(crate::turn::Defaulted::Deadline, &mut ctx),
                            _ => Vec::new(),
                        };
                        run_automatic(g.as_mut(), &mut ctx, &mut events);
                        check_step(seq, &mut dice, g.as_ref(), step)?;
                        check_events(seq, events_too, &events, step)?;
                        apply_step(m, step, seq);
                        settle_waits(m, g.as_ref(), None);
                    }
                    TurnEntry::RolledBack { step, .. } => {
                        *g = games::load(&m.game, &step.state).map_err(|e| err(seq, e))?;
                        apply_step(m, step, seq);
                        m.waiting.clear();
                    }
                    TurnEntry::Wait { player, wait } => set_waiting(&mut m.waiting, player, *wait),
                    TurnEntry::DeadlineSet { deadline } => {
                        m.deadline = *deadline;
                        m.paused = deadline.is_none();
                        m.deadline_seq = seq;
                    }
                    TurnEntry::Revealed { seed: revealed } => m.revealed = Some(revealed.clone()),
                    TurnEntry::PlayerChanged { .. } | TurnEntry::Seats { .. } => {}
                    TurnEntry::Created { .. } => unreachable!("matched above"),
                }
            }
        }
    }
    meta.ok_or_else(|| err(0, "the journal is empty".into()))
}

/// With `check`: the replayed step told what the journal says it told.
fn check_events(seq: u64, check: bool, events: &[String], step: &Step) -> Result<(), GameError> {
    if !check || events == step.events.as_slice() {
        return Ok(());
    }
    let at = events.iter().zip(&step.events).position(|(a, b)| a != b).unwrap_or(events.len().min(step.events.len()));
    let said = |e: &[String]| e.get(at).map_or("nothing".to_string(), |t| format!("\"{t}\""));
    Err(GameError::Replay(ReplayError {
        index: seq as usize,
        message: format!(
            "event {} of the step: the journal says {}, the replay tells {}",
            at + 1,
            said(&step.events),
            said(events)
        ),
    }))
}

/// Check a replayed change against the record: the same rolls, the same state.
fn check_step(seq: u64, dice: &mut Dice, game: &dyn TurnGame, step: &Step) -> Result<(), GameError> {
    let err = |message: String| GameError::Replay(ReplayError { index: seq as usize, message });
    let rolls = dice.take_rolls();
    if rolls != step.rolls {
        let first = rolls.iter().zip(&step.rolls).find(|(a, b)| a != b);
        return Err(err(match first {
            Some((made, recorded)) => format!(
                "roll {} ({}): the journal says {}, the seed gives {}",
                recorded.k, recorded.purpose, recorded.result, made.result
            ),
            None => format!(
                "the journal records {}, the replay makes {}",
                count(step.rolls.len(), "roll", "rolls"),
                rolls.len()
            ),
        }));
    }
    if game.save() != step.state {
        return Err(err("replaying it gives a different state than the one recorded".into()));
    }
    Ok(())
}

pub(super) fn apply_step(meta: &mut TurnState, step: &Step, seq: u64) {
    meta.next_roll = step.next_roll;
    meta.rolls += step.rolls.len() as u64;
    if meta.deadline != step.deadline || step.mail {
        meta.deadline_seq = seq;
    }
    meta.deadline = step.deadline;
    meta.state = step.state.clone();
}
