//! Carrying out a signed-on block, item by item, each under its tag, and its answer.

use super::*;
use crate::answer::{InMessage, Receipt};

/// Carry out a placed block's items; whether anything was changed, and how many items
/// failed because a game could not be opened just now.
// The message-wide state (tag, budget, output) is passed apart so each stays borrowable.
#[allow(clippy::too_many_arguments)]
pub(super) fn apply(
    block: &Block,
    identity: &Identity,
    tag: &str,
    host: &mut impl GameHost,
    now: DateTime<Utc>,
    budget: &mut Budget,
    out: &mut String,
    mails: &mut Vec<OutgoingMail>,
) -> (bool, usize) {
    let mut who = identity.clone();
    let mut changed = false;
    let mut failed = 0;
    let mut count = |e: &HostError| {
        if e.is_try_later() {
            failed += 1;
        }
    };
    // One change of `wait` per message: the last `wait` or `nowait` line wins, so a
    // message of many cannot write many journal entries; the others get one line.
    let last_wait = block.items.iter().rposition(|i| matches!(i, Item::Wait { .. }));
    let replaced_waits: Vec<usize> = block
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Wait { line, .. } if Some(i) != last_wait => Some(*line),
            _ => None,
        })
        .collect();
    for (index, item) in block.items.iter().enumerate() {
        // Every journal entry this item makes carries its tag, and the store refuses to do
        // an item twice ([`HostError::DoneBefore`]): a message carried out again after a
        // crash does nothing twice. Submissions and votes are answered as the first time.
        let tag = format!("{tag}.{}", index + 1);
        if let (Role::Observer(_), Some(line)) = (&who.role, played_line(item)) {
            let _ = writeln!(
                out,
                "line {line}: not done: an observer sends no orders, votes or settings; observers read `status` \
                 and `history`, change their `password` and, where the game allows it, send press."
            );
            continue;
        }
        host.carry_out(Some(tag));
        match item {
            Item::Orders(all) => {
                let read = all.len().min(budget.order_lines);
                budget.order_lines -= read;
                if read < all.len() {
                    let unread: Vec<usize> = all[read..].iter().map(|l| l.number).collect();
                    let _ = writeln!(
                        out,
                        "{}: not read: at most {MAX_ORDER_LINES} order lines in a message.",
                        lines_named(&unread)
                    );
                }
                let lines = &all[..read];
                if lines.is_empty() {
                    continue;
                }
                let offers = host.offers(&who.game);
                let master_lines = who.role == Role::Master && offers.master_lines;
                if !matches!(who.role, Role::Seat(_)) && !master_lines {
                    // In the game's words: a small game's master has no turn lines to give.
                    let whose = if who.role == Role::Master { "the game master" } else { "an observer" };
                    let _ = writeln!(
                        out,
                        "line {}: {whose} has no {} to give; not a command: {}",
                        lines[0].number,
                        offers.words.input,
                        quote(&lines[0].text)
                    );
                    continue;
                }
                let text: String = lines.iter().map(|l| format!("{}\n", l.text)).collect();
                match host.submit_orders(&who, &text, now) {
                    Ok(receipt) => {
                        // Nothing accepted, nothing kept: the game is as it was.
                        changed |= receipt.took();
                        render_ack(&receipt, lines, out);
                    }
                    Err(e) => {
                        count(&e);
                        let _ = writeln!(out, "{} not taken: {e}", host.offers(&who.game).words.input_title);
                    }
                }
            }
            Item::Status { line } | Item::History { line } if budget.listings == 0 => {
                let _ =
                    writeln!(out, "line {line}: not answered: at most {MAX_LISTINGS} status or history per message.");
            }
            Item::Status { .. } => {
                budget.listings -= 1;
                write_result(out, "Status", host.status(&who, now).inspect_err(&mut count))
            }
            Item::History { .. } => {
                budget.listings -= 1;
                write_result(out, "History", host.history(&who).inspect_err(&mut count))
            }
            Item::Press { line, .. } if budget.press == 0 => {
                let _ = writeln!(out, "line {line}: press not sent: at most {MAX_PRESS} press messages per message.");
            }
            Item::Wait { line, .. } if Some(index) != last_wait => {
                // One line for them all, at the first.
                if replaced_waits.first() == Some(line) {
                    let last = match last_wait.and_then(|i| block.items.get(i)) {
                        Some(Item::Wait { line, .. }) => *line,
                        _ => *line,
                    };
                    let _ = writeln!(
                        out,
                        "{}: `wait` or `nowait` replaced by line {last} (only the last one counts).",
                        lines_named(&replaced_waits)
                    );
                }
            }
            Item::Wait { line, wait } => match host.set_wait(&who, *wait, now) {
                Ok(text) => {
                    changed = true;
                    let _ = writeln!(out, "line {line}: {text}");
                }
                Err(HostError::DoneBefore) => changed |= done_before(out, *line),
                Err(e) => {
                    count(&e);
                    let _ = writeln!(out, "line {line}: not done: {e}");
                }
            },
            Item::Press { line, to, text, closed } => {
                if !closed {
                    let _ = writeln!(out, "line {line}: press without ENDPRESS: it runs to the end of the block.");
                }
                if text.trim().is_empty() {
                    let _ = writeln!(out, "line {line}: empty press, not sent.");
                    continue;
                }
                budget.press -= 1;
                match host.press(&who, to, text, now) {
                    Ok(delivery) => {
                        changed = true;
                        let _ = writeln!(
                            out,
                            "Press sent ({}) to {}.",
                            delivery.to_label,
                            crate::text::count(delivery.addresses.len(), "reader", "readers")
                        );
                        for address in &delivery.addresses {
                            mails.push(OutgoingMail {
                                to: address.clone(),
                                subject: header_safe(&format!("{}: press from {}", who.game, delivery.from_label), 120),
                                body: format!("Press from {}, {}:\n\n{}", delivery.from_label, delivery.to_label, text),
                                in_reply_to: None,
                                references: Vec::new(),
                                kind: MailKind::Generated,
                                attachments: Vec::new(),
                            });
                        }
                    }
                    Err(e) => {
                        count(&e);
                        let _ = writeln!(out, "line {line}: press not sent: {e}");
                    }
                }
            }
            Item::Password { line, new } => match hash_password(new) {
                Ok(hash) => match host.set_password(&who, &hash, now) {
                    Ok(()) => {
                        changed = true;
                        let _ =
                            writeln!(out, "line {line}: password changed. Use the new one from your next message on.");
                    }
                    Err(HostError::DoneBefore) => changed |= done_before(out, *line),
                    Err(e) => {
                        count(&e);
                        let _ = writeln!(out, "line {line}: password not changed: {e}");
                    }
                },
                Err(e) => {
                    let _ = writeln!(out, "line {line}: password not changed: {e}");
                }
            },
            Item::Timezone { line, zone } => match host.set_timezone(&who, *zone, now) {
                Ok(()) => {
                    changed = true;
                    who.timezone = Some(*zone);
                    let _ = writeln!(out, "line {line}: time zone set to {}.", zone.name());
                }
                Err(HostError::DoneBefore) => changed |= done_before(out, *line),
                Err(e) => {
                    count(&e);
                    let _ = writeln!(out, "line {line}: time zone not changed: {e}");
                }
            },
            Item::Pictures { line, on } => match host.set_pictures(&who, *on, now) {
                Ok(()) => {
                    changed = true;
                    let what = if *on { "with" } else { "without" };
                    let _ = writeln!(out, "line {line}: your results mails now come {what} the map pictures.");
                }
                Err(HostError::DoneBefore) => changed |= done_before(out, *line),
                Err(e) => {
                    count(&e);
                    let _ = writeln!(out, "line {line}: map pictures not changed: {e}");
                }
            },
            Item::Reports { line, reports } => match host.set_reports(&who, *reports, now) {
                Ok(()) => {
                    changed = true;
                    let _ = writeln!(out, "line {line}: you are now mailed {}.", reports.words());
                }
                Err(HostError::DoneBefore) => changed |= done_before(out, *line),
                Err(e) => {
                    count(&e);
                    let _ = writeln!(out, "line {line}: reports not changed: {e}");
                }
            },
            Item::Master { line, command } => {
                if who.role != Role::Master {
                    let _ = writeln!(out, "line {line}: only the game master may do that; nothing done.");
                    continue;
                }
                let done = answer_line(out, *line, host.master(&who, command, now), &mut count);
                // A preview changes nothing.
                changed |= done && *command != MasterCommand::Preview;
            }
            Item::Player { line, .. } if who.role == Role::Master => {
                let _ = writeln!(
                    out,
                    "line {line}: the game master plays no power: only powers vote or announce absences."
                );
            }
            Item::Player { line, command } => {
                changed |= answer_line(out, *line, host.player(&who, command, now), &mut count);
            }
            Item::Resign { line, seat } => {
                changed |= answer_line(out, *line, host.resign(&who, seat, now), &mut count);
            }
            Item::Help { .. } => {}
            Item::Malformed { line, text, problem } => {
                let _ = writeln!(out, "line {line}: {}: {problem}", quote(text));
            }
        }
    }
    host.carry_out(None);
    // A `status` gave the deadline already: it is not said twice.
    let gave_status = block.items.iter().any(|i| matches!(i, Item::Status { .. }));
    if let Some(at) = host.deadline(&who.game).filter(|_| !gave_status) {
        let _ = writeln!(out, "Deadline: {}", format_deadline(at, who.timezone));
        if at > now {
            let _ = writeln!(out, "          (in {})", format_duration(at - now));
        } else {
            // In the grace period, or the tick has not run yet: still taken until then.
            let _ =
                writeln!(out, "          (passed; what arrives before the judge processes the game is still taken)");
        }
    }
    (changed, failed)
}

