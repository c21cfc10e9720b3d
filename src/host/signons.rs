//! Failed sign-ons per game and role (`signons.json`), counted under the game's lock.

use super::*;

fn who_label(who: &Identity) -> String {
    match &who.role {
        Role::Seat(p) => p.clone(),
        Role::Master => "master".into(),
        // Not a seat's name (those have no `@`): one observer's failures are their own.
        Role::Observer(address) => format!("observer {}", address.to_lowercase()),
    }
}

/// The side file of a game that keeps its failed sign-ons, per role.
pub const SIGNONS_FILE: &str = "signons.json";

/// `signons.json`: the times of recent failed sign-ons, per role (`France`, `master`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FailedSignOns {
    failed: BTreeMap<String, Vec<DateTime<Utc>>>,
}

impl JudgeHost {
    fn read_failed_sign_ons(&self, game: &str, path: &Path) -> FailedSignOns {
        let read =
            crate::store::GameDir::open_for_reading(path).and_then(|d| d.read_side::<FailedSignOns>(SIGNONS_FILE));
        match read {
            Ok(found) => found.unwrap_or_default(),
            Err(e) => {
                // Damaged: the master hears of it; the record starts again.
                self.record_problem(game, e.to_string());
                FailedSignOns::default()
            }
        }
    }

    /// [`GameHost::check_sign_on`]: the count, the check and the record of a failure, all
    /// under the game's lock.
    pub(super) fn check_sign_on_locked(
        &self,
        who: &Identity,
        now: DateTime<Utc>,
        after: DateTime<Utc>,
        limit: usize,
        check: &mut dyn FnMut() -> bool,
    ) -> Result<SignOnCheck, HostError> {
        let (name, path) =
            self.game_dir(&who.game).ok_or_else(|| HostError::Refused(format!("no game `{}`", who.game)))?;
        let internal = |e: crate::store::StoreError| {
            let temporary = matches!(e, crate::store::StoreError::Io { .. });
            self.record_problem(&name, e.to_string());
            if temporary {
                HostError::TryLater
            } else {
                HostError::Unavailable
            }
        };
        let dir = crate::store::GameDir::open_for_reading(&path).map_err(internal)?;
        // Held from the count to the record, so no two checks of one game overlap.
        let lock = dir.lock().map_err(internal)?;
        let mut record = self.read_failed_sign_ons(&name, &path);
        let label = who_label(who);
        let in_window = |record: &FailedSignOns| -> Vec<DateTime<Utc>> {
            record.failed.get(&label).into_iter().flatten().copied().filter(|t| *t > after).collect()
        };
        let failures = in_window(&record);
        if failures.len() >= limit {
            return Ok(SignOnCheck::Closed { failures });
        }
        if check() {
            return Ok(SignOnCheck::Right);
        }
        let day_ago = now - Duration::days(1);
        for times in record.failed.values_mut() {
            times.retain(|t| *t > day_ago);
        }
        record.failed.retain(|_, times| !times.is_empty());
        let times = record.failed.entry(label.clone()).or_default();
        times.push(now);
        times.sort();
        // A day of failures is plenty to decide a lockout; never let the file grow without end.
        let excess = times.len().saturating_sub(100);
        times.drain(..excess);
        lock.write_side(SIGNONS_FILE, &record).map_err(internal)?;
        Ok(SignOnCheck::Wrong { failures: in_window(&record) })
    }
}
