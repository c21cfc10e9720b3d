//! The words of what happens: the [`Log`], and the few phrases several rules share.

use super::Token;

/// What happened, told as it happens, one sentence a line. Off: nothing is written (and
/// nothing formatted), for programs that play many games; the answers of the typed API
/// ([`Duplexity::place`], [`Duplexity::bid`], [`Duplexity::activate`],
/// [`Duplexity::choose`]) are then empty too. Refusals are always written.
///
/// [`Duplexity::place`]: super::Duplexity::place
/// [`Duplexity::bid`]: super::Duplexity::bid
/// [`Duplexity::activate`]: super::Duplexity::activate
/// [`Duplexity::choose`]: super::Duplexity::choose
#[derive(Debug, Default)]
pub struct Log {
    pub lines: Vec<String>,
    pub off: bool,
}

impl Log {
    pub fn new() -> Log {
        Log::default()
    }

    /// A log that keeps nothing.
    pub fn silent() -> Log {
        Log { lines: Vec::new(), off: true }
    }
}

/// Tell the log, formatting only when it listens.
macro_rules! say {
    ($log:expr, $($arg:tt)*) => {
        if !$log.off {
            $log.lines.push(format!($($arg)*));
        }
    };
}

/// The answer to an accepted line, written only when the log listens (see [`Log`]).
macro_rules! answer {
    ($log:expr, $($arg:tt)*) => {
        if $log.off {
            String::new()
        } else {
            format!($($arg)*)
        }
    };
}

/// `1 Wound`, `2 Wounds`.
pub(super) fn wounds(n: u32) -> String {
    if n == 1 {
        "1 Wound".into()
    } else {
        format!("{n} Wounds")
    }
}

/// `A Hazard`, `2 Hazards`: the start of a sentence.
pub(super) fn tokens_cap(n: u32, token: Token) -> String {
    if n == 1 {
        format!("A {}", token.name())
    } else {
        format!("{n} {}s", token.name())
    }
}

pub(super) fn tokens(n: u32, token: Token) -> String {
    if n == 1 {
        format!("a {}", token.name())
    } else {
        format!("{n} {}s", token.name())
    }
}
