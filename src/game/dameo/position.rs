//! The Dameo position: colour and king bitboards over all 64 cells (bit
//! `rank * 8 + file`, a1 = 0), side to move, the counter of reversible
//! plies and a Zobrist hash; move generation (steps and line moves of
//! men, queen moves of kings, orthogonal captures with deferred removal
//! and the majority rule); making moves.

use super::notation::{self, SetupError};
use crate::game::interface::{GameId, GameKind, GamePosition};
use crate::game::notation::ParseMoveError;
use crate::game::types::DraughtsPiece as Piece;
use crate::game::types::{splitmix, Color};
use std::fmt;

/// A set of cells, bit `rank * 8 + file`.
pub type Cells = u64;

/// Most jumps one capture can make: each jump takes one of the opponent's
/// at most 18 pieces.
pub const MAX_JUMPS: usize = 18;

const FILE_A: Cells = 0x0101_0101_0101_0101;
const FILE_H: Cells = FILE_A << 7;
/// The last row for each side's men: White promotes on rank 8, Black on rank 1.
const PROMOTION_ROW: [Cells; 2] = [0xFF << 56, 0xFF];

/// The eight directions, in the order N, NE, E, SE, S, SW, W, NW; the
/// opposite of direction `d` is `(d + 4) % 8`.
const DELTA: [i8; 8] = [8, 9, 1, -7, -8, -9, -1, 7];
const FILE_STEP: [i8; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
/// The orthogonal directions, the only ones captures take.
const ORTHOGONAL: [usize; 4] = [0, 2, 4, 6];
/// A man's forward directions: straight and the two diagonals.
const FORWARD: [[usize; 3]; 2] = [[0, 1, 7], [4, 3, 5]];

/// The cell one step from `cell` in direction `d`, or 64 off the board.
static NEIGHBOR: [[u8; 64]; 8] = build_neighbors();
/// Every cell beyond `cell` in direction `d`, to the edge.
static RAY: [[Cells; 64]; 8] = build_rays();

const fn step(cell: usize, d: usize) -> Option<usize> {
    let file = (cell % 8) as i8 + FILE_STEP[d];
    let to = cell as i8 + DELTA[d];
    if file < 0 || file > 7 || to < 0 || to > 63 {
        None
    } else {
        Some(to as usize)
    }
}

const fn build_neighbors() -> [[u8; 64]; 8] {
    let mut t = [[64u8; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut c = 0;
        while c < 64 {
            if let Some(n) = step(c, d) {
                t[d][c] = n as u8;
            }
            c += 1;
        }
        d += 1;
    }
    t
}

const fn build_rays() -> [[Cells; 64]; 8] {
    let mut t = [[0; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut c = 0;
        while c < 64 {
            let mut at = c;
            while let Some(n) = step(at, d) {
                t[d][c] |= 1 << n;
                at = n;
            }
            c += 1;
        }
        d += 1;
    }
    t
}

/// Every piece of `b` moved one step in direction `d` (off-board ones dropped).
#[inline(always)]
const fn shift(b: Cells, d: usize) -> Cells {
    match d {
        0 => b << 8,
        1 => (b << 9) & !FILE_A,
        2 => (b << 1) & !FILE_A,
        3 => (b >> 7) & !FILE_A,
        4 => b >> 8,
        5 => (b >> 9) & !FILE_H,
        6 => (b >> 1) & !FILE_H,
        _ => (b << 7) & !FILE_H,
    }
}

/// The cells a queen on `cell` reaches in direction `d` before the first
/// occupied cell, and that cell (64 when the ray is clear).
#[inline(always)]
fn slide(cell: usize, d: usize, occupied: Cells) -> (Cells, usize) {
    let ray = RAY[d][cell];
    let blockers = ray & occupied;
    if blockers == 0 {
        return (ray, 64);
    }
    let first = if DELTA[d] > 0 {
        blockers.trailing_zeros() as usize
    } else {
        63 - blockers.leading_zeros() as usize
    };
    (ray & !RAY[d][first] & !(1 << first), first)
}

pub use crate::game::grid::cells;

/// A legal move. Two moves are equal when their start cell, end cell and
/// captured set are equal (they lead to the same position); the landing
/// path is kept for notation. A line move is its rear man's leap to the
/// cell ahead of the line, which is the whole line advancing one cell.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    from: u8,
    to: u8,
    njumps: u8,
    captured: Cells,
    path: [u8; MAX_JUMPS],
}

crate::game::move_identity!(Move);

impl Move {
    fn quiet(from: usize, to: usize) -> Move {
        Move {
            from: from as u8,
            to: to as u8,
            njumps: 0,
            captured: 0,
            path: [0; MAX_JUMPS],
        }
    }
    /// Start cell (0..64, `rank * 8 + file`).
    #[inline]
    pub fn from(&self) -> usize {
        self.from as usize
    }
    /// End cell.
    #[inline]
    pub fn to(&self) -> usize {
        self.to as usize
    }
    /// Cells of the captured pieces.
    #[inline]
    pub fn captured(&self) -> Cells {
        self.captured
    }
    /// True for a capture.
    #[inline]
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }
    /// Landing cells of a capture, in order (empty for a step or line move).
    pub fn landings(&self) -> impl Iterator<Item = usize> + '_ {
        self.path[..self.njumps as usize].iter().map(|&c| c as usize)
    }
}

