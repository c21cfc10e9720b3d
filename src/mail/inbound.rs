//! One inbound RFC 5322 message, reduced to what the judge needs: who sent it, how to
//! thread a reply, whether it may be answered at all, and the lines of its text.
//!
//! Decoding (MIME, quoted-printable, base64, charsets, HTML-only mail) is mail-parser's;
//! this module decides what is the player's own text (quoted replies and signatures are
//! dropped) and which mail must never be answered (auto-replies, bounces, lists, loops).
//! It never panics, whatever the bytes, and never touches a game.

use mail_parser::{Message, MessageParser};

/// The header every message the judge sends carries, so that it never answers itself or
/// another judge of this kind.
pub const LOOP_HEADER: &str = "X-Shadowjudge-Loop";

/// Why a message gets no reply at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Silence {
    /// `Auto-Submitted` with a value other than `no` (RFC 3834).
    AutoSubmitted(String),
    /// From MAILER-DAEMON, postmaster and the like.
    DaemonSender(String),
    /// A null return path (`Return-Path: <>`): a bounce or other delivery report.
    NullReturnPath,
    /// `Precedence: bulk`, `list` or `junk`.
    Precedence(String),
    /// A `List-Id` header: mail from a mailing list.
    MailingList,
    /// Our own loop header: mail from this judge or another shadowjudge.
    OwnLoopHeader,
    /// No usable sender address to answer.
    NoSender,
    /// Not a message at all (no headers could be read).
    Unreadable,
}

impl std::fmt::Display for Silence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Silence::AutoSubmitted(v) => write!(f, "auto-submitted mail (`{v}`)"),
            Silence::DaemonSender(a) => write!(f, "mail from a mail daemon (`{a}`)"),
            Silence::NullReturnPath => write!(f, "a bounce (null return path)"),
            Silence::Precedence(v) => write!(f, "bulk mail (`Precedence: {v}`)"),
            Silence::MailingList => write!(f, "mailing-list mail (`List-Id`)"),
            Silence::OwnLoopHeader => write!(f, "mail carrying our own loop header"),
            Silence::NoSender => write!(f, "no sender address to answer"),
            Silence::Unreadable => write!(f, "not a readable message"),
        }
    }
}

/// One line of the player's text, numbered as in the decoded body (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyLine {
    pub number: usize,
    pub text: String,
}

/// An inbound message, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inbound {
    /// Message-ID without angle brackets, if the message has a usable one.
    pub message_id: Option<String>,
    /// The From address (`user@host`), if any.
    pub from: Option<String>,
    /// The Reply-To address, if any.
    pub reply_to: Option<String>,
    /// The decoded subject, as sent (not yet sanitized).
    pub subject: Option<String>,
    /// In-Reply-To ids, without angle brackets.
    pub in_reply_to: Vec<String>,
    /// References ids, without angle brackets.
    pub references: Vec<String>,
    /// The player's own lines: quoted text and the signature removed.
    pub lines: Vec<BodyLine>,
    /// How many attachments were left unread.
    pub attachments: usize,
    /// Why the message must get no reply, if it must not.
    pub silence: Option<Silence>,
}

impl Inbound {
    /// Where an answer goes: Reply-To if present, else From.
    pub fn answer_to(&self) -> Option<&str> {
        self.reply_to.as_deref().or(self.from.as_deref())
    }

    /// The player's text, one line per body line kept.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            out.push_str(&l.text);
            out.push('\n');
        }
        out
    }
}

/// Parse a whole message (headers and body).
pub fn parse_message(raw: &[u8]) -> Inbound {
    match MessageParser::default().parse(raw) {
        Some(msg) => from_parsed(&msg, true),
        None => unreadable(),
    }
}

/// Parse only the headers: enough to answer (or not) a message that will not be read.
pub fn parse_headers_only(raw: &[u8]) -> Inbound {
    // The header block of a sane message is small; a giant one is not worth reading.
    const HEADER_WINDOW: usize = 256 * 1024;
    let window = &raw[..raw.len().min(HEADER_WINDOW)];
    match MessageParser::default().parse_headers(window) {
        Some(msg) => from_parsed(&msg, false),
        None => unreadable(),
    }
}

fn unreadable() -> Inbound {
    Inbound {
        message_id: None,
        from: None,
        reply_to: None,
        subject: None,
        in_reply_to: Vec::new(),
        references: Vec::new(),
        lines: Vec::new(),
        attachments: 0,
        silence: Some(Silence::Unreadable),
    }
}

