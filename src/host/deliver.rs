//! Sending what is owed: results, replies, reminders and notices, and what a refusal
//! for good does.

use super::*;

/// Send what is owed: the results owed in the games `host` adjudicated (every game when
/// `batches` is `None`), then the owed mail batches named (every one when `None`).
/// A mail refused for good marks its address failing ([`Owed`]) and, the first time, owes
/// and sends a notice to the master of every game the address plays in. One line per
/// thing done or gone wrong.
pub fn deliver(
    host: &JudgeHost,
    owed: &Owed,
    batches: Option<&[crate::store::SpoolId]>,
    now: DateTime<Utc>,
    send: &mut Sender<'_>,
) -> Vec<String> {
    let mut done = Vec::new();
    let mut refused: Vec<(String, String)> = Vec::new();
    // Every mail of this run, results and owed mail alike, for the summary line.
    let (mut sent, mut waiting, mut gone) = (0, 0, 0);
    {
        let mut noting = |m: &OutgoingMail| {
            let r = send(m).inspect_err(|e| {
                if e.is_permanent() {
                    refused.push((m.to.clone(), e.to_string()));
                }
            });
            match &r {
                Ok(()) => sent += 1,
                Err(e) if e.is_permanent() => gone += 1,
                Err(_) => waiting += 1,
            }
            r
        };
        let games = batches.map(|_| host.adjudicated());
        if games.is_none_or(|g| !g.is_empty()) {
            done.extend(host.mail_results(games, games.is_some(), now, &mut noting));
        }
    }
    let mut newly = match owed.note_refusals(&refused, now) {
        Ok(newly) => newly,
        Err(e) => {
            done.push(format!("failing addresses not recorded: {e}"));
            Vec::new()
        }
    };
    match owed.send(batches, now, send) {
        Ok(d) => {
            sent += d.sent;
            waiting += d.waiting;
            gone += d.refused.len();
            newly.extend(d.newly_failing);
        }
        Err(e) => done.push(format!("owed mail not sent: {e}")),
    }
    let notices = host.refusal_notices(&newly);
    if !notices.is_empty() {
        match owed.owe(now, &notices) {
            Ok(id) => {
                let ids: Vec<_> = id.into_iter().collect();
                match owed.send(Some(&ids), now, send) {
                    Ok(d) => {
                        done.push(format!(
                            "{} of {} of refused mail sent to game masters.",
                            d.sent,
                            count(notices.len(), "notice", "notices")
                        ));
                        sent += d.sent;
                        waiting += d.waiting;
                        gone += d.refused.len();
                    }
                    Err(e) => done.push(format!("notices of refused mail not sent: {e}")),
                }
            }
            Err(e) => done.push(format!("notices of refused mail not kept: {e}")),
        }
    }
    if sent + waiting + gone > 0 {
        done.push(format!(
            "{} sent, {waiting} to try again later, {gone} refused for good.",
            count(sent, "mail", "mails")
        ));
    }
    done
}
