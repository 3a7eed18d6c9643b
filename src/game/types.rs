//! The vocabulary the games share: colours, and the 32 dark squares of the
//! 8x8 board (squares, bitboards, diagonal directions) that Damone and
//! Italian draughts play on; the piece of a game of men and kings.
//!
//! The 32 dark squares are numbered `rank * 4 + file / 2` (a square is dark iff
//! `file + rank` is odd, so h1 and a8 are dark). A [`Bitboard`] is a `u32` with
//! one bit per dark square.

use std::fmt;

/// A set of dark squares, one bit per square index (see module docs).
pub type Bitboard = u32;

/// All 32 playing squares.
pub const ALL: Bitboard = u32::MAX;

/// Colour of a side. White starts at the h1 corner and moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Color {
    /// The side that moves up the board (ranks 1 to 8).
    White = 0,
    /// The side that moves down the board.
    Black = 1,
}

impl Color {
    /// The other side.
    #[inline]
    pub fn opposite(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    /// 0 for White, 1 for Black.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    /// `'W'` or `'B'`, as in FEN.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }
    /// Lower-case English name.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// A piece of a game of men and kings (Italian draughts, Dameo): a man
/// or a king of a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DraughtsPiece {
    /// The piece's colour.
    pub color: Color,
    /// True for a king.
    pub king: bool,
}

/// One of the 32 dark squares, by index `rank * 4 + file / 2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index (0..32).
    #[inline]
    pub const fn new(index: u8) -> Square {
        assert!(index < 32);
        Square(index)
    }
    /// The square at (file, rank), 0-based, if it is a dark square on the board.
    pub const fn from_coords(file: i32, rank: i32) -> Option<Square> {
        if file < 0 || file > 7 || rank < 0 || rank > 7 || (file + rank) % 2 == 0 {
            None
        } else {
            Some(Square((rank * 4 + file / 2) as u8))
        }
    }
    /// Index 0..32.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// Rank on the board, 0-based (0 = rank 1).
    #[inline]
    pub const fn rank(self) -> i32 {
        (self.0 / 4) as i32
    }
    /// File, 0-based (0 = file a).
    #[inline]
    pub const fn file(self) -> i32 {
        let r = self.0 / 4;
        ((self.0 % 4) * 2 + if r & 1 == 0 { 1 } else { 0 }) as i32
    }
    /// The bitboard holding only this square.
    #[inline]
    pub const fn bb(self) -> Bitboard {
        1u32 << self.0
    }
    /// Reflection in the h1-a8 diagonal: (file, rank) -> (7 - rank, 7 - file).
    pub const fn reflect(self) -> Square {
        match Square::from_coords(7 - self.rank(), 7 - self.file()) {
            Some(s) => s,
            None => panic!("reflection keeps dark squares dark"),
        }
    }
    /// Rotation by 180 degrees: (file, rank) -> (7 - file, 7 - rank).
    pub const fn rotate(self) -> Square {
        Square(31 - self.0)
    }
    /// Parse `"f3"`; `None` if it is not a square name. Light squares are
    /// reported separately by [`parse_coords`].
    pub fn parse(s: &str) -> Option<Square> {
        let (f, r) = parse_coords(s)?;
        Square::from_coords(f, r)
    }
    /// The neighbour in direction `dir`, if on the board.
    #[inline]
    pub fn step(self, dir: Dir) -> Option<Square> {
        let n = NEIGHBOR[dir as usize][self.index()];
        if n == NONE {
            None
        } else {
            Some(Square(n))
        }
    }
    /// Iterate over all 32 squares.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..32u8).map(Square)
    }
}

/// Parse algebraic coordinates `"f3"` into 0-based (file, rank) without
/// checking the colour of the square.
pub fn parse_coords(s: &str) -> Option<(i32, i32)> {
    let b = s.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let f = b[0].to_ascii_lowercase();
    let r = b[1];
    if !(b'a'..=b'h').contains(&f) || !(b'1'..=b'8').contains(&r) {
        return None;
    }
    Some(((f - b'a') as i32, (r - b'1') as i32))
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            (b'1' + self.rank() as u8) as char
        )
    }
}

/// A diagonal direction as (file step, rank step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// (+1, +1): sideways for both sides.
    NE = 0,
    /// (-1, +1): White's forward.
    NW = 1,
    /// (+1, -1): Black's forward.
    SE = 2,
    /// (-1, -1): sideways for both sides.
    SW = 3,
}

