//! `journal.jsonl`: one JSON object per line, `{"seq":N,"at":"<RFC 3339>","entry":...}`,
//! seqs counting 1, 2, 3... with no gaps. Appended only, under the game lock.
//!
//! A final line without its newline is a write that was interrupted before it was
//! acknowledged (the newline is part of the same write, and the append returns only after
//! the sync). Readers skip it; taking the lock sets it aside. Anything else that does not
//! parse is an error naming the line: never skipped, never repaired silently.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::error::StoreError;

/// One journal line: what happened (`entry`), its place in the order (`seq`), and when the
/// caller says it happened (`at`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record<E> {
    /// 1 for the first line, then one more per line.
    pub seq: u64,
    /// The time the caller passed to [`GameLock::append`](super::GameLock::append).
    pub at: DateTime<Utc>,
    /// The caller's value.
    pub entry: E,
    /// The inbound message (and the item within it) this entry carries out, when it was
    /// made while serving mail (see [`crate::store::Book::carry_out`]); absent otherwise and
    /// in journals written before messages were tagged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
}

/// The acknowledged journal, as read by [`GameDir::journal`](super::GameDir::journal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal<E> {
    records: Vec<Record<E>>,
    torn_tail: Option<usize>,
}

impl<E> Journal<E> {
    /// Every record, in seq order (record `i` has seq `i + 1`).
    pub fn records(&self) -> &[Record<E>] {
        &self.records
    }

    /// Every record, by value.
    pub fn into_records(self) -> Vec<Record<E>> {
        self.records
    }

    /// The records with a seq greater than `seq`: what a state written at `seq` has not
    /// applied yet.
    pub fn after(&self, seq: u64) -> &[Record<E>] {
        let skip = usize::try_from(seq).unwrap_or(usize::MAX).min(self.records.len());
        &self.records[skip..]
    }

    /// The seq of the last record, 0 for an empty journal.
    pub fn last_seq(&self) -> u64 {
        self.records.len() as u64
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when nothing was ever appended.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The line number of an interrupted final write that was skipped, if the file ends in
    /// one (only seen by readers that do not hold the lock; the lock sets it aside).
    pub fn torn_tail(&self) -> Option<usize> {
        self.torn_tail
    }
}

/// A final line without its newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TornTail {
    /// Its 1-based line number.
    pub line: usize,
    /// Where it starts: the length of the journal without it.
    pub offset: usize,
}

/// A parsed journal file.
#[derive(Debug)]
pub(crate) struct Parsed<E> {
    pub records: Vec<Record<E>>,
    pub torn: Option<TornTail>,
}

impl<E> Parsed<E> {
    pub fn into_journal(self) -> Journal<E> {
        Journal { records: self.records, torn_tail: self.torn.map(|t| t.line) }
    }
}

/// Parses the bytes of `path`, checking every complete line and the seq order.
pub(crate) fn parse<E: DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<Parsed<E>, StoreError> {
    let mut records = Vec::new();
    let mut start = 0;
    let mut line_no = 0;
    while let Some(len) = bytes[start..].iter().position(|&b| b == b'\n') {
        line_no += 1;
        let line = &bytes[start..start + len];
        start += len + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            return Err(StoreError::corrupt(path, Some(line_no), "empty line in the journal"));
        }
        let record: Record<E> = serde_json::from_slice(line).map_err(|e| StoreError::Parse {
            file: path.to_path_buf(),
            line: line_no,
            column: e.column(),
            message: json_message(&e),
        })?;
        let expected = records.len() as u64 + 1;
        if record.seq != expected {
            return Err(StoreError::corrupt(
                path,
                Some(line_no),
                format!("seq {} where {expected} was expected", record.seq),
            ));
        }
        records.push(record);
    }
    let torn = (start < bytes.len()).then_some(TornTail { line: line_no + 1, offset: start });
    Ok(Parsed { records, torn })
}

/// One journal line, newline included, ready to append.
pub(crate) fn encode<E: Serialize>(
    path: &Path,
    seq: u64,
    at: DateTime<Utc>,
    entry: &E,
    msg: Option<&str>,
) -> Result<Vec<u8>, StoreError> {
    let msg = msg.map(str::to_owned);
    let mut line = serde_json::to_vec(&Record { seq, at, entry, msg })
        .map_err(|e| StoreError::Serialize { path: path.to_path_buf(), message: e.to_string() })?;
    // Compact serde_json never writes a raw newline (strings escape it), so one record is
    // exactly one line.
    line.push(b'\n');
    Ok(line)
}

