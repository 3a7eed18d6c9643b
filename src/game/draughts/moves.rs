//! One move type for the games of men and kings, its text, and one reader
//! of typed moves against the legal moves.

use super::cells::{Cell, CellSet};
use crate::game::notation::{move_tokens, ParseMoveError};
use crate::game::types::{Bitboard, Square};
use std::marker::PhantomData;

/// A move of a piece that steps or jumps: its start and end cells, the
/// cells of the pieces it takes and, for a capture, its landing cells in
/// order (at most `N`). Two moves are one move when they start, end and
/// capture alike (they lead to the same position; the landing path is for
/// notation). `C` is the game's cell type, `S` its cell set.
#[derive(Clone, Copy, Debug)]
pub struct JumpMove<C, S, const N: usize> {
    from: u8,
    to: u8,
    njumps: u8,
    captured: S,
    path: [u8; N],
    cell: PhantomData<fn() -> C>,
}

impl<C, S: PartialEq, const N: usize> PartialEq for JumpMove<C, S, N> {
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        (self.from, self.to) == (o.from, o.to) && self.captured == o.captured
    }
}
impl<C, S: Eq, const N: usize> Eq for JumpMove<C, S, N> {}
impl<C, S: std::hash::Hash, const N: usize> std::hash::Hash for JumpMove<C, S, N> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.from, self.to, &self.captured).hash(h)
    }
}

impl<C: Cell, S: CellSet, const N: usize> JumpMove<C, S, N> {
    /// A move that takes nothing, from `from` to `to` (a step, a king's
    /// slide, Dameo's line move).
    #[inline]
    pub fn step(from: C, to: C) -> Self {
        Self::from_parts(from.index() as u8, to.index() as u8, S::EMPTY, [0; N], 0)
    }

    /// A move from its parts: start and end indices, the captured set and
    /// the first `njumps` entries of `path` as its landing indices (the
    /// capture searches' hot path; the last landing is `to`).
    #[inline(always)]
    pub fn from_parts(from: u8, to: u8, captured: S, path: [u8; N], njumps: u8) -> Self {
        JumpMove {
            from,
            to,
            njumps,
            captured,
            path,
            cell: PhantomData,
        }
    }

    /// Start cell.
    #[inline(always)]
    pub fn from(&self) -> C {
        C::at(self.from as usize)
    }
    /// End cell.
    #[inline(always)]
    pub fn to(&self) -> C {
        C::at(self.to as usize)
    }
    /// Cells of the captured pieces.
    #[inline(always)]
    pub fn captured(&self) -> S {
        self.captured
    }
    /// True for a capture.
    #[inline(always)]
    pub fn is_capture(&self) -> bool {
        !self.captured.is_empty()
    }
    /// The number of jumps (0 for a move that takes nothing).
    #[inline(always)]
    pub fn jumps(&self) -> usize {
        self.njumps as usize
    }
    /// Landing cells of a capture, in order (none for a move that takes
    /// nothing).
    pub fn landings(&self) -> impl Iterator<Item = C> + '_ {
        self.path[..self.njumps as usize]
            .iter()
            .map(|&c| C::at(c as usize))
    }

    /// The move with every cell mapped by `f` (a symmetry of the board).
    pub fn map_cells(&self, f: impl Fn(C) -> C) -> Self {
        let at = |i: u8| f(C::at(i as usize)).index() as u8;
        let mut m = *self;
        m.from = at(self.from);
        m.to = at(self.to);
        m.captured = self
            .captured
            .iter()
            .fold(S::EMPTY, |s, c| s | S::single(f(C::at(c)).index()));
        for i in 0..self.njumps as usize {
            m.path[i] = at(self.path[i]);
        }
        m
    }

    /// The move's text with cells named by `name`: `22-18` for a move that
    /// takes nothing, every landing for a capture (`21x14x7`).
    pub fn text(&self, name: impl Fn(C) -> String) -> String {
        let mut t = name(self.from());
        if !self.is_capture() {
            t.push('-');
            t.push_str(&name(self.to()));
        }
        for c in self.landings() {
            t.push('x');
            t.push_str(&name(c));
        }
        t
    }
}

/// Read a typed move against the legal moves `legal`: `from-to`, a
/// capture's full path `fromxlandingx...xto`, or a capture's start and end
/// when only one legal capture joins them. `cell` reads one cell's name
/// (its error says what a cell looks like); `jumped` gives the pieces a
/// full path of three or more cells takes (`None`: it is no path of
/// jumps), so that any path taking the same pieces names the move; `text`
/// writes a move, for the errors' lists of legal moves.
pub fn parse_jump_move<C: Cell, S: CellSet, const N: usize>(
    typed: &str,
    legal: &[JumpMove<C, S, N>],
    cell: impl Fn(&str) -> Result<C, String>,
    jumped: impl Fn(&[C]) -> Option<S>,
    text: impl Fn(&JumpMove<C, S, N>) -> String,
) -> Result<JumpMove<C, S, N>, ParseMoveError> {
    let t = typed.trim();
    let (is_capture, parts) = move_tokens(t)?;
    let path = parts
        .iter()
        .map(|p| cell(p).map_err(|why| ParseMoveError::Syntax(t.to_string(), why)))
        .collect::<Result<Vec<C>, _>>()?;
    let illegal = || ParseMoveError::Illegal(t.to_string(), legal.iter().map(&text).collect());
    let captured = match is_capture && path.len() > 2 {
        true => Some(jumped(&path).ok_or_else(illegal)?),
        false => None,
    };
    let (from, to) = (path[0], path[path.len() - 1]);
    let candidates: Vec<&JumpMove<C, S, N>> = legal
        .iter()
        .filter(|m| m.from() == from && m.to() == to && m.is_capture() == is_capture)
        .filter(|m| captured.is_none_or(|c| m.captured() == c))
        .collect();
    match candidates.as_slice() {
        [] => Err(illegal()),
        [m] => Ok(**m),
        many => Err(ParseMoveError::Ambiguous(
            t.to_string(),
            many.iter().map(|m| text(*m)).collect(),
        )),
    }
}

/// The squares a path of short diagonal jumps on the 32-square board passes
/// over; `None` when two consecutive squares are not a jump apart.
pub fn short_jumps(path: &[Square]) -> Option<Bitboard> {
    path.windows(2).try_fold(0, |acc, w| {
        let (df, dr) = (w[1].file() - w[0].file(), w[1].rank() - w[0].rank());
        if df.abs() != 2 || dr.abs() != 2 {
            return None;
        }
        Square::from_coords(w[0].file() + df / 2, w[0].rank() + dr / 2).map(|s| acc | s.bb())
    })
}
