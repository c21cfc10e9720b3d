//! Placing a message: each SIGNON block checked (game, role, password, lockout) before
//! anything in it is carried out.

use super::*;
use crate::game::by_mail::names_observer;

/// What one message may still ask for.
pub(super) struct Budget {
    pub(super) press: usize,
    pub(super) listings: usize,
    /// Order or turn lines still read in this message.
    pub(super) order_lines: usize,
}

/// What became of a block's SIGNON.
pub(super) enum Placed {
    Yes(Identity),
    No,
    /// The game's files could not be reached just now: worth retrying.
    Unavailable,
}

/// Check a block's SIGNON; the identity if it holds. Writes the verdict either way. A
/// wrong password is recorded; the one that closes the role's sign-on tells its master.
pub(super) fn place(
    block: &Block,
    inbound: &Inbound,
    host: &mut impl GameHost,
    now: DateTime<Utc>,
    out: &mut String,
    mails: &mut Vec<OutgoingMail>,
) -> Placed {
    let signon = match &block.signon {
        Ok(s) => s,
        Err(form) => {
            let _ =
                writeln!(out, "line {}: SIGNON not understood: {form}. Nothing in this block was done.", block.line);
            return Placed::No;
        }
    };
    let shown = format!("SIGNON {}@{}", cap(&signon.who, 40), cap(&signon.game, 40));
    let mut found = host.sign_on(&signon.game, &signon.who);
    // `observer@mygame` (no seat of that name): the observer at the sender's address.
    if matches!(found, Err(SignOnError::NoSuchSeat { .. })) && names_observer(&signon.who) {
        // The From address: Reply-To never decides who signs on.
        let sender = inbound.from.as_deref().filter(|a| a.contains('@'));
        found = match sender.map(|address| (address, host.sign_on(&signon.game, address))) {
            Some((_, Ok(record))) => Ok(record),
            Some((address, Err(SignOnError::NoSuchSeat { .. }))) => {
                let _ = writeln!(
                    out,
                    "{shown} (line {}): {} does not observe {}: an observer signs on from the address that \
                     observes. To observe, send `observe {} PASSWORD` (a password of your own) without a \
                     SIGNON. Nothing was done.",
                    block.line,
                    cap(address, 80),
                    cap(&signon.game, 40),
                    cap(&signon.game, 40)
                );
                return Placed::No;
            }
            Some((_, Err(e))) => Err(e),
            None => {
                let _ = writeln!(
                    out,
                    "{shown} (line {}): the message has no sender address, and an observer is known by it. \
                     Nothing was done.",
                    block.line
                );
                return Placed::No;
            }
        };
    }
    let record = match found {
        Ok(r) => r,
        Err(SignOnError::NoSuchGame) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): there is no game `{}` here. Nothing was done.",
                block.line,
                cap(&signon.game, 40)
            );
            return Placed::No;
        }
        Err(SignOnError::Unavailable) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): the judge could not open game `{}` just now; the game master is told. \
                 Nothing was done: send this again later.",
                block.line,
                cap(&signon.game, 40)
            );
            return Placed::No;
        }
        Err(SignOnError::TryLater) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): the judge could not reach game `{}` just now; the game master is told. \
                 Nothing was done.",
                block.line,
                cap(&signon.game, 40)
            );
            return Placed::Unavailable;
        }
        Err(SignOnError::NoSuchSeat { seats: powers }) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): game `{}` has no `{}`; who may sign on: {} or master. Nothing was done.",
                block.line,
                cap(&signon.game, 40),
                cap(&signon.who, 40),
                powers.join(", ")
            );
            return Placed::No;
        }
    };
    let who = &record.identity;
    let Some(hash) = record.password_hash.as_deref() else {
        if let Role::Observer(address) = &who.role {
            let _ = writeln!(
                out,
                "{shown} (line {}): {address} observes {} without a password yet. Send `observe {} PASSWORD` (a \
                 password of your own, without a SIGNON) to keep one, then sign on with it. Nothing was done.",
                block.line, who.game, who.game
            );
            return Placed::No;
        }
        if matches!(who.role, Role::Seat(_)) && who.address.is_none() {
            // Nobody plays it: a resignation (maybe this very message, carried out before
            // an interruption) left it vacant.
            let seat = who.role.to_string();
            let _ = writeln!(
                out,
                "{shown} (line {}): {seat} is vacant in {}: nobody plays it, so nobody signs on for it (a player \
                 who resigned no longer does). `takeover {}@{} PASSWORD` asks for it. Nothing was done.",
                block.line,
                who.game,
                seat.to_lowercase(),
                who.game
            );
            return Placed::No;
        }
        // The master's own password is set by whoever keeps the judge (`mail password`).
        let from = if who.role == Role::Master { "whoever runs the judge" } else { "the game master" };
        let _ = writeln!(
            out,
            "{shown} (line {}): no password is set for {} in {} yet; {from} sends it. Nothing was done.",
            block.line, who.role, who.game
        );
        return Placed::No;
    };
    let window = Duration::minutes(LOCKOUT_WINDOW_MINUTES);
    // Counted and checked under the game's lock, so that messages delivered at once never
    // check more than the limit between them.
    let mut check = || verify_password(&signon.password, hash);
    match host.check_sign_on(who, now, now - window, LOCKOUT_FAILURES, &mut check) {
        Ok(SignOnCheck::Right) => {}
        Ok(SignOnCheck::Closed { failures }) => {
            let opens = failures[failures.len().saturating_sub(LOCKOUT_FAILURES)] + window;
            let _ = writeln!(
                out,
                "{shown} (line {}): sign-on as {} in {} is closed after {LOCKOUT_FAILURES} wrong passwords; \
                 it opens again at {}. The password was not checked and nothing was done.",
                block.line,
                who.role,
                who.game,
                format_deadline(opens, who.timezone)
            );
            return Placed::No;
        }
        Ok(SignOnCheck::Wrong { failures }) => {
            let _ = writeln!(
                out,
                "{shown} (line {}): wrong password for {} in {}. Nothing was done. If you have lost it, ask {}.",
                block.line,
                who.role,
                who.game,
                if who.role == Role::Master { "whoever runs the judge (`mail password`)" } else { "the game master" }
            );
            if failures.len() >= LOCKOUT_FAILURES {
                let opens = failures[failures.len() - LOCKOUT_FAILURES] + window;
                let _ = writeln!(
                    out,
                    "That makes {} wrong passwords within {LOCKOUT_WINDOW_MINUTES} minutes: sign-on as {} in {} \
                     is closed until {}, and no password is checked for it until then.",
                    failures.len(),
                    who.role,
                    who.game,
                    format_deadline(opens, who.timezone)
                );
                // Failures are counted and recorded one at a time under the lock: exactly
                // one reaches the limit.
                if failures.len() == LOCKOUT_FAILURES {
                    mails.extend(lockout_notices(host, who, inbound, opens));
                }
            }
            return Placed::No;
        }
        Err(e) => {
            let _ = writeln!(out, "{shown} (line {}): {e}. Nothing was done.", block.line);
            return if e.is_try_later() { Placed::Unavailable } else { Placed::No };
        }
    }
    let _ = writeln!(out, "{shown} (line {}): signed on as {} in {}.\n", block.line, who.role, who.game);
    Placed::Yes(record.identity)
}

