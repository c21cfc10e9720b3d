//! Outgoing mail as plain data ([`OutgoingMail`]), and the small pieces every text the
//! judge sends is built from: header sanitizing, threading, deadlines in two zones.
//!
//! Nothing here sends: [`crate::mail::send`] turns an [`OutgoingMail`] into a real message.

pub use crate::diplomacy::report::format_deadline;
use crate::text::count;

/// What kind of automatic mail this is (RFC 3834 `Auto-Submitted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MailKind {
    /// An answer to a message (`auto-replied`).
    Reply,
    /// Mail the judge sends on its own: results, reminders, press (`auto-generated`).
    Generated,
}

/// One mail to send.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutgoingMail {
    /// One address (`user@host`).
    pub to: String,
    /// Already sanitized: one line, capped.
    pub subject: String,
    pub body: String,
    /// The Message-ID answered, without angle brackets.
    pub in_reply_to: Option<String>,
    /// The thread, oldest first, without angle brackets.
    pub references: Vec<String>,
    pub kind: MailKind,
    /// Files sent with the text (a results mail's map pictures); most mails have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

/// A file attached to a mail.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Attachment {
    /// The file name the reader sees (`S1901M.png`).
    pub name: String,
    /// Its MIME type (`image/png`).
    pub content_type: String,
    pub data: Vec<u8>,
}

/// The longest subject the judge writes, in characters.
pub const MAX_SUBJECT_CHARS: usize = 120;
/// How many References ids a reply carries at most (the newest).
const MAX_REFERENCES: usize = 10;

pub use crate::text::header_safe;

/// The subject of a reply: `Re: ` and the original subject, sanitized, with any password
/// in it hidden ([`hide_subject_passwords`]).
pub fn reply_subject(original: Option<&str>) -> String {
    let subject = header_safe(&hide_subject_passwords(original.unwrap_or("")), MAX_SUBJECT_CHARS - 4);
    if subject.is_empty() {
        "Re: your message".into()
    } else if subject.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("re:")) {
        subject
    } else {
        format!("Re: {subject}")
    }
}

/// A subject with the passwords of any sign-on or password command in it hidden, right
/// or wrong, in every form the reader takes a sign-on in: after a sign-on keyword
/// (`SIGNON`, a mistyped one, `sign on`) the seat is kept when it is written `POWER@GAME`
/// and every word after it is hidden; after a `POWER@GAME` anywhere, too; after
/// `password`, the next word. A password joined to the seat (`france@game:secret`) is
/// cut off it.
pub fn hide_subject_passwords(subject: &str) -> String {
    use crate::mail::command::{is_power_at_game, signon_keyword};
    const HIDDEN: &str = "********";
    // `france@game:secret` -> `france@game`, and whether anything was cut.
    let seat = |word: &str| -> (String, bool) {
        let end = word.find(|c: char| !(c.is_alphanumeric() || "@-_.".contains(c))).unwrap_or(word.len());
        (word[..end].to_string(), end < word.len())
    };
    let words: Vec<&str> = subject.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let keyword = signon_keyword(&words[i..]);
        if keyword > 0 {
            out.extend(words[i..i + keyword].iter().map(|w| w.to_string()));
            i += keyword;
            let mut rest = words.len() > i;
            if let Some(id) = words.get(i).filter(|w| w.contains('@')) {
                let (kept, cut) = seat(id);
                out.push(kept);
                rest = cut || words.len() > i + 1;
            }
            if rest {
                out.push(HIDDEN.into());
            }
            break;
        }
        let word = words[i];
        let (kept, cut) = seat(word);
        if is_power_at_game(&kept) {
            out.push(kept);
            if cut || words.len() > i + 1 {
                out.push(HIDDEN.into());
            }
            break;
        }
        out.push(word.to_string());
        i += 1;
        let lower = word.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
        if lower == "password" && i < words.len() {
            out.push(HIDDEN.into());
            i += 1;
        }
    }
    if out.iter().map(String::as_str).eq(words.iter().copied()) {
        return subject.to_string();
    }
    out.join(" ")
}