/// serde_json's message without its trailing " at line L column C" (we give our own).
pub(crate) fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).map(str::to_owned).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    fn parse_str(text: &str) -> Result<Parsed<serde_json::Value>, StoreError> {
        parse(Path::new("g/journal.jsonl"), text.as_bytes())
    }

    const LINE1: &str = r#"{"seq":1,"at":"2025-01-01T00:00:00Z","entry":"a"}"#;
    const LINE2: &str = r#"{"seq":2,"at":"2025-01-01T00:00:01Z","entry":{"b":1}}"#;

    #[test]
    fn complete_lines_parse_in_order() {
        let parsed = parse_str(&format!("{LINE1}\n{LINE2}\n")).unwrap();
        assert_eq!(parsed.records.len(), 2);
        assert_eq!(parsed.records[1].entry, serde_json::json!({"b": 1}));
        assert_eq!(parsed.torn, None);
    }

    #[test]
    fn an_unterminated_final_line_is_torn_not_an_error() {
        let text = format!("{LINE1}\n{{\"seq\":2,\"at");
        let parsed = parse_str(&text).unwrap();
        assert_eq!(parsed.records.len(), 1);
        assert_eq!(parsed.torn, Some(TornTail { line: 2, offset: LINE1.len() + 1 }));
    }

    #[test]
    fn a_complete_but_unterminated_final_line_is_still_torn() {
        let parsed = parse_str(&format!("{LINE1}\n{LINE2}")).unwrap();
        assert_eq!(parsed.records.len(), 1);
        assert_eq!(parsed.torn.map(|t| t.line), Some(2));
    }

    #[test]
    fn a_bad_middle_line_names_line_and_column() {
        let err = parse_str(&format!("{LINE1}\n{{\"seq\":2,,}}\n{LINE2}\n")).unwrap_err().to_string();
        assert!(err.starts_with("g/journal.jsonl:2:10: "), "{err}");
        assert!(!err.contains("at line 1"), "{err}");
    }

    #[test]
    fn a_gap_in_seq_is_corrupt() {
        let err = parse_str(&format!("{LINE2}\n")).unwrap_err().to_string();
        assert_eq!(err, "g/journal.jsonl:1: seq 2 where 1 was expected");
    }

    #[test]
    fn an_empty_line_is_corrupt() {
        let err = parse_str(&format!("{LINE1}\n\n")).unwrap_err().to_string();
        assert_eq!(err, "g/journal.jsonl:2: empty line in the journal");
    }

    #[test]
    fn unknown_fields_are_refused() {
        let text = r#"{"seq":1,"at":"2025-01-01T00:00:00Z","entry":1,"extra":2}"#;
        let err = parse::<IgnoredAny>(Path::new("j"), format!("{text}\n").as_bytes()).unwrap_err();
        assert!(err.to_string().contains("extra"), "{err}");
    }

    #[test]
    fn encode_writes_one_line_even_for_newlines_in_strings() {
        let at = "2025-01-01T00:00:00Z".parse().unwrap();
        let line = encode(Path::new("j"), 1, at, &"two\nlines", None).unwrap();
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(line.last(), Some(&b'\n'));
        let parsed: Parsed<String> = parse(Path::new("j"), &line).unwrap();
        assert_eq!(parsed.records[0].entry, "two\nlines");
        assert_eq!(parsed.records[0].at, at);
    }

    #[test]
    fn after_skips_applied_records() {
        let parsed = parse_str(&format!("{LINE1}\n{LINE2}\n")).unwrap();
        let journal = parsed.into_journal();
        assert_eq!(journal.after(0).len(), 2);
        assert_eq!(journal.after(1)[0].seq, 2);
        assert!(journal.after(2).is_empty());
        assert!(journal.after(u64::MAX).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics_on_any_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let _ = parse::<serde_json::Value>(Path::new("j"), &bytes);
        }

        #[test]
        fn parse_never_panics_on_mangled_journals(cut in 0usize..200, flip in 0usize..200, byte in proptest::num::u8::ANY) {
            let mut bytes = format!("{LINE1}\n{LINE2}\n").into_bytes();
            let flip = flip % bytes.len();
            bytes[flip] = byte;
            bytes.truncate(cut.min(bytes.len()));
            let _ = parse::<serde_json::Value>(Path::new("j"), &bytes);
        }
    }
}
