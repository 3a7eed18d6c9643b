//! The Italian position: colour and king bitboards over the 32 dark
//! squares, side to move, the counter of reversible plies and a Zobrist
//! hash; move generation with compulsory capture and the federation's four
//! precedence criteria; making moves.

use super::notation::{self, square_number, SetupError};
use crate::game::interface::{GameId, GameKind, GamePosition};
use crate::game::notation::ParseMoveError;
use crate::game::types::{
    click_path, shift, splitmix, squares, Bitboard, Color, Dir, Square, NEIGHBOR, NONE,
};
use std::fmt;

/// Most jumps one capture can make: each jump takes one of the opponent's
/// at most 12 pieces.
pub const MAX_JUMPS: usize = 12;

/// The last row for each side's men: White promotes on rank 8, Black on rank 1.
const PROMOTION_ROW: [Bitboard; 2] = [0xF000_0000, 0x0000_000F];

/// A legal move. Two moves are equal when their start square, end square
/// and captured set are equal (they lead to the same position); the
/// landing path is kept for notation.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    from: u8,
    to: u8,
    njumps: u8,
    captured: Bitboard,
    path: [u8; MAX_JUMPS],
}

crate::game::move_identity!(Move);

impl Move {
    /// Start square.
    #[inline]
    pub fn from(&self) -> Square {
        Square::new(self.from)
    }
    /// End square.
    #[inline]
    pub fn to(&self) -> Square {
        Square::new(self.to)
    }
    /// Squares of the captured pieces.
    #[inline]
    pub fn captured(&self) -> Bitboard {
        self.captured
    }
    /// True for a capture.
    #[inline]
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }
    /// Landing squares of a capture, in order (empty for a step).
    pub fn landings(&self) -> impl Iterator<Item = Square> + '_ {
        self.path[..self.njumps as usize].iter().map(|&s| Square::new(s))
    }
}

const fn build_zobrist() -> ([[[u64; 32]; 2]; 2], u64) {
    let mut keys = [[[0u64; 32]; 2]; 2];
    let mut state = 0x17A1_1A40_D7A6_0001u64;
    let mut i = 0;
    while i < 128 {
        let (next, v) = splitmix(state);
        state = next;
        keys[i / 64][(i / 32) % 2][i % 32] = v;
        i += 1;
    }
    (keys, splitmix(state).1)
}

const ZOBRIST_ALL: ([[[u64; 32]; 2]; 2], u64) = build_zobrist();
/// `ZOBRIST[colour][is_king][square]`.
static ZOBRIST: [[[u64; 32]; 2]; 2] = ZOBRIST_ALL.0;
const ZOBRIST_SIDE: u64 = ZOBRIST_ALL.1;

#[inline(always)]
fn zkey(c: Color, king: bool, s: usize) -> u64 {
    ZOBRIST[c.index()][king as usize][s]
}

/// Directions a man of `c` moves and captures in (forward only), as a mask
/// over `Dir as u8`.
#[inline(always)]
const fn man_dirs(c: Color) -> u8 {
    match c {
        Color::White => (1 << Dir::NE as u8) | (1 << Dir::NW as u8),
        Color::Black => (1 << Dir::SE as u8) | (1 << Dir::SW as u8),
    }
}

/// A piece of Italian draughts: a man or a king of a colour.
pub use crate::game::types::DraughtsPiece as Piece;

/// An Italian draughts position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    by_color: [Bitboard; 2],
    kings: Bitboard,
    side: Color,
    reversible: u16,
    hash: u64,
}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.hash.hash(h)
    }
}

/// Precedence key of a capture: larger is better. Compares, in order, the
/// pieces taken, whether a king takes, the kings taken, and how early the
/// kings are taken (`order` has bit `15 - i` set when jump `i` takes a king).
#[inline(always)]
fn capture_key(count: u32, with_king: bool, kings_taken: u32, order: u32) -> u32 {
    (count << 24) | ((with_king as u32) << 20) | (kings_taken << 16) | order
}

