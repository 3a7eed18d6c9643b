//! Position -> input planes and move <-> policy index, in the mover's
//! perspective (the board is turned 180 degrees when Black is to move), for
//! every game ([`Board`]) on its board ([`BoardCells`]): the shipped games'
//! 8x8 boards (the 32 dark squares of Damone and Italian draughts, Dameo's
//! 64 cells) or any other of up to 128 cells.
//!
//! ## Input planes (`Inputs::planes()` x rows x cols, plane-major, row = board rank)
//!
//! Two sets, chosen by the model's `inputs` ([`Inputs`]): `basic` is planes
//! 0-8, `draughts` adds planes 9-18, facts about captures and material that
//! the network would otherwise have to learn to compute.
//!
//! | plane | content |
//! | --- | --- |
//! | 0, 1, 2 | the mover's pieces by kind: Damone's Pedine, Damas, Damones; Italian and Dameo men, kings (plane 2 empty) |
//! | 3, 4, 5 | the opponent's, the same |
//! | 6 | all ones if the position has occurred before (repetition) |
//! | 7 | no-progress plies / no-progress limit, on every square |
//! | 8 | ones on the playing cells (the 32 dark squares, all 64 in Dameo) |
//! | 9 | the mover's pieces that start a legal capture (compulsory captures) |
//! | 10 | the opponent's pieces that a legal capture of the mover takes |
//! | 11 | the opponent's pieces that could capture, were it the opponent's turn |
//! | 12 | the mover's pieces under threat: taken by such a capture |
//! | 13, 14, 15 | the mover's pieces of each kind counted, over a side's pieces at the start (8 in Damone, 12 in Italian, 18 in Dameo), on every square |
//! | 16, 17, 18 | the opponent's, the same |
//!
//! ## Policy encoding (`BoardCells::policy_size` logits: 4,096 on the 8x8 boards)
//!
//! A move is identified by its start cell, its end cell and its captured
//! set; cells are numbered in the mover's perspective over the game's
//! playing cells (`n` of them, lowest cell first: the 32 dark squares
//! index 0..32, Dameo's 64 cells `rank * 8 + file`). Its index is `slot *
//! n * n + from * n + to`. Moves that share start and end (only captures
//! can) are told apart by `slot`: they are ordered by captured set (as a
//! board in the mover's perspective) and take slots 0, 1, ... up to the
//! board's slots (4 on the dark squares, 1 in Dameo); moves beyond the
//! last slot share it.
//! `examples/collide.rs` counts how often that happens: no position in 20
//! million random-playout positions of Damone had two legal moves sharing
//! start and end; Dameo's figure is in docs/training.md.

use crate::game::grid::{cells128, CELL_PAIRS};
pub use crate::game::grid::{dark_to_cells, Board, BoardCells, Symmetry, DARK_CELLS};
use crate::game::{Color, Game, Square};
use serde::{Deserialize, Serialize};

/// Version of the input planes and the policy index: stored in training
/// samples, checkpoints and player files, and checked when they are read,
/// so that a change of either can never silently mix old data with new.
/// Bump it with any change to this module's tables.
pub const ENCODING_VERSION: u32 = 1;
/// The most input planes of any [`Inputs`] set.
pub const MAX_PLANES: usize = 19;

/// Which input planes the network reads (`model.inputs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inputs {
    /// Pieces, repetition, no-progress and the playing squares (planes 0-8).
    #[default]
    Basic,
    /// The basic planes and draughts-specific ones: compulsory captures,
    /// pieces under capture threat, material by rank (planes 0-18).
    Draughts,
}

impl Inputs {
    /// Every set, in order of size.
    pub const ALL: [Inputs; 2] = [Inputs::Basic, Inputs::Draughts];

    /// Number of input planes of this set.
    pub fn planes(self) -> usize {
        match self {
            Inputs::Basic => 9,
            Inputs::Draughts => MAX_PLANES,
        }
    }

    /// The set with `n` planes (the width of a network's first layer).
    pub fn with_planes(n: usize) -> Option<Inputs> {
        Inputs::ALL.into_iter().find(|i| i.planes() == n)
    }

