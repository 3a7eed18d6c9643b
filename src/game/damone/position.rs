//! The position: piece bitboards, side to move, variant, no-progress counter
//! and an incrementally updated Zobrist hash; legal move generation with
//! compulsory maximal capture and the full precedence order; making moves.

use super::fen::ParseFenError;
use super::notation::parse_move;
use super::rank::{Piece, Rank};
use super::variant::{UnknownVariant, Variant};
use crate::game::draughts::JumpMove;
use crate::game::interface::{GameId, GameKind, GamePosition};
use crate::game::notation::ParseMoveError;
use crate::game::record::{EndReason, IllegalMove, Outcome};
use crate::game::types::*;
use std::fmt;

/// Most jumps one capture sequence can make: every jumped piece stands on one
/// of the 18 dark squares away from the edge.
pub const MAX_JUMPS: usize = 18;

/// A legal move (the kit's [`JumpMove`] on the 32 squares): two moves are
/// one when their start square, end square and captured set are; the
/// landing path is kept only for notation. Its text (`Display`) is PDN's,
/// `f3-e4` or `e4xg6xe8`.
pub type Move = JumpMove<Square, Bitboard, MAX_JUMPS>;

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(|s| s.to_string()))
    }
}

/// A list of moves.
pub type MoveList = Vec<Move>;

// ---------------------------------------------------------------- Zobrist

const fn build_zobrist() -> ([[[u64; 32]; 3]; 2], u64) {
    let mut keys = [[[0u64; 32]; 3]; 2];
    let mut st = 0xDA40_0E5E_ED00_0001u64;
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < 3 {
            let mut s = 0;
            while s < 32 {
                let (n, v) = splitmix(st);
                st = n;
                keys[c][r][s] = v;
                s += 1;
            }
            r += 1;
        }
        c += 1;
    }
    let (_, side) = splitmix(st);
    (keys, side)
}

const ZOBRIST_ALL: ([[[u64; 32]; 3]; 2], u64) = build_zobrist();
static ZOBRIST: [[[u64; 32]; 3]; 2] = ZOBRIST_ALL.0;
const ZOBRIST_SIDE: u64 = ZOBRIST_ALL.1;

#[inline(always)]
fn zkey(c: Color, r: Rank, s: usize) -> u64 {
    ZOBRIST[c.index()][r.index()][s]
}

// ---------------------------------------------------------------- Position

/// A Damone position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    by_color: [Bitboard; 2],
    by_rank: [Bitboard; 3],
    side: Color,
    variant: Variant,
    no_progress: u16,
    hash: u64,
}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.hash.hash(h)
    }
}

/// Precedence key of a capture sequence: larger is better. Compares, in
/// order, pieces captured, capturing rank, captured Damones, captured Damas.
#[inline(always)]
fn capture_key(count: u32, mover: Rank, n_damone: u32, n_dama: u32) -> u32 {
    (count << 16) | ((mover as u32) << 12) | (n_damone << 6) | n_dama
}

struct CaptureCtx<'a> {
    from: u8,
    dirs: u8,
    rank: Rank,
    empty: Bitboard,
    victims: Bitboard,
    enemy_damone: Bitboard,
    enemy_dama: Bitboard,
    best: u32,
    path: [u8; MAX_JUMPS],
    out: &'a mut MoveList,
}

impl Position {
    /// An empty board with White to move.
    pub fn empty(variant: Variant) -> Position {
        Position {
            by_color: [0; 2],
            by_rank: [0; 3],
            side: Color::White,
            variant,
            no_progress: 0,
            hash: 0,
        }
    }

    /// Place a piece (replacing whatever stood there); keeps the hash in step.
    pub fn put(&mut self, s: Square, p: Piece) {
        self.remove(s);
        self.by_color[p.color.index()] |= s.bb();
        self.by_rank[p.rank.index()] |= s.bb();
        self.hash ^= zkey(p.color, p.rank, s.index());
    }

    /// Remove the piece on a square, if any; keeps the hash in step.
    pub fn remove(&mut self, s: Square) {
        if let Some(p) = self.piece_at(s) {
            self.by_color[p.color.index()] &= !s.bb();
            self.by_rank[p.rank.index()] &= !s.bb();
            self.hash ^= zkey(p.color, p.rank, s.index());
        }
    }

    /// Set the side to move.
    pub fn set_side(&mut self, c: Color) {
        if c != self.side {
            self.side = c;
            self.hash ^= ZOBRIST_SIDE;
        }
    }

