//! Dameo's hand-written evaluation for the alpha-beta baseline
//! ([`Baseline`]), for the side to move, in hundredths of a man: material
//! (man 100, king 350), advancement (4 per row a man has advanced) and
//! mobility (2 per non-capturing move of men and kings, line moves
//! included), each the side to move's minus the opponent's.

use super::position::{cells, Move, Position};
use crate::game::baseline::Baseline;
use crate::game::interface::GamePosition;
use crate::game::types::Color;

impl Baseline for Position {
    const MOVE_CODES: usize = 4096;
    fn evaluate(&self) -> i32 {
        let me = self.side_to_move();
        let score = |c: Color| {
            let advanced: i32 = cells(self.men(c))
                .map(|cell| if c == Color::White { cell / 8 } else { 7 - cell / 8 } as i32)
                .sum();
            self.material(c) + 4 * advanced
        };
        let mobility = |c: Color| {
            let mut p = *self;
            p.set_side(c);
            if p.has_capture() {
                0
            } else {
                p.quiet_move_count() as i32
            }
        };
        score(me) - score(me.opposite()) + 2 * (mobility(me) - mobility(me.opposite()))
    }
    fn move_code(m: &Move) -> u16 {
        (m.from() as u16) << 6 | m.to() as u16
    }
    fn captures(m: &Move) -> u32 {
        m.captured().count_ones()
    }
}
