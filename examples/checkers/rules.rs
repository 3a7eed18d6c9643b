//! English checkers (straight checkers, the American and British game):
//! twelve men a side on the 32 dark squares, men that step and capture
//! forward only and may take kings, kings of one step in the four
//! diagonal directions, compulsory capture where the player chooses among
//! the captures but must finish the one chosen, promotion on the last row
//! (which ends the move), Black moves first.
//!
//! The board is damone's 32-square board (`damone::game::types`), seen in
//! a mirror: the squares are numbered 1 to 32 from Black's side, right to
//! left along each row as White sees it, so that the standard notation
//! reads as usual (Black's men on 1-12, White's on 21-32, the first moves
//! 9-13 to 12-16). The game implements damone's [`GamePosition`] here; the
//! traits of the layers above are in `layers.rs`. The move type, the board
//! of men and kings and the reader of typed moves are damone's draughts kit
//! (`damone::game::draughts`).

use damone::game::draughts::{
    parse_jump_move, read_setup, setup_text, short_jumps, zobrist_keys, JumpMove, MenKings, MenKingsGame,
    SetupError, SetupNotation,
};
use damone::game::notation::ParseMoveError;
use damone::game::types::{click_path, shift, squares, Bitboard, Color, Dir, Square, NEIGHBOR, NONE};
use damone::game::{GameId, GamePosition};
use std::fmt;

/// Most jumps one capture can make (one per opposing piece).
pub const MAX_JUMPS: usize = 12;

/// The squares each side's men are promoted on: White on rank 8, Black on
/// rank 1 (damone's square indices).
pub const PROMOTION_ROW: [Bitboard; 2] = [0xF000_0000, 0x0000_000F];

/// The byte damone's files write for this game's positions (codes of the
/// games compiled into damone are below 128).
const VARIANT_CODE: u8 = 200;

/// A legal move: the kit's jump move on the 32 squares.
pub type Move = JumpMove<Square, Bitboard, MAX_JUMPS>;

/// English checkers for the kit's board of men and kings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkers;

const ZOBRIST: ([u64; 128], u64) = zobrist_keys(0xC4EC_4E25_0000_0001);

impl MenKingsGame for Checkers {
    type Set = Bitboard;
    type Cell = Square;
    const PIECE_KEYS: &'static [u64] = &ZOBRIST.0;
    const SIDE_KEY: u64 = ZOBRIST.1;
    const PROMOTION: [Bitboard; 2] = PROMOTION_ROW;
}

/// The directions a man of `c` moves and captures in, as a mask over
/// `Dir as u8`.
const fn man_dirs(c: Color) -> u8 {
    match c {
        Color::White => (1 << Dir::NE as u8) | (1 << Dir::NW as u8),
        Color::Black => (1 << Dir::SE as u8) | (1 << Dir::SW as u8),
    }
}

/// The standard number (1..=32) of a square.
pub fn square_number(s: Square) -> u32 {
    let i = s.index() as u32;
    (7 - i / 4) * 4 + (3 - i % 4) + 1
}

/// The square of a standard number, if it is 1..=32.
pub fn square_of_number(n: u32) -> Option<Square> {
    (1..=32).contains(&n).then(|| {
        let k = n - 1;
        Square::new(((7 - k / 4) * 4 + (3 - k % 4)) as u8)
    })
}

/// An English checkers position: the kit's board (`put`, `men`, `kings`,
/// ... through `Deref`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position(MenKings<Checkers>);

impl std::ops::Deref for Position {
    type Target = MenKings<Checkers>;
    fn deref(&self) -> &MenKings<Checkers> {
        &self.0
    }
}
impl std::ops::DerefMut for Position {
    fn deref_mut(&mut self) -> &mut MenKings<Checkers> {
        &mut self.0
    }
}

/// Setup strings list the squares by number, ranges as `1-12`.
impl SetupNotation for Checkers {
    const MAX_PIECES: u32 = 12;
    const CELL_WORD: &'static str = "square";
    const TOKEN_HINT: &'static str = "1 to 32, K before a king, or a range like 1-12";
    fn cell_name(s: Square) -> String {
        square_number(s).to_string()
    }
    fn cell_named(name: &str) -> Option<Square> {
        name.parse().ok().and_then(square_of_number)
    }
    fn range(a: Square, b: Square) -> Option<Vec<Square>> {
        let (a, b) = (square_number(a), square_number(b));
        (a <= b).then(|| (a..=b).filter_map(square_of_number).collect())
    }
    fn order(s: Square) -> u32 {
        square_number(s)
    }
}

/// The captures from one square, found by walking every jump sequence to
/// its end.
struct Jumps<'a> {
    from: u8,
    dirs: u8,
    empty: Bitboard,
    victims: Bitboard,
    path: [u8; MAX_JUMPS],
    out: &'a mut Vec<Move>,
}

impl Jumps<'_> {
    fn extend(&mut self, sq: usize, captured: Bitboard, depth: usize) {
        let mut extended = false;
        for (d, next) in NEIGHBOR.iter().enumerate() {
            let over = next[sq];
            if self.dirs & (1 << d) == 0 || over == NONE || self.victims & !captured & (1 << over) == 0 {
                continue;
            }
            let land = next[over as usize];
            if land == NONE || self.empty & (1 << land) == 0 {
                continue;
            }
            extended = true;
            self.path[depth] = land;
            self.extend(land as usize, captured | 1 << over, depth + 1);
        }
        if !extended && depth > 0 {
            let m = Move::from_parts(self.from, sq as u8, captured, self.path, depth as u8);
            if !self.out.contains(&m) {
                self.out.push(m);
            }
        }
    }
}

