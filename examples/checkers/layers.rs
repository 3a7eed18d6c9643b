//! What damone's layers above the rules ask of English checkers: the grid
//! the network and the learned evaluation read ([`Board`]), the alpha-beta
//! baseline's evaluation ([`Baseline`]) and the pieces of the endgame
//! tables ([`TableGame`]). With these three, the game is a
//! [`damone::run::RunGame`]: it trains, rates, exports and plays.

use crate::rules::{Move, Position, PROMOTION_ROW};
use damone::game::draughts::Piece;
use damone::game::grid::{cell, cells, dark_to_cells};
use damone::game::tables::turn_cells;
use damone::game::types::{squares, Color, Square};
use damone::game::{Baseline, Board, BoardCells, GamePosition, TableGame};

impl Board for Position {
    const CELLS: BoardCells = BoardCells::DARK;
    const PIECES_PER_SIDE: f32 = 12.0;
    fn kind_cells(&self, c: Color) -> [u128; 3] {
        [dark_to_cells(self.men(c)), dark_to_cells(self.kings(c)), 0]
    }
    fn with_side_to_move(&self, c: Color) -> Position {
        self.with_side(c)
    }
    fn move_cells(m: &Move) -> (usize, usize, u128) {
        (cell(m.from()), cell(m.to()), dark_to_cells(m.captured()))
    }
}

/// Material (man 100, king 300), 5 per row a man has come forward, and 2
/// per step the side has, each the side to move's minus the opponent's.
impl Baseline for Position {
    const MOVE_CODES: usize = 1024;
    fn evaluate(&self) -> i32 {
        let me = self.side_to_move();
        let score = |c: Color| {
            let rows: i32 = squares(self.men(c))
                .map(|s| if c == Color::White { s.rank() } else { 7 - s.rank() })
                .sum();
            self.material(c) + 5 * rows + 2 * self.with_side(c).step_count() as i32
        };
        score(me) - score(me.opposite())
    }
    fn move_code(m: &Move) -> u16 {
        (m.from().index() as u16) << 5 | m.to().index() as u16
    }
    fn captures(m: &Move) -> u32 {
        m.captured().count_ones()
    }
}

/// The 32 dark squares by index; men and kings; no man on the row it
/// would have been promoted on.
impl TableGame for Position {
    const TABLE_CELLS: u32 = 32;
    const TABLE_MAGIC: &'static [u8; 8] = b"ENGCHKTB";

    fn table_cells(&self, c: Color, kind: usize) -> u64 {
        (if kind == 0 { self.men(c) } else { self.kings(c) }) as u64
    }

    fn from_table_cells(pieces: &[[u64; 3]; 2]) -> Option<Position> {
        let mut pos = Position::empty().with_side(Color::White);
        for (c, kinds) in [Color::White, Color::Black].into_iter().zip(pieces) {
            if kinds[0] & PROMOTION_ROW[c.index()] as u64 != 0 || kinds[2] != 0 {
                return None;
            }
            for (king, &set) in [false, true].into_iter().zip(kinds) {
                for i in cells(set) {
                    pos.put(Square::new(i as u8), Piece { color: c, king });
                }
            }
        }
        Some(pos)
    }

    fn rotate_swap(&self) -> Position {
        let turned = |c: Color| [self.men(c), self.kings(c), 0].map(|set| turn_cells(set as u64, 32));
        Position::from_table_cells(&[turned(Color::Black), turned(Color::White)])
            .expect("the turned board of a legal position is legal")
            .with_side(self.side_to_move().opposite())
            .with_no_progress(self.no_progress())
    }

    fn table_variant(&self) -> bool {
        true
    }
}
