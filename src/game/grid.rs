//! A game's board as cells (bit `rank * cols + file` of a `u128`, at most
//! 128 cells): what the network's encoding and the learned evaluation read
//! of every game ([`Board`]), its shape and the cells its pieces stand on
//! ([`BoardCells`]: the 8x8 board's 32 dark squares or all 64, or any other
//! board). The shipped games play on 8x8 boards.

use super::interface::GamePosition;
use super::types::{Bitboard, Color, Square};
use serde::{Deserialize, Serialize};

/// Start and end pairs of the whole grid, 64 x 64.
pub const CELL_PAIRS: usize = 64 * 64;

/// The cells of a board, lowest first.
#[inline]
pub fn cells(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            i
        })
    })
}

/// The cells of a board of up to 128 cells (bit `rank * cols + file`),
/// lowest first.
#[inline]
pub fn cells128(mut b: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            i
        })
    })
}

/// A game's board as the network sees it: its rows and columns (at most
/// 128 cells in all), the cells pieces stand on (bit `rank * cols + file`
/// of a mask), and the slots its policy index gives moves that share a
/// start and an end. A network is built for one board (`model.board`,
/// set from the game); the policy index numbers the playing cells.
///
/// In configs and files a board is a name: `dark` and `all` for the two
/// 8x8 boards of the shipped games, `RxC` (every cell), `RxC-dark` (the
/// cells whose rank and file sum to an odd number, as the 8x8 `dark`
/// board: h1 is playable), `RxC-light` (the even ones: a1 is playable) or
/// `RxC-x<hex mask>`, with `:<slots>` after it where the slots are not
/// the default ([`BoardCells::default_slots`]).
///
/// ```
/// use damone::game::BoardCells;
/// let ten = BoardCells::light(10, 10);
/// assert_eq!((ten.count(), ten.policy_size()), (50, 2500));
/// assert_eq!(ten.name(), "10x10-light");
/// assert_eq!(BoardCells::parse("10x10-light").unwrap(), ten);
/// assert_eq!(BoardCells::DARK.policy_size(), 4096);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardCells {
    rows: u8,
    cols: u8,
    mask: u128,
    slots: u8,
}

impl Default for BoardCells {
    /// The 32 dark squares of the 8x8 board.
    fn default() -> BoardCells {
        BoardCells::DARK
    }
}

/// The mask of the cells of a `rows` x `cols` board whose rank and file
/// sum to `parity` modulo 2 (both parities: every cell).
const fn parity_mask(rows: u8, cols: u8, parity: Option<u8>) -> u128 {
    let mut m = 0u128;
    let mut rank = 0;
    while rank < rows {
        let mut file = 0;
        while file < cols {
            let on = match parity {
                Some(p) => (rank + file) % 2 == p,
                None => true,
            };
            if on {
                m |= 1 << (rank as u32 * cols as u32 + file as u32);
            }
            file += 1;
        }
        rank += 1;
    }
    m
}

impl BoardCells {
    /// The 32 dark squares of the 8x8 board (Damone, Italian draughts):
    /// 4 slots, 4,096 policy logits.
    pub const DARK: BoardCells = BoardCells::dark(8, 8);
    /// All 64 cells of the 8x8 board (Dameo): 1 slot, 4,096 logits.
    pub const ALL: BoardCells = BoardCells::all(8, 8);

    /// The cells of `mask` on a `rows` x `cols` board, with the default
    /// slots. Panics (at compile time for a game's constant) on a board of
    /// more than 128 cells, or a mask with no cell or with cells off it.
    pub const fn new(rows: u8, cols: u8, mask: u128) -> BoardCells {
        let area = rows as u32 * cols as u32;
        assert!(rows > 0 && cols > 0 && area <= 128, "a board has 1 to 128 cells");
        assert!(mask != 0, "a board has playing cells");
        assert!(
            area == 128 || mask >> area == 0,
            "the playing cells lie on the board"
        );
        let n = mask.count_ones() as usize;
        let slots = BoardCells::default_slots(n);
        BoardCells {
            rows,
            cols,
            mask,
            slots: slots as u8,
        }
    }

    /// The cells whose rank and file sum to an odd number (h1 playable,
    /// as on the 8x8 `dark` board).
    pub const fn dark(rows: u8, cols: u8) -> BoardCells {
        BoardCells::new(rows, cols, parity_mask(rows, cols, Some(1)))
    }

    /// The cells whose rank and file sum to an even number (a1 playable,
    /// as in international draughts).
    pub const fn light(rows: u8, cols: u8) -> BoardCells {
        BoardCells::new(rows, cols, parity_mask(rows, cols, Some(0)))
    }

    /// Every cell of a `rows` x `cols` board.
    pub const fn all(rows: u8, cols: u8) -> BoardCells {
        BoardCells::new(rows, cols, parity_mask(rows, cols, None))
    }

    /// The same cells with `slots` policy slots per start and end (1 to
    /// 16, at most 65,536 logits in all: indices are `u16`): more slots
    /// tell apart more captures that share start and end.
    pub const fn with_slots(self, slots: usize) -> BoardCells {
        assert!(slots >= 1 && slots <= 16, "1 to 16 slots");
        assert!(slots * self.pairs() <= 65536, "at most 65,536 policy logits");
        BoardCells {
            slots: slots as u8,
            ..self
        }
    }