/// The References of a reply: the original's References (newest kept) and its Message-ID.
pub fn reply_references(references: &[String], message_id: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = references.to_vec();
    if let Some(id) = message_id {
        out.push(id.to_string());
    }
    let skip = out.len().saturating_sub(MAX_REFERENCES);
    out.split_off(skip)
}

/// A duration for people: `2 days 3 hours`, `45 minutes`.
pub fn format_duration(d: chrono::Duration) -> String {
    let minutes = d.num_minutes().max(0);
    let (days, hours, mins) = (minutes / 1440, (minutes / 60) % 24, minutes % 60);
    let mut parts = Vec::new();
    if days > 0 {
        parts.push(count(days, "day", "days"));
    }
    if hours > 0 {
        parts.push(count(hours, "hour", "hours"));
    }
    if mins > 0 && days == 0 {
        parts.push(count(mins, "minute", "minutes"));
    }
    if parts.is_empty() {
        "less than a minute".into()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    #[test]
    fn header_injection_is_flattened() {
        assert_eq!(header_safe("orders\r\nBcc: victim@example.org", 200), "orders Bcc: victim@example.org");
        assert_eq!(header_safe("a\u{0}b\tc", 200), "a b c");
        assert_eq!(header_safe(&"x".repeat(500), 10).len(), 10);
    }

    #[test]
    fn passwords_in_a_subject_are_hidden() {
        // Whatever follows the seat may be a password in some form: all of it is hidden.
        assert_eq!(reply_subject(Some("SIGNON france@g s3cret orders")), "Re: SIGNON france@g ********");
        assert_eq!(reply_subject(Some("signon F g s3cret")), "Re: signon ********");
        assert_eq!(reply_subject(Some("new password hunter22")), "Re: new password ********");
        assert_eq!(reply_subject(Some("Spring orders")), "Re: Spring orders");
        assert_eq!(reply_subject(Some("SIGNON")), "Re: SIGNON");
        assert_eq!(reply_subject(Some("mail from ann@example.org today")), "Re: mail from ann@example.org today");
    }

    /// Every sign-on form the reader takes, with the password right or wrong: none of them
    /// comes back in the subject (issue 23.3).
    #[test]
    fn every_sign_on_form_in_a_subject_is_hidden() {
        for (subject, shown) in [
            ("SIGNON ann@dx password OLDPW", "Re: SIGNON ann@dx ********"),
            ("SIGNON ann@dx:OLDPW", "Re: SIGNON ann@dx ********"),
            ("Sign on ann@dx OLDPW", "Re: Sign on ann@dx ********"),
            ("ann@dx OLDPW", "Re: ann@dx ********"),
            ("Fwd: ann@dx:OLDPW", "Re: Fwd: ann@dx ********"),
            ("SIGNIN ann@dx OLDPW", "Re: SIGNIN ann@dx ********"),
            ("sign-on: ann dx OLDPW", "Re: sign-on: ********"),
            ("SIGNON Adx OLDPW", "Re: SIGNON ********"),
            ("log on ann@dx OLDPW", "Re: log on ann@dx ********"),
            ("orders, password: OLDPW", "Re: orders, password: ********"),
        ] {
            let out = reply_subject(Some(subject));
            assert_eq!(out, shown, "{subject}");
            assert!(!out.contains("OLDPW"), "{subject}: {out}");
        }
    }

    #[test]
    fn reply_subjects() {
        assert_eq!(reply_subject(Some("orders")), "Re: orders");
        assert_eq!(reply_subject(Some("RE: orders")), "RE: orders");
        assert_eq!(reply_subject(None), "Re: your message");
    }

    #[test]
    fn deadline_in_two_zones() {
        let at = Utc.with_ymd_and_hms(2025, 3, 1, 18, 0, 0).unwrap();
        assert_eq!(
            format_deadline(at, Some(chrono_tz::Europe::Paris)),
            "Sat 2025-03-01 18:00 UTC (Sat 2025-03-01 19:00 CET, Europe/Paris)"
        );
        assert_eq!(format_deadline(at, None), "Sat 2025-03-01 18:00 UTC");
    }
}
