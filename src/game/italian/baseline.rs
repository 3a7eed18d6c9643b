//! Italian draughts' hand-written evaluation for the alpha-beta baseline
//! ([`Baseline`]), for the side to move, in hundredths of a man: material
//! (man 100, king 250), advancement (4 per row a man has advanced) and
//! mobility (3 per step), each the side to move's minus the opponent's.

use super::position::{Move, Position};
use crate::game::baseline::Baseline;
use crate::game::interface::GamePosition;
use crate::game::types::{squares, Color};

impl Baseline for Position {
    const MOVE_CODES: usize = 1024;
    fn evaluate(&self) -> i32 {
        let me = self.side_to_move();
        let score = |c: Color| {
            let men = self.men(c);
            let advanced: i32 = squares(men)
                .map(|s| if c == Color::White { s.rank() } else { 7 - s.rank() })
                .sum();
            100 * men.count_ones() as i32 + 250 * self.kings(c).count_ones() as i32 + 4 * advanced
        };
        let steps = |c: Color| {
            let mut p = *self;
            p.set_side(c);
            if p.has_capture() {
                0
            } else {
                p.step_count() as i32
            }
        };
        score(me) - score(me.opposite()) + 3 * (steps(me) - steps(me.opposite()))
    }
    fn move_code(m: &Move) -> u16 {
        (m.from().index() as u16) << 5 | m.to().index() as u16
    }
    fn captures(m: &Move) -> u32 {
        m.captured().count_ones()
    }
}
