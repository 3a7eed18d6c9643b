//! The Italian position: colour and king bitboards over the 32 dark
//! squares, side to move, the counter of reversible plies and a Zobrist
//! hash; move generation with compulsory capture and the federation's four
//! precedence criteria; making moves.

use super::notation::{self, square_number, SetupError};
use crate::game::draughts::{read_setup, setup_text, zobrist_keys, JumpMove, MenKings, MenKingsGame};
use crate::game::interface::{GameId, GameKind, GamePosition};
use crate::game::notation::ParseMoveError;
use crate::game::types::{click_path, shift, squares, Bitboard, Color, Dir, Square, NEIGHBOR, NONE};
use std::fmt;

/// Most jumps one capture can make: each jump takes one of the opponent's
/// at most 12 pieces.
pub const MAX_JUMPS: usize = 12;

/// The last row for each side's men: White promotes on rank 8, Black on rank 1.
const PROMOTION_ROW: [Bitboard; 2] = [0xF000_0000, 0x0000_000F];

/// A legal move (the kit's [`JumpMove`] on the 32 squares): two moves are
/// one when their start, end and captured set are (they lead to the same
/// position); the landing path is kept for notation.
pub type Move = JumpMove<Square, Bitboard, MAX_JUMPS>;

/// Italian draughts' board for the kit's [`MenKings`]: the 32 squares, its
/// Zobrist keys and promotion rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Italian;

const ZOBRIST: ([u64; 128], u64) = zobrist_keys(0x17A1_1A40_D7A6_0001);

impl MenKingsGame for Italian {
    type Set = Bitboard;
    type Cell = Square;
    const PIECE_KEYS: &'static [u64] = &ZOBRIST.0;
    const SIDE_KEY: u64 = ZOBRIST.1;
    const PROMOTION: [Bitboard; 2] = PROMOTION_ROW;
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
pub use crate::game::draughts::Piece;

/// An Italian draughts position: the kit's board of men and kings (its
/// methods, `put`, `piece_at`, `men`, `kings`..., through `Deref`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position(MenKings<Italian>);

impl std::ops::Deref for Position {
    type Target = MenKings<Italian>;
    fn deref(&self) -> &MenKings<Italian> {
        &self.0
    }
}
impl std::ops::DerefMut for Position {
    fn deref_mut(&mut self) -> &mut MenKings<Italian> {
        &mut self.0
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
        let m = Move::from_parts(self.from, sq as u8, captured, self.path, depth as u8);
        if self.every_path || !self.out.contains(&m) {
            self.out.push(m);
        }
    }
}

impl Position {
    /// An empty board with White to move.
    pub fn empty() -> Position {
        Position(MenKings::empty())
    }

    /// Pieces of the side to move that may step in direction `d`.
    #[inline(always)]
    fn steppers(&self, d: Dir) -> Bitboard {
        let mine = self.color_bb(self.side());
        if man_dirs(self.side()) & (1 << d as u8) != 0 {
            mine
        } else {
            mine & self.all_kings()
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
        let me = self.side();
        let enemy = self.color_bb(me.opposite());
        let mut best = 0;
        for with_king in [true, false] {
            let movers = if with_king { self.kings(me) } else { self.men(me) };
            for s in squares(movers) {
                let mut search = CaptureSearch {
                    from: s.index() as u8,
                    dirs: if with_king { 0b1111 } else { man_dirs(me) },
                    with_king,
                    empty: !self.occupied() | s.bb(),
                    victims: if with_king {
                        enemy
                    } else {
                        enemy & !self.all_kings()
                    },
                    enemy_kings: enemy & self.all_kings(),
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
        read_setup(text).map(Position)
    }
    fn to_setup(&self) -> String {
        setup_text(&self.0)
    }
    fn variant(&self) {}
    /// Side to move.
    #[inline]
    fn side_to_move(&self) -> Color {
        self.side()
    }
    /// Zobrist hash of pieces and side to move.
    #[inline]
    fn hash_key(&self) -> u64 {
        self.0.hash()
    }
    /// Plies since the last capture or man move.
    #[inline]
    fn no_progress(&self) -> u16 {
        self.0.no_progress()
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
                out.push(Move::step(Square::new(NEIGHBOR[back][t.index()]), t));
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
        let me = self.side();
        let empty = !self.occupied();
        let enemy = self.color_bb(me.opposite());
        let men = self.men(me);
        let kings = self.kings(me);
        let enemy_men = enemy & !self.all_kings();
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