const fn build_zobrist() -> ([[[u64; 64]; 2]; 2], u64) {
    let mut keys = [[[0u64; 64]; 2]; 2];
    let mut state = 0xDA3E_0F2E_E11A_2000u64;
    let mut i = 0;
    while i < 256 {
        let (next, v) = splitmix(state);
        state = next;
        keys[i / 128][(i / 64) % 2][i % 64] = v;
        i += 1;
    }
    (keys, splitmix(state).1)
}

const ZOBRIST_ALL: ([[[u64; 64]; 2]; 2], u64) = build_zobrist();
/// `ZOBRIST[colour][is_king][cell]`.
static ZOBRIST: [[[u64; 64]; 2]; 2] = ZOBRIST_ALL.0;
const ZOBRIST_SIDE: u64 = ZOBRIST_ALL.1;

#[inline(always)]
fn zkey(c: Color, king: bool, cell: usize) -> u64 {
    ZOBRIST[c.index()][king as usize][cell]
}

/// A Dameo position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    by_color: [Cells; 2],
    kings: Cells,
    side: Color,
    reversible: u16,
    hash: u64,
}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.hash.hash(h)
    }
}

/// The depth-first search of one piece's captures: every maximal sequence
/// of jumps, the captured pieces staying on the board (as obstacles that
/// cannot be jumped again) until the move ends. Keeps the longest found
/// so far over all pieces (the majority rule).
struct CaptureSearch<'a> {
    from: u8,
    king: bool,
    /// Occupied cells with the moving piece's start left empty.
    occupied: Cells,
    enemy: Cells,
    best: usize,
    path: [u8; MAX_JUMPS],
    out: &'a mut Vec<Move>,
}

impl CaptureSearch<'_> {
    fn extend(&mut self, at: usize, captured: Cells, depth: usize) {
        let mut extended = false;
        for d in ORTHOGONAL {
            let (target, landings) = if self.king {
                let (_, first) = slide(at, d, self.occupied);
                if first == 64 {
                    continue;
                }
                (first, slide(first, d, self.occupied).0)
            } else {
                let target = NEIGHBOR[d][at] as usize;
                if target == 64 {
                    continue;
                }
                let land = NEIGHBOR[d][target] as usize;
                (
                    target,
                    if land == 64 {
                        0
                    } else {
                        (1 << land) & !self.occupied
                    },
                )
            };
            let bit = 1 << target;
            if self.enemy & bit == 0 || captured & bit != 0 {
                continue;
            }
            for land in cells(landings) {
                self.path[depth] = land as u8;
                self.extend(land, captured | bit, depth + 1);
                extended = true;
            }
        }
        if !extended {
            self.finish(at, captured, depth);
        }
    }

    fn finish(&mut self, at: usize, captured: Cells, depth: usize) {
        if depth == 0 || depth < self.best {
            return;
        }
        if depth > self.best {
            self.best = depth;
            self.out.clear();
        }
        let m = Move {
            from: self.from,
            to: at as u8,
            njumps: depth as u8,
            captured,
            path: self.path,
        };
        if !self.out.contains(&m) {
            self.out.push(m);
        }
    }
}

