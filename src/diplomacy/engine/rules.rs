//! What differs between the variants, for the phase machine: each variant gives one
//! [`Rules`] value, and the rest of the engine asks it instead of naming the variant.

use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::report::LedgerLine;
use crate::diplomacy::state::GameEnd;
use crate::game::settings::{Settings, VariantKind};
use crate::phase::PhaseKind;

use super::adjudicated::{Decided, Told};
use super::shadow_worlds::ShadowWorlds;
use super::standard::Standard;
use super::Game;

/// The rules of one variant where the phase machine's steps differ: the boards, the
/// Winter, elimination and victory, and how they are told.
pub trait Rules: Sync {
    /// The variant's name in report headers.
    fn title(&self) -> &'static str;

    /// The title on `map`: the title alone on the standard map.
    fn title_on(&self, map: &Map) -> String {
        match map.is_standard_variant() {
            true => self.title().to_string(),
            false => format!("{} on {}", self.title(), map.title),
        }
    }

    /// The letter a board is shown with, if the game has more than one.
    fn board_label(&self, board: Board) -> Option<char>;

    /// ` on board A` after a unit or a province, when the game has more than one board.
    fn on_board(&self, board: Board) -> String {
        self.board_label(board).map(|c| format!(" on board {c}")).unwrap_or_default()
    }

    /// The board an order is for, from the board the player wrote (if any).
    fn board_of(
        &self,
        game: &Game,
        written: Option<Board>,
        kind: PhaseKind,
        order: &Order<Place>,
    ) -> Result<Board, String>;

    /// Does this power owe Winter orders?
    fn owes_adjustment(&self, game: &Game, power: PowerId) -> bool;

    /// The builds (positive) or removals (negative) due to a power in the Winter.
    fn adjustment(&self, game: &Game, power: PowerId) -> i64;

    /// What a power adjusts, as `status` says it (`builds 1`), when the variant tells it
    /// apart from the ledger.
    fn adjustment_due(&self, game: &Game, power: PowerId) -> Option<String>;

    /// The combined ledger, for variants that keep one.
    fn ledger(&self, game: &Game) -> Vec<LedgerLine>;

    /// What a power's Winter orders so far leave undone: the builds that will be waived,
    /// and the removals civil disorder will choose, per board (labelled when shown so).
    fn winter_shortfall(&self, game: &Game, power: PowerId) -> (usize, Vec<(Option<char>, usize)>);

    /// Each of a power's Winter orders: (accepted, what the judge will do).
    fn winter_outcomes(&self, game: &Game, power: PowerId) -> Vec<(bool, String)>;

    /// [`Rules::winter_outcomes`] and [`Rules::winter_shortfall`] at once (a variant that
    /// works both out from one adjudication says so here).
    fn winter_preview(&self, game: &Game, power: PowerId) -> WinterPreview {
        (self.winter_outcomes(game, power), self.winter_shortfall(game, power))
    }

    /// Is a Winter held this year?
    fn winter_needed(&self, game: &Game) -> bool;

    /// Carry out the Winter's orders and defaults: kept as decided (worded when asked),
    /// or told at once (with the ledger, where the variant keeps one).
    fn adjudicate_winter(&self, game: &mut Game, decided: &mut Vec<Decided>, told: &mut Told);

    /// Is this power out of the game (after the Fall)?
    fn is_out(&self, game: &Game, power: PowerId) -> bool;

    /// Who won, if anyone (after the Fall's eliminations).
    fn victory(&self, game: &Game) -> Option<GameEnd>;

    /// The variant's own line among the options in report headers.
    fn option_line(&self, settings: &Settings, map: &Map) -> String;
}

/// The rules the variant gives.
/// A power's Winter orders as the judge would carry them out now: each order's outcome
/// (accepted, what the judge will do), and what they leave undone (see
/// [`Rules::winter_shortfall`]).
pub type WinterPreview = (Vec<(bool, String)>, (usize, Vec<(Option<char>, usize)>));

pub fn of(variant: VariantKind) -> &'static dyn Rules {
    match variant {
        VariantKind::Standard => &Standard,
        VariantKind::ShadowWorlds => &ShadowWorlds,
    }
}

/// The rules of the variant a game of these settings plays.
pub fn of_settings(settings: &Settings) -> &'static dyn Rules {
    of(settings.variant)
}

impl Game {
    /// The rules of this game's variant.
    pub(super) fn rules(&self) -> &'static dyn Rules {
        of_settings(&self.settings)
    }
}
