//! Sending: [`OutgoingMail`] to a real message through lettre, over SMTP (implicit TLS or
//! STARTTLS, with optional authentication), a sendmail binary, or a folder of .eml files.
//!
//! Every message carries `Auto-Submitted` (RFC 3834) and the loop header, so that no
//! well-behaved responder answers it and this judge never answers it either.
//! Building the transport does not connect anywhere; only [`Outbox::send`] does.

use std::time::SystemTime;

use chrono::{DateTime, Utc};
use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{FileTransport, Message, SendmailTransport, SmtpTransport, Transport};
use rand::Rng;

use crate::mail::host::Contact;
use crate::mail::inbound::LOOP_HEADER;
use crate::mail::reply::{format_deadline, header_safe, MailKind, OutgoingMail, MAX_SUBJECT_CHARS};
use crate::mail::settings::{MailSettings, Security, TransportSettings};

/// Why a mail could not be built or sent.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SendError {
    #[error("bad address `{0}`")]
    Address(String),
    #[error("cannot build the message: {0}")]
    Build(String),
    #[error("cannot set up the transport: {0}")]
    Transport(String),
    #[error("sending failed: {0}")]
    Send(String),
    /// The mail server refused the mail for good (an SMTP 5xx answer).
    #[error("refused by the mail server: {0}")]
    Refused(String),
}

impl SendError {
    /// Whether sending this mail again can never work: the address is not one, the
    /// message cannot be built, or the server refused it for good (5xx). A transport
    /// failure or a temporary refusal (4xx) may pass.
    pub fn is_permanent(&self) -> bool {
        matches!(self, SendError::Address(_) | SendError::Build(_) | SendError::Refused(_))
    }
}