    /// The name used in configuration files.
    pub fn name(self) -> &'static str {
        match self {
            Inputs::Basic => "basic",
            Inputs::Draughts => "draughts",
        }
    }
}

/// Size of the policy head on the 8x8 boards of the shipped games
/// ([`BoardCells::policy_size`] of `dark` and `all`); other boards have
/// their own.
pub const POLICY_SIZE: usize = CELL_PAIRS;
/// Alternative slots on the 32 dark squares for moves that share start
/// and end squares.
pub const SLOTS: usize = POLICY_SIZE / 1024;

/// A compact, perspective-oriented description of a position: everything the
/// network sees. Boards are cells of the game's board (bit `rank * cols +
/// file`) in the mover's perspective.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    /// Mover's pieces by kind, then the opponent's.
    pub boards: [u128; 6],
    /// The position occurred before.
    pub repeated: bool,
    /// No-progress plies divided by the limit, in [0, 1].
    pub no_progress: f32,
    /// Captures, in the mover's perspective: the mover's capturing pieces,
    /// the opponent's pieces they can take, then the same with the
    /// opponent to move (planes 9-12). Found only for the draughts inputs
    /// (move generation for both sides); empty for the basic ones.
    pub captures: [u128; 4],
    /// A side's pieces at the start ([`Board::PIECES_PER_SIDE`]): the
    /// material planes count in these units.
    pub pieces_per_side: f32,
    /// The playing cells in the mover's perspective (plane 8).
    pub playing: u128,
    /// The board: its shape and playing cells.
    pub board: BoardCells,
}

/// The pieces of the side to move that start a legal capture, and the
/// pieces such captures take (both empty when it has none).
fn capture_cells<P: Board>(pos: &P) -> (u128, u128) {
    if !pos.has_capture() {
        return (0, 0);
    }
    pos.legal_moves().iter().fold((0, 0), |(from, taken), m| {
        let (start, _, captured) = P::move_cells(m);
        (from | 1 << start, taken | captured)
    })
}

/// A cell in the mover's perspective (turned for Black where the game's
/// view turns: [`Board::TURN_FOR_BLACK`]).
#[inline]
fn orient<P: Board>(cell: usize, me: Color) -> usize {
    match me {
        Color::Black if P::TURN_FOR_BLACK => P::CELLS.area() - 1 - cell,
        _ => cell,
    }
}

#[inline]
fn orient_cells<P: Board>(b: u128, me: Color) -> u128 {
    match me {
        Color::Black if P::TURN_FOR_BLACK => P::CELLS.turn(b),
        _ => b,
    }
}

impl Observation {
    /// Observe the current position of a game for the input set `inputs`.
    pub fn of_game<P: Board>(game: &Game<P>, inputs: Inputs) -> Observation {
        let limit = game.rules().no_progress_plies.max(1) as f32;
        Observation::new(
            game.position(),
            game.repetitions() > 1,
            game.position().no_progress() as f32 / limit,
            inputs,
        )
    }

    /// Observe a position with given repetition flag and no-progress
    /// fraction for the input set `inputs`.
    pub fn new<P: Board>(pos: &P, repeated: bool, no_progress: f32, inputs: Inputs) -> Observation {
        let me = pos.side_to_move();
        let them = me.opposite();
        let mut boards = [0; 6];
        for (i, (mine, theirs)) in pos
            .kind_cells(me)
            .into_iter()
            .zip(pos.kind_cells(them))
            .enumerate()
        {
            boards[i] = orient_cells::<P>(mine, me);
            boards[3 + i] = orient_cells::<P>(theirs, me);
        }
        let mut captures = [0; 4];
        if inputs == Inputs::Draughts {
            let (mine_capture, theirs_taken) = capture_cells(pos);
            let (theirs_capture, mine_taken) = capture_cells(&pos.with_side_to_move(them));
            captures =
                [mine_capture, theirs_taken, theirs_capture, mine_taken].map(|b| orient_cells::<P>(b, me));
        }
        Observation {
            boards,
            repeated,
            no_progress: no_progress.clamp(0.0, 1.0),
            captures,
            pieces_per_side: P::PIECES_PER_SIDE,
            playing: orient_cells::<P>(P::CELLS.mask(), me),
            board: P::CELLS,
        }
    }