struct CaptureSearch<'a> {
    from: u8,
    dirs: u8,
    with_king: bool,
    empty: Bitboard,
    victims: Bitboard,
    enemy_kings: Bitboard,
    best: u32,
    path: [u8; MAX_JUMPS],
    /// Keep one move per capture path (false: one per captured set and end).
    every_path: bool,
    out: &'a mut Vec<Move>,
}

impl CaptureSearch<'_> {
    fn extend(&mut self, sq: usize, captured: Bitboard, order: u32, depth: usize) {
        let mut extended = false;
        for (d, nb) in NEIGHBOR.iter().enumerate() {
            if self.dirs & (1 << d) == 0 {
                continue;
            }
            let mid = nb[sq];
            if mid == NONE || self.victims & !captured & (1u32 << mid) == 0 {
                continue;
            }
            let land = nb[mid as usize];
            if land == NONE || self.empty & (1u32 << land) == 0 {
                continue;
            }
            extended = true;
            self.path[depth] = land;
            let king_bit = if self.enemy_kings & (1u32 << mid) != 0 {
                1 << (15 - depth)
            } else {
                0
            };
            self.extend(
                land as usize,
                captured | (1u32 << mid),
                order | king_bit,
                depth + 1,
            );
        }
        if !extended && depth > 0 {
            self.finish(sq, captured, order, depth);
        }
    }

    fn finish(&mut self, sq: usize, captured: Bitboard, order: u32, depth: usize) {
        let key = capture_key(
            depth as u32,
            self.with_king,
            (captured & self.enemy_kings).count_ones(),
            order,
        );
        if key < self.best {
            return;
        }
        if key > self.best {
            self.best = key;
            self.out.clear();
        }
        let m = Move {
            from: self.from,
            to: sq as u8,
            njumps: depth as u8,
            captured,
            path: self.path,
        };
        if self.every_path || !self.out.contains(&m) {
            self.out.push(m);
        }
    }
}

impl Position {
    /// An empty board with White to move.
    pub fn empty() -> Position {
        Position {
            by_color: [0; 2],
            kings: 0,
            side: Color::White,
            reversible: 0,
            hash: 0,
        }
    }

    /// Place a piece (replacing whatever stood there); keeps the hash in step.
    pub fn put(&mut self, s: Square, p: Piece) {
        self.remove(s);
        self.by_color[p.color.index()] |= s.bb();
        if p.king {
            self.kings |= s.bb();
        }
        self.hash ^= zkey(p.color, p.king, s.index());
    }

    /// Remove the piece on a square, if any; keeps the hash in step.
    pub fn remove(&mut self, s: Square) {
        if let Some(p) = self.piece_at(s) {
            self.by_color[p.color.index()] &= !s.bb();
            self.kings &= !s.bb();
            self.hash ^= zkey(p.color, p.king, s.index());
        }
    }

    /// Set the side to move.
    pub fn set_side(&mut self, c: Color) {
        if c != self.side {
            self.side = c;
            self.hash ^= ZOBRIST_SIDE;
        }
    }

    /// Set the counter of reversible plies (king moves without a capture).
    pub fn set_reversible_plies(&mut self, n: u16) {
        self.reversible = n;
    }

    /// The piece on a square.
    #[inline]
    pub fn piece_at(&self, s: Square) -> Option<Piece> {
        let b = s.bb();
        let color = if self.by_color[0] & b != 0 {
            Color::White
        } else if self.by_color[1] & b != 0 {
            Color::Black
        } else {
            return None;
        };
        Some(Piece {
            color,
            king: self.kings & b != 0,
        })
    }