#[derive(Clone)]
struct AutoSubmitted(String);

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted(s.to_string()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

#[derive(Clone)]
struct LoopMark(String);

impl Header for LoopMark {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str(LOOP_HEADER)
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(LoopMark(s.to_string()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// The Date header of a mail written at `now`. A mail header can carry a date from 1970
/// to 9999 only; a clock outside those (a test's fixed time) is written as the nearest.
fn header_date(now: DateTime<Utc>) -> SystemTime {
    let first = DateTime::<Utc>::UNIX_EPOCH;
    let last = chrono::NaiveDate::from_ymd_opt(9999, 12, 31)
        .and_then(|d| d.and_hms_opt(23, 59, 59))
        .map_or(first, |t| t.and_utc());
    SystemTime::from(now.clamp(first, last))
}

/// `text` with CRLF line ends, in one pass: a mail's lines end so, and lettre, given bare
/// LFs, inserts each CR by moving the rest of the text (quadratic in a long mail).
fn crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut rest = text;
    while let Some(i) = rest.find('\n') {
        let line = &rest[..i];
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push_str("\r\n");
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
    out
}

/// Build the message for one mail. `now` is its Date.
pub fn to_message(settings: &MailSettings, mail: &OutgoingMail, now: DateTime<Utc>) -> Result<Message, SendError> {
    let from: Mailbox = format!("{} <{}>", header_safe(&settings.name, 60), settings.address)
        .parse()
        .map_err(|_| SendError::Address(settings.address.clone()))?;
    let to: Mailbox = mail.to.parse().map_err(|_| SendError::Address(header_safe(&mail.to, 80)))?;
    let domain = settings.address.rsplit_once('@').map(|(_, d)| d).unwrap_or("localhost");
    let id = format!("<{:016x}.{}@{}>", rand::thread_rng().gen::<u64>(), now.timestamp(), domain);
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(header_safe(&mail.subject, MAX_SUBJECT_CHARS))
        .date(header_date(now))
        .message_id(Some(id))
        .header(AutoSubmitted(
            match mail.kind {
                MailKind::Reply => "auto-replied",
                MailKind::Generated => "auto-generated",
            }
            .into(),
        ))
        .header(LoopMark(settings.address.clone()));
    if let Some(id) = &mail.in_reply_to {
        builder = builder.in_reply_to(format!("<{id}>"));
    }
    if !mail.references.is_empty() {
        let refs: Vec<String> = mail.references.iter().map(|r| format!("<{r}>")).collect();
        builder = builder.references(refs.join(" "));
    }
    if mail.attachments.is_empty() {
        // A single part carries `MIME-Version: 1.0` with its Content-Type and encoding.
        return builder.singlepart(SinglePart::plain(crlf(&mail.body))).map_err(|e| SendError::Build(e.to_string()));
    }
    // The text first, then each file.
    let mut parts = MultiPart::mixed().singlepart(SinglePart::plain(crlf(&mail.body)));
    for a in &mail.attachments {
        let kind =
            ContentType::parse(&a.content_type).map_err(|e| SendError::Build(format!("attachment {}: {e}", a.name)))?;
        parts = parts.singlepart(lettre::message::Attachment::new(a.name.clone()).body(a.data.clone(), kind));
    }
    builder.multipart(parts).map_err(|e| SendError::Build(e.to_string()))
}

/// A ready transport.
pub enum Outbox {
    /// The transport and its folder.
    Files(FileTransport, std::path::PathBuf),
    Sendmail(SendmailTransport),
    Smtp(Box<SmtpTransport>),
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outbox::Files(..) => "Outbox::Files",
            Outbox::Sendmail(_) => "Outbox::Sendmail",
            Outbox::Smtp(_) => "Outbox::Smtp",
        })
    }
}

/// Set up the transport the settings name. `env` looks up environment variables (the
/// SMTP password); pass `|k| std::env::var(k).ok()`. Connects nowhere.
pub fn build_outbox(settings: &MailSettings, env: impl Fn(&str) -> Option<String>) -> Result<Outbox, SendError> {
    match &settings.transport {
        TransportSettings::Files { dir } => {
            // The outbox holds mailed passwords: owner-only.
            crate::store::create_private_dir(dir).map_err(|e| SendError::Transport(e.to_string()))?;
            Ok(Outbox::Files(FileTransport::new(dir), dir.clone()))
        }
        TransportSettings::Sendmail { command } => Ok(Outbox::Sendmail(match command {
            Some(c) => SendmailTransport::new_with_command(c),
            None => SendmailTransport::new(),
        })),
        TransportSettings::Smtp { host, port, security, username, password_env } => {
            let mut builder = match security {
                Security::Tls => SmtpTransport::relay(host),
                Security::Starttls => SmtpTransport::starttls_relay(host),
                Security::None => Ok(SmtpTransport::builder_dangerous(host.as_str())),
            }
            .map_err(|e| SendError::Transport(e.to_string()))?;
            if let Some(port) = port {
                builder = builder.port(*port);
            }
            if let Some(user) = username {
                let var = password_env
                    .as_deref()
                    .ok_or_else(|| SendError::Transport("`username` needs `password_env`".into()))?;
                let password = env(var)
                    .ok_or_else(|| SendError::Transport(format!("the environment variable `{var}` is not set")))?;
                builder = builder.credentials(Credentials::new(user.clone(), password));
            }
            Ok(Outbox::Smtp(Box::new(builder.build())))
        }
    }
}

impl Outbox {
    /// Send one mail.
    pub fn send(&self, settings: &MailSettings, mail: &OutgoingMail, now: DateTime<Utc>) -> Result<(), SendError> {
        let message = to_message(settings, mail, now)?;
        match self {
            Outbox::Files(t, dir) => {
                let id = t.send(&message).map_err(|e| SendError::Send(e.to_string()))?;
                // A mailed password is in it: owner-only, as its folder.
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let file = dir.join(format!("{id}.eml"));
                    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
                        .map_err(|e| SendError::Send(format!("{}: {e}", file.display())))?;
                }
                #[cfg(not(unix))]
                let _ = (id, dir);
                Ok(())
            }
            Outbox::Sendmail(t) => t.send(&message).map(|_| ()).map_err(|e| SendError::Send(e.to_string())),
            Outbox::Smtp(t) => t.send(&message).map(|_| ()).map_err(|e| {
                if e.is_permanent() {
                    SendError::Refused(e.to_string())
                } else {
                    SendError::Send(e.to_string())
                }
            }),
        }
    }

    /// Send every mail; one failure does not stop the others. The results are in order.
    pub fn send_all(
        &self,
        settings: &MailSettings,
        mails: &[OutgoingMail],
        now: DateTime<Utc>,
    ) -> Vec<Result<(), SendError>> {
        mails.iter().map(|m| self.send(settings, m, now)).collect()
    }
}

