//! One board of men and kings: colour and king sets over a game's cells,
//! the side to move, the no-progress counter and the Zobrist hash, kept in
//! step by every change.

use super::cells::{Cell, CellSet};
use super::moves::JumpMove;
use super::Piece;
use crate::game::types::{splitmix, Color};
use std::fmt::Debug;
use std::marker::PhantomData;

/// What a game of men and kings declares for its [`MenKings`] board.
pub trait MenKingsGame: Copy + Eq + Debug + Send + Sync + 'static {
    /// The game's cell set.
    type Set: CellSet;
    /// The type it names a cell by.
    type Cell: Cell;
    /// Zobrist keys of a piece, at `(colour * 2 + king) * cells + cell`
    /// (four keys a cell: [`zobrist_keys`] draws them).
    const PIECE_KEYS: &'static [u64];
    /// The key of Black to move.
    const SIDE_KEY: u64;
    /// The cells White's and Black's men are promoted on.
    const PROMOTION: [Self::Set; 2];
}

/// `L` Zobrist keys drawn from `seed` by SplitMix64, and one more (the
/// side to move's): a game's `PIECE_KEYS` and `SIDE_KEY`, at compile time.
pub const fn zobrist_keys<const L: usize>(seed: u64) -> ([u64; L], u64) {
    let mut keys = [0u64; L];
    let mut state = seed;
    let mut i = 0;
    while i < L {
        let (next, v) = splitmix(state);
        state = next;
        keys[i] = v;
        i += 1;
    }
    (keys, splitmix(state).1)
}

/// A position of men and kings of game `G`: who stands where, who is to
/// move, the plies since the last capture or man's move, and the hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MenKings<G: MenKingsGame> {
    by_color: [G::Set; 2],
    kings: G::Set,
    side: Color,
    no_progress: u16,
    hash: u64,
    game: PhantomData<G>,
}

impl<G: MenKingsGame> std::hash::Hash for MenKings<G> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.hash.hash(h)
    }
}

#[inline(always)]
fn key<G: MenKingsGame>(c: Color, king: bool, cell: usize) -> u64 {
    G::PIECE_KEYS[(c.index() * 2 + king as usize) * (G::PIECE_KEYS.len() / 4) + cell]
}

impl<G: MenKingsGame> MenKings<G> {
    /// An empty board with White to move.
    pub fn empty() -> Self {
        MenKings {
            by_color: [G::Set::EMPTY; 2],
            kings: G::Set::EMPTY,
            side: Color::White,
            no_progress: 0,
            hash: 0,
            game: PhantomData,
        }
    }

    /// Place a piece (replacing whatever stood there).
    pub fn put(&mut self, cell: G::Cell, p: Piece) {
        self.remove(cell);
        let i = cell.index();
        self.by_color[p.color.index()] |= G::Set::single(i);
        if p.king {
            self.kings |= G::Set::single(i);
        }
        self.hash ^= key::<G>(p.color, p.king, i);
    }

    /// Remove the piece on a cell, if any.
    pub fn remove(&mut self, cell: G::Cell) {
        if let Some(p) = self.piece_at(cell) {
            let bit = G::Set::single(cell.index());
            self.by_color[p.color.index()] &= !bit;
            self.kings &= !bit;
            self.hash ^= key::<G>(p.color, p.king, cell.index());
        }
    }

    /// The piece on a cell.
    #[inline]
    pub fn piece_at(&self, cell: G::Cell) -> Option<Piece> {
        let i = cell.index();
        let color = if self.by_color[0].has(i) {
            Color::White
        } else if self.by_color[1].has(i) {
            Color::Black
        } else {
            return None;
        };
        Some(Piece {
            color,
            king: self.kings.has(i),
        })
    }

    /// Set the side to move.
    pub fn set_side(&mut self, c: Color) {
        if c != self.side {
            self.side = c;
            self.hash ^= G::SIDE_KEY;
        }
    }
    /// The side to move.
    #[inline(always)]
    pub fn side(&self) -> Color {
        self.side
    }
    /// Set the plies since the last capture or man's move.
    pub fn set_no_progress(&mut self, plies: u16) {
        self.no_progress = plies;
    }
    /// The plies since the last capture or man's move.
    #[inline(always)]
    pub fn no_progress(&self) -> u16 {
        self.no_progress
    }
    /// The Zobrist hash of the pieces and the side to move.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Cells holding pieces of a colour.
    #[inline(always)]
    pub fn color_bb(&self, c: Color) -> G::Set {
        self.by_color[c.index()]
    }
    /// Cells holding kings of a colour.
    #[inline(always)]
    pub fn kings(&self, c: Color) -> G::Set {
        self.by_color[c.index()] & self.kings
    }
    /// Cells holding men of a colour.
    #[inline(always)]
    pub fn men(&self, c: Color) -> G::Set {
        self.by_color[c.index()] & !self.kings
    }
    /// Cells holding kings of either colour.
    #[inline(always)]
    pub fn all_kings(&self) -> G::Set {
        self.kings
    }
    /// All occupied cells.
    #[inline(always)]
    pub fn occupied(&self) -> G::Set {
        self.by_color[0] | self.by_color[1]
    }

    /// The hash computed from scratch (equals [`MenKings::hash`]; for tests).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Color::Black { G::SIDE_KEY } else { 0 };
        for c in [Color::White, Color::Black] {
            for cell in self.by_color[c.index()].iter() {
                h ^= key::<G>(c, self.kings.has(cell), cell);
            }
        }
        h
    }

    /// Play a move assumed legal: the piece goes from its start to its end
    /// (where it may start and end alike), the captured pieces leave, a man
    /// ending on its promotion row becomes a king, and the other side is
    /// to move. Returns true when it was irreversible (a capture or a
    /// man's move), which sets the no-progress counter back to 0.
    #[inline]
    pub fn play<const N: usize>(&mut self, m: &JumpMove<G::Cell, G::Set, N>) -> bool {
        let (me, them) = (self.side, self.side.opposite());
        let (from, to) = (m.from().index(), m.to().index());
        let (fb, tb) = (G::Set::single(from), G::Set::single(to));
        let king = self.kings.has(from);
        self.by_color[me.index()] &= !fb;
        self.kings &= !fb;
        self.hash ^= key::<G>(me, king, from);
        let captured = m.captured();
        for cell in captured.iter() {
            self.hash ^= key::<G>(them, self.kings.has(cell), cell);
        }
        self.by_color[them.index()] &= !captured;
        self.kings &= !captured;
        let crowned = king || !(G::PROMOTION[me.index()] & tb).is_empty();
        self.by_color[me.index()] |= tb;
        if crowned {
            self.kings |= tb;
        }
        self.hash ^= key::<G>(me, crowned, to) ^ G::SIDE_KEY;
        self.side = them;
        let irreversible = !king || !captured.is_empty();
        self.no_progress = if irreversible {
            0
        } else {
            self.no_progress.saturating_add(1)
        };
        irreversible
    }
}