    /// The observation of the position under `symmetry` (a symmetry of
    /// the board's playing cells, [`Board::SYMMETRY`]).
    pub fn under(&self, symmetry: Symmetry) -> Observation {
        let mut o = *self;
        for b in o.boards.iter_mut().chain(o.captures.iter_mut()) {
            *b = self.board.apply(symmetry, *b);
        }
        o.playing = self.board.apply(symmetry, o.playing);
        o
    }

    /// Floats of one plane: the board's cells.
    pub fn plane_len(&self) -> usize {
        self.board.area()
    }

    /// Write the planes of the set `inputs` into `out` (length
    /// `inputs.planes() * plane_len()`); the observation must have been
    /// made for that set.
    pub fn write_planes(&self, inputs: Inputs, out: &mut [f32]) {
        let area = self.board.area();
        debug_assert_eq!(out.len(), inputs.planes() * area);
        out.fill(0.0);
        let mut light = |plane: usize, b: u128| {
            for c in cells128(b) {
                out[plane * area + c] = 1.0;
            }
        };
        for (p, &b) in self.boards.iter().enumerate() {
            light(p, b);
        }
        light(8, self.playing);
        if inputs == Inputs::Draughts {
            for (p, &b) in self.captures.iter().enumerate() {
                light(9 + p, b);
            }
        }
        if self.repeated {
            out[6 * area..7 * area].fill(1.0);
        }
        out[7 * area..8 * area].fill(self.no_progress);
        if inputs == Inputs::Basic {
            return;
        }
        for (p, &b) in self.boards.iter().enumerate() {
            out[(13 + p) * area..(14 + p) * area].fill(b.count_ones() as f32 / self.pieces_per_side);
        }
    }
}

/// Policy index of each legal move of `pos` (same order as `moves`).
pub fn policy_indices<P: Board>(pos: &P, moves: &[P::Move]) -> Vec<u16> {
    let mut out = Vec::with_capacity(moves.len());
    policy_indices_into(pos, moves, &mut out);
    out
}

/// [`policy_indices`] into a buffer (cleared first), with no other
/// allocation: for callers that step many games and keep a buffer each.
pub fn policy_indices_into<P: Board>(pos: &P, moves: &[P::Move], out: &mut Vec<u16>) {
    let me = pos.side_to_move();
    let board = P::CELLS;
    let (n, pairs) = (board.count(), board.pairs());
    let key = |m: &P::Move| orient_cells::<P>(P::move_cells(m).2, me);
    out.clear();
    out.extend(moves.iter().map(|m| {
        let (from, to, _) = P::move_cells(m);
        (board.number(orient::<P>(from, me)) * n + board.number(orient::<P>(to, me))) as u16
    }));
    // Moves sharing start and end squares (captures only) take slots in
    // the order of their captured sets; `out[j] % pairs` is move j's cells.
    for i in 0..moves.len() {
        let base = out[i] as usize % pairs;
        let slot = (0..moves.len())
            .filter(|&j| j != i && out[j] as usize % pairs == base && key(&moves[j]) < key(&moves[i]))
            .count();
        out[i] = (slot.min(board.slots() - 1) * pairs + base) as u16;
    }
}

