//! A players file, whatever the game: one player a line, fields separated by commas, `#`
//! starting a comment; and the checks every game's file shares (an address, a time zone).
//! Each game reads its own fields from the lines this gives it.

/// One line of a players file that says something.
pub struct RosterLine<'a> {
    /// Where it is, for errors: `players.txt:3`.
    pub at: String,
    /// The fields, trimmed; as many as the caller allowed.
    pub fields: Vec<&'a str>,
}

/// The lines of a players file with between `fewest` and `most` fields each; `expected`
/// says what a line looks like when one has too few or too many.
pub fn lines<'a>(
    text: &'a str,
    file: &str,
    fewest: usize,
    most: usize,
    expected: &str,
) -> Result<Vec<RosterLine<'a>>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("{file}:{}", i + 1);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() < fewest || fields.len() > most {
            return Err(format!("{at}: expected {expected}, found `{line}`"));
        }
        out.push(RosterLine { at, fields });
    }
    Ok(out)
}

impl RosterLine<'_> {
    /// The field at `index` as an email address.
    pub fn email(&self, index: usize) -> Result<String, String> {
        let email = self.fields[index];
        if !email.contains('@') || email.contains(char::is_whitespace) {
            return Err(format!("{}: `{email}` is not an email address", self.at));
        }
        Ok(email.to_string())
    }

    /// The field at `index`, if the line has it, as a time zone.
    pub fn timezone(&self, index: usize) -> Result<Option<String>, String> {
        match self.fields.get(index) {
            Some(tz) if tz.parse::<chrono_tz::Tz>().is_err() => {
                Err(format!("{}: unknown time zone `{tz}` (write it like Europe/Paris)", self.at))
            }
            Some(tz) => Ok(Some(tz.to_string())),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_field_counts() {
        let text = "# who plays\n\nann, ann@example.org # first\nbob, bob@example.org, Europe/Paris\n";
        let got = lines(text, "p.txt", 2, 3, "`name, email`").unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].at, "p.txt:3");
        assert_eq!(got[0].fields, ["ann", "ann@example.org"]);
        assert_eq!(got[1].timezone(2).unwrap().as_deref(), Some("Europe/Paris"));
        assert_eq!(got[0].timezone(2).unwrap(), None);
        let err = lines("ann\n", "p.txt", 2, 3, "`name, email`").err().unwrap();
        assert_eq!(err, "p.txt:1: expected `name, email`, found `ann`");
    }

    #[test]
    fn bad_address_and_time_zone_say_where() {
        let got = lines("ann, ann at home, Mars/Base\n", "p.txt", 2, 3, "x").unwrap();
        assert_eq!(got[0].email(1).err().unwrap(), "p.txt:1: `ann at home` is not an email address");
        assert!(got[0].timezone(2).err().unwrap().starts_with("p.txt:1: unknown time zone `Mars/Base`"));
    }
}
