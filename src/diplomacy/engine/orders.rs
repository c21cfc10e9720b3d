//! Orders: a submission checked and kept, the board and phase each order is for, and
//! the orders kept as the player sees them.

use super::ack::{order_words, Acknowledgement, Kept, Missing, Note, Problem, Submission};
use super::Game;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{PowerId, ProvinceId};
use crate::diplomacy::order::grammar::{OrderParser, ParsedFile, ParsedOrder};
use crate::diplomacy::order::{Board, Order, Place, UnitRef};
use crate::diplomacy::state::StoredOrder;
use crate::phase::PhaseKind;

impl Game {
    /// Every unit on the boards (retreating ones too), as its power and province: what
    /// a misspelt unit is first matched against.
    pub fn unit_places(&self) -> Vec<(PowerId, ProvinceId)> {
        let map = &self.map;
        self.state
            .boards
            .iter()
            .flat_map(|b| {
                b.units.iter().map(|u| (u.power, map.province_of(u.region))).chain(
                    b.retreating
                        .iter()
                        .map(|r| (r.dislodgement.unit.power, map.province_of(r.dislodgement.unit.region))),
                )
            })
            .collect()
    }

    /// Check a power's orders and, unless `check_only`, keep them for this phase.
    pub fn submit(&mut self, power: PowerId, text: &str, check_only: bool) -> Acknowledgement {
        let map = self.map.clone();
        self.submit_with(&OrderParser::new(&map), power, text, check_only)
    }

    /// [`Game::submit`] with a parser built once for this game's map (many submissions
    /// read the same names: a bot's or a test's games).
    pub fn submit_with(
        &mut self,
        parser: &OrderParser,
        power: PowerId,
        text: &str,
        check_only: bool,
    ) -> Acknowledgement {
        let parsed = parser.parse_orders_on(text, &self.unit_places(), Some(power));
        self.submit_parsed(power, text, &parsed, check_only)
    }

    /// [`Game::submit_with`] with `text` already parsed (`parsed` must be what the parser
    /// makes of it: a caller that has read these lines before gives what it kept).
    pub fn submit_parsed(
        &mut self,
        power: PowerId,
        text: &str,
        parsed: &ParsedFile,
        check_only: bool,
    ) -> Acknowledgement {
        self.take_orders(power, text, parsed, check_only).words(&self.map)
    }

    /// [`Game::submit_parsed`] without the words: what was kept, refused and is still
    /// missing, as values ([`Submission::words`] words them when asked).
    pub fn take_orders(&mut self, power: PowerId, text: &str, parsed: &ParsedFile, check_only: bool) -> Submission {
        let before = check_only.then(|| (self.state.orders.clone(), self.state.submitted.clone()));
        let mut problems: Vec<Problem> = parsed
            .diagnostics
            .iter()
            .map(|d| Problem { line: d.line, column: d.column, message: d.message.clone(), hint: d.hint.clone() })
            .collect();
        let mut accepted = Vec::new();
        self.keep(power, text, &parsed.orders, |po, kept| match kept {
            Ok(k) => accepted.push(k),
            Err(message) => problems.push(Problem { line: po.line, column: 1, message, hint: None }),
        });
        let kind = self.state.phase.kind;
        // Winter: preview the outcome of each kept order, so the player sees at once what the
        // judge will do with it, and what is still missing (one adjudication for both).
        let mut winter_missing = None;
        if kind == PhaseKind::Adjustments {
            let duty = self.has_duty(power);
            if duty || !accepted.is_empty() {
                let (outcomes, shortfall) = self.rules().winter_preview(self, power);
                for (a, o) in accepted.iter_mut().zip(outcomes) {
                    if !o.0 {
                        a.note = Some(Note::Winter(o.1));
                    }
                }
                winter_missing =
                    Some(Missing::Words(if duty { super::shortfall_words(shortfall) } else { Vec::new() }));
            }
        }
        // A check answers "what if I sent this?": what would still be missing once kept.
        let missing = winter_missing.unwrap_or_else(|| self.missing(power));
        if let Some((orders, submitted)) = before {
            self.state.orders = orders;
            self.state.submitted = submitted;
        }
        if self.state.end.is_some() {
            problems.push(Problem { line: 1, column: 1, message: "the game is over".into(), hint: None });
        }
        problems.sort_by_key(|p| p.line);
        let position = (kind == PhaseKind::Movement && !accepted.is_empty())
            .then(|| (self.state.boards.iter().map(|b| b.units.clone()).collect(), self.settings.rules.clone()));
        Submission { power, phase: self.state.phase, accepted, problems, missing, position }
    }