/// The policy index on `board` under `symmetry` (a symmetry of its
/// playing cells, [`Board::SYMMETRY`]).
pub fn index_under(board: BoardCells, symmetry: Symmetry, idx: u16) -> u16 {
    if symmetry == Symmetry::None {
        return idx;
    }
    let idx = idx as usize;
    if board == BoardCells::DARK && symmetry == Symmetry::Diagonal {
        let slot = idx / 1024;
        let from = Square::new(((idx % 1024) / 32) as u8).reflect().index();
        let to = Square::new((idx % 32) as u8).reflect().index();
        return (slot * 1024 + from * 32 + to) as u16;
    }
    let (n, pairs) = (board.count(), board.pairs());
    let number_under = |k: usize| {
        let cell = board.cells().nth(k).expect("a number below the playing cells'");
        board.number(board.apply(symmetry, 1 << cell).trailing_zeros() as usize)
    };
    let base = idx % pairs;
    (idx / pairs * pairs + number_under(base / n) * n + number_under(base % n)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::grid::cell;
    use crate::game::{
        damone::{Move, Position, Variant},
        DrawRules, GamePosition,
    };

    /// A piece on dark square `i` lights cell `DARK_CELLS[i]` of the
    /// planes, the cell the bilinear policy head reads for square `i`.
    #[test]
    fn dark_cells_are_where_the_planes_put_the_squares() {
        let mut seen = [false; 64];
        for (i, &c) in DARK_CELLS.iter().enumerate() {
            let obs = Observation {
                boards: [1 << DARK_CELLS[i], 0, 0, 0, 0, 0],
                repeated: false,
                no_progress: 0.0,
                captures: [0; 4],
                pieces_per_side: 8.0,
                playing: BoardCells::DARK.mask(),
                board: BoardCells::DARK,
            };
            let mut planes = vec![0.0; Inputs::Basic.planes() * 64];
            obs.write_planes(Inputs::Basic, &mut planes);
            let lit: Vec<usize> = (0..64).filter(|&k| planes[k] == 1.0).collect();
            assert_eq!(lit, vec![c], "square {i}");
            assert!(
                !seen[c] && planes[8 * 64 + c] == 1.0,
                "square {i}: a playing square once"
            );
            seen[c] = true;
        }
    }

    #[test]
    fn indices_are_distinct_and_reflect_consistently() {
        let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
        let pos = *g.position();
        let moves = pos.legal_moves();
        let idx = policy_indices(&pos, &moves);
        let mut s = idx.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), moves.len());
        // Reflecting the position and its moves gives the reflected indices,
        // by the dark board's formula and by the general path.
        let r = pos.reflect();
        let rmoves: Vec<Move> = moves.iter().map(|m| m.map_cells(Square::reflect)).collect();
        let ridx = policy_indices(&r, &rmoves);
        for (a, b) in idx.iter().zip(&ridx) {
            assert_eq!(index_under(BoardCells::DARK, Symmetry::Diagonal, *a), *b);
            let general = BoardCells::dark(8, 8).with_slots(3);
            let three = |i: u16| (i as usize % 1024 + (i as usize / 1024).min(2) * 1024) as u16;
            assert_eq!(
                index_under(general, Symmetry::Diagonal, three(*a)),
                three(*b),
                "the general path"
            );
        }
        assert_eq!(
            Observation::new(&pos, false, 0.0, Inputs::Basic).under(Symmetry::Diagonal),
            Observation::new(&r, false, 0.0, Inputs::Basic)
        );
    }

    #[test]
    fn draughts_planes_mark_legal_captures_threats_and_material() {
        // White: Pedina c4, Dama e4; Black: Pedina d5. Both White pieces
        // could take d5, but the rules make the Dama take; Black, were it to
        // move, could take the Pedina on c4 but not the Dama.
        let pos = Position::from_fen("W:Wc4,De4:Bd5", Variant::Standard).unwrap();
        let obs = Observation::new(&pos, false, 0.0, Inputs::Draughts);
        let mut planes = vec![0.0; Inputs::Draughts.planes() * 64];
        obs.write_planes(Inputs::Draughts, &mut planes);
        let on = |plane: usize| -> Vec<String> {
            let mut v: Vec<String> = Square::all()
                .filter(|&s| planes[plane * 64 + cell(s)] == 1.0)
                .map(|s| s.to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(on(9), ["e4"]);
        assert_eq!(on(10), ["d5"]);
        assert_eq!(on(11), ["d5"]);
        assert_eq!(on(12), ["c4"]);
        let counts: Vec<f32> = (13..19).map(|p| planes[p * 64 + 5]).collect();
        assert_eq!(counts, [0.125, 0.125, 0.0, 0.125, 0.0, 0.0]);
        // The basic set is the first nine planes of the draughts set.
        let mut basic = vec![0.0; Inputs::Basic.planes() * 64];
        Observation::new(&pos, false, 0.0, Inputs::Basic).write_planes(Inputs::Basic, &mut basic);
        assert_eq!(basic[..], planes[..basic.len()]);
        assert_eq!(Inputs::with_planes(9), Some(Inputs::Basic));
        assert_eq!(Inputs::with_planes(19), Some(Inputs::Draughts));
        assert_eq!(Inputs::with_planes(10), None);
    }

    #[test]
    fn observations_follow_the_board_symmetries() {
        // Seen from either side, and reflected, a position gives the same
        // (reflected) observation, capture planes included.
        let games = crate::net::bench_games(crate::game::damone::Position::start(Default::default()), 400, 7);
        let mut with_captures = 0;
        for g in &games {
            let pos = *g.position();
            let obs = Observation::new(&pos, false, 0.25, Inputs::Draughts);
            with_captures += (obs.captures != [0; 4]) as usize;
            assert_eq!(
                Observation::new(&pos.rotate_swap(), false, 0.25, Inputs::Draughts),
                obs
            );
            assert_eq!(
                Observation::new(&pos.reflect(), false, 0.25, Inputs::Draughts),
                obs.under(Symmetry::Diagonal)
            );
        }
        assert!(
            with_captures > 40,
            "{with_captures} of 400 positions had captures"
        );
    }

    /// A board of 10x10 cells: its planes, its turn for Black and its
    /// reflection, its names.
    #[test]
    fn any_board_has_planes_turns_and_a_name() {
        let ten = BoardCells::light(10, 10);
        assert_eq!(
            (ten.rows(), ten.cols(), ten.area(), ten.count()),
            (10, 10, 100, 50)
        );
        assert_eq!((ten.slots(), ten.policy_size()), (1, 2500));
        assert!(ten.mask() & 1 == 1, "a1 plays on the light board");
        assert_eq!(ten.turn(1), 1 << 99);
        assert_eq!(ten.turn(ten.mask()), ten.mask());
        assert_eq!(ten.reflect(ten.mask()), ten.mask());
        assert_eq!(ten.reflect(1), 1 << 99, "a1 goes to j10");
        assert_eq!(ten.reflect(1 << 9), 1 << 9, "j1 is on the axis");
        for name in [
            "dark",
            "all",
            "10x10-light",
            "10x10-dark",
            "9x7",
            "6x6-x7:2",
            "12x10-light:3",
        ] {
            let board = BoardCells::parse(name).unwrap();
            assert_eq!(board.name(), name);
            let json = serde_json::to_string(&board).unwrap();
            assert_eq!(serde_json::from_str::<BoardCells>(&json).unwrap(), board);
        }
        for bad in [
            "12x12", "0x5", "8x8-x0", "2x2-x1f", "8x8:0", "8x8:17", "eight", "8by8",
        ] {
            assert!(BoardCells::parse(bad).is_err(), "{bad}");
        }
        let obs = Observation {
            boards: [1 << 11, 0, 0, 1 << 88, 0, 0],
            repeated: false,
            no_progress: 0.5,
            captures: [0; 4],
            pieces_per_side: 20.0,
            playing: ten.mask(),
            board: ten,
        };
        let mut planes = vec![0.0; Inputs::Basic.planes() * 100];
        obs.write_planes(Inputs::Basic, &mut planes);
        assert_eq!(planes[11], 1.0);
        assert_eq!(planes[3 * 100 + 88], 1.0);
        assert_eq!(planes[7 * 100 + 42], 0.5);
        assert_eq!(planes[8 * 100..9 * 100].iter().sum::<f32>(), 50.0);
    }

    #[test]
    fn black_sees_the_board_turned() {
        // The start position is symmetric under the turn with colours swapped.
        let p = Position::start(Variant::Standard);
        let mut b = p;
        b.set_side(Color::Black);
        let ow = Observation::new(&p, false, 0.0, Inputs::Basic);
        let ob = Observation::new(&b, false, 0.0, Inputs::Basic);
        assert_eq!(ow.boards[0..3], ob.boards[0..3]);
        assert_eq!(ow.boards[3..6], ob.boards[3..6]);
    }
}
