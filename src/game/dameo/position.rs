//! The Dameo position: colour and king bitboards over all 64 cells (bit
//! `rank * 8 + file`, a1 = 0), side to move, the counter of reversible
//! plies and a Zobrist hash; move generation (steps and line moves of
//! men, queen moves of kings, orthogonal captures with deferred removal
//! and the majority rule); making moves.

use super::notation::{self, SetupError};
use crate::game::draughts::{read_setup, setup_text, zobrist_keys, JumpMove, MenKings, MenKingsGame};
use crate::game::interface::{GameId, GameKind, GamePosition};
use crate::game::notation::ParseMoveError;
use crate::game::types::Color;
use crate::game::types::DraughtsPiece as Piece;
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

/// A legal move (the kit's [`JumpMove`] on the 64 cells): two moves are
/// one when their start cell, end cell and captured set are (they lead to
/// the same position); the landing path is kept for notation. A line move
/// is its rear man's leap to the cell ahead of the line, which is the whole
/// line advancing one cell.
pub type Move = JumpMove<usize, Cells, MAX_JUMPS>;

/// Dameo's board for the kit's [`MenKings`]: the 64 cells, its Zobrist
/// keys and promotion rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dameo;

const ZOBRIST: ([u64; 256], u64) = zobrist_keys(0xDA3E_0F2E_E11A_2000);

impl MenKingsGame for Dameo {
    type Set = Cells;
    type Cell = usize;
    const PIECE_KEYS: &'static [u64] = &ZOBRIST.0;
    const SIDE_KEY: u64 = ZOBRIST.1;
    const PROMOTION: [Cells; 2] = PROMOTION_ROW;
}

/// A Dameo position: the kit's board of men and kings (its methods, `put`,
/// `piece_at`, `men`, `kings`..., through `Deref`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position(MenKings<Dameo>);

impl std::ops::Deref for Position {
    type Target = MenKings<Dameo>;
    fn deref(&self) -> &MenKings<Dameo> {
        &self.0
    }
}
impl std::ops::DerefMut for Position {
    fn deref_mut(&mut self) -> &mut MenKings<Dameo> {
        &mut self.0
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
        let m = Move::from_parts(self.from, at as u8, captured, self.path, depth as u8);
        if !self.out.contains(&m) {
            self.out.push(m);
        }
    }
}

impl Position {
    /// An empty board, White to move.
    pub fn empty() -> Position {
        Position(MenKings::empty())
    }

    /// True when the side to move has a step or a king move (a line move
    /// needs its front man's step free, so it adds none): a man with the
    /// next cell ahead empty, or a king with an empty neighbour.
    pub fn has_quiet_move(&self) -> bool {
        let empty = !self.occupied();
        let men = self.men(self.side());
        let kings = self.kings(self.side());
        FORWARD[self.side().index()]
            .iter()
            .any(|&d| shift(empty, (d + 4) % 8) & men != 0)
            || (0..8).any(|d| shift(kings, d) & empty != 0)
    }

    /// The number of steps, line moves and king moves the side to move
    /// has (its moves when it has no capture).
    pub fn quiet_move_count(&self) -> u32 {
        let men = self.men(self.side());
        let empty = !self.occupied();
        let mut n = 0;
        for d in FORWARD[self.side().index()] {
            let back = (d + 4) % 8;
            let mut movers = shift(empty, back) & men;
            while movers != 0 {
                n += movers.count_ones();
                movers = shift(movers, back) & men;
            }
        }
        for k in cells(self.kings(self.side())) {
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
        let men = self.men(self.side());
        let empty = !self.occupied();
        for d in FORWARD[self.side().index()] {
            let back = (d + 4) % 8;
            let mut movers = shift(empty, back) & men;
            let mut length = 1i32;
            while movers != 0 {
                for from in cells(movers) {
                    let to = from as i32 + length * DELTA[d] as i32;
                    out.push(Move::step(from, to as usize));
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
        let enemy = self.color_bb(self.side().opposite());
        let empty = !self.occupied();
        ORTHOGONAL.iter().fold(0, |found, &d| {
            let back = (d + 4) % 8;
            found | (shift(shift(empty, back) & enemy, back) & self.men(self.side()))
        })
    }

    /// The captures taking the most pieces into `out`: a search from each
    /// man with a first jump and from each king.
    fn gen_captures(&self, out: &mut Vec<Move>) {
        let me = self.side();
        let mut search = CaptureSearch {
            from: 0,
            king: false,
            occupied: 0,
            enemy: self.color_bb(me.opposite()),
            best: 0,
            path: [0; MAX_JUMPS],
            out,
        };
        for from in cells(self.capturing_men() | self.kings(me)) {
            search.from = from as u8;
            search.king = self.all_kings() & (1 << from) != 0;
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
        read_setup(text).map(Position)
    }
    fn to_setup(&self) -> String {
        setup_text(&self.0)
    }
    fn variant(&self) {}
    /// The side to move.
    #[inline]
    fn side_to_move(&self) -> Color {
        self.side()
    }
    /// The Zobrist hash of the pieces and the side to move.
    #[inline]
    fn hash_key(&self) -> u64 {
        self.0.hash()
    }
    /// Plies since the last man move or capture.
    #[inline]
    fn no_progress(&self) -> u16 {
        self.0.no_progress()
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
        for k in cells(self.kings(self.side())) {
            for d in 0..8 {
                for to in cells(slide(k, d, self.occupied()).0 & empty) {
                    out.push(Move::step(k, to));
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
        let me = self.side();
        let enemy = self.color_bb(me.opposite());
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
        self.0.play(m)
    }
    fn move_text(&self, m: &Move) -> String {
        notation::move_text(m)
    }
    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        notation::parse_move(self, text)
    }
    fn piece_balance(&self, c: Color) -> f32 {
        let mine = self.color_bb(c).count_ones() as f32;
        let theirs = self.color_bb(c.opposite()).count_ones() as f32;
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