    /// [`Game::take_orders`] for a caller that will never read the answer: the orders are
    /// kept the same way, and nothing else is worked out (no notes, no Winter preview, no
    /// missing orders).
    pub fn keep_orders(&mut self, power: PowerId, text: &str, orders: &[ParsedOrder]) {
        self.keep(power, text, orders, |_, _| {});
    }

    /// Keep a power's orders (a later order for a unit replaces the earlier one; a Winter
    /// submission with any order kept replaces the power's earlier Winter orders), telling
    /// `each` of every order read: kept, or why not.
    fn keep(
        &mut self,
        power: PowerId,
        text: &str,
        parsed: &[ParsedOrder],
        mut each: impl FnMut(&ParsedOrder, Result<Kept, String>),
    ) {
        if self.state.end.is_some() {
            return;
        }
        let mut orders = std::mem::take(&mut self.state.orders);
        let mut ordered = Ordered::of(&orders);
        let kind = self.state.phase.kind;
        let mut lines = Lines { text, at: 0 };
        let mut line_no = 0;
        let mut winter_replaced = false;
        let mut any = false;
        for po in parsed {
            let (board, order) = match self.checked(power, po) {
                Ok(c) => c,
                Err(message) => {
                    each(po, Err(message));
                    continue;
                }
            };
            // A movement order's note comes with the words (see `Submission::position`).
            let note = if kind == PhaseKind::Movement { None } else { self.note(board, power, &order) };
            match order.unit() {
                Some(unit_ref) if kind != PhaseKind::Adjustments => {
                    let province = unit_ref.at.province;
                    if ordered.may_have(board, province) {
                        orders.retain(|o| {
                            !(o.power == power
                                && o.board == board
                                && o.order.unit().is_some_and(|r| r.at.province == province))
                        });
                    }
                    ordered.add(board, province);
                }
                _ => {
                    if !winter_replaced {
                        orders.retain(|o| o.power != power);
                        winter_replaced = true;
                    }
                }
            }
            // The orders come in the order of their lines: the text is read once.
            let written = if po.line > line_no {
                let skipped = po.line - line_no - 1;
                line_no = po.line;
                lines.nth(skipped)
            } else {
                Lines { text, at: 0 }.nth(po.line.saturating_sub(1))
            };
            let written = written.map(trimmed).unwrap_or_default().to_string();
            orders.push(StoredOrder { power, board, order, text: written });
            let label = if order == Order::Waive { None } else { self.rules().board_label(board) };
            each(po, Ok(Kept { line: po.line, on: board, board: label, order, note }));
            any = true;
        }
        self.state.orders = orders;
        if any && !self.state.submitted.contains(&power) {
            self.state.submitted.push(power);
        }
    }

    /// Check one parsed order of `power` against the phase and the position: the board it
    /// is for, the order as the phase reads it (a move in a retreat phase is a retreat),
    /// and a note when it is understood but illegal (it is kept: the unit holds or
    /// disbands, and the report says why). `Err` when the order cannot be kept at all.
    pub fn check_order(&self, power: PowerId, po: &ParsedOrder) -> Result<(Board, Order<Place>, Option<Note>), String> {
        let (board, order) = self.checked(power, po)?;
        Ok((board, order, self.note(board, power, &order)))
    }

