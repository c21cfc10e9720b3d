//! The reply to a message: what was read, what was not, and what it did.

use super::*;

pub(super) fn opening(settings: &MailSettings) -> String {
    format!("This is the judge at {}, answering your message.\n\n", settings.address)
}

/// The reply to `inbound`. Its subject echoes the original only when `echo` (the judge
/// knows the message's secrets and hides them): a subject may hold a password the body
/// never gave, which the judge cannot tell from any other word.
pub(super) fn reply_to(inbound: &Inbound, body: String, echo: bool) -> Option<OutgoingMail> {
    Some(OutgoingMail {
        to: inbound.answer_to()?.to_string(),
        subject: reply_subject(inbound.subject.as_deref().filter(|_| echo)),
        body,
        in_reply_to: inbound.message_id.clone(),
        references: reply_references(&inbound.references, inbound.message_id.as_deref()),
        kind: MailKind::Reply,
        attachments: Vec::new(),
    })
}

pub(super) fn answer(
    inbound: &Inbound,
    script: &Script,
    closing: usize,
    tag: &str,
    host: &mut impl GameHost,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> IngestOutcome {
    let mut body = opening(settings);
    let mut mails = Vec::new();
    let mut games = Vec::new();
    let mut changed_games = Vec::new();
    let mut unavailable = 0;

    // What needs no sign-on (list, join, observe, takeover, ...) is answered first. Who
    // joins, observes or creates is the From address: Reply-To says only where the
    // answer goes, never who is subscribed or who has authority.
    let (lobby_changed, lobby_retry) = crate::mail::lobby::answer(
        &script.lobby,
        tag,
        inbound.from.as_deref(),
        inbound.from_name.as_deref(),
        host,
        now,
        &mut body,
    );
    if lobby_retry {
        unavailable += 1;
    }
    changed_games.extend(lobby_changed);

    let placed_something = !script.blocks.is_empty() || !script.lobby.is_empty();
    if !script.stray.is_empty() && placed_something {
        let _ = writeln!(body, "Lines outside a SIGNON block were ignored:");
        for line in script.stray.iter().take(5) {
            let _ = writeln!(body, "  line {}: {}", line.number, quote(&line.text));
        }
        if script.stray.len() > 5 {
            let _ = writeln!(body, "  ... and {} more", script.stray.len() - 5);
        }
        body.push('\n');
    }
    if inbound.attachments > 0 {
        let _ = writeln!(
            body,
            "{} ignored: write your orders in the message itself.\n",
            count(inbound.attachments, "attachment", "attachments")
        );
    }

    let mut budget = Budget { press: MAX_PRESS, listings: MAX_LISTINGS, order_lines: MAX_ORDER_LINES };
    for (index, block) in script.blocks.iter().take(MAX_SIGNONS).enumerate() {
        let mut section = String::new();
        let placed = place(block, inbound, host, now, &mut section, &mut mails);
        if matches!(placed, Placed::Unavailable) {
            unavailable += 1;
        }
        if let Placed::Yes(identity) = placed {
            let tag = format!("{tag}#{}", index + 1);
            let (changed, failed) = apply(block, &identity, &tag, host, now, &mut budget, &mut section, &mut mails);
            unavailable += failed;
            if !games.contains(&identity.game) {
                games.push(identity.game.clone());
            }
            if changed && !changed_games.contains(&identity.game) {
                changed_games.push(identity.game.clone());
            }
            let sender = inbound.from.as_deref().unwrap_or("");
            if let Some(registered) = identity.address.as_deref() {
                if changed && !registered.eq_ignore_ascii_case(sender) {
                    mails.push(copy_to_registered(registered, sender, &identity, &section));
                }
            }
        }
        body.push_str(&section);
        body.push('\n');
    }

    if let Some(first) = script.blocks.get(MAX_SIGNONS) {
        let unread = script.blocks.len() - MAX_SIGNONS;
        let _ = writeln!(
            body,
            "The {} from line {} on {} not read: the judge reads at most {MAX_SIGNONS} \
             per message. Nothing in {them} was done; send {them} in another message.\n",
            count(unread, "SIGNON block", "SIGNON blocks"),
            first.line,
            plural(unread, "was", "were"),
            them = plural(unread, "it", "them"),
        );
    }
    if script.blocks.is_empty() && script.lobby.is_empty() {
        let _ = writeln!(
            body,
            "No SIGNON line was found, so nothing was done. Every message to the judge starts \
             with one, e.g. `SIGNON france@mygame yourpassword`.\n"
        );
    }
    if (script.blocks.is_empty() && script.lobby.is_empty()) || script.help || wants_help(script) {
        body.push_str(HELP);
    }

    unread_notes(inbound, closing, &mut body);

    if unavailable > 0 && changed_games.is_empty() {
        // The judge could not reach a game and nothing was done: the mail server keeps the
        // message and delivers it again; the player hears only if that never works.
        return IngestOutcome {
            disposition: Disposition::Retry { reason: "a game's files could not be reached just now".into() },
            mails: Vec::new(),
            owed: None,
        };
    }
    let disposition = if !changed_games.is_empty() {
        Disposition::Applied { games: changed_games }
    } else if !games.is_empty() {
        Disposition::SignedOn { games }
    } else {
        Disposition::Unplaced
    };
    let secrets = secrets(script);
    if let Some(reply) = reply_to(inbound, body, !secrets.is_empty()) {
        mails.insert(0, reply);
    }
    hide_secrets(&secrets, &mut mails);
    IngestOutcome { disposition, mails, owed: None }
}

/// One line for each kind of text not read: the earlier message below a reply header,
/// quoted lines, and a signature or closing after the orders.
fn unread_notes(inbound: &Inbound, closing: usize, body: &mut String) {
    let mut notes = Vec::new();
    if let Some(line) = inbound.earlier_message {
        notes.push(format!("the earlier message quoted from line {line} on"));
    }
    if inbound.quoted > 0 {
        notes.push(format!("{} (starting with >)", count(inbound.quoted, "quoted line", "quoted lines")));
    }
    let after = inbound.signature + closing;
    if after > 0 {
        notes.push(format!("{} after your orders (a signature or closing)", count(after, "line", "lines")));
    }
    if !notes.is_empty() {
        let _ = writeln!(body, "Not read: {}.", notes.join("; "));
    }
}

/// The passwords a message gave (in SIGNON lines, `password` commands and joins), longest
/// first.
fn secrets(script: &Script) -> Vec<&str> {
    let mut secrets: Vec<&str> = script.lobby.iter().filter_map(|item| item.secret()).collect();
    for block in &script.blocks {
        if let Ok(signon) = &block.signon {
            secrets.push(&signon.password);
        }
        for item in &block.items {
            if let Item::Password { new, .. } = item {
                secrets.push(new);
            }
        }
    }
    // Very short secrets would hide ordinary words; no password the judge sets is that short.
    secrets.retain(|s| s.chars().count() >= 4);
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets
}

/// The message's passwords are never echoed: every one of them is replaced in every mail
/// it caused, subject and body.
fn hide_secrets(secrets: &[&str], mails: &mut [OutgoingMail]) {
    const HIDDEN: &str = "********";
    for mail in mails {
        for secret in secrets {
            if mail.body.contains(secret) {
                mail.body = mail.body.replace(secret, HIDDEN);
            }
            if mail.subject.contains(secret) {
                mail.subject = mail.subject.replace(secret, HIDDEN);
            }
        }
    }
}

/// Where the closing of a message begins: a signature without `-- ` ("Sent from my
/// iPhone"), a closing line ("Thanks,", "Best regards") or a legal disclaimer, with
/// nothing after it that looks like an order or a command. Its lines are not read
/// (counted in the reply instead of listed as problems). `lines.len()` when there is none,
/// or when it would fall inside a press message (press keeps its text whole).
pub fn closing_start(lines: &[BodyLine]) -> usize {
    let Some(start) = lines.iter().position(|l| is_closing_line(&l.text)) else { return lines.len() };
    let start = (start..lines.len())
        .find(|&i| is_closing_line(&lines[i].text) && !lines[i..].iter().any(|l| looks_like_order(&l.text)))
        .unwrap_or(lines.len());
    if start == lines.len() {
        return start;
    }
    let mut in_press = false;
    for line in &lines[..start] {
        let first = line.text.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        match first.as_str() {
            "press" | "broadcast" => in_press = true,
            "endpress" | "signon" | "signoff" => in_press = false,
            _ => {}
        }
    }
    if in_press {
        lines.len()
    } else {
        start
    }
}

/// A line that opens a closing: a farewell, a client's "sent from" line, a disclaimer.
fn is_closing_line(text: &str) -> bool {
    const FAREWELLS: &[&str] = &[
        "thanks",
        "thank you",
        "thanks a lot",
        "many thanks",
        "thx",
        "cheers",
        "regards",
        "best",
        "best regards",
        "kind regards",
        "warm regards",
        "best wishes",
        "all the best",
        "yours",
        "yours truly",
        "sincerely",
        "take care",
        "bye",
        "ciao",
        "merci",
        "cordialement",
        "bien à vous",
        "amitiés",
        "bises",
        "grüße",
        "viele grüße",
        "liebe grüße",
        "mfg",
        "saludos",
        "un saludo",
        "gracias",
        "saluti",
        "groeten",
        "met vriendelijke groet",
    ];
    const SENT_FROM: &[&str] = &[
        "sent from ",
        "sent with ",
        "sent via ",
        "get outlook for",
        "envoyé de mon",
        "envoyé depuis",
        "von meinem",
        "enviado desde",
        "inviato da",
        "verzonden vanaf",
    ];
    const DISCLAIMER: &[&str] =
        &["confidential", "intended recipient", "intended solely", "disclaimer", "privileged", "legally protected"];
    let lower = text.trim().to_lowercase();
    let bare = lower.trim_end_matches([',', '.', '!', ' ', '-']);
    FAREWELLS.contains(&bare)
        || SENT_FROM.iter().any(|p| lower.starts_with(p))
        || DISCLAIMER.iter().any(|w| lower.contains(w))
}

/// Whether a line looks like an order or a command rather than a name or prose: it
/// starts with a unit (`A`, `F`, `Army`, `Fleet`), a board or power heading, an
/// adjustment, or a command word.
fn looks_like_order(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else { return false };
    let first = first.trim_end_matches(':').to_ascii_lowercase();
    matches!(
        first.as_str(),
        "a" | "f" | "army" | "fleet" | "board" | "build" | "remove" | "disband" | "waive" | "retreat"
    ) || crate::mail::command::is_command_word(&first)
        || text.contains("->")
}

fn wants_help(script: &Script) -> bool {
    script.blocks.iter().flat_map(|b| &b.items).any(|i| matches!(i, Item::Help { .. } | Item::Malformed { .. }))
}
