//! Mail settings, as the judge's TOML holds them (`[mail]`).
//!
//! ```toml
//! [mail]
//! address = "judge@example.org"      # the judge's own address: From, and the loop header
//! name = "shadowjudge"               # display name on outgoing mail
//! max_message_bytes = 1048576        # larger inbound mail is refused politely
//! keep_spool_days = 14               # inbound mail (passwords included) is kept this long
//!
//! [mail.transport]                   # where outgoing mail goes; the default:
//! kind = "files"                     # one .eml file per mail, for dry runs
//! dir = "outbox"
//!
//! # kind = "sendmail"                # a local sendmail binary
//! # command = "/usr/sbin/sendmail"   # optional
//!
//! # kind = "smtp"
//! # host = "smtp.example.org"
//! # port = 587                       # optional: 465 for tls, 587 for starttls
//! # security = "starttls"            # "tls" (implicit TLS), "starttls", or "none" (local relays)
//! # username = "judge"               # optional
//! # password_env = "SHADOWJUDGE_SMTP_PASSWORD"   # the password is read from this variable
//! ```
//! Secrets never live in the file: the SMTP password comes from the environment.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The `[mail]` table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailSettings {
    /// The judge's address.
    pub address: String,
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default = "default_max_message_bytes")]
    pub max_message_bytes: usize,
    /// How many days `mail tick` keeps inbound messages in the spool. Messages are read
    /// when they arrive; the spool is only for recovering from a crash, and it holds the
    /// passwords players sent, so it is not kept longer than this.
    #[serde(default = "default_keep_spool_days")]
    pub keep_spool_days: u32,
    #[serde(default)]
    pub transport: TransportSettings,
}

/// How mail leaves the judge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum TransportSettings {
    /// Write each mail as an .eml file into `dir`.
    Files { dir: PathBuf },
    /// Hand each mail to a sendmail-compatible binary.
    Sendmail {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<String>,
    },
    /// Send through an SMTP server.
    Smtp {
        host: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        port: Option<u16>,
        #[serde(default)]
        security: Security,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        username: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        password_env: Option<String>,
    },
}

impl Default for TransportSettings {
    fn default() -> TransportSettings {
        TransportSettings::Files { dir: PathBuf::from("outbox") }
    }
}

/// How an SMTP connection is protected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// TLS from the first byte (usually port 465).
    Tls,
    /// Plain connection upgraded with STARTTLS, which is required (usually port 587).
    #[default]
    Starttls,
    /// No encryption: only for a relay on the same host.
    None,
}

fn default_name() -> String {
    "shadowjudge".into()
}

fn default_max_message_bytes() -> usize {
    1024 * 1024
}

/// Two weeks: long enough to recover from a crash found late, short enough not to hoard
/// passwords.
pub const DEFAULT_KEEP_SPOOL_DAYS: u32 = 14;

fn default_keep_spool_days() -> u32 {
    DEFAULT_KEEP_SPOOL_DAYS
}

impl MailSettings {
    /// Settings with defaults for everything but the judge's address.
    pub fn new(address: &str) -> MailSettings {
        MailSettings {
            address: address.to_string(),
            name: default_name(),
            max_message_bytes: default_max_message_bytes(),
            keep_spool_days: default_keep_spool_days(),
            transport: TransportSettings::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_toml_takes_defaults() {
        let s: MailSettings = toml::from_str("address = \"judge@example.org\"").unwrap();
        assert_eq!(s, MailSettings::new("judge@example.org"));
    }

    #[test]
    fn smtp_toml_reads() {
        let s: MailSettings = toml::from_str(
            "address = \"j@example.org\"\n[transport]\nkind = \"smtp\"\nhost = \"smtp.example.org\"\n\
             security = \"tls\"\nusername = \"j\"\npassword_env = \"PW\"",
        )
        .unwrap();
        assert!(matches!(s.transport, TransportSettings::Smtp { security: Security::Tls, port: None, .. }));
    }
}
