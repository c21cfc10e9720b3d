//! The deadline tick over every game of a judge directory: a glance or a full look at
//! each game, then going on early, processing, reminding and noticing, as planned.

use super::*;

impl JudgeHost {
    /// One tick over every game: plan with each game's own deadline policy and its log,
    /// act (go on early, process, remind, late notice, outage notice), and record it in
    /// `logs`. The mails go to [`take_mails`](Self::take_mails); the lines returned say
    /// what was done.
    pub fn tick(&mut self, now: DateTime<Utc>, logs: &mut BTreeMap<String, TickLog>) -> Vec<String> {
        let mut done = Vec::new();
        for name in self.game_names() {
            let log = logs.entry(name.clone()).or_default();
            let path = self.games.join(&name);
            if idle_at_a_glance(&name, &path, now, log) {
                continue;
            }
            let mut g = match any::open_read_only(&path) {
                Ok(g) => g,
                Err(e) => {
                    done.push(format!("{name}: not read: {e}"));
                    self.record_problem(&name, e.to_string());
                    continue;
                }
            };
            // A game waiting for players has nothing to go on with.
            let early = g.play().map_or(Ok(None), |p| p.go_on_early(now));
            match early {
                Ok(Some(text)) => {
                    done.push(format!("{name}: {text}"));
                    self.note_warnings(&name, g.as_ref());
                    self.owes_mail(name.clone());
                    // The step that follows is planned from the next tick, once its
                    // results are out: no reminder goes ahead of them.
                    match g.clock() {
                        Some(c) => log.record(now, &Self::view(&name, &c), &[]),
                        None => log.last_tick = Some(now),
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e) => {
                    done.push(format!("{name}: not processed early: {e}"));
                    self.note_internal(&name, &e);
                }
            }
            let Some(clock) = g.clock() else {
                g.keep_glance(None);
                // Paused, run by hand or over: nothing to do, but the tick did look, so a
                // later deadline is not mistaken for one that passed during an outage.
                log.last_tick = Some(now);
                continue;
            };
            let view = Self::view(&name, &clock);
            let mut actions = plan_tick(now, &view, log, &clock.policy);
            if actions.iter().any(|a| matches!(a, crate::mail::deadline::TickAction::Process)) {
                let extended = any::under_way(g.as_mut()).and_then(|p| p.late_extension(&clock.step, now));
                match extended {
                    Ok(Some(outcome)) => {
                        // Extended, not processed: the next ticks plan from the new deadline.
                        actions.retain(|a| !matches!(a, crate::mail::deadline::TickAction::Process));
                        done.push(format!("{name}: {}", outcome.said));
                        self.note_warnings(&name, g.as_ref());
                        self.notify(&name, outcome);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        done.push(format!("{name}: not extended: {e}"));
                        self.note_internal(&name, &e);
                    }
                }
            }
            if actions.is_empty() {
                g.keep_glance(Some(&clock));
                log.record(now, &view, &actions);
                continue;
            }
            for action in &actions {
                use crate::mail::deadline::TickAction;
                match action {
                    // The game as this tick read it; the store checks the step again under
                    // its lock.
                    TickAction::Process => {
                        match any::under_way(g.as_mut()).and_then(|p| p.process(Some(&clock.step), now)) {
                            Ok(text) => {
                                done.push(format!("{name}: {text}"));
                                self.note_warnings(&name, g.as_ref());
                                self.owes_mail(name.clone());
                            }
                            Err(e) => {
                                done.push(format!("{name}: not processed: {e}"));
                                self.note_internal(&name, &e);
                            }
                        }
                    }
                    TickAction::Remind { power, .. } => done.push(format!("{name}: reminded {power}")),
                    TickAction::LateNotice { power, .. } => done.push(format!("{name}: late notice to {power}")),
                    TickAction::OutageSuspected { .. } => {
                        done.push(format!("{name}: deadline passed during an outage; held, the master was told"))
                    }
                }
            }
            let contacts = g.contacts();
            self.mails.extend(match &clock.awaited {
                Some(what) => turn_tick_mails(&name, now, &actions, &contacts, what, &clock.defaults),
                None => tick_mails(&name, now, &actions, &contacts, &clock.defaults),
            });
            log.record(now, &view, &actions);
        }
        done
    }

    /// What the tick planner sees of a game's clock.
    fn view<'a>(name: &'a str, clock: &'a Clock) -> GameClock<'a> {
        GameClock {
            game: name,
            phase: &clock.step,
            deadline: clock.deadline,
            paused: false,
            missing: &clock.missing,
            started: clock.started,
        }
    }
}

/// Whether the game's glance ([`any::Glance`], kept by an earlier tick) shows that
/// nothing is due at `now`: no deadline (paused, over), or a deadline that the plan leaves
/// alone and no early processing. Then the log is kept as a full look would keep it.
/// `false` when there is no fresh glance or something may be due: open the game in full.
fn idle_at_a_glance(name: &str, path: &Path, now: DateTime<Utc>, log: &mut TickLog) -> bool {
    let Some(glance) = any::glance(path) else { return false };
    let (Some(deadline), false) = (glance.deadline, glance.over) else {
        log.last_tick = Some(now);
        return true;
    };
    if glance.early && deadline > now {
        return false;
    }
    // The glance does not know when the step began: a reminder it plans sends the tick
    // to the game itself, which knows.
    let clock =
        GameClock { game: name, phase: &glance.step, deadline, paused: false, missing: &glance.missing, started: None };
    if !plan_tick(now, &clock, log, &glance.deadlines).is_empty() {
        return false;
    }
    log.record(now, &clock, &[]);
    true
}

/// Everything one `mail tick` does over the judge directory `home`: under the tick lock,
/// carry out the messages an interrupted run left half-done, plan and act for every game
/// ([`JudgeHost::tick`]), then [`deliver()`] everything owed in any game and the judge
/// (results, replies, reminders, notices; what just happened and what earlier runs could
/// not send), and record the tick in `tick.json`. Returns what was done, line by line.
/// Running it twice does nothing twice.
pub fn tick_judge(home: &JudgeHome, now: DateTime<Utc>, send: &mut Sender<'_>) -> Result<Vec<String>, HomeError> {
    tick_judge_with(home, &mut JudgeHost::new(home.games_dir()), now, send)
}

/// [`tick_judge`] through `host`, which keeps the problems met (damaged or unreadable
/// game files) for the caller to report ([`JudgeHost::take_problems`]).
pub fn tick_judge_with(
    home: &JudgeHome,
    host: &mut JudgeHost,
    now: DateTime<Utc>,
    send: &mut Sender<'_>,
) -> Result<Vec<String>, HomeError> {
    let lock = home.lock_tick()?;
    let mut logs = lock.read()?;
    let intake = home.intake()?;
    let mut done = Vec::new();
    match crate::mail::ingest::recover(host, &intake, &home.config.mail, now) {
        Ok(outcomes) => {
            let (left, taken): (Vec<_>, Vec<_>) = outcomes.into_iter().partition(|o| o.must_retry());
            if !taken.is_empty() {
                done.push(format!(
                    "{} an interrupted run had not finished {} carried out again and answered.",
                    count(taken.len(), "message", "messages"),
                    plural(taken.len(), "was", "were")
                ));
            }
            for o in left {
                if let crate::mail::ingest::Disposition::Retry { reason } = o.disposition {
                    done.push(format!(
                        "a message an interrupted run had not finished is left for the next tick: {reason}"
                    ));
                }
            }
        }
        Err(e) => done.push(format!("messages an interrupted run had not finished not read: {e}")),
    }
    done.extend(host.tick(now, &mut logs));
    // Owe the tick's mails before anything is sent and before the log says the tick did
    // its work.
    let batch = match intake.owed().owe(now, &host.take_mails()) {
        Ok(_) => None,
        Err(e) => Some(format!("reminders and notices could not be kept to send later: {e}")),
    };
    done.extend(batch);
    done.extend(deliver(host, intake.owed(), None, now, send));
    if let Some(site) = &home.config.site {
        done.extend(refresh_site_lines(home, &site.dir));
    }
    lock.write(&logs)?;
    Ok(done)
}

/// The tick's refresh of the public site, in lines for its log.
fn refresh_site_lines(home: &JudgeHome, dir: &Path) -> Vec<String> {
    match site::refresh_site(&home.games_dir(), dir, &home.root().join(site::SITE_RECORD)) {
        Ok(run) => {
            let mut lines = run.problems;
            if !run.drawn.is_empty() {
                lines.push(format!("site: {} drawn again", count(run.drawn.len(), "game", "games")));
            }
            lines
        }
        Err(e) => vec![format!("site not written: {e}")],
    }
}