    /// Squares holding pieces of a colour.
    #[inline]
    pub fn color_bb(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }
    /// Squares holding kings of a colour.
    #[inline]
    pub fn kings(&self, c: Color) -> Bitboard {
        self.by_color[c.index()] & self.kings
    }
    /// Squares holding men of a colour.
    #[inline]
    pub fn men(&self, c: Color) -> Bitboard {
        self.by_color[c.index()] & !self.kings
    }
    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The Zobrist hash computed from scratch (tests compare it with [`GamePosition::hash_key`]).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for s in Square::all() {
            if let Some(p) = self.piece_at(s) {
                h ^= zkey(p.color, p.king, s.index());
            }
        }
        if self.side == Color::Black {
            h ^= ZOBRIST_SIDE;
        }
        h
    }

    /// Pieces of the side to move that may step in direction `d`.
    #[inline(always)]
    fn steppers(&self, d: Dir) -> Bitboard {
        let mine = self.by_color[self.side.index()];
        if man_dirs(self.side) & (1 << d as u8) != 0 {
            mine
        } else {
            mine & self.kings
        }
    }

    /// The legal moves with one capture per path: a king that can take the
    /// same pieces along two paths to the same square gets both (the
    /// published perft counts count them so; a player chooses among the
    /// moves of [`GamePosition::legal_moves_into`], where they are one move).
    pub fn capture_paths_into(&self, out: &mut Vec<Move>) {
        if self.has_capture() {
            out.clear();
            self.gen_captures(out, true);
        } else {
            self.legal_moves_into(out);
        }
    }

    /// The steps (non-captures) the side to move has on the board, legal or
    /// not (a capture, when there is one, is compulsory instead).
    pub fn step_count(&self) -> u32 {
        let empty = !self.occupied();
        Dir::ALL
            .iter()
            .map(|&d| (shift(self.steppers(d), d) & empty).count_ones())
            .sum()
    }

    /// The captures of the best precedence key: kings first, so that the
    /// men's shorter captures are cut off early when a king takes as many.
    fn gen_captures(&self, out: &mut Vec<Move>, every_path: bool) {
        let me = self.side;
        let enemy = self.by_color[me.opposite().index()];
        let mut best = 0;
        for with_king in [true, false] {
            let movers = if with_king { self.kings(me) } else { self.men(me) };
            for s in squares(movers) {
                let mut search = CaptureSearch {
                    from: s.index() as u8,
                    dirs: if with_king { 0b1111 } else { man_dirs(me) },
                    with_king,
                    empty: !self.occupied() | s.bb(),
                    victims: if with_king { enemy } else { enemy & !self.kings },
                    enemy_kings: enemy & self.kings,
                    best,
                    path: [0; MAX_JUMPS],
                    every_path,
                    out: &mut *out,
                };
                search.extend(s.index(), 0, 0, 0);
                best = search.best;
            }
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_setup())
    }
}

impl GamePosition for Position {
    type Move = Move;
    type Variant = ();
    type SetupError = SetupError;

    const ID: GameId = GameKind::Italian.id();
    const REPETITION_DRAW: usize = 3;