fn from_parsed(msg: &Message<'_>, with_body: bool) -> Inbound {
    let from = msg.from().and_then(|a| a.first()).and_then(|a| a.address()).and_then(clean_address);
    let reply_to = msg.reply_to().and_then(|a| a.first()).and_then(|a| a.address()).and_then(clean_address);
    let message_id = raw_header(msg, "Message-ID").and_then(|v| angle_ids(&v).into_iter().next());
    let in_reply_to = raw_header(msg, "In-Reply-To").map(|v| angle_ids(&v)).unwrap_or_default();
    let references = raw_header(msg, "References").map(|v| angle_ids(&v)).unwrap_or_default();
    let subject = msg.subject().map(str::to_string);

    let (lines, attachments) = if with_body {
        let mut text = String::new();
        for i in 0..msg.text_body_count() {
            let html = u32::try_from(i).ok().and_then(|n| msg.text_part(n)).is_some_and(|p| p.is_text_html());
            let part = if html { msg.body_html(i).map(|h| html_to_text(&h).into()) } else { msg.body_text(i) };
            if let Some(part) = part {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&part);
            }
        }
        (player_lines(&text), msg.attachment_count())
    } else {
        (Vec::new(), 0)
    };

    let mut inbound =
        Inbound { message_id, from, reply_to, subject, in_reply_to, references, lines, attachments, silence: None };
    inbound.silence = silence(msg, &inbound);
    inbound
}

/// The first reason found for not answering, if any.
fn silence(msg: &Message<'_>, inbound: &Inbound) -> Option<Silence> {
    if raw_header(msg, LOOP_HEADER).is_some() {
        return Some(Silence::OwnLoopHeader);
    }
    if let Some(v) = raw_header(msg, "Auto-Submitted") {
        let value = v.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if value != "no" {
            return Some(Silence::AutoSubmitted(cap(&value, 40)));
        }
    }
    if let Some(v) = raw_header(msg, "Return-Path") {
        let inner: String = v.chars().filter(|c| !c.is_whitespace()).collect();
        if inner == "<>" || inner.is_empty() {
            return Some(Silence::NullReturnPath);
        }
    }
    if let Some(v) = raw_header(msg, "Precedence") {
        let value = v.trim().to_ascii_lowercase();
        if matches!(value.as_str(), "bulk" | "list" | "junk") {
            return Some(Silence::Precedence(value));
        }
    }
    if raw_header(msg, "List-Id").is_some() {
        return Some(Silence::MailingList);
    }
    for address in [inbound.from.as_deref(), inbound.reply_to.as_deref()].into_iter().flatten() {
        if is_daemon(address) {
            return Some(Silence::DaemonSender(address.to_string()));
        }
    }
    if inbound.answer_to().is_none() {
        return Some(Silence::NoSender);
    }
    None
}

fn is_daemon(address: &str) -> bool {
    let local = address.split('@').next().unwrap_or("").to_ascii_lowercase();
    matches!(local.as_str(), "mailer-daemon" | "postmaster" | "mail-daemon" | "mailerdaemon" | "noreply" | "no-reply")
}

/// The value of the first header of that name, unfolded, as text.
fn raw_header(msg: &Message<'_>, name: &str) -> Option<String> {
    let raw = msg.raw_message();
    msg.headers().iter().find(|h| h.name().eq_ignore_ascii_case(name)).map(|h| {
        let start = (h.offset_start() as usize).min(raw.len());
        let end = (h.offset_end() as usize).clamp(start, raw.len());
        let value = String::from_utf8_lossy(&raw[start..end]);
        value.split(['\r', '\n']).map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
    })
}

/// The `<...>` ids of a Message-ID, In-Reply-To or References value, brackets removed.
/// Ids with characters that have no place in a header are dropped.
fn angle_ids(value: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else { break };
        let id = &after[..close];
        if !id.is_empty() && id.len() <= 250 && id.chars().all(|c| c.is_ascii_graphic() && c != '<' && c != '>') {
            ids.push(id.to_string());
        }
        rest = &after[close + 1..];
    }
    ids
}

