//! The game interface: what every layer above the rules engines (perft,
//! search, self-play, notation, the front ends) may ask of a game.
//!
//! A game is its position type: [`GamePosition`] is implemented by
//! [`crate::game::damone::Position`] (Damone) and [`crate::game::italian::Position`]
//! (Italian draughts). Code that must be fast is generic over it
//! (`perft::<P>`, monomorphised, no virtual calls); code that starts from a
//! name (a config's `game` key, `--game`) matches on [`GameKind`] once and
//! calls the generic code with the game's type.
//!
//! Nothing here assumes 32 squares, diagonal moves or a fixed move size:
//! a move is any small `Copy` value the position generates and plays, and
//! squares appear only inside each game's own notation. Dameo (64 squares,
//! line moves, orthogonal long captures) implements the same trait with a
//! `u64` board and its own move type; see ARCHITECTURE.md.

use super::record::Outcome;
pub use super::registry::{GameId, GameKind, UnknownGame, GAME_NAMES};
use super::types::Color;
use std::fmt;
use std::hash::Hash;

impl GameKind {
    /// The game a file's variant byte belongs to
    /// ([`GamePosition::variant_code`]).
    pub fn of_variant_code(code: u8) -> Option<GameKind> {
        GameKind::ALL
            .into_iter()
            .find(|&kind| crate::with_game!(kind, P => P::variant_of_code(code).is_some()))
    }
}

/// A stored position's variant byte read by `P`'s reader: its variant, or
/// a one-line error naming the game the byte belongs to.
pub fn variant_from_code<P: GamePosition>(code: u8) -> Result<P::Variant, String> {
    P::variant_of_code(code).ok_or_else(|| match GameKind::of_variant_code(code) {
        Some(other) => format!("it holds {other} positions, and this is a {} run", P::ID),
        None => format!("unknown variant code {code}"),
    })
}

/// A variant's name as files that store names write it: Damone's bare
/// (`standard`, as before there were other games), another game's
/// prefixed with the game (`italian:standard`).
pub fn stored_variant_name<P: GamePosition>(variant: P::Variant) -> String {
    if P::ID == GameKind::Damone {
        P::variant_name(variant).to_string()
    } else {
        format!("{}:{}", P::ID, P::variant_name(variant))
    }
}

/// Read a name written by [`stored_variant_name`]; the error names the
/// game it belongs to when that is not `P`'s.
pub fn parse_stored_variant<P: GamePosition>(text: &str) -> Result<P::Variant, String> {
    let (kind, name) = match text.split_once(':') {
        Some((game, name)) => (GameId::named(game)?, name),
        None => (GameKind::Damone.id(), text),
    };
    if kind != P::ID {
        return Err(format!("it holds {kind} games, and this is a {} run", P::ID));
    }
    P::variant_named(name)
}