    /// Set the no-progress counter (plies since the last capture or promotion).
    pub fn set_no_progress(&mut self, n: u16) {
        self.no_progress = n;
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
        let rank = if self.by_rank[0] & b != 0 {
            Rank::Pedina
        } else if self.by_rank[1] & b != 0 {
            Rank::Dama
        } else {
            Rank::Damone
        };
        Some(Piece { color, rank })
    }

    /// Squares holding pieces of a colour.
    #[inline]
    pub fn color_bb(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }
    /// Squares holding pieces of a rank (both colours).
    #[inline]
    pub fn rank_bb(&self, r: Rank) -> Bitboard {
        self.by_rank[r.index()]
    }
    /// Squares holding pieces of a colour and rank.
    #[inline]
    pub fn pieces(&self, c: Color, r: Rank) -> Bitboard {
        self.by_color[c.index()] & self.by_rank[r.index()]
    }
    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }
    /// Number of pieces of a colour.
    pub fn count(&self, c: Color) -> u32 {
        self.by_color[c.index()].count_ones()
    }

    /// True in a `damone-hunt` position where either side has no Damone left.
    #[inline]
    pub fn hunt_over(&self) -> bool {
        self.variant.damone_hunt()
            && (self.pieces(Color::White, Rank::Damone) == 0 || self.pieces(Color::Black, Rank::Damone) == 0)
    }

    /// The Zobrist hash computed from scratch (tests compare it with
    /// [`GamePosition::hash_key`]).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for c in [Color::White, Color::Black] {
            for r in Rank::ALL {
                for s in squares(self.pieces(c, r)) {
                    h ^= zkey(c, r, s.index());
                }
            }
        }
        if self.side == Color::Black {
            h ^= ZOBRIST_SIDE;
        }
        h
    }

    /// Movers of the side to move that may step in direction `d`.
    #[inline(always)]
    fn movers(&self, d: Dir) -> Bitboard {
        let mine = self.by_color[self.side.index()];
        if Rank::Pedina.dirs(self.side) & (1 << d as u8) != 0 {
            mine
        } else {
            mine & !self.by_rank[0]
        }
    }

    fn gen_captures(&self, out: &mut MoveList) {
        let me = self.side;
        let enemy = self.by_color[me.opposite().index()];
        let mine = self.by_color[me.index()];
        let mut best = 0;
        for rank in [Rank::Damone, Rank::Dama, Rank::Pedina] {
            let victims = match rank {
                Rank::Pedina => enemy & self.by_rank[0],
                Rank::Dama => enemy & !self.by_rank[2],
                Rank::Damone => enemy,
            };
            for s in squares(mine & self.by_rank[rank.index()]) {
                let mut ctx = CaptureCtx {
                    from: s.index() as u8,
                    dirs: rank.dirs(me),
                    rank,
                    empty: !self.occupied() | s.bb(),
                    victims,
                    enemy_damone: enemy & self.by_rank[2],
                    enemy_dama: enemy & self.by_rank[1],
                    best,
                    path: [0; MAX_JUMPS],
                    out: &mut *out,
                };
                Self::capture_dfs(&mut ctx, s.index(), 0, 0);
                best = ctx.best;
            }
        }
    }

    fn capture_dfs(ctx: &mut CaptureCtx, sq: usize, captured: Bitboard, depth: usize) {
        let mut extended = false;
        for (d, nb) in NEIGHBOR.iter().enumerate() {
            if ctx.dirs & (1 << d) == 0 {
                continue;
            }
            let mid = nb[sq];
            if mid == NONE {
                continue;
            }
            let mb = 1u32 << mid;
            if ctx.victims & mb == 0 || captured & mb != 0 {
                continue;
            }
            let land = nb[mid as usize];
            if land == NONE || ctx.empty & (1u32 << land) == 0 {
                continue;
            }
            extended = true;
            ctx.path[depth] = land;
            Self::capture_dfs(ctx, land as usize, captured | mb, depth + 1);
        }
        if !extended && depth > 0 {
            let key = capture_key(
                depth as u32,
                ctx.rank,
                (captured & ctx.enemy_damone).count_ones(),
                (captured & ctx.enemy_dama).count_ones(),
            );
            if key < ctx.best {
                return;
            }
            if key > ctx.best {
                ctx.best = key;
                ctx.out.clear();
            }
            let m = Move::from_parts(ctx.from, sq as u8, captured, ctx.path, depth as u8);
            if !ctx.out.contains(&m) {
                ctx.out.push(m);
            }
        }
    }

    /// Play a move if it is legal here.
    pub fn play(&mut self, m: &Move) -> Result<bool, IllegalMove> {
        if !self.legal_moves().contains(m) {
            return Err(IllegalMove {
                mv: m.to_string(),
                fen: self.to_fen(),
            });
        }
        Ok(self.play_unchecked(m))
    }

    /// Map every square and possibly swap colours; used by the symmetries.
    fn transform(&self, f: impl Fn(Square) -> Square, swap: bool) -> Position {
        let mut p = Position::empty(self.variant);
        for s in Square::all() {
            if let Some(mut pc) = self.piece_at(s) {
                if swap {
                    pc.color = pc.color.opposite();
                }
                p.put(f(s), pc);
            }
        }
        p.set_side(if swap { self.side.opposite() } else { self.side });
        p.no_progress = self.no_progress;
        p
    }

    /// Reflection in the h1-a8 diagonal (preserves every rule).
    pub fn reflect(&self) -> Position {
        self.transform(Square::reflect, false)
    }

    /// The board turned by 180 degrees with the colours swapped: the same
    /// game seen from the other side.
    pub fn rotate_swap(&self) -> Position {
        self.transform(Square::rotate, true)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}