    /// The slots of a board of `n` playing cells unless it says otherwise:
    /// as many as fit in 4,096 logits, at least 1 (4 on the 32 dark
    /// squares, 1 on 64 cells or more).
    pub const fn default_slots(n: usize) -> usize {
        let pairs = n * n;
        if pairs >= 4096 {
            1
        } else {
            let s = 4096 / pairs;
            if s > 16 {
                16
            } else {
                s
            }
        }
    }

    /// Rows (ranks).
    pub const fn rows(self) -> usize {
        self.rows as usize
    }
    /// Columns (files).
    pub const fn cols(self) -> usize {
        self.cols as usize
    }
    /// Cells of the board, playing or not: the size of one input plane.
    pub const fn area(self) -> usize {
        self.rows as usize * self.cols as usize
    }
    /// True for the 8x8 boards the fast inference path and the
    /// hand-written training step are written for.
    pub const fn is_8x8(self) -> bool {
        self.rows == 8 && self.cols == 8
    }
    /// The playing cells as a mask (bit `rank * cols + file`).
    pub const fn mask(self) -> u128 {
        self.mask
    }
    /// The playing cells, lowest first.
    pub fn cells(self) -> impl Iterator<Item = usize> {
        cells128(self.mask)
    }
    /// The number of playing cells, `n`.
    pub const fn count(self) -> usize {
        self.mask.count_ones() as usize
    }
    /// Start and end pairs, `n * n`: the size of one slot.
    pub const fn pairs(self) -> usize {
        self.count() * self.count()
    }
    /// The slots the policy index gives moves that share start and end.
    pub const fn slots(self) -> usize {
        self.slots as usize
    }
    /// The network's policy logits: `slots * n * n`.
    pub const fn policy_size(self) -> usize {
        self.slots() * self.pairs()
    }
    /// A playing cell's number (0..n): the playing cells below it.
    #[inline]
    pub fn number(self, cell: usize) -> usize {
        (self.mask & ((1u128 << cell) - 1)).count_ones() as usize
    }
    /// Cells turned by 180 degrees: cell `i` to `area - 1 - i` (the board
    /// seen from the other side).
    #[inline]
    pub fn turn(self, b: u128) -> u128 {
        b.reverse_bits() >> (128 - self.area())
    }
    /// Cells reflected in the long diagonal from the last file's first
    /// rank (h1-a8 on 8x8): (file, rank) to (cols - 1 - rank, rows - 1 -
    /// file); square boards only.
    pub fn reflect(self, b: u128) -> u128 {
        debug_assert_eq!(self.rows, self.cols, "only a square board reflects");
        let n = self.cols();
        cells128(b).fold(0, |acc, c| {
            let (rank, file) = (c / n, c % n);
            acc | 1 << ((n - 1 - rank) + n * (n - 1 - file))
        })
    }

    /// Cells mirrored left to right: (file, rank) to (cols - 1 - file,
    /// rank).
    pub fn mirror(self, b: u128) -> u128 {
        let n = self.cols();
        cells128(b).fold(0, |acc, c| acc | 1 << (c - c % n + (n - 1 - c % n)))
    }

    /// Cells under `symmetry` (unchanged under [`Symmetry::None`]).
    pub fn apply(self, symmetry: Symmetry, b: u128) -> u128 {
        match symmetry {
            Symmetry::None => b,
            Symmetry::Diagonal => self.reflect(b),
            Symmetry::Mirror => self.mirror(b),
        }
    }

    /// The name configs and files use (see the type's docs).
    pub fn name(self) -> String {
        if self == BoardCells::DARK {
            return "dark".into();
        }
        if self == BoardCells::ALL {
            return "all".into();
        }
        let (r, c) = (self.rows, self.cols);
        let cells = if self.mask == parity_mask(r, c, None) {
            String::new()
        } else if self.mask == parity_mask(r, c, Some(1)) {
            "-dark".into()
        } else if self.mask == parity_mask(r, c, Some(0)) {
            "-light".into()
        } else {
            format!("-x{:x}", self.mask)
        };
        let slots = if self.slots() == BoardCells::default_slots(self.count()) {
            String::new()
        } else {
            format!(":{}", self.slots)
        };
        format!("{r}x{c}{cells}{slots}")
    }