fn clean_address(address: &str) -> Option<String> {
    let a = address.trim();
    let ok = !a.is_empty()
        && a.len() <= 254
        && a.contains('@')
        && a.chars().all(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>' | ',' | ';' | '"'));
    ok.then(|| a.to_string())
}

/// Keep the player's own lines: drop quoted text (`>` lines and the attribution line
/// above them), everything from a signature separator (`-- `) or a forwarded or
/// "original message" banner onwards.
pub fn player_lines(text: &str) -> Vec<BodyLine> {
    let raw: Vec<&str> = text.lines().collect();
    let mut kept = Vec::new();
    for (i, line) in raw.iter().enumerate() {
        let trimmed_end = line.trim_end_matches('\r');
        let t = trimmed_end.trim();
        if trimmed_end == "-- " || t == "--" || is_banner(t) {
            break;
        }
        if t.starts_with('>') {
            continue;
        }
        if t.ends_with("wrote:") && next_nonblank_is_quote(&raw[i + 1..]) {
            continue;
        }
        kept.push(BodyLine { number: i + 1, text: t.to_string() });
    }
    kept
}

fn is_banner(t: &str) -> bool {
    let lower = t.to_ascii_lowercase();
    let core = lower.trim_matches(|c: char| c == '-' || c == '_' || c == ' ');
    (lower.starts_with("---") || lower.starts_with("___"))
        && (core == "original message" || core == "forwarded message")
}

fn next_nonblank_is_quote(rest: &[&str]) -> bool {
    rest.iter().map(|l| l.trim()).find(|l| !l.is_empty()).is_some_and(|l| l.starts_with('>'))
}

/// The text of an HTML-only body, one line per block. mail-parser's own conversion joins
/// `<div>` lines, and mail clients write one `<div>` per line.
fn html_to_text(html: &str) -> String {
    const BLOCKS: &[&str] =
        &["br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol"];
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut skipping: Option<&str> = None;
    // Quoted replies in HTML sit in <blockquote>: their text is dropped.
    let mut quote_depth = 0usize;
    while let Some(open) = rest.find('<') {
        if skipping.is_none() && quote_depth == 0 {
            out.push_str(&decode_entities(&rest[..open]));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            rest = "";
            break;
        };
        let tag = &after[..close];
        rest = &after[close + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match (skipping, closing) {
            (Some(s), true) if s == name => skipping = None,
            (Some(_), _) => {}
            (None, false) if matches!(name.as_str(), "script" | "style" | "head" | "title") => {
                skipping = Some(match name.as_str() {
                    "script" => "script",
                    "style" => "style",
                    "head" => "head",
                    _ => "title",
                })
            }
            (None, false) if name == "blockquote" => quote_depth += 1,
            (None, true) if name == "blockquote" => quote_depth = quote_depth.saturating_sub(1),
            (None, _) if BLOCKS.contains(&name.as_str()) => out.push('\n'),
            _ => {}
        }
    }
    if skipping.is_none() && quote_depth == 0 {
        out.push_str(&decode_entities(rest));
    }
    out
}

fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let entity = after.find(';').filter(|&n| n <= 10).map(|n| (&after[..n], n));
        let decoded = entity.and_then(|(e, _)| match e {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            _ => {
                let num = e.strip_prefix('#')?;
                let code = match num.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => num.parse().ok()?,
                };
                char::from_u32(code)
            }
        });
        match (decoded, entity) {
            (Some(c), Some((_, n))) => {
                out.push(c);
                rest = &after[n + 1..];
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Cut a string to at most `max` characters.
pub(crate) fn cap(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_lines_attribution_and_signature_are_dropped() {
        let text = "A par - bur\nOn Mon, Ann wrote:\n> old orders\n\nF bre - mao\n-- \nAnn\n";
        let lines = player_lines(text);
        let texts: Vec<_> = lines.iter().map(|l| (l.number, l.text.as_str())).collect();
        assert_eq!(texts, vec![(1, "A par - bur"), (4, ""), (5, "F bre - mao")]);
    }

    #[test]
    fn html_blocks_become_lines() {
        let text = html_to_text("<html><head><style>p{}</style></head><div>A par - bur</div><div>F bre &amp; x&#33;</div><blockquote>old</blockquote>");
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(lines, vec!["A par - bur", "F bre & x!"]);
    }

    #[test]
    fn ids_are_taken_from_angle_brackets_only() {
        assert_eq!(angle_ids("<a@b> junk <c@d>"), vec!["a@b".to_string(), "c@d".to_string()]);
        assert!(angle_ids("<a b@c>").is_empty());
    }
}
