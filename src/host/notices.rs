//! The mails the judge writes on its own: to masters about damaged games and refused
//! addresses, and a command's notices for others.

use super::*;

impl JudgeHost {
    /// Mails to the masters of games with problems (one per game), saying what went
    /// wrong. A game whose master cannot be read gets none (the log has it).
    pub fn problem_notices(&self, problems: &[Problem]) -> Vec<OutgoingMail> {
        let mut mails: Vec<OutgoingMail> = Vec::new();
        let mut done: Vec<&str> = Vec::new();
        for p in problems {
            if done.contains(&p.game.as_str()) {
                continue;
            }
            done.push(&p.game);
            let Some((name, path)) = self.game_dir(&p.game) else { continue };
            let Ok(dir) = crate::store::GameDir::open_for_reading(&path) else { continue };
            let Ok(raw) = dir.read_settings::<toml::Table>() else { continue };
            let Some(address) = raw.get("master").and_then(|m| m.get("email")).and_then(|e| e.as_str()) else {
                continue;
            };
            let causes: Vec<&str> = problems.iter().filter(|q| q.game == p.game).map(|q| q.cause.as_str()).collect();
            mails.push(OutgoingMail {
                to: address.to_string(),
                subject: header_safe(&format!("{name}: the judge could not open the game"), 120),
                body: format!(
                    "The judge could not open {name} while serving mail; players were told only that\n\
                     the game could not be opened. What went wrong:\n\n{}\n",
                    causes.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n")
                ),
                in_reply_to: None,
                references: Vec::new(),
                kind: MailKind::Generated,
                attachments: Vec::new(),
            });
        }
        mails
    }

    /// Mails to the masters of the games where these addresses (refused for good by the
    /// mail server) play, observe or are the master: one per game, naming them. A master's
    /// own failing address gets none (the log has it).
    pub fn refusal_notices(&self, refused: &[(String, String)]) -> Vec<OutgoingMail> {
        let mut mails = Vec::new();
        if refused.is_empty() {
            return mails;
        }
        for name in self.game_names() {
            let contacts = self.contacts(&name);
            let Some(master) = contacts.iter().find(|c| c.role == ContactRole::Master) else { continue };
            let here: Vec<String> = refused
                .iter()
                .filter(|(a, _)| !a.eq_ignore_ascii_case(&master.address))
                .filter_map(|(a, why)| {
                    let c = contacts.iter().find(|c| c.address.eq_ignore_ascii_case(a))?;
                    let who = match &c.role {
                        ContactRole::Player(p) => format!("the player of {p}"),
                        ContactRole::Observer => "an observer".to_string(),
                        ContactRole::Master => "the master".to_string(),
                    };
                    Some(format!("  {a} ({who}): {why}"))
                })
                .collect();
            if here.is_empty() {
                continue;
            }
            mails.push(OutgoingMail {
                to: master.address.clone(),
                subject: header_safe(&format!("{name}: mail to a player was refused"), 120),
                body: format!(
                    "The mail server refused the judge's mail to these addresses for good, so the judge\n\
                     will not try that mail again. Check the address (`replace` gives a power to a new\n\
                     address). You are told once per address.\n\n{}\n",
                    here.join("\n")
                ),
                in_reply_to: None,
                references: Vec::new(),
                kind: MailKind::Generated,
                attachments: Vec::new(),
            });
        }
        mails
    }

    /// Owe a command's notices as mails (with the message's reply); what to answer.
    pub(super) fn notify(&mut self, game: &str, outcome: any::Outcome) -> String {
        for notice in outcome.notices {
            let attachments = if notice.final_board { self.final_board(game) } else { Vec::new() };
            for to in notice.to {
                self.mails.push(OutgoingMail {
                    to,
                    subject: header_safe(&notice.subject, 120),
                    body: notice.body.clone(),
                    in_reply_to: None,
                    references: Vec::new(),
                    kind: MailKind::Generated,
                    attachments: attachments.clone(),
                });
            }
        }
        outcome.said
    }

    /// The pictures of the game's board as it ended (none for a game without pictures,
    /// or when they cannot be drawn: the mail goes without them, and the problem is noted).
    pub(super) fn final_board(&mut self, game: &str) -> Vec<crate::mail::reply::Attachment> {
        let Ok(mut g) = self.read(game) else { return Vec::new() };
        let Some(drawn) = g.pictures().and_then(|p| p.board_picture()) else { return Vec::new() };
        match drawn.and_then(|d| super::attachments(&d)) {
            Ok(pictures) => pictures,
            Err(e) => {
                self.record_problem(game, format!("final map picture not drawn: {e}"));
                Vec::new()
            }
        }
    }
}