    /// The board a name gives; the error says what a name looks like.
    pub fn parse(text: &str) -> Result<BoardCells, String> {
        let bad = || {
            format!(
                "bad board '{}' (expected dark, all, or RxC with -dark, -light or -x<hex mask> and :<slots>, e.g. 10x10-light)",
                crate::util::clip(text, 40)
            )
        };
        let text = text.trim();
        match text {
            "dark" => return Ok(BoardCells::DARK),
            "all" => return Ok(BoardCells::ALL),
            _ => {}
        }
        let (shape, slots) = match text.split_once(':') {
            Some((shape, slots)) => (shape, Some(slots.parse::<usize>().map_err(|_| bad())?)),
            None => (text, None),
        };
        let (size, cells) = match shape.split_once('-') {
            Some((size, cells)) => (size, Some(cells)),
            None => (shape, None),
        };
        let (r, c) = size.split_once('x').ok_or_else(bad)?;
        let (r, c) = (
            r.parse::<u8>().map_err(|_| bad())?,
            c.parse::<u8>().map_err(|_| bad())?,
        );
        if r == 0 || c == 0 || r as u32 * c as u32 > 128 {
            return Err(format!("board '{text}': a board has 1 to 128 cells"));
        }
        let mask = match cells {
            None => parity_mask(r, c, None),
            Some("dark") => parity_mask(r, c, Some(1)),
            Some("light") => parity_mask(r, c, Some(0)),
            Some(hex) => {
                u128::from_str_radix(hex.strip_prefix('x').ok_or_else(bad)?, 16).map_err(|_| bad())?
            }
        };
        let area = r as u32 * c as u32;
        if mask == 0 || (area < 128 && mask >> area != 0) {
            return Err(format!(
                "board '{text}': its playing cells must be cells of the board, at least one"
            ));
        }
        let board = BoardCells::new(r, c, mask);
        match slots {
            Some(s) if !(1..=16).contains(&s) => Err(format!("board '{text}': 1 to 16 slots")),
            Some(s) if s * board.pairs() > 65536 => {
                Err(format!("board '{text}': at most 65,536 policy logits"))
            }
            Some(s) => Ok(board.with_slots(s)),
            None => Ok(board),
        }
    }
}

impl Serialize for BoardCells {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for BoardCells {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<BoardCells, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        BoardCells::parse(&name).map_err(serde::de::Error::custom)
    }
}

/// A symmetry of a game's rules on its board ([`Board::SYMMETRY`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// None: positions are used as they are.
    None,
    /// The reflection in the long diagonal from the last file's first
    /// rank ([`BoardCells::reflect`]; square boards).
    Diagonal,
    /// The left-right mirror ([`BoardCells::mirror`]).
    Mirror,
}

/// What the encoding needs of a game: its board ([`BoardCells`]: rows,
/// columns, playing cells, policy slots), its pieces by kind and its moves
/// as start, end and captured set, all as cells of its board (bit `rank *
/// cols + file` of a `u128`).
pub trait Board: GamePosition {
    /// The board: its shape and the cells pieces stand on.
    const CELLS: BoardCells;
    /// A side's pieces at the start: the material planes and the material
    /// target count pieces in these units.
    const PIECES_PER_SIDE: f32;
    /// The symmetry of the rules training augments with, if any: one that
    /// maps every legal move to a legal move and keeps every result
    /// (Damone: the long diagonal's reflection; Italian and Dameo men move
    /// forward only, which it turns sideways, so they have none). The
    /// default is none.
    const SYMMETRY: Symmetry = Symmetry::None;
    /// True when Black's view is the board turned by 180 degrees (the
    /// default: draughts, where each side's men start at its own edge);
    /// false where both sides see the board as it stands (a game with
    /// gravity). The network's inputs and policy index read the board in
    /// the side to move's view.
    const TURN_FOR_BLACK: bool = true;
    /// `c`'s pieces by kind, lowest first, at most three (Damone: Pedine,
    /// Damas, Damones; Italian and Dameo: men, kings and an empty board).
    fn kind_cells(&self, c: Color) -> [u128; 3];
    /// The same pieces with `c` to move (the threat planes ask what the
    /// opponent could take). The default, the position as it is, serves a
    /// game without captures, whose threat planes stay empty.
    fn with_side_to_move(&self, c: Color) -> Self {
        let _ = c;
        *self
    }
    /// A move's start cell, end cell and captured cells.
    fn move_cells(m: &Self::Move) -> (usize, usize, u128);
}

/// Each byte of a 32-square board spread onto its cells.
static SPREAD: [[u64; 256]; 4] = {
    let mut t = [[0u64; 256]; 4];
    let mut byte = 0;
    while byte < 4 {
        let mut v = 0;
        while v < 256 {
            let mut bit = 0;
            while bit < 8 {
                if v & (1 << bit) != 0 {
                    t[byte][v] |= 1 << DARK_CELLS[byte * 8 + bit];
                }
                bit += 1;
            }
            v += 1;
        }
        byte += 1;
    }
    t
};

/// A board of the 32 dark squares as cells of the 8x8 grid.
#[inline]
pub fn dark_to_cells(b: Bitboard) -> u128 {
    let [b0, b1, b2, b3] = b.to_le_bytes();
    (SPREAD[0][b0 as usize] | SPREAD[1][b1 as usize] | SPREAD[2][b2 as usize] | SPREAD[3][b3 as usize])
        as u128
}

/// The row-major cell on the 8x8 grid of each dark square (by index).
pub const DARK_CELLS: [usize; 32] = {
    let mut t = [0usize; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = cell(Square::new(i as u8));
        i += 1;
    }
    t
};

/// Row-major cell of a square on the 8x8 grid.
#[inline]
pub const fn cell(s: Square) -> usize {
    (s.rank() * 8 + s.file()) as usize
}