impl GamePosition for Position {
    type Move = Move;
    type Variant = Variant;
    type SetupError = ParseFenError;

    const ID: GameId = GameKind::Damone.id();
    const REPETITION_DRAW: usize = 3;

    fn variant_code(variant: Variant) -> u8 {
        match variant {
            Variant::Standard => 0,
            Variant::DamoneHunt => 1,
            Variant::ThreeDamas => 2,
        }
    }
    fn variant_of_code(code: u8) -> Option<Variant> {
        match code {
            0 => Some(Variant::Standard),
            1 => Some(Variant::DamoneHunt),
            2 => Some(Variant::ThreeDamas),
            _ => None,
        }
    }
    fn variant_name(variant: Variant) -> &'static str {
        variant.name()
    }
    const VARIANT_NAMES: &'static [&'static str] = &super::variant::VARIANT_NAMES;
    fn variant_named(name: &str) -> Result<Variant, String> {
        name.parse().map_err(|e: UnknownVariant| e.to_string())
    }
    fn pdn_variant(variant: Variant) -> String {
        format!("damone-{}", variant.name())
    }
    /// The start position of a variant.
    fn start(variant: Variant) -> Position {
        Position::from_fen(variant.start_fen(), variant).expect("built-in start FEN is valid")
    }
    fn from_setup(text: &str, variant: Variant) -> Result<Self, ParseFenError> {
        Position::from_fen(text, variant)
    }
    fn to_setup(&self) -> String {
        self.to_fen()
    }
    /// Rules variant.
    #[inline]
    fn variant(&self) -> Variant {
        self.variant
    }
    /// Side to move.
    #[inline]
    fn side_to_move(&self) -> Color {
        self.side
    }
    /// Zobrist hash of pieces and side to move (not counters).
    #[inline]
    fn hash_key(&self) -> u64 {
        self.hash
    }
    /// Plies since the last capture or promotion.
    #[inline]
    fn no_progress(&self) -> u16 {
        self.no_progress
    }
    /// All legal moves into `out` (cleared first).
    fn legal_moves_into(&self, out: &mut MoveList) {
        out.clear();
        if self.has_capture() {
            self.gen_captures(out);
        } else {
            let empty = !self.occupied();
            for d in Dir::ALL {
                let back = d.opposite() as usize;
                for t in squares(shift(self.movers(d), d) & empty) {
                    out.push(Move::step(Square::new(NEIGHBOR[back][t.index()]), t));
                }
            }
        }
    }
    /// Number of legal moves; faster than generating them when there is no capture.
    fn count_moves(&self, scratch: &mut MoveList) -> u64 {
        if self.has_capture() {
            scratch.clear();
            self.gen_captures(scratch);
            scratch.len() as u64
        } else {
            let empty = !self.occupied();
            Dir::ALL
                .iter()
                .map(|&d| (shift(self.movers(d), d) & empty).count_ones() as u64)
                .sum()
        }
    }
    /// True if the side to move has a capture available.
    #[inline]
    fn has_capture(&self) -> bool {
        let me = self.side;
        let empty = !self.occupied();
        let enemy = self.by_color[me.opposite().index()];
        let mine = self.by_color[me.index()];
        let ped = mine & self.by_rank[0];
        let big = mine & !self.by_rank[0];
        let dam = mine & self.by_rank[2];
        let enemy_ped = enemy & self.by_rank[0];
        let enemy_pd = enemy & !self.by_rank[2];
        for d in Dir::ALL {
            let pm = if Rank::Pedina.dirs(me) & (1 << d as u8) != 0 {
                ped
            } else {
                0
            };
            if shift(shift(pm, d) & enemy_ped, d) & empty != 0
                || shift(shift(big & !dam, d) & enemy_pd, d) & empty != 0
                || shift(shift(dam, d) & enemy, d) & empty != 0
            {
                return true;
            }
        }
        false
    }
    /// Play a move assumed legal (from [`Position::legal_moves`]). Returns
    /// true when the move was irreversible (a capture or a promotion).
    fn play_unchecked(&mut self, m: &Move) -> bool {
        let me = self.side;
        let from = m.from();
        let to = m.to();
        let rank = self.piece_at(from).map_or(Rank::Pedina, |p| p.rank);
        // Move the piece.
        let fb = from.bb();
        let tb = to.bb();
        if fb != tb {
            // A capture may end on its own start square: then nothing moves.
            self.by_color[me.index()] ^= fb | tb;
            self.by_rank[rank.index()] ^= fb | tb;
            self.hash ^= zkey(me, rank, from.index()) ^ zkey(me, rank, to.index());
        }
        // Remove captured pieces.
        let them = me.opposite();
        for s in squares(m.captured()) {
            for r in Rank::ALL {
                if self.by_rank[r.index()] & s.bb() != 0 {
                    self.by_rank[r.index()] &= !s.bb();
                    self.hash ^= zkey(them, r, s.index());
                }
            }
        }
        self.by_color[them.index()] &= !m.captured();
        // Promotion at the end of the move.
        let promoted_to = match rank {
            Rank::Pedina if self.variant.pedina_promotion(me) & tb != 0 => Some(Rank::Dama),
            Rank::Dama if self.variant.dama_promotion(me) & tb != 0 => Some(Rank::Damone),
            _ => None,
        };
        if let Some(nr) = promoted_to {
            self.by_rank[rank.index()] &= !tb;
            self.by_rank[nr.index()] |= tb;
            self.hash ^= zkey(me, rank, to.index()) ^ zkey(me, nr, to.index());
        }
        self.side = them;
        self.hash ^= ZOBRIST_SIDE;
        let irreversible = m.is_capture() || promoted_to.is_some();
        if irreversible {
            self.no_progress = 0;
        } else {
            self.no_progress = self.no_progress.saturating_add(1);
        }
        irreversible
    }
    #[inline]
    fn decided(&self) -> Option<Outcome> {
        if !self.variant().damone_hunt() {
            return None;
        }
        let side = self.side_to_move();
        let lost = [side, side.opposite()]
            .into_iter()
            .find(|&c| self.variant().damone_hunt() && self.pieces(c, Rank::Damone) == 0)?;
        Some(Outcome {
            winner: Some(lost.opposite()),
            reason: EndReason::Rules("damone_lost"),
        })
    }
    fn move_text(&self, m: &Move) -> String {
        m.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        parse_move(self, text)
    }
    /// `c`'s pieces minus the opponent's, over 8: the material measure of
    /// the network's auxiliary target and of the search's material utility.
    fn piece_balance(&self, c: Color) -> f32 {
        (self.count(c) as f32 - self.count(c.opposite()) as f32) / 8.0
    }
    /// Material of a colour in conventional units: Pedina 100, Dama 250,
    /// Damone 600 (2000 in `damone-hunt`, where losing the last Damone
    /// loses the game). The baseline's evaluation and the search's
    /// tactical check both count material this way.
    fn material(&self, c: Color) -> i32 {
        let damone = if self.variant.damone_hunt() { 2000 } else { 600 };
        100 * self.pieces(c, Rank::Pedina).count_ones() as i32
            + 250 * self.pieces(c, Rank::Dama).count_ones() as i32
            + damone * self.pieces(c, Rank::Damone).count_ones() as i32
    }
    const BENCH_SETUPS: &'static [(&'static str, i32)] = &[
        ("W:WIh1,Df1,Dh3,d1,e2,f3,g4,h5:BIa8,Da6,Dc8,a4,b5,c6,d7,e8", 0),
        ("W:WIg2,Df1,Dh3,d3,e4,f3,g4,h5:BIb7,Da6,Dc8,a4,b5,c6,d5,e8", 0),
        ("B:WIh1,Df1,Dg2,c2,e2,f3,e4:BIa8,Db7,Dc6,b5,d5,f5,a4", 0),
    ];
    const PIECE_KINDS: &'static [&'static str] = &["pedina", "dama", "damone"];
    const PIECE_LETTERS: &'static [char] = &['P', 'D', 'I'];
    const MOVE_EXAMPLES: &'static str = "f3-e4, e4xg6xe8";
    fn playable(file: i32, rank: i32) -> bool {
        Square::from_coords(file, rank).is_some()
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        click_path(m.from(), m.landings(), m.to())
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        let p = self.piece_at(Square::from_coords(file, rank)?)?;
        Some((p.color, p.rank.index()))
    }
}
