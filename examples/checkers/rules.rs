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
//! traits of the layers above are in `layers.rs`.

use damone::game::notation::{move_tokens, ParseMoveError};
use damone::game::setup::{cut, split_setup, SetupFieldsError};
use damone::game::types::{
    click_path, shift, splitmix, squares, Bitboard, Color, Dir, Square, NEIGHBOR, NONE,
};
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

/// A legal move: its start, its end, the pieces it takes and, for a
/// capture, its landing squares (for notation). Moves that start, end and
/// capture alike are one move.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    from: u8,
    to: u8,
    jumps: u8,
    captured: Bitboard,
    path: [u8; MAX_JUMPS],
}

impl PartialEq for Move {
    fn eq(&self, o: &Move) -> bool {
        (self.from, self.to, self.captured) == (o.from, o.to, o.captured)
    }
}
impl Eq for Move {}
impl std::hash::Hash for Move {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.from, self.to, self.captured).hash(h)
    }
}

impl Move {
    pub fn from(&self) -> Square {
        Square::new(self.from)
    }
    pub fn to(&self) -> Square {
        Square::new(self.to)
    }
    pub fn captured(&self) -> Bitboard {
        self.captured
    }
    fn landings(&self) -> impl Iterator<Item = Square> + '_ {
        self.path[..self.jumps as usize].iter().map(|&s| Square::new(s))
    }
}

/// Zobrist keys `[colour][king][square]` and the side-to-move key.
const ZOBRIST: ([[[u64; 32]; 2]; 2], u64) = {
    let mut keys = [[[0u64; 32]; 2]; 2];
    let mut state = 0xC4EC_4E25_0000_0001u64;
    let mut i = 0;
    while i < 128 {
        let (next, v) = splitmix(state);
        state = next;
        keys[i / 64][(i / 32) % 2][i % 32] = v;
        i += 1;
    }
    (keys, splitmix(state).1)
};

fn zkey(c: Color, king: bool, s: usize) -> u64 {
    ZOBRIST.0[c.index()][king as usize][s]
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

/// An English checkers position.
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

/// Why a setup string was refused (one line, naming the bad part).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Fields(#[from] SetupFieldsError),
    #[error("bad square '{0}' (expected 1 to 32, K before a king, or a range like 1-12)")]
    BadSquare(String),
    #[error("square {0} used twice")]
    Doubled(u32),
    #[error("a man on square {0}, its promotion row")]
    ManOnLastRow(u32),
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
            let m = Move {
                from: self.from,
                to: sq as u8,
                jumps: depth as u8,
                captured,
                path: self.path,
            };
            if !self.out.contains(&m) {
                self.out.push(m);
            }
        }
    }
}

impl Position {
    /// An empty board, Black to move.
    pub fn empty() -> Position {
        Position {
            by_color: [0; 2],
            kings: 0,
            side: Color::White,
            reversible: 0,
            hash: 0,
        }
        .with_side(Color::Black)
    }

    /// The same pieces with `c` to move.
    pub fn with_side(mut self, c: Color) -> Position {
        if c != self.side {
            self.side = c;
            self.hash ^= ZOBRIST.1;
        }
        self
    }

    /// The same position with the no-progress counter at `plies`.
    pub fn with_no_progress(mut self, plies: u16) -> Position {
        self.reversible = plies;
        self
    }

    /// Put a piece on an empty square.
    pub fn put(&mut self, s: Square, c: Color, king: bool) {
        self.by_color[c.index()] |= s.bb();
        if king {
            self.kings |= s.bb();
        }
        self.hash ^= zkey(c, king, s.index());
    }

    /// The squares of `c`'s men.
    pub fn men(&self, c: Color) -> Bitboard {
        self.by_color[c.index()] & !self.kings
    }

    /// The squares of `c`'s kings.
    pub fn kings(&self, c: Color) -> Bitboard {
        self.by_color[c.index()] & self.kings
    }

    fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The side to move's pieces that may step in `d`.
    fn steppers(&self, d: Dir) -> Bitboard {
        let mine = self.by_color[self.side.index()];
        if man_dirs(self.side) & (1 << d as u8) != 0 {
            mine
        } else {
            mine & self.kings
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
        let me = self.side;
        for s in squares(self.by_color[me.index()]) {
            let king = self.kings & s.bb() != 0;
            let mut jumps = Jumps {
                from: s.index() as u8,
                dirs: if king { 0b1111 } else { man_dirs(me) },
                empty: !self.occupied() | s.bb(),
                victims: self.by_color[me.opposite().index()],
                path: [0; MAX_JUMPS],
                out: &mut *out,
            };
            jumps.extend(s.index(), 0, 0);
        }
    }

    fn read_pieces(&mut self, c: Color, list: &str) -> Result<(), SetupError> {
        for tok in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let bad = || SetupError::BadSquare(cut(tok));
            let (king, body) = match tok.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest),
                None => (false, tok),
            };
            let number = |t: &str| {
                t.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=32).contains(n))
                    .ok_or_else(bad)
            };
            let (a, b) = match body.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => (number(body)?, number(body)?),
            };
            for n in a..=b {
                let s = square_of_number(n).ok_or_else(bad)?;
                if self.occupied() & s.bb() != 0 {
                    return Err(SetupError::Doubled(n));
                }
                if !king && PROMOTION_ROW[c.index()] & s.bb() != 0 {
                    return Err(SetupError::ManOnLastRow(n));
                }
                self.put(s, c, king);
            }
        }
        Ok(())
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
    fn variant_name(_: ()) -> &'static str {
        "standard"
    }
    fn variant_named(name: &str) -> Result<(), String> {
        match name.trim() {
            "standard" => Ok(()),
            other => Err(format!(
                "unknown variant '{other}' for checkers (it has one: standard)"
            )),
        }
    }
    fn start(_: ()) -> Position {
        Position::from_setup("B:W21-32:B1-12", ()).expect("the start position reads")
    }
    fn from_setup(text: &str, _: ()) -> Result<Position, SetupError> {
        let fields = split_setup(text)?;
        let mut pos = Position::empty().with_side(fields.side);
        for c in [Color::White, Color::Black] {
            pos.read_pieces(c, fields.pieces[c.index()])?;
        }
        pos.reversible = fields.counter;
        Ok(pos)
    }
    fn to_setup(&self) -> String {
        let list = |c: Color| {
            let mut pieces: Vec<(u32, bool)> = squares(self.by_color[c.index()])
                .map(|s| (square_number(s), self.kings & s.bb() != 0))
                .collect();
            pieces.sort();
            let texts: Vec<String> = pieces
                .iter()
                .map(|&(n, k)| format!("{}{n}", if k { "K" } else { "" }))
                .collect();
            texts.join(",")
        };
        let counter = if self.reversible > 0 {
            format!(":H{}", self.reversible)
        } else {
            String::new()
        };
        format!(
            "{}:W{}:B{}{counter}",
            self.side.letter(),
            list(Color::White),
            list(Color::Black)
        )
    }
    fn variant(&self) {}
    fn side_to_move(&self) -> Color {
        self.side
    }
    fn hash_key(&self) -> u64 {
        self.hash
    }
    fn no_progress(&self) -> u16 {
        self.reversible
    }
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.has_capture() {
            return self.captures_into(out);
        }
        let empty = !self.occupied();
        for d in Dir::ALL {
            for t in squares(shift(self.steppers(d), d) & empty) {
                out.push(Move {
                    from: NEIGHBOR[d.opposite() as usize][t.index()],
                    to: t.index() as u8,
                    jumps: 0,
                    captured: 0,
                    path: [0; MAX_JUMPS],
                });
            }
        }
    }
    fn has_capture(&self) -> bool {
        let me = self.side;
        let empty = !self.occupied();
        let enemy = self.by_color[me.opposite().index()];
        Dir::ALL.iter().any(|&d| {
            let movers = if man_dirs(me) & (1 << d as u8) != 0 {
                self.by_color[me.index()]
            } else {
                self.kings(me)
            };
            shift(shift(movers, d) & enemy, d) & empty != 0
        })
    }
    fn play_unchecked(&mut self, m: &Move) -> bool {
        let (me, them) = (self.side, self.side.opposite());
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
        self.hash ^= ZOBRIST.1;
        let irreversible = m.captured != 0 || !king;
        self.reversible = if irreversible {
            0
        } else {
            self.reversible.saturating_add(1)
        };
        irreversible
    }
    /// `9-13` for a step, every landing for a capture (`9x18x27`).
    fn move_text(&self, m: &Move) -> String {
        let mut t = square_number(m.from()).to_string();
        if m.captured == 0 {
            t.push_str(&format!("-{}", square_number(m.to())));
        }
        for s in m.landings() {
            t.push_str(&format!("x{}", square_number(s)));
        }
        t
    }
    /// A move's full text, or a capture's start and end (`9x27`) when one
    /// capture joins them.
    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let t = text.trim();
        let (is_capture, parts) = move_tokens(t)?;
        let mut numbers = Vec::with_capacity(parts.len());
        for p in &parts {
            let n = p.trim().parse::<u32>().ok().filter(|n| (1..=32).contains(n));
            numbers.push(
                n.ok_or_else(|| ParseMoveError::Syntax(t.into(), format!("'{p}' is not a square 1 to 32")))?,
            );
        }
        let legal = self.legal_moves();
        let (first, last) = (numbers[0], numbers[numbers.len() - 1]);
        let full: Vec<&Move> = legal
            .iter()
            .filter(|m| self.move_text(m) == numbers_text(&numbers, is_capture))
            .collect();
        let ends: Vec<&Move> = legal
            .iter()
            .filter(|m| (m.captured != 0) == is_capture)
            .filter(|m| square_number(m.from()) == first && square_number(m.to()) == last)
            .collect();
        let texts = |ms: &[&Move]| ms.iter().map(|m| self.move_text(m)).collect::<Vec<_>>();
        match (full.as_slice(), ends.as_slice()) {
            ([m, ..], _) | ([], [m]) => Ok(**m),
            ([], []) => Err(ParseMoveError::Illegal(
                t.into(),
                texts(&legal.iter().collect::<Vec<_>>()),
            )),
            ([], many) => Err(ParseMoveError::Ambiguous(t.into(), texts(many))),
        }
    }
    fn piece_balance(&self, c: Color) -> f32 {
        let count = |c: Color| self.by_color[c.index()].count_ones() as f32;
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
        let c = [Color::White, Color::Black]
            .into_iter()
            .find(|c| self.by_color[c.index()] & s.bb() != 0)?;
        Some((c, (self.kings & s.bb() != 0) as usize))
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        click_path(m.from(), m.landings(), m.to())
    }
}

/// A move's text from its square numbers, as `move_text` writes it.
fn numbers_text(numbers: &[u32], is_capture: bool) -> String {
    let texts: Vec<String> = numbers.iter().map(u32::to_string).collect();
    texts.join(if is_capture { "x" } else { "-" })
}
