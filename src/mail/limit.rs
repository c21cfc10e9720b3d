//! The limit on answers to one address: at most [`MAX_ANSWERS`] within
//! [`WINDOW_MINUTES`], then one notice, then none until the hour has passed. It counts the
//! answers to mail that signed on to no game (and to mail too large to read): an
//! automatic responder can never sign on (no answer repeats a password), so however it is
//! made, the judge cannot be drawn into a loop or a flood. Messages past the limit are
//! still read; only their answers are held back.
//!
//! Kept in `JUDGE/answered.json` (taken under `answered.lock`), so it holds across the
//! processes an MTA starts. It is a guard, not a record: a damaged file starts again.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::mail::error::MailError;
use crate::mail::reply::{format_deadline, MailKind, OutgoingMail};

/// Answers to one address within the window before the judge falls silent to it.
pub const MAX_ANSWERS: usize = 20;
/// The window of [`MAX_ANSWERS`], in minutes.
pub const WINDOW_MINUTES: i64 = 60;
/// The record, in the judge directory.
pub const ANSWERED_FILE: &str = "answered.json";
const LOCK_FILE: &str = "answered.lock";

/// Answers sent per address (lowercase).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answered {
    addresses: BTreeMap<String, Sent>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sent {
    /// When each answer within the window was let through, oldest first.
    times: Vec<DateTime<Utc>>,
    /// When the notice that answers stop went out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    noticed: Option<DateTime<Utc>>,
}

impl Answered {
    /// Let through the answers among `mails` that the limit allows (mails of kind
    /// [`MailKind::Reply`]; the judge's other mail is not limited here): the first past the
    /// limit becomes a notice of it, the others are removed. How many were held back.
    pub fn admit(&mut self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> usize {
        let after = now - Duration::minutes(WINDOW_MINUTES);
        self.addresses.retain(|_, sent| {
            sent.times.retain(|t| *t > after);
            sent.noticed = sent.noticed.filter(|t| *t > after);
            !sent.times.is_empty() || sent.noticed.is_some()
        });
        let mut held = 0;
        mails.retain_mut(|mail| {
            if mail.kind != MailKind::Reply {
                return true;
            }
            let sent = self.addresses.entry(mail.to.to_ascii_lowercase()).or_default();
            if sent.times.len() < MAX_ANSWERS {
                sent.times.push(now);
                return true;
            }
            held += 1;
            if sent.noticed.is_some() {
                return false;
            }
            sent.noticed = Some(now);
            let opens = sent.times[sent.times.len() - MAX_ANSWERS] + Duration::minutes(WINDOW_MINUTES);
            mail.body = format!(
                "This judge has answered {MAX_ANSWERS} messages from you that signed on to no game \
                 within {WINDOW_MINUTES} minutes, the most it answers to one address, so that no \
                 automatic mail can keep it answering. Such messages are still read, but not \
                 answered until {}. A message that signs on is always answered.\n",
                format_deadline(opens, None)
            );
            mail.attachments.clear();
            true
        });
        held
    }

    /// [`Answered::admit`] over the record in the judge directory `root`, taken under its
    /// lock so that processes running at once count together.
    pub fn admit_in(root: &Path, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, MailError> {
        use fs4::fs_std::FileExt;
        if !mails.iter().any(|m| m.kind == MailKind::Reply) {
            return Ok(0);
        }
        let lock_path = root.join(LOCK_FILE);
        let lock = crate::store::open_private(&lock_path).map_err(MailError::io(&lock_path))?;
        FileExt::lock_exclusive(&lock).map_err(MailError::io(&lock_path))?;
        let path = root.join(ANSWERED_FILE);
        let mut record: Answered = match std::fs::read(&path) {
            // Damaged: a guard, not a record, so it starts again.
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Answered::default(),
            Err(e) => return Err(MailError::io(&path)(e)),
        };
        let held = record.admit(mails, now);
        let bytes = serde_json::to_vec(&record).map_err(MailError::Encode)?;
        crate::store::write_atomic(&path, &bytes)?;
        drop(lock);
        Ok(held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn reply(to: &str) -> OutgoingMail {
        OutgoingMail {
            to: to.into(),
            subject: "Re: orders".into(),
            body: "answer".into(),
            in_reply_to: None,
            references: Vec::new(),
            kind: MailKind::Reply,
            attachments: Vec::new(),
        }
    }

    #[test]
    fn twenty_answers_an_hour_then_one_notice() {
        let t0 = Utc.with_ymd_and_hms(2025, 3, 1, 12, 0, 0).unwrap();
        let mut record = Answered::default();
        let mut bodies = Vec::new();
        for i in 0..30 {
            let mut mails = vec![reply("Bot@Example.org")];
            record.admit(&mut mails, t0 + Duration::minutes(i));
            bodies.extend(mails.into_iter().map(|m| m.body));
        }
        assert_eq!(bodies.len(), MAX_ANSWERS + 1);
        assert!(bodies[..MAX_ANSWERS].iter().all(|b| b == "answer"));
        assert!(bodies[MAX_ANSWERS].contains("not answered until Sat 2025-03-01 13:00 UTC"), "{}", bodies[20]);
        // Another address is not affected; the first one is answered again an hour on.
        let mut mails = vec![reply("ann@example.org")];
        assert_eq!(record.admit(&mut mails, t0 + Duration::minutes(30)), 0);
        let mut mails = vec![reply("bot@example.org")];
        assert_eq!(record.admit(&mut mails, t0 + Duration::minutes(61)), 0);
        assert_eq!(mails[0].body, "answer");
    }
}
