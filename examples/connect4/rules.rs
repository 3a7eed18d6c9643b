//! Connect Four: seven columns of six cells standing upright, a move drops
//! a disc into a column that is not full and it falls to the lowest empty
//! cell; four of one's discs in a row (across, up or on a diagonal) win at
//! once, and a full board with no four is a draw by the rules. White (`x`)
//! moves first, Black (`o`) second.
//!
//! Nothing of draughts: no captures, no material, no men or kings, no
//! no-progress counter (every move is irreversible), and a result by the
//! rules ([`GamePosition::decided`]) that is a win or a draw.
//!
//! The discs are two bitboards in John Tromp's layout: column `c`, row `r`
//! (0 at the bottom) is bit `7c + r`, the seventh bit of each column always
//! empty, so that a line of four is found by four shifts.

use damone::game::{Color, EndReason, GameId, GamePosition, Outcome, ParseMoveError};
use std::fmt;

/// Columns of the board.
pub const COLS: usize = 7;
/// Rows of the board.
pub const ROWS: usize = 6;
/// Bits per column in the bitboards (one above the top row, always empty).
const HEIGHT: usize = ROWS + 1;
/// The bottom cell of every column.
const BOTTOM: u64 = {
    let mut b = 0;
    let mut c = 0;
    while c < COLS {
        b |= 1 << (c * HEIGHT);
        c += 1;
    }
    b
};
/// Every cell of the board.
const FULL: u64 = BOTTOM * ((1 << ROWS) - 1);
/// The byte damone's files write for this game's positions (codes of the
/// games compiled into damone are below 128; the checkers example has 200).
const VARIANT_CODE: u8 = 201;

/// A move: the column (0 to 6) the disc is dropped into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(pub u8);

/// A Connect Four position: each side's discs and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    discs: [u64; 2],
    side: Color,
}

/// Why a setup string was refused.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(String);

/// True when `b` holds four in a row in any direction.
fn has_four(b: u64) -> bool {
    [1, HEIGHT, HEIGHT - 1, HEIGHT + 1].into_iter().any(|d| {
        let pairs = b & (b >> d);
        pairs & (pairs >> (2 * d)) != 0
    })
}

/// The bit of column `col`, row `row`.
pub fn bit(col: usize, row: usize) -> u64 {
    1 << (col * HEIGHT + row)
}

impl Position {
    /// The discs of `c`, in Tromp's layout.
    pub fn discs(&self, c: Color) -> u64 {
        self.discs[c.index()]
    }

    fn occupied(&self) -> u64 {
        self.discs[0] | self.discs[1]
    }

    /// The discs in column `col`.
    pub fn height(&self, col: usize) -> usize {
        ((self.occupied() >> (col * HEIGHT)) & ((1 << ROWS) - 1)).count_ones() as usize
    }

    /// The disc on column `col`, row `row`.
    pub fn disc(&self, col: usize, row: usize) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.discs(c) & bit(col, row) != 0)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_setup())
    }
}

/// Setup strings: the rows from the top, `/` between them, `x` for
/// White's discs, `o` for Black's and a digit for a run of empty cells
/// (`7/7/7/7/7/3x3`: White's first disc in the middle). The side to move
/// follows from the counts.
fn read_setup(text: &str) -> Result<Position, SetupError> {
    let bad = |why: String| SetupError(format!("setup '{}': {why}", text.trim()));
    let rows: Vec<&str> = text.trim().split('/').collect();
    if rows.len() != ROWS {
        return Err(bad(format!("{} rows, expected {ROWS} joined by '/'", rows.len())));
    }
    let mut discs = [0u64; 2];
    for (i, row_text) in rows.iter().enumerate() {
        let row = ROWS - 1 - i;
        let mut col = 0;
        for ch in row_text.chars() {
            match ch {
                'x' | 'o' if col < COLS => {
                    discs[(ch == 'o') as usize] |= bit(col, row);
                    col += 1;
                }
                '1'..='7' => col += ch as usize - '0' as usize,
                'x' | 'o' => col += 1,
                other => return Err(bad(format!("'{other}' is not x, o or a digit 1-7"))),
            }
        }
        if col != COLS {
            return Err(bad(format!("row {} has {col} cells, not {COLS}", i + 1)));
        }
    }
    let all = discs[0] | discs[1];
    if !settled(all) {
        return Err(bad("a disc floats above an empty cell".into()));
    }
    let (x, o) = (discs[0].count_ones(), discs[1].count_ones());
    let side = match x.checked_sub(o) {
        Some(0) => Color::White,
        Some(1) => Color::Black,
        _ => {
            return Err(bad(format!(
                "{x} x and {o} o: x has as many discs as o or one more"
            )))
        }
    };
    if has_four(discs[side.index()]) {
        return Err(bad("the side to move already has four in a row".into()));
    }
    Ok(Position { discs, side })
}