    /// [`Game::check_order`] without the note: the board and the order as the phase reads it.
    fn checked(&self, power: PowerId, po: &ParsedOrder) -> Result<(Board, Order<Place>), String> {
        let kind = self.state.phase.kind;
        if let Some(p) = po.power.filter(|p| *p != power) {
            return Err(format!("this order is for {}; you play {}", self.power_name(p), self.power_name(power)));
        }
        let board = self.rules().board_of(self, po.board, kind, &po.order)?;
        let order = match (kind, po.order) {
            (PhaseKind::Retreats, Order::Move { unit, to, .. }) => Order::Retreat { unit, to },
            (_, o) => o,
        };
        let fits = match kind {
            PhaseKind::Movement => matches!(
                order,
                Order::Hold { .. }
                    | Order::Move { .. }
                    | Order::SupportHold { .. }
                    | Order::SupportMove { .. }
                    | Order::Convoy { .. }
            ),
            PhaseKind::Retreats => matches!(order, Order::Retreat { .. } | Order::Disband { .. }),
            PhaseKind::Adjustments => matches!(order, Order::Build { .. } | Order::Disband { .. } | Order::Waive),
        };
        if !fits {
            let what = match kind {
                PhaseKind::Movement => "a movement phase takes hold, move, support and convoy orders",
                PhaseKind::Retreats => "a retreat phase takes only retreats and disbands (no supports or convoys)",
                PhaseKind::Adjustments => "a Winter phase takes only builds, removals and waives",
            };
            return Err(format!("not an order for {}: {what}", self.state.phase));
        }
        if kind == PhaseKind::Adjustments {
            return Ok((board, order));
        }
        let b = &self.state.boards[board.0 as usize];
        let unit_ref: UnitRef<Place> = *order.unit().expect("movement and retreat orders name a unit");
        let in_place = |u: &&Unit| self.map.province_of(u.region) == unit_ref.at.province;
        let found = if kind == PhaseKind::Movement {
            b.units.iter().find(in_place)
        } else {
            b.retreating.iter().map(|r| &r.dislodgement.unit).find(in_place)
        };
        let on_board = || self.rules().on_board(board);
        let Some(unit) = found else {
            let what = if kind == PhaseKind::Movement { "no unit" } else { "no dislodged unit" };
            return Err(format!("{what} in {}{}", self.map.province(unit_ref.at.province).name, on_board()));
        };
        if unit.power != power {
            return Err(format!(
                "the unit in {}{} is {}, not yours",
                self.map.province(unit_ref.at.province).name,
                on_board(),
                self.map.power(unit.power).adjective
            ));
        }
        Ok((board, order))
    }

    /// Why a movement or retreat order of `power` on `board` will not be carried out as
    /// written, if it will not.
    fn note(&self, board: Board, power: PowerId, order: &Order<Place>) -> Option<Note> {
        let b = &self.state.boards[board.0 as usize];
        match (self.state.phase.kind, order) {
            (PhaseKind::Movement, _) => Note::movement(&self.map, &b.units, power, order, &self.settings.rules),
            (PhaseKind::Retreats, Order::Retreat { unit, to }) => {
                let r = b
                    .retreating
                    .iter()
                    .find(|r| self.map.province_of(r.dislodgement.unit.region) == unit.at.province)?;
                let can = r.options.iter().any(|o| self.map.province_of(*o) == to.province);
                (!can).then_some(Note::NoRetreat)
            }
            _ => None,
        }
    }

    /// The power an order is meant for when the text does not say: the owner of the unit
    /// it names (on its board, or board A).
    pub fn owner_of_ordered_unit(&self, po: &ParsedOrder) -> Option<PowerId> {
        let b = self.state.boards.get(po.board.unwrap_or(Board::A).0 as usize)?;
        let at = po.order.unit()?.at.province;
        let in_place = |u: &Unit| self.map.province_of(u.region) == at;
        b.units
            .iter()
            .find(|u| in_place(u))
            .or_else(|| b.retreating.iter().map(|r| &r.dislodgement.unit).find(|u| in_place(u)))
            .map(|u| u.power)
    }

    /// What the judge would do with these Winter orders of a power, each: (accepted, why).
    pub fn preview_winter(&self, power: PowerId, orders: &[&ParsedOrder]) -> Vec<(bool, String)> {
        let mut g = self.clone();
        g.state.orders = orders
            .iter()
            .map(|po| StoredOrder { power, board: po.board.unwrap_or(Board::A), order: po.order, text: String::new() })
            .collect();
        g.winter_outcomes(power)
    }

    /// A power's orders kept this phase, as written, each with a note when the judge will
    /// not carry it out as written (an illegal move: the unit holds; a retreat it cannot
    /// make: the unit disbands; a build or removal refused), as the acknowledgement said.
    pub fn kept_orders(&self, power: PowerId) -> Vec<(String, Option<String>)> {
        let mine = self.state.orders.iter().filter(|o| o.power == power);
        mine.zip(self.kept_notes(power)).map(|(o, n)| (o.text.clone(), n)).collect()
    }

    /// [`Game::kept_orders`], each order as the acknowledgement showed it: with its board
    /// in Shadow Worlds, a Winter removal as `remove A par` (what `status` lists).
    pub fn kept_orders_shown(&self, power: PowerId) -> Vec<(String, Option<String>)> {
        let shown = |o: &StoredOrder| {
            let (board, text) = self.shown_order(o.board, &o.order);
            board.map_or(text.clone(), |b| format!("[{b}] {text}"))
        };
        let mine = self.state.orders.iter().filter(|o| o.power == power);
        mine.zip(self.kept_notes(power)).map(|(o, n)| (shown(o), n)).collect()
    }