/// The judge's transport for one run, built on the first mail (so a run that sends
/// nothing opens nothing), one mail at a time: what `mail tick` and `mail ingest` hand to
/// the results mailing. A transport that cannot be built fails every mail, as a transport
/// failure (tried again later), never as a bad address.
pub struct Mailer<'a> {
    settings: &'a MailSettings,
    now: DateTime<Utc>,
    outbox: Option<Result<Outbox, SendError>>,
}

impl<'a> Mailer<'a> {
    /// A mailer for `settings`; `now` is the Date of every mail. The SMTP password, if
    /// any, comes from the environment variable the settings name.
    pub fn new(settings: &'a MailSettings, now: DateTime<Utc>) -> Mailer<'a> {
        Mailer { settings, now, outbox: None }
    }

    /// Send one mail.
    pub fn send(&mut self, mail: &OutgoingMail) -> Result<(), SendError> {
        let settings = self.settings;
        let outbox = self.outbox.get_or_insert_with(|| build_outbox(settings, |k| std::env::var(k).ok()));
        match outbox {
            Ok(outbox) => outbox.send(settings, mail, self.now),
            Err(SendError::Transport(why)) => Err(SendError::Transport(why.clone())),
            // Building a transport fails as nothing else; anything else would be one all the same.
            Err(e) => Err(SendError::Transport(e.to_string())),
        }
    }
}

/// One phase's results, as the host rendered them.
#[derive(Clone, Copy, Debug)]
pub struct PhaseResults<'a> {
    pub game: &'a str,
    /// The phase just adjudicated (`Spring 1901 movement`).
    pub phase: &'a str,
    /// The report's text.
    pub report: &'a str,
    pub next_deadline: Option<DateTime<Utc>>,
}

/// The results mails of one phase: one per player, observer and master, each with the
/// next deadline in the reader's own zone.
pub fn results_mails(results: &PhaseResults<'_>, contacts: &[Contact]) -> Vec<OutgoingMail> {
    contacts
        .iter()
        .map(|c| {
            let mut body = results.report.trim_end().to_string();
            body.push_str("\n\n");
            if let Some(at) = results.next_deadline {
                body.push_str(&format!("Next deadline: {}\n", format_deadline(at, c.timezone)));
            }
            OutgoingMail {
                to: c.address.clone(),
                subject: header_safe(&format!("{}: results of {}", results.game, results.phase), MAX_SUBJECT_CHARS),
                body,
                in_reply_to: None,
                references: Vec::new(),
                kind: MailKind::Generated,
                attachments: Vec::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::crlf;

    #[test]
    fn line_ends_become_crlf_once() {
        assert_eq!(crlf("a\nb\r\nc"), "a\r\nb\r\nc");
        assert_eq!(crlf("\n\n"), "\r\n\r\n");
        assert_eq!(crlf("no end"), "no end");
        assert_eq!(crlf("é\r\n"), "é\r\n");
    }

    #[test]
    fn a_transport_that_cannot_be_set_up_says_so_once_and_is_tried_again() {
        use super::{Mailer, SendError};
        use crate::mail::reply::{MailKind, OutgoingMail};
        let settings: crate::mail::MailSettings = toml::from_str(
            "address = \"j@example.org\"\n[transport]\nkind = \"smtp\"\nhost = \"smtp.example.org\"\n\
             security = \"tls\"\nusername = \"j\"\npassword_env = \"SHADOWJUDGE_TEST_UNSET_38\"",
        )
        .unwrap();
        let mail = OutgoingMail {
            to: "ann@example.org".into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
            references: Vec::new(),
            kind: MailKind::Generated,
            attachments: Vec::new(),
        };
        let mut mailer = Mailer::new(&settings, chrono::Utc::now());
        for _ in 0..2 {
            let e = mailer.send(&mail).unwrap_err();
            assert!(matches!(e, SendError::Transport(_)) && !e.is_permanent(), "{e:?}");
            assert_eq!(
                e.to_string(),
                "cannot set up the transport: the environment variable `SHADOWJUDGE_TEST_UNSET_38` is not set"
            );
        }
    }
}