/// The notice to a game's master that a role's sign-on is closed until `opens`.
fn lockout_notices(host: &impl GameHost, who: &Identity, inbound: &Inbound, opens: DateTime<Utc>) -> Vec<OutgoingMail> {
    let sender = inbound.from.as_deref().unwrap_or("an unknown sender");
    let new_password = match &who.role {
        Role::Master => format!(
            "If you have lost your password, whoever runs the judge sets a new one with \
             `shadowjudge mail password {} master`.",
            who.game
        ),
        Role::Seat(p) => format!(
            "If the player has lost the password, whoever runs the judge sets and mails a new one \
             with `shadowjudge mail password {} {} --mail`.",
            who.game,
            p.to_lowercase()
        ),
        Role::Observer(address) => format!(
            "If the observer has lost the password, whoever runs the judge sets and mails a new one \
             with `shadowjudge mail password {} {address} --mail`.",
            who.game
        ),
    };
    host.contacts(&who.game)
        .into_iter()
        .filter(|c| c.role == ContactRole::Master)
        .map(|c| OutgoingMail {
            to: c.address.clone(),
            subject: header_safe(&format!("{}: sign-on as {} closed", who.game, who.role), 120),
            body: format!(
                "{LOCKOUT_FAILURES} messages signed on as {} in {} with a wrong password within \
                 {LOCKOUT_WINDOW_MINUTES} minutes, the last from {}. Sign-on as {} is closed until {}: \
                 until then no password is checked for it.\n\n\
                 {} If someone is guessing, nothing more is needed.\n",
                who.role,
                who.game,
                header_safe(sender, 254),
                who.role,
                format_deadline(opens, c.timezone),
                new_password
            ),
            in_reply_to: None,
            references: Vec::new(),
            kind: MailKind::Generated,
            attachments: Vec::new(),
        })
        .collect()
}
