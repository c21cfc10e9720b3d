//! Fault injection for the kill tests: a hook called at every step of a durable write,
//! so a test can stop the process exactly there. Not part of the supported API.
//!
//! Nothing is called unless a test process installs a hook; the cost otherwise is one
//! atomic load per step.

use std::path::Path;
use std::sync::OnceLock;

/// A step inside a durable write, just after it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultPoint {
    /// `write_atomic`: the temp file holds the bytes, not yet synced.
    TempWritten,
    /// `write_atomic`: the temp file is synced, not yet renamed.
    TempSynced,
    /// `write_atomic`: renamed over the target, directory not yet synced.
    Renamed,
    /// `append`: the first half of the line is in the journal.
    AppendHalfWritten,
    /// `append`: the whole line is in the journal, not yet synced.
    AppendWritten,
    /// `append`: synced, not yet acknowledged to the caller.
    AppendSynced,
    /// Recovery: the torn tail is copied aside, the journal not yet truncated.
    TornCopied,
}

impl FaultPoint {
    /// Every point, in the order a write meets them.
    pub const ALL: [FaultPoint; 7] = [
        FaultPoint::TempWritten,
        FaultPoint::TempSynced,
        FaultPoint::Renamed,
        FaultPoint::AppendHalfWritten,
        FaultPoint::AppendWritten,
        FaultPoint::AppendSynced,
        FaultPoint::TornCopied,
    ];

    /// A stable name, for passing a point through an environment variable.
    pub fn name(self) -> &'static str {
        match self {
            FaultPoint::TempWritten => "temp-written",
            FaultPoint::TempSynced => "temp-synced",
            FaultPoint::Renamed => "renamed",
            FaultPoint::AppendHalfWritten => "append-half-written",
            FaultPoint::AppendWritten => "append-written",
            FaultPoint::AppendSynced => "append-synced",
            FaultPoint::TornCopied => "torn-copied",
        }
    }

    /// The point with this [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<FaultPoint> {
        FaultPoint::ALL.into_iter().find(|p| p.name() == name)
    }
}

static HOOK: OnceLock<fn(FaultPoint)> = OnceLock::new();

/// Installs the hook for the rest of the process. Returns false if one was already set.
pub fn set_hook(hook: fn(FaultPoint)) -> bool {
    HOOK.set(hook).is_ok()
}

static WRITE_CHECK: OnceLock<fn(&Path) -> std::io::Result<()>> = OnceLock::new();

/// Installs a check called before every atomic file write (`state.json`, side files,
/// `game.toml`) with the file to be written; an error it returns is the write's error.
/// For simulating a full disk. Returns false if one was already set.
pub fn set_write_check(check: fn(&Path) -> std::io::Result<()>) -> bool {
    WRITE_CHECK.set(check).is_ok()
}

pub(crate) fn check_write(target: &Path) -> std::io::Result<()> {
    match WRITE_CHECK.get() {
        Some(check) => check(target),
        None => Ok(()),
    }
}

pub(crate) fn armed() -> bool {
    HOOK.get().is_some()
}

pub(crate) fn reach(point: FaultPoint) {
    if let Some(hook) = HOOK.get() {
        hook(point);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for point in FaultPoint::ALL {
            assert_eq!(FaultPoint::from_name(point.name()), Some(point));
        }
        assert_eq!(FaultPoint::from_name("nowhere"), None);
    }
}