    /// The note of each of a power's kept orders, in order (see [`Game::kept_orders`]).
    fn kept_notes(&self, power: PowerId) -> impl Iterator<Item = Option<String>> {
        let notes: Vec<Option<String>> = match self.state.phase.kind {
            PhaseKind::Adjustments => {
                self.winter_outcomes(power).into_iter().map(|(ok, why)| (!ok).then_some(why)).collect()
            }
            _ => self
                .state
                .orders
                .iter()
                .filter(|o| o.power == power)
                .map(|o| self.note(o.board, power, &o.order).map(|n| n.words(&self.map)))
                .collect(),
        };
        notes.into_iter().chain(std::iter::repeat(None))
    }

    /// An order as acknowledgements and `status` show it: with its board in Shadow Worlds
    /// (a waive has none), a Winter removal as the results word it (`remove A par`).
    pub(super) fn shown_order(&self, board: Board, order: &Order<Place>) -> (Option<char>, String) {
        let label = if *order == Order::Waive { None } else { self.rules().board_label(board) };
        (label, order_words(&self.map, self.state.phase.kind, order))
    }

    /// A Winter order as reports print it: a disband is a removal there.
    pub(super) fn winter_text(&self, order: &Order<Place>) -> String {
        order_words(&self.map, PhaseKind::Adjustments, order)
    }
}

/// Which (board, province) pairs have an order kept, as bits: most orders are for a unit
/// with none yet, and then there is nothing to look for and replace. A pair beyond the
/// bits (a map of more than 256 provinces) is always looked for.
struct Ordered([u64; 8]);

impl Ordered {
    fn of(orders: &[StoredOrder]) -> Ordered {
        let mut ordered = Ordered([0; 8]);
        for o in orders {
            if let Some(r) = o.order.unit() {
                ordered.add(o.board, r.at.province);
            }
        }
        ordered
    }

    fn bit(board: Board, province: ProvinceId) -> Option<usize> {
        let i = province.0 as usize * 2 + board.0 as usize;
        (board.0 < 2 && i < 512).then_some(i)
    }

    fn may_have(&self, board: Board, province: ProvinceId) -> bool {
        Self::bit(board, province).is_none_or(|i| self.0[i / 64] & 1 << (i % 64) != 0)
    }

    fn add(&mut self, board: Board, province: ProvinceId) {
        if let Some(i) = Self::bit(board, province) {
            self.0[i / 64] |= 1 << (i % 64);
        }
    }
}

/// The lines of a text as [`str::lines`] numbers them (split at `\n`), read with a plain
/// byte scan: a submission's lines are short.
struct Lines<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.text.get(self.at..).filter(|r| !r.is_empty())?;
        let end = rest.bytes().position(|b| b == b'\n').unwrap_or(rest.len());
        self.at += end + 1;
        Some(&rest[..end])
    }
}

/// A line without the white space around it; most lines have none to cut.
fn trimmed(line: &str) -> &str {
    let plain = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_graphic());
    if plain(line.as_bytes().first()) && plain(line.as_bytes().last()) {
        line
    } else {
        line.trim()
    }
}

#[cfg(test)]
mod tests {
    use super::{trimmed, Lines};

    #[test]
    fn lines_are_numbered_and_trimmed_as_the_standard_library_does() {
        let texts = [
            "",
            "\n",
            "A PAR H",
            "A PAR H\n",
            "A PAR H\r\nF BRE - MAO\r\n",
            "\n\n  A PAR - BUR  \n\tF LON H\t\n",
            "A PAR H\n\u{a0}F KIE - DEN\u{a0}\n\u{3000}\n",
            "ä\nA MUN S A BER\r",
        ];
        for text in texts {
            let ours: Vec<&str> = Lines { text, at: 0 }.map(trimmed).collect();
            let std: Vec<&str> = text.lines().map(str::trim).collect();
            assert_eq!(ours, std, "{text:?}");
            for n in 0..std.len() + 2 {
                assert_eq!(
                    Lines { text, at: 0 }.nth(n).map(trimmed),
                    text.lines().nth(n).map(str::trim),
                    "{text:?} line {n}"
                );
            }
        }
    }
}