/// The line of an item only a player (or the master) sends: orders or turn lines, `wait`,
/// votes and absences, `resign`, a time zone, map pictures. `None` for the rest.
fn played_line(item: &Item) -> Option<usize> {
    match item {
        Item::Orders(lines) => lines.first().map(|l| l.number),
        Item::Wait { line, .. }
        | Item::Player { line, .. }
        | Item::Resign { line, .. }
        | Item::Timezone { line, .. }
        | Item::Pictures { line, .. }
        | Item::Reports { line, .. } => Some(*line),
        _ => None,
    }
}

/// The answer to one line that the host carries out with a sentence: the sentence, or
/// "not done" and why (counted when it may pass if tried later). Whether it was done.
fn answer_line(
    out: &mut String,
    line: usize,
    result: Result<String, HostError>,
    count: &mut impl FnMut(&HostError),
) -> bool {
    match result {
        Ok(text) => {
            let _ = writeln!(out, "line {line}: {}", text.trim_end());
            true
        }
        Err(HostError::DoneBefore) => done_before(out, line),
        Err(e) => {
            count(&e);
            let _ = writeln!(out, "line {line}: not done: {e}");
            false
        }
    }
}

/// Line numbers, ascending, as a reply names them: runs as ranges (`lines 3-9, 12`), at
/// most a few, then how many more (`and 40 more lines`).
fn lines_named(numbers: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some((_, end)) if n == *end + 1 => *end = n,
            _ => runs.push((n, n)),
        }
    }
    let shown: Vec<String> = runs
        .iter()
        .take(MAX_LINES_NAMED)
        .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
        .collect();
    let word = if numbers.len() == 1 { "line" } else { "lines" };
    let mut text = format!("{word} {}", shown.join(", "));
    let more: usize = runs.iter().skip(MAX_LINES_NAMED).map(|(a, b)| b - a + 1).sum();
    if more > 0 {
        text.push_str(&format!(" and {}", crate::text::count(more, "more line", "more lines")));
    }
    text
}