/// True when no disc of `all` (a set of cells) stands above an empty cell.
fn settled(all: u64) -> bool {
    (0..COLS).all(|c| {
        let column = (all >> (c * HEIGHT)) & ((1 << ROWS) - 1);
        column & (column + 1) == 0
    })
}

impl GamePosition for Position {
    type Move = Move;
    type Variant = ();
    type SetupError = SetupError;

    const ID: GameId = GameId::new("connect4", "Connect Four");

    fn variant_code(_: ()) -> u8 {
        VARIANT_CODE
    }
    fn variant_of_code(code: u8) -> Option<()> {
        (code == VARIANT_CODE).then_some(())
    }
    fn start(_: ()) -> Position {
        Position {
            discs: [0, 0],
            side: Color::White,
        }
    }
    fn from_setup(text: &str, _: ()) -> Result<Position, SetupError> {
        read_setup(text)
    }
    fn to_setup(&self) -> String {
        let row = |r: usize| {
            let mut s = String::new();
            let mut empty = 0;
            for c in 0..COLS {
                match self.disc(c, r) {
                    None => empty += 1,
                    Some(color) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                        }
                        empty = 0;
                        s.push(if color == Color::White { 'x' } else { 'o' });
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s
        };
        (0..ROWS).rev().map(row).collect::<Vec<_>>().join("/")
    }
    fn variant(&self) {}
    fn side_to_move(&self) -> Color {
        self.side
    }
    fn hash_key(&self) -> u64 {
        let mix = |mut z: u64| {
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        mix(self.discs[0] ^ mix(self.discs[1] ^ 0x9E37_79B9_7F4A_7C15))
    }
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.decided().is_none() {
            out.extend(
                (0..COLS)
                    .filter(|&c| self.height(c) < ROWS)
                    .map(|c| Move(c as u8)),
            );
        }
    }
    fn play_unchecked(&mut self, m: &Move) -> bool {
        let col = m.0 as usize;
        self.discs[self.side.index()] |= bit(col, self.height(col));
        self.side = self.side.opposite();
        true
    }
    /// Four in a row by the side that just moved wins; a full board
    /// without one is a draw.
    fn decided(&self) -> Option<Outcome> {
        let last = self.side.opposite();
        if has_four(self.discs(last)) {
            return Some(Outcome {
                winner: Some(last),
                reason: EndReason::Rules("four_in_a_row"),
            });
        }
        (self.occupied() == FULL).then_some(Outcome {
            winner: None,
            reason: EndReason::Rules("full_board"),
        })
    }
    /// The column's number, 1 to 7 from the left.
    fn move_text(&self, m: &Move) -> String {
        (m.0 + 1).to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let t = text.trim();
        let col = match t.parse::<u8>() {
            Ok(n @ 1..=7) => n - 1,
            _ => return Err(ParseMoveError::Syntax(t.into(), "a column is 1 to 7".into())),
        };
        let legal = self.legal_moves();
        legal.iter().copied().find(|m| m.0 == col).ok_or_else(|| {
            ParseMoveError::Illegal(t.into(), legal.iter().map(|m| self.move_text(m)).collect())
        })
    }
    const PIECE_KINDS: &'static [&'static str] = &["disc"];
    const PIECE_LETTERS: &'static [char] = &['X'];
    const MOVE_EXAMPLES: &'static str = "4 (the middle column)";
    const GRID: (i32, i32) = (COLS as i32, ROWS as i32);
    fn playable(file: i32, rank: i32) -> bool {
        (0..COLS as i32).contains(&file) && (0..ROWS as i32).contains(&rank)
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        Self::playable(file, rank).then(|| self.disc(file as usize, rank as usize).map(|c| (c, 0)))?
    }
    /// The column's top cell: a click on a column drops the disc.
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        vec![(m.0 as i32, ROWS as i32 - 1)]
    }
}