impl Dir {
    /// The four directions.
    pub const ALL: [Dir; 4] = [Dir::NE, Dir::NW, Dir::SE, Dir::SW];
    /// (file step, rank step).
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Dir::NE => (1, 1),
            Dir::NW => (-1, 1),
            Dir::SE => (1, -1),
            Dir::SW => (-1, -1),
        }
    }
    /// The opposite direction.
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::NE => Dir::SW,
            Dir::NW => Dir::SE,
            Dir::SE => Dir::NW,
            Dir::SW => Dir::NE,
        }
    }
    /// Forward for a side: NW for White, SE for Black.
    pub const fn forward(color: Color) -> Dir {
        match color {
            Color::White => Dir::NW,
            Color::Black => Dir::SE,
        }
    }
}

/// Marker for "no square" in the neighbour tables.
pub const NONE: u8 = 255;

const fn build_neighbors() -> [[u8; 32]; 4] {
    let mut t = [[NONE; 32]; 4];
    let mut d = 0;
    while d < 4 {
        let (df, dr) = match d {
            0 => (1, 1),
            1 => (-1, 1),
            2 => (1, -1),
            _ => (-1, -1),
        };
        let mut i = 0;
        while i < 32 {
            let s = Square(i as u8);
            if let Some(n) = Square::from_coords(s.file() + df, s.rank() + dr) {
                t[d][i] = n.0;
            }
            i += 1;
        }
        d += 1;
    }
    t
}

/// `NEIGHBOR[dir][sq]`: the adjacent square in `dir`, or [`NONE`].
pub static NEIGHBOR: [[u8; 32]; 4] = build_neighbors();

const EVEN_ROWS: Bitboard = 0x0F0F_0F0F;
const ODD_ROWS: Bitboard = 0xF0F0_F0F0;
const COL0: Bitboard = 0x1111_1111;
const COL3: Bitboard = 0x8888_8888;

/// Shift every square of `b` one step in `dir`; squares that would leave the
/// board are dropped.
#[inline(always)]
pub fn shift(b: Bitboard, dir: Dir) -> Bitboard {
    match dir {
        Dir::NE => ((b & EVEN_ROWS & !COL3) << 5) | ((b & ODD_ROWS) << 4),
        Dir::NW => ((b & EVEN_ROWS) << 4) | ((b & ODD_ROWS & !COL0) << 3),
        Dir::SE => ((b & EVEN_ROWS & !COL3) >> 3) | ((b & ODD_ROWS) >> 4),
        Dir::SW => ((b & EVEN_ROWS) >> 4) | ((b & ODD_ROWS & !COL0) >> 5),
    }
}

/// The cells a person clicks for a diagonal move: its start, then each
/// landing square of a capture (`landings`), or the end square of a step
/// (no landings).
pub fn click_path(from: Square, landings: impl Iterator<Item = Square>, to: Square) -> Vec<(i32, i32)> {
    let mut cells: Vec<(i32, i32)> = std::iter::once(from)
        .chain(landings)
        .map(|s| (s.file(), s.rank()))
        .collect();
    if cells.len() == 1 {
        cells.push((to.file(), to.rank()));
    }
    cells
}

/// One step of the SplitMix64 generator: (next state, output). The games'
/// Zobrist keys are drawn with it at compile time.
pub const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Iterate over the squares of a bitboard, lowest index first.
#[inline]
pub fn squares(mut b: Bitboard) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let i = b.trailing_zeros() as u8;
            b &= b - 1;
            Some(Square(i))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_matches_neighbor_table() {
        for d in Dir::ALL {
            for s in Square::all() {
                let want = s.step(d).map_or(0, |n| n.bb());
                assert_eq!(shift(s.bb(), d), want, "{s} {d:?}");
            }
        }
    }

    #[test]
    fn coords_round_trip_and_colours() {
        assert!(Square::parse("h1").is_some());
        assert!(Square::parse("a8").is_some());
        assert!(Square::parse("a1").is_none());
        for s in Square::all() {
            assert_eq!(Square::parse(&s.to_string()), Some(s));
            assert_eq!(s.reflect().reflect(), s);
            assert_eq!(s.rotate().rotate(), s);
        }
        assert_eq!(
            Square::parse("h1").unwrap().reflect(),
            Square::parse("h1").unwrap()
        );
        assert_eq!(Square::parse("f3").unwrap().reflect().to_string(), "f3");
        assert_eq!(Square::parse("d1").unwrap().reflect().to_string(), "h5");
    }
}