/// The answer to an item the store refused because the message made it when first read:
/// it was done (so the message changed something).
fn done_before(out: &mut String, line: usize) -> bool {
    let _ = writeln!(out, "line {line}: {}", HostError::DoneBefore);
    true
}

fn write_result(out: &mut String, title: &str, result: Result<String, crate::mail::host::HostError>) {
    match result {
        Ok(text) => {
            let _ = writeln!(out, "{title}:\n{}\n", text.trim_end());
        }
        Err(e) => {
            let _ = writeln!(out, "{title} not available: {e}");
        }
    }
}

/// The host numbers lines within the text it was given; the player numbers them within
/// the message. The one rendering, told the message's lines: each refused one quoted.
fn render_ack(receipt: &Receipt, lines: &[BodyLine], out: &mut String) {
    let lines: Vec<(usize, &str)> = lines.iter().map(|l| (l.number, l.text.as_str())).collect();
    let message = InMessage { lines: &lines, quote: &quote, most: MAX_PROBLEMS_LISTED };
    out.push_str(&receipt.render(Some(&message)));
}

/// A line of the player's, quoted in the reply. A line that looks like a mistyped sign-on
/// or password command (`signin ...`, `login ...`, `pass ...`) is cut after its second
/// word, so a password in it is never echoed.
pub(super) fn quote(text: &str) -> String {
    let t = text.trim();
    let first = t.split_whitespace().next().unwrap_or("").to_lowercase();
    if ["sign", "log", "pass", "pw"].iter().any(|p| first.starts_with(p)) {
        let shown: Vec<&str> = t.split_whitespace().take(2).collect();
        return format!("`{} ...`", visible(&cap(&shown.join(" "), 100)));
    }
    format!("`{}`", visible(&cap(t, 100)))
}

/// Control characters (binary junk in a message) written as `\u{..}`, as the problem
/// messages write them, never raw into a reply.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\t' { c.escape_unicode().to_string() } else { c.to_string() })
        .collect()
}

pub(super) fn copy_to_registered(registered: &str, sender: &str, who: &Identity, section: &str) -> OutgoingMail {
    OutgoingMail {
        to: registered.to_string(),
        subject: header_safe(&format!("{}: a message signed on as {}", who.game, who.role), 120),
        body: format!(
            "A message from {} signed on as {} in {} with the right password. \
             If this was not you, change your password and tell the game master.\n\n{}",
            if sender.is_empty() { "an unknown sender" } else { sender },
            who.role,
            who.game,
            section
        ),
        in_reply_to: None,
        references: Vec::new(),
        kind: MailKind::Generated,
        attachments: Vec::new(),
    }
}