impl Position {
    /// An empty board, White to move.
    pub fn empty() -> Position {
        Position {
            by_color: [0; 2],
            kings: 0,
            side: Color::White,
            reversible: 0,
            hash: 0,
        }
    }

    /// Put a piece on an empty cell (0..64).
    pub fn put(&mut self, cell: usize, p: Piece) {
        debug_assert!(self.piece_at(cell).is_none());
        self.by_color[p.color.index()] |= 1 << cell;
        if p.king {
            self.kings |= 1 << cell;
        }
        self.hash ^= zkey(p.color, p.king, cell);
    }

    /// Set the side to move.
    pub fn set_side(&mut self, c: Color) {
        if self.side != c {
            self.hash ^= ZOBRIST_SIDE;
            self.side = c;
        }
    }

    /// Set the counter of reversible plies.
    pub fn set_reversible_plies(&mut self, n: u16) {
        self.reversible = n;
    }

    /// The piece on a cell, if any.
    pub fn piece_at(&self, cell: usize) -> Option<Piece> {
        let bit = 1u64 << cell;
        let color = if self.by_color[0] & bit != 0 {
            Color::White
        } else if self.by_color[1] & bit != 0 {
            Color::Black
        } else {
            return None;
        };
        Some(Piece {
            color,
            king: self.kings & bit != 0,
        })
    }

    /// `c`'s pieces.
    #[inline]
    pub fn color_cells(&self, c: Color) -> Cells {
        self.by_color[c.index()]
    }
    /// `c`'s kings.
    #[inline]
    pub fn kings(&self, c: Color) -> Cells {
        self.by_color[c.index()] & self.kings
    }
    /// `c`'s men.
    #[inline]
    pub fn men(&self, c: Color) -> Cells {
        self.by_color[c.index()] & !self.kings
    }
    /// Every occupied cell.
    #[inline]
    pub fn occupied(&self) -> Cells {
        self.by_color[0] | self.by_color[1]
    }

    /// The hash computed from scratch (equals `hash()`; for tests).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Color::Black {
            ZOBRIST_SIDE
        } else {
            0
        };
        for c in [Color::White, Color::Black] {
            for cell in cells(self.color_cells(c)) {
                h ^= zkey(c, self.kings & (1 << cell) != 0, cell);
            }
        }
        h
    }

    /// True when the side to move has a step or a king move (a line move
    /// needs its front man's step free, so it adds none): a man with the
    /// next cell ahead empty, or a king with an empty neighbour.
    pub fn has_quiet_move(&self) -> bool {
        let empty = !self.occupied();
        let men = self.men(self.side);
        let kings = self.kings(self.side);
        FORWARD[self.side.index()]
            .iter()
            .any(|&d| shift(empty, (d + 4) % 8) & men != 0)
            || (0..8).any(|d| shift(kings, d) & empty != 0)
    }

    /// The number of steps, line moves and king moves the side to move
    /// has (its moves when it has no capture).
    pub fn quiet_move_count(&self) -> u32 {
        let men = self.men(self.side);
        let empty = !self.occupied();
        let mut n = 0;
        for d in FORWARD[self.side.index()] {
            let back = (d + 4) % 8;
            let mut movers = shift(empty, back) & men;
            while movers != 0 {
                n += movers.count_ones();
                movers = shift(movers, back) & men;
            }
        }
        for k in cells(self.kings(self.side)) {
            n += (0..8)
                .map(|d| (slide(k, d, self.occupied()).0 & empty).count_ones())
                .sum::<u32>();
        }
        n
    }

    /// Steps and line moves: in each forward direction, a man whose next
    /// cell is empty steps there, and a man behind an unbroken line of
    /// its side's men leaps to the empty cell ahead of the line.
    fn gen_men_moves(&self, out: &mut Vec<Move>) {
        let men = self.men(self.side);
        let empty = !self.occupied();
        for d in FORWARD[self.side.index()] {
            let back = (d + 4) % 8;
            let mut movers = shift(empty, back) & men;
            let mut length = 1i32;
            while movers != 0 {
                for from in cells(movers) {
                    let to = from as i32 + length * DELTA[d] as i32;
                    out.push(Move::quiet(from, to as usize));
                }
                movers = shift(movers, back) & men;
                length += 1;
            }
        }
    }

    /// The men of the side to move with a first jump (an orthogonal
    /// neighbour of the enemy's and the cell beyond it empty); its kings
    /// are not included.
    fn capturing_men(&self) -> Cells {
        let enemy = self.color_cells(self.side.opposite());
        let empty = !self.occupied();
        ORTHOGONAL.iter().fold(0, |found, &d| {
            let back = (d + 4) % 8;
            found | (shift(shift(empty, back) & enemy, back) & self.men(self.side))
        })
    }

    /// The captures taking the most pieces into `out`: a search from each
    /// man with a first jump and from each king.
    fn gen_captures(&self, out: &mut Vec<Move>) {
        let me = self.side;
        let mut search = CaptureSearch {
            from: 0,
            king: false,
            occupied: 0,
            enemy: self.color_cells(me.opposite()),
            best: 0,
            path: [0; MAX_JUMPS],
            out,
        };
        for from in cells(self.capturing_men() | self.kings(me)) {
            search.from = from as u8;
            search.king = self.kings & (1 << from) != 0;
            search.occupied = self.occupied() & !(1 << from);
            search.extend(from, 0, 0);
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_setup())
    }
}

