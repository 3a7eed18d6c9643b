//! Damone's hand-written evaluation for the alpha-beta baseline
//! ([`Baseline`]), for the side to move, in hundredths of a Pedina:
//!
//! - **material by rank**: Pedina 100, Dama 250, Damone 600 (in
//!   `damone-hunt`, where losing the last Damone loses, a Damone is 2000);
//! - **advancement**: each Pedina earns 8 per diagonal step made towards
//!   the enemy Damone corner (its forward distance from its own corner);
//! - **mobility**: 3 per non-capturing step available;
//!
//! each the side to move's minus the opponent's.

use super::position::{Move, Position};
use super::rank::Rank;
use crate::game::baseline::Baseline;
use crate::game::interface::GamePosition;
use crate::game::types::{shift, squares, Color, Dir};

impl Baseline for Position {
    const MOVE_CODES: usize = 1024;
    fn evaluate(&self) -> i32 {
        evaluate(self)
    }
    fn move_code(m: &Move) -> u16 {
        (m.from().index() as u16) << 5 | m.to().index() as u16
    }
    fn captures(m: &Move) -> u32 {
        m.captured().count_ones()
    }
}

fn advancement(pos: &Position, c: Color) -> i32 {
    squares(pos.pieces(c, Rank::Pedina))
        .map(|s| match c {
            Color::White => s.rank() - s.file() + 7,
            Color::Black => s.file() - s.rank() + 7,
        })
        .sum::<i32>()
        * 4
}

fn mobility(pos: &Position, c: Color) -> i32 {
    let empty = !pos.occupied();
    let mine = pos.color_bb(c);
    let big = mine & !pos.rank_bb(Rank::Pedina);
    let ped_dirs = Rank::Pedina.dirs(c);
    Dir::ALL
        .iter()
        .map(|&d| {
            let movers = if ped_dirs & (1 << d as u8) != 0 { mine } else { big };
            (shift(movers, d) & empty).count_ones() as i32
        })
        .sum()
}

/// Static evaluation for the side to move: material, advancement and
/// mobility (see the module docs).
pub fn evaluate(pos: &Position) -> i32 {
    let me = pos.side_to_move();
    let them = me.opposite();
    (pos.material(me) - pos.material(them))
        + (advancement(pos, me) - advancement(pos, them))
        + 3 * (mobility(pos, me) - mobility(pos, them))
}