    fn variant_code(_: ()) -> u8 {
        3
    }
    fn variant_of_code(code: u8) -> Option<()> {
        (code == 3).then_some(())
    }
    fn variant_name(_: ()) -> &'static str {
        "standard"
    }
    fn variant_named(name: &str) -> Result<(), String> {
        match name.trim() {
            "standard" => Ok(()),
            other => Err(format!(
                "unknown variant '{other}' for italian (it has one: standard)"
            )),
        }
    }
    /// The start position: twelve men a side on the three rows nearest
    /// each player, White to move.
    fn start(_: ()) -> Position {
        let mut p = Position::empty();
        for s in Square::all() {
            let color = match s.rank() {
                0..=2 => Color::White,
                5..=7 => Color::Black,
                _ => continue,
            };
            p.put(s, Piece { color, king: false });
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
    /// Side to move.
    #[inline]
    fn side_to_move(&self) -> Color {
        self.side
    }
    /// Zobrist hash of pieces and side to move.
    #[inline]
    fn hash_key(&self) -> u64 {
        self.hash
    }
    /// Plies since the last capture or man move.
    #[inline]
    fn no_progress(&self) -> u16 {
        self.reversible
    }
    /// All legal moves into `out` (cleared first).
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.has_capture() {
            self.gen_captures(out, false);
            return;
        }
        let empty = !self.occupied();
        for d in Dir::ALL {
            let back = d.opposite() as usize;
            for t in squares(shift(self.steppers(d), d) & empty) {
                out.push(Move {
                    from: NEIGHBOR[back][t.index()],
                    to: t.index() as u8,
                    njumps: 0,
                    captured: 0,
                    path: [0; MAX_JUMPS],
                });
            }
        }
    }
    /// The number of legal moves; without a capture it is counted from
    /// bitboards without generating the moves.
    fn count_moves(&self, scratch: &mut Vec<Move>) -> u64 {
        if self.has_capture() {
            scratch.clear();
            self.gen_captures(scratch, false);
            return scratch.len() as u64;
        }
        self.step_count() as u64
    }
    /// True if the side to move has a capture.
    #[inline]
    fn has_capture(&self) -> bool {
        let me = self.side;
        let empty = !self.occupied();
        let enemy = self.by_color[me.opposite().index()];
        let men = self.men(me);
        let kings = self.kings(me);
        let enemy_men = enemy & !self.kings;
        Dir::ALL.iter().any(|&d| {
            let men_here = if man_dirs(me) & (1 << d as u8) != 0 {
                men
            } else {
                0
            };
            shift(shift(men_here, d) & enemy_men, d) & empty != 0
                || shift(shift(kings, d) & enemy, d) & empty != 0
        })
    }
    /// Play a move assumed legal. Returns true when it was irreversible (a
    /// capture or a man's move).
    fn play_unchecked(&mut self, m: &Move) -> bool {
        let me = self.side;
        let them = me.opposite();
        let (fb, tb) = (m.from().bb(), m.to().bb());
        let king = self.kings & fb != 0;
        if fb != tb {
            self.by_color[me.index()] ^= fb | tb;
            if king {
                self.kings ^= fb | tb;
            }
            self.hash ^= zkey(me, king, m.from().index()) ^ zkey(me, king, m.to().index());
        }
        for s in squares(m.captured) {
            self.hash ^= zkey(them, self.kings & s.bb() != 0, s.index());
        }
        self.by_color[them.index()] &= !m.captured;
        self.kings &= !m.captured;
        if !king && PROMOTION_ROW[me.index()] & tb != 0 {
            self.kings |= tb;
            self.hash ^= zkey(me, false, m.to().index()) ^ zkey(me, true, m.to().index());
        }
        self.side = them;
        self.hash ^= ZOBRIST_SIDE;
        let irreversible = m.captured != 0 || !king;
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
        let mine = self.color_bb(c).count_ones() as f32;
        let theirs = self.color_bb(c.opposite()).count_ones() as f32;
        (mine - theirs) / 12.0
    }
    /// `c`'s material: a man 100, a king 300, as the search's tactical
    /// check counts it (the alpha-beta baseline's evaluation weighs a king
    /// 250 instead; both as measured for the default hour).
    fn material(&self, c: Color) -> i32 {
        100 * self.men(c).count_ones() as i32 + 300 * self.kings(c).count_ones() as i32
    }
    /// The start and two of Ed Gilbert's test positions, counted deeper
    /// (Italian trees are narrower than Damone's).
    const BENCH_SETUPS: &'static [(&'static str, i32)] = &[
        ("W:W21-32:B1-12", 2),
        ("W:W30,26,27,22,23,24,17,18,20:B14,15,16,9,11,5,6,1,3", 4),
        ("W:WK27,K28,17,20,9,K12,8:B21,24,K19,K13,14,K11,4", 0),
    ];
    const PIECE_KINDS: &'static [&'static str] = &["man", "king"];
    const PIECE_LETTERS: &'static [char] = &['M', 'K'];
    const MOVE_EXAMPLES: &'static str = "22-18, 21x14x7";
    fn playable(file: i32, rank: i32) -> bool {
        Square::from_coords(file, rank).is_some()
    }
    fn cell_number(file: i32, rank: i32) -> Option<u32> {
        Square::from_coords(file, rank).map(|s| square_number(s) as u32)
    }
    fn perft_paths(&self, depth: u32) -> Option<u64> {
        Some(super::perft_paths(self, depth))
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        click_path(m.from(), m.landings(), m.to())
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        let p = self.piece_at(Square::from_coords(file, rank)?)?;
        Some((p.color, p.king as usize))
    }
}