impl Position {
    /// An empty board, Black to move.
    pub fn empty() -> Position {
        Position(MenKings::empty()).with_side(Color::Black)
    }

    /// The same pieces with `c` to move.
    pub fn with_side(mut self, c: Color) -> Position {
        self.set_side(c);
        self
    }

    /// The same position with the no-progress counter at `plies`.
    pub fn with_no_progress(mut self, plies: u16) -> Position {
        self.set_no_progress(plies);
        self
    }

    /// The side to move's pieces that may step in `d`.
    fn steppers(&self, d: Dir) -> Bitboard {
        let mine = self.color_bb(self.side());
        if man_dirs(self.side()) & (1 << d as u8) != 0 {
            mine
        } else {
            mine & self.all_kings()
        }
    }

    /// The steps the side to move has (legal when it has no capture).
    pub fn step_count(&self) -> u32 {
        let empty = !self.occupied();
        Dir::ALL
            .iter()
            .map(|&d| (shift(self.steppers(d), d) & empty).count_ones())
            .sum()
    }

    fn captures_into(&self, out: &mut Vec<Move>) {
        let me = self.side();
        for s in squares(self.color_bb(me)) {
            let king = self.all_kings() & s.bb() != 0;
            let mut jumps = Jumps {
                from: s.index() as u8,
                dirs: if king { 0b1111 } else { man_dirs(me) },
                empty: !self.occupied() | s.bb(),
                victims: self.color_bb(me.opposite()),
                path: [0; MAX_JUMPS],
                out: &mut *out,
            };
            jumps.extend(s.index(), 0, 0);
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

    const ID: GameId = GameId::new("checkers", "English checkers");
    const REPETITION_DRAW: usize = 3;

    fn variant_code(_: ()) -> u8 {
        VARIANT_CODE
    }
    fn variant_of_code(code: u8) -> Option<()> {
        (code == VARIANT_CODE).then_some(())
    }
    fn start(_: ()) -> Position {
        Position::from_setup("B:W21-32:B1-12", ()).expect("the start position reads")
    }
    fn from_setup(text: &str, _: ()) -> Result<Position, SetupError> {
        read_setup(text).map(Position)
    }
    fn to_setup(&self) -> String {
        setup_text(&self.0)
    }
    fn variant(&self) {}
    fn side_to_move(&self) -> Color {
        self.side()
    }
    fn hash_key(&self) -> u64 {
        self.0.hash()
    }
    fn no_progress(&self) -> u16 {
        self.0.no_progress()
    }
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.has_capture() {
            return self.captures_into(out);
        }
        let empty = !self.occupied();
        for d in Dir::ALL {
            for t in squares(shift(self.steppers(d), d) & empty) {
                out.push(Move::step(
                    Square::new(NEIGHBOR[d.opposite() as usize][t.index()]),
                    t,
                ));
            }
        }
    }
    fn has_capture(&self) -> bool {
        let me = self.side();
        let empty = !self.occupied();
        let enemy = self.color_bb(me.opposite());
        Dir::ALL.iter().any(|&d| {
            let movers = if man_dirs(me) & (1 << d as u8) != 0 {
                self.color_bb(me)
            } else {
                self.kings(me)
            };
            shift(shift(movers, d) & enemy, d) & empty != 0
        })
    }
    fn play_unchecked(&mut self, m: &Move) -> bool {
        self.0.play(m)
    }
    /// `9-13` for a step, every landing for a capture (`9x18x27`).
    fn move_text(&self, m: &Move) -> String {
        m.text(Checkers::cell_name)
    }
    /// A move's full text, or a capture's start and end (`9x27`) when one
    /// capture joins them.
    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let cell =
            |p: &str| Checkers::cell_named(p.trim()).ok_or_else(|| format!("'{p}' is not a square 1 to 32"));
        parse_jump_move(text, &self.legal_moves(), cell, short_jumps, |m| {
            self.move_text(m)
        })
    }
    fn piece_balance(&self, c: Color) -> f32 {
        let count = |c: Color| self.color_bb(c).count_ones() as f32;
        (count(c) - count(c.opposite())) / 12.0
    }
    fn material(&self, c: Color) -> i32 {
        100 * self.men(c).count_ones() as i32 + 300 * self.kings(c).count_ones() as i32
    }
    const BENCH_SETUPS: &'static [(&'static str, i32)] = &[("B:W21-32:B1-12", 2)];
    const PIECE_KINDS: &'static [&'static str] = &["man", "king"];
    const PIECE_LETTERS: &'static [char] = &['M', 'K'];
    const MOVE_EXAMPLES: &'static str = "9-13, 15x22x29";
    fn playable(file: i32, rank: i32) -> bool {
        Square::from_coords(file, rank).is_some()
    }
    fn cell_number(file: i32, rank: i32) -> Option<u32> {
        Square::from_coords(file, rank).map(square_number)
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        let s = Square::from_coords(file, rank)?;
        let p = self.piece_at(s)?;
        Some((p.color, p.king as usize))
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        click_path(m.from(), m.landings(), m.to())
    }
}
