//! What arrives on a space: a pawn onto a pawn is a paradox; Hazards wound a pawn and
//! Havens heal it.

use super::super::board::{Cell, Pawn, Space, LETHAL_WOUNDS};
use super::log::{tokens, tokens_cap, wounds};
use super::{Duplexity, Log, Token};

impl Duplexity {
    /// A pawn arrives at `at`: paradox, or the tokens there trigger.
    pub(crate) fn land_pawn(&mut self, at: Space, pawn: Pawn, log: &mut Log) {
        if let Some(there) = self.board.pawn(at) {
            self.board.cell_mut(at).pawn = None;
            say!(
                log,
                "Paradox at {at}: {}'s pawn arrives where {}'s pawn stands; both leave the game{}, and a Hazard lands in every zone of location {}.",
                self.name(pawn.owner),
                self.name(there.owner),
                if pawn.wounds + there.wounds > 0 { " with their Wounds" } else { "" },
                at.location()
            );
            for v in at.versions() {
                self.land_tokens(v, 1, 0, log);
            }
            return;
        }
        self.board.cell_mut(at).pawn = Some(pawn);
        self.trigger(at, log);
    }

    /// Tokens arrive at `at` (they trigger if a pawn stands there).
    pub(crate) fn land_tokens(&mut self, at: Space, hazards: u32, havens: u32, log: &mut Log) {
        let cell = self.board.cell_mut(at);
        cell.hazards = cell.hazards.saturating_add(hazards);
        cell.havens = cell.havens.saturating_add(havens);
        self.trigger(at, log);
    }

    /// A pawn and tokens share `at`: Hazards become Wounds (3 remove the pawn, Havens
    /// stay), then each Haven heals a Wound if there is one and is used up.
    fn trigger(&mut self, at: Space, log: &mut Log) {
        let cell: &mut Cell = self.board.cell_mut(at);
        let Some(mut pawn) = cell.pawn else { return };
        let (hazards, havens) = (cell.hazards, cell.havens);
        if hazards > 0 {
            cell.hazards = 0;
            pawn.wounds = pawn.wounds.saturating_add(hazards);
            if pawn.wounds >= LETHAL_WOUNDS {
                cell.pawn = None;
                say!(
                    log,
                    "{} at {at} {}: {}'s pawn has {} and leaves the game with them{}.",
                    tokens_cap(hazards, Token::Hazard),
                    if hazards == 1 { "becomes a Wound" } else { "become Wounds" },
                    self.name(pawn.owner),
                    wounds(pawn.wounds),
                    if havens > 0 {
                        format!(" ({} stay{})", tokens(havens, Token::Haven), if havens == 1 { "s" } else { "" })
                    } else {
                        String::new()
                    }
                );
                return;
            }
            say!(
                log,
                "{} at {at} {}: {}'s pawn has {}.",
                tokens_cap(hazards, Token::Hazard),
                if hazards == 1 { "becomes a Wound" } else { "become Wounds" },
                self.name(pawn.owner),
                wounds(pawn.wounds)
            );
        }
        if havens > 0 {
            let healed = pawn.wounds.min(havens);
            pawn.wounds -= healed;
            if healed == 0 {
                say!(
                    log,
                    "{} at {at} {} used up by {}'s pawn, which has no Wound to heal.",
                    tokens_cap(havens, Token::Haven),
                    if havens == 1 { "is" } else { "are" },
                    self.name(pawn.owner)
                );
            } else {
                say!(
                    log,
                    "{} at {at} {} used up by {}'s pawn, healing {}: it has {}.",
                    tokens_cap(havens, Token::Haven),
                    if havens == 1 { "is" } else { "are" },
                    self.name(pawn.owner),
                    wounds(healed),
                    wounds(pawn.wounds)
                );
            }
        }
        let cell = self.board.cell_mut(at);
        cell.havens = 0;
        cell.pawn = Some(pawn);
    }
}