/// The byte files write for Dameo positions (Damone 0-2, Italian 3).
const VARIANT_CODE: u8 = 4;

impl GamePosition for Position {
    type Move = Move;
    type Variant = ();
    type SetupError = SetupError;

    const ID: GameId = GameKind::Dameo.id();
    const REPETITION_DRAW: usize = 3;

    fn variant_code(_: ()) -> u8 {
        VARIANT_CODE
    }
    fn variant_of_code(code: u8) -> Option<()> {
        (code == VARIANT_CODE).then_some(())
    }
    fn variant_name(_: ()) -> &'static str {
        "standard"
    }
    fn variant_named(name: &str) -> Result<(), String> {
        match name.trim() {
            "standard" => Ok(()),
            other => Err(format!(
                "unknown variant '{other}' for dameo (it has one: standard)"
            )),
        }
    }
    /// The start position: each side's eighteen men on its first three
    /// rows, eight, six and four (a1-h1, b2-g2, c3-f3 for White), White to
    /// move.
    fn start(_: ()) -> Position {
        let white: Cells = 0xFF | (0x7E << 8) | (0x3C << 16);
        let black = white.swap_bytes();
        let mut p = Position::empty();
        for (c, set) in [(Color::White, white), (Color::Black, black)] {
            for cell in cells(set) {
                p.put(
                    cell,
                    Piece {
                        color: c,
                        king: false,
                    },
                );
            }
        }
        p
    }
    fn from_setup(text: &str, _: ()) -> Result<Self, SetupError> {
        notation::read_setup(text)
    }
    fn to_setup(&self) -> String {
        notation::setup_text(self)
    }
    fn variant(&self) {}
    /// The side to move.
    #[inline]
    fn side_to_move(&self) -> Color {
        self.side
    }
    /// The Zobrist hash of the pieces and the side to move.
    #[inline]
    fn hash_key(&self) -> u64 {
        self.hash
    }
    /// Plies since the last man move or capture.
    #[inline]
    fn no_progress(&self) -> u16 {
        self.reversible
    }
    /// Every legal move into `out` (cleared first): the captures taking
    /// the most pieces when there is a capture, otherwise every step,
    /// line move and king move.
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.has_capture() {
            self.gen_captures(out);
            return;
        }
        self.gen_men_moves(out);
        let empty = !self.occupied();
        for k in cells(self.kings(self.side)) {
            for d in 0..8 {
                for to in cells(slide(k, d, self.occupied()).0 & empty) {
                    out.push(Move::quiet(k, to));
                }
            }
        }
    }
    /// The number of legal moves, counted without generating the steps,
    /// line moves and king moves.
    fn count_moves(&self, scratch: &mut Vec<Move>) -> u64 {
        if self.has_capture() {
            scratch.clear();
            self.gen_captures(scratch);
            return scratch.len() as u64;
        }
        self.quiet_move_count() as u64
    }
    #[inline]
    fn has_moves(&self, _scratch: &mut Vec<Move>) -> bool {
        Position::has_capture(self) || Position::has_quiet_move(self)
    }
    /// True when the side to move has a capture (and so must capture).
    fn has_capture(&self) -> bool {
        let me = self.side;
        let enemy = self.color_cells(me.opposite());
        let empty = !self.occupied();
        if self.capturing_men() != 0 {
            return true;
        }
        cells(self.kings(me)).any(|k| {
            ORTHOGONAL.iter().any(|&d| {
                let (_, first) = slide(k, d, self.occupied());
                first != 64 && enemy & (1 << first) != 0 && {
                    let beyond = NEIGHBOR[d][first] as usize;
                    beyond != 64 && empty & (1 << beyond) != 0
                }
            })
        })
    }
    /// Play a legal move; true when it was irreversible (a man moved or
    /// something was captured).
    fn play_unchecked(&mut self, m: &Move) -> bool {
        let me = self.side;
        let them = me.opposite();
        let (from, to) = (m.from(), m.to());
        let king = self.kings & (1 << from) != 0;
        self.by_color[me.index()] &= !(1 << from);
        self.kings &= !(1 << from);
        self.hash ^= zkey(me, king, from);
        for cell in cells(m.captured) {
            self.hash ^= zkey(them, self.kings & (1 << cell) != 0, cell);
        }
        self.by_color[them.index()] &= !m.captured;
        self.kings &= !m.captured;
        let promoted = king || PROMOTION_ROW[me.index()] & (1 << to) != 0;
        self.by_color[me.index()] |= 1 << to;
        if promoted {
            self.kings |= 1 << to;
        }
        self.hash ^= zkey(me, promoted, to) ^ ZOBRIST_SIDE;
        self.side = them;
        let irreversible = !king || m.is_capture();
        self.reversible = if irreversible {
            0
        } else {
            self.reversible.saturating_add(1)
        };
        irreversible
    }
    fn move_text(&self, m: &Move) -> String {
        notation::move_text(m)
    }
    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        notation::parse_move(self, text)
    }
    fn piece_balance(&self, c: Color) -> f32 {
        let mine = self.color_cells(c).count_ones() as f32;
        let theirs = self.color_cells(c.opposite()).count_ones() as f32;
        (mine - theirs) / 18.0
    }
    /// `c`'s material: a man is 100, a king 350.
    fn material(&self, c: Color) -> i32 {
        100 * self.men(c).count_ones() as i32 + 350 * self.kings(c).count_ones() as i32
    }
    /// The start and two positions of random playouts, a middle game and
    /// an ending, each with kings, counted shallower (Dameo's opening is
    /// far wider; its middle games are narrowed by compulsory captures).
    const BENCH_SETUPS: &'static [(&'static str, i32)] = &[
        ("W:Wa1-h1,b2-g2,c3-f3:Bc6-f6,b7-g7,a8-h8", -4),
        ("W:Wa1,c1,f1,g1,h1,c2,e2,f3,c4,f4,f5,g5,Kh6:Ba4,b7,f7,h8", -2),
        ("B:Wa2:Ba4,f5,c6,e6,c7,f7,h7,e8,f8,Kd2", -1),
    ];
    const PIECE_KINDS: &'static [&'static str] = &["man", "king"];
    const PIECE_LETTERS: &'static [char] = &['M', 'K'];
    const MOVE_EXAMPLES: &'static str = "c3-c4, c1-c4, d4xd6xf6";
    fn playable(file: i32, rank: i32) -> bool {
        (0..8).contains(&file) && (0..8).contains(&rank)
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        let coords = |c: usize| ((c % 8) as i32, (c / 8) as i32);
        let mut path: Vec<(i32, i32)> = std::iter::once(m.from())
            .chain(m.landings())
            .map(coords)
            .collect();
        if path.len() == 1 {
            path.push(coords(m.to()));
        }
        path
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        if !Self::playable(file, rank) {
            return None;
        }
        let p = self.piece_at((rank * 8 + file) as usize)?;
        Some((p.color, p.king as usize))
    }
}
