//! A length of time a master sets ([`Span`]): a phase, a grace period, a reminder lead,
//! an extension, a small game's window. Read as people write it (`90m`, `2h`, `1d12h`, a
//! bare number of hours) and kept in settings files so that older judges read whole hours.

use chrono::Duration;
use serde::{Deserialize, Serialize};

use crate::text::count;

/// A length of time a master sets, in whole minutes: a phase, a grace period, a reminder
/// lead, an extension.
///
/// Written as people write it: `90m`, `2h`, `1d`, `1d12h` (days, hours and minutes, in
/// any order, each once at most); a bare number is hours. In a TOML file an integer is
/// hours (so every older file keeps its meaning) and a string has units; a span of whole
/// hours is written back as an integer, so files without minutes stay readable by older
/// judges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    minutes: u64,
}

/// Why a [`Span`] did not parse, for the message that names the key.
pub const SPAN_FORM: &str = "a duration is a number with m, h or d (`90m`, `2h`, `1d12h`); a bare number is hours";

impl Span {
    /// The year that caps every deadline setting: 366 days.
    pub const YEAR: Span = Span::hours(24 * 366);

    pub const fn minutes(minutes: u64) -> Span {
        Span { minutes }
    }

    pub const fn hours(hours: u64) -> Span {
        Span { minutes: hours * 60 }
    }

    pub fn as_minutes(self) -> u64 {
        self.minutes
    }

    pub fn is_zero(self) -> bool {
        self.minutes == 0
    }

    /// As a chrono duration (a span past chrono's range, only possible before
    /// a settings check, saturates).
    pub fn duration(self) -> Duration {
        i64::try_from(self.minutes).ok().and_then(Duration::try_minutes).unwrap_or(Duration::MAX)
    }

    /// As a settings file keeps it: a bare number of hours when whole (`12`), else with
    /// units (`1h30m`).
    pub fn written(self) -> String {
        if self.minutes % 60 == 0 {
            (self.minutes / 60).to_string()
        } else {
            self.to_string()
        }
    }

    /// For people: `1 day 12 hours`, `1 hour 30 minutes`, `0 hours`.
    pub fn words(self) -> String {
        let (days, hours, minutes) = (self.minutes / 1440, self.minutes / 60 % 24, self.minutes % 60);
        let mut parts = Vec::new();
        if days > 0 {
            parts.push(count(days, "day", "days"));
        }
        if hours > 0 || self.minutes == 0 {
            parts.push(count(hours, "hour", "hours"));
        }
        if minutes > 0 {
            parts.push(count(minutes, "minute", "minutes"));
        }
        parts.join(" ")
    }

    /// Read `90m`, `2h`, `1d`, `1d12h`, or a bare number of hours. Spaces and case do not
    /// matter (`1d 12h`, `90M`). The error quotes the text and says the form.
    pub fn parse(text: &str) -> Result<Span, String> {
        let bad = || format!("`{}`: {SPAN_FORM}", text.trim());
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        if compact.is_empty() {
            return Err(bad());
        }
        if compact.bytes().all(|b| b.is_ascii_digit()) {
            return compact.parse::<u64>().ok().and_then(|h| h.checked_mul(60)).map(Span::minutes).ok_or_else(bad);
        }
        let mut minutes: u64 = 0;
        let mut seen = String::new();
        let mut rest = compact.as_str();
        while !rest.is_empty() {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let unit = rest[digits..].chars().next().ok_or_else(bad)?;
            if digits == 0 || seen.contains(unit) {
                return Err(bad());
            }
            let per = match unit {
                'd' => 1440,
                'h' => 60,
                'm' => 1,
                _ => return Err(bad()),
            };
            let n: u64 = rest[..digits].parse().map_err(|_| bad())?;
            minutes = n.checked_mul(per).and_then(|m| minutes.checked_add(m)).ok_or_else(bad)?;
            seen.push(unit);
            rest = &rest[digits + unit.len_utf8()..];
        }
        Ok(Span::minutes(minutes))
    }
}

/// `1d12h`, `90m` as `1h30m`, `0h`: the form [`Span::parse`] reads back.
impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (days, hours, minutes) = (self.minutes / 1440, self.minutes / 60 % 24, self.minutes % 60);
        if days > 0 {
            write!(f, "{days}d")?;
        }
        if hours > 0 || (days == 0 && minutes == 0) {
            write!(f, "{hours}h")?;
        }
        if minutes > 0 {
            write!(f, "{minutes}m")?;
        }
        Ok(())
    }
}

impl Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.minutes % 60 == 0 {
            s.serialize_u64(self.minutes / 60)
        } else {
            s.collect_str(self)
        }
    }
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Span, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Span;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(SPAN_FORM)
            }
            fn visit_u64<E: serde::de::Error>(self, hours: u64) -> Result<Span, E> {
                hours.checked_mul(60).map(Span::minutes).ok_or_else(|| E::custom(format!("`{hours}`: {SPAN_FORM}")))
            }
            fn visit_i64<E: serde::de::Error>(self, hours: i64) -> Result<Span, E> {
                let hours = u64::try_from(hours).map_err(|_| E::custom(format!("`{hours}`: {SPAN_FORM}")))?;
                self.visit_u64(hours)
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Span, E> {
                Span::parse(text).map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_minutes_hours_days_and_bare_hours() {
        for (text, minutes) in [
            ("90m", 90),
            ("2h", 120),
            ("1d", 1440),
            ("1d12h", 2160),
            ("1d 12h 5m", 2165),
            ("12h1d", 2160),
            ("90M", 90),
            ("48", 2880),
            (" 0 ", 0),
        ] {
            assert_eq!(Span::parse(text), Ok(Span::minutes(minutes)), "{text}");
        }
        for bad in ["90x", "", "h", "1.5h", "-3", "2h2h", "1d-2h", "m90", "99999999999999999999"] {
            let e = Span::parse(bad).unwrap_err();
            assert!(e.contains("a duration is a number with m, h or d"), "{bad}: {e}");
            assert!(e.starts_with(&format!("`{}`", bad.trim())), "{bad}: {e}");
        }
        assert_eq!(Span::minutes(90).to_string(), "1h30m");
        assert_eq!(Span::minutes(2160).to_string(), "1d12h");
        assert_eq!(Span::minutes(0).to_string(), "0h");
        assert_eq!(Span::minutes(1441).words(), "1 day 1 minute");
        for m in [0, 1, 59, 90, 1440, 2161, 527_040] {
            assert_eq!(Span::parse(&Span::minutes(m).to_string()), Ok(Span::minutes(m)));
        }
    }
}