/// A position of one game, with everything the layers above need.
///
/// Moves are generated into a caller's buffer (no allocation per node) and
/// played in place; `play_unchecked` says whether the move was irreversible
/// so that a game record can forget its repetition history.
pub trait GamePosition: Copy + Eq + Hash + Send + Sync + fmt::Debug + fmt::Display + 'static {
    /// A legal move: equal moves lead to equal positions.
    type Move: Copy + Eq + Hash + Send + Sync + fmt::Debug + 'static;
    /// The game's rule variants (Damone has three; `()` for a game with none).
    type Variant: Copy + Eq + Default + Send + Sync + fmt::Debug + 'static;
    /// Why a setup string was refused (one line, naming the bad field).
    type SetupError: std::error::Error + Send + Sync + 'static;

    /// Which game this is: its name in configs and files, and its title
    /// (a game of the list: `GameKind::Italian.id()`; another crate's
    /// game: `GameId::new("checkers", "English checkers")`).
    const ID: GameId;
    /// The number of occurrences of one position (same side to move) that
    /// draws the game; 3 by default (a game whose positions never recur
    /// keeps it: it never applies).
    const REPETITION_DRAW: usize = 3;

    /// The byte that files (samples, games in flight, shards) write for a
    /// variant of this game. Codes are unique across games (Damone 0-2,
    /// Italian 3, Dameo 4; another crate's game takes one of 128-255), so
    /// every stored position names its game.
    fn variant_code(variant: Self::Variant) -> u8;
    /// The variant a file's byte names, if it is one of this game's.
    fn variant_of_code(code: u8) -> Option<Self::Variant>;
    /// A variant's name, as `variant_named` reads it; a game of one
    /// variant keeps the default, `standard`.
    fn variant_name(variant: Self::Variant) -> &'static str {
        let _ = variant;
        "standard"
    }
    /// Every variant's name, `standard` first (for help texts).
    const VARIANT_NAMES: &'static [&'static str] = &["standard"];
    /// The variant of this name (every game has `standard`); the error is
    /// one line naming the game's variants. The default, for a game of one
    /// variant, reads `standard` alone, as the default variant.
    fn variant_named(name: &str) -> Result<Self::Variant, String> {
        match name.trim() {
            "standard" => Ok(Self::Variant::default()),
            other => Err(match Self::VARIANT_NAMES {
                [one] => format!("unknown variant '{other}' for {} (it has one: {one})", Self::ID),
                names => format!(
                    "unknown variant '{other}' for {} (it has: {})",
                    Self::ID,
                    names.join(", ")
                ),
            }),
        }
    }
    /// The name of a variant in a PDN record's `Variant` tag (the game's
    /// name unless it has variants to tell apart).
    fn pdn_variant(variant: Self::Variant) -> String {
        let _ = variant;
        Self::ID.name().to_string()
    }
    /// The start position of a variant.
    fn start(variant: Self::Variant) -> Self;
    /// The position a setup string describes (each game's FEN-like notation).
    fn from_setup(text: &str, variant: Self::Variant) -> Result<Self, Self::SetupError>;
    /// The setup string of this position; `from_setup` reads it back.
    fn to_setup(&self) -> String;
    /// The variant the position is played under.
    fn variant(&self) -> Self::Variant;

    /// The side to move.
    fn side_to_move(&self) -> Color;
    /// A hash of the pieces and the side to move (not the counters).
    fn hash_key(&self) -> u64;
    /// Plies since the last irreversible move, as the no-progress draw
    /// counts them; a game without a no-progress draw keeps the default,
    /// 0 (the draw then never applies).
    fn no_progress(&self) -> u16 {
        0
    }

    /// Every legal move into `out` (cleared first).
    fn legal_moves_into(&self, out: &mut Vec<Self::Move>);
    /// Every legal move.
    fn legal_moves(&self) -> Vec<Self::Move> {
        let mut out = Vec::with_capacity(32);
        self.legal_moves_into(&mut out);
        out
    }
    /// The number of legal moves (`scratch` may be used to generate them);
    /// games override it where counting is cheaper than generating.
    fn count_moves(&self, scratch: &mut Vec<Self::Move>) -> u64 {
        self.legal_moves_into(scratch);
        scratch.len() as u64
    }
    /// True when the side to move has a legal move (`scratch` may be used
    /// to generate them); games override it where that is cheaper than
    /// counting the moves.
    fn has_moves(&self, scratch: &mut Vec<Self::Move>) -> bool {
        self.count_moves(scratch) > 0
    }
    /// Perft counting each capture path apart, where the game's published
    /// counts do (Italian draughts: a capture that takes the same pieces
    /// along two paths counts twice); None for a game whose counts tell
    /// moves apart by start, end and captured pieces only (the default).
    fn perft_paths(&self, depth: u32) -> Option<u64> {
        let _ = depth;
        None
    }
    /// True when the side to move has a capture (the tactical check
    /// follows capture exchanges to their end); a game without captures
    /// keeps the default, `false`.
    fn has_capture(&self) -> bool {
        false
    }
    /// Play a legal move; true when it was irreversible (no earlier
    /// position can recur after it).
    fn play_unchecked(&mut self, m: &Self::Move) -> bool;
    /// The position after a legal move.
    fn after(&self, m: &Self::Move) -> Self {
        let mut p = *self;
        p.play_unchecked(m);
        p
    }
    /// A result the rules give before the moves are looked at (Damone's
    /// `damone-hunt`); `None` in most games.
    fn decided(&self) -> Option<Outcome> {
        None
    }

    /// A move's text in this position (the game's notation).
    fn move_text(&self, m: &Self::Move) -> String;
    /// Read a move's text and match it against the legal moves; the error
    /// lists the legal moves or the candidates of an ambiguous text.
    fn parse_move(&self, text: &str) -> Result<Self::Move, super::ParseMoveError>;

    /// `c`'s pieces minus the opponent's, scaled into about [-1, 1]: the
    /// material measure of the network's auxiliary target and the search's
    /// material utility. A game without material keeps the default, 0 (the
    /// target then teaches nothing; turn `model.aux_heads` off).
    fn piece_balance(&self, c: Color) -> f32 {
        let _ = c;
        0.0
    }
    /// `c`'s material in conventional units (a man is 100): the baseline
    /// evaluation and the tactical check count material this way. A game
    /// without material keeps the default, 0 (the tactical check then
    /// finds nothing to win; set `search.tactics_margin = 0`).
    fn material(&self, c: Color) -> i32 {
        let _ = c;
        0
    }

    /// The positions `damone bench` measures: setup strings of the
    /// standard variant (the start and a few middle games or endings),
    /// each with the plies its perft is counted deeper (or, negative,
    /// shallower) than the depth asked, so that each takes about as long
    /// as a Damone position at that depth. None by default (`damone
    /// bench` measures the games of the list).
    const BENCH_SETUPS: &'static [(&'static str, i32)] = &[];

    /// The game's kinds of piece, lowest first (for boards and legends).
    const PIECE_KINDS: &'static [&'static str];
    /// A letter per kind of piece, as plain-text boards show White's
    /// (Black's in lower case).
    const PIECE_LETTERS: &'static [char];
    /// Moves written in the game's notation, as a help text shows them
    /// (a step, a capture).
    const MOVE_EXAMPLES: &'static str;
    /// The board drawn for people (plain-text boards): its files and
    /// ranks; the default is the 8x8 board.
    const GRID: (i32, i32) = (8, 8);
    /// True for the cells of the board ([`GRID`](Self::GRID)) that pieces
    /// stand on (file and rank 0-based from a1).
    fn playable(file: i32, rank: i32) -> bool;
    /// The cell's number where the game's notation numbers its squares
    /// (Italian draughts' 1-32), for boards drawn in that notation; None
    /// where the notation names cells by file and rank (the default).
    fn cell_number(file: i32, rank: i32) -> Option<u32> {
        let _ = (file, rank);
        None
    }
    /// The piece on a cell: its colour and kind (an index into
    /// `PIECE_KINDS`); None for an empty or unplayable cell.
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)>;
    /// The cells a move passes through as a person clicks it: its start,
    /// then each landing cell of a capture or the end of a step (file and
    /// rank 0-based from a1).
    fn move_path(m: &Self::Move) -> Vec<(i32, i32)>;
}

/// The position a setup string gives (or the variant's start without one),
/// with the variant named; errors say which part was wrong.
pub fn setup_or_start<P: GamePosition>(setup: Option<&str>, variant: &str) -> Result<P, String> {
    let variant = P::variant_named(variant)?;
    match setup {
        None => Ok(P::start(variant)),
        Some(text) => P::from_setup(text, variant)
            .map_err(|e| format!("invalid FEN '{}': {e}", crate::util::clip(text, 80))),
    }
}
