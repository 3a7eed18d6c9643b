//! Dameo's notation: cells `a1`..`h8` (a1 at White's left, White's men on
//! ranks 1-3), setup strings in the style of the other games
//! (`W:Wa1-h1,b2-g2,c3-f3,Kd4:Ba8-h8,b7-g7,c6-f6:H3`, kings prefixed `K`,
//! a run of cells along one rank as `a1-h1`), moves `c3-c4`, line moves
//! from the rear man (`c1-c4`: the men on c2 and c3 stay, the line has
//! advanced one cell) and captures by every landing cell (`d4xd6xf6`, or
//! `d4xf6` when that is unambiguous).

use super::position::{Cells, Move, Position};
use crate::game::interface::GamePosition;
use crate::game::setup::{cut, split_setup, SetupFieldsError};
use crate::game::types::DraughtsPiece as Piece;
use crate::game::types::{parse_coords, Color};
use crate::game::ParseMoveError;

/// Why a setup string was refused; each variant names the bad field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The fields do not split (see [`SetupFieldsError`]).
    #[error(transparent)]
    Fields(#[from] SetupFieldsError),
    /// A cell that does not read.
    #[error("bad cell '{0}' (expected a cell a1..h8, K before a king, or a run along one rank like a1-h1)")]
    BadCell(String),
    /// A cell given twice.
    #[error("cell {0} used twice")]
    DoubledCell(String),
    /// A man on the row it would have been promoted on.
    #[error("a {0} man on {1}, its promotion row (it would be a king)")]
    ManOnLastRow(&'static str, String),
    /// A side with more than eighteen pieces.
    #[error("{0} has {1} pieces (at most 18)")]
    TooManyPieces(&'static str, u32),
}

/// A cell's name, `a1`..`h8`.
pub fn cell_name(cell: usize) -> String {
    format!("{}{}", (b'a' + (cell % 8) as u8) as char, cell / 8 + 1)
}

/// The cell a name gives, if it is `a1`..`h8`.
pub fn cell_of_name(name: &str) -> Option<usize> {
    parse_coords(name.trim()).map(|(f, r)| (r * 8 + f) as usize)
}

/// The cells one token names: `K`-prefixed or not, a cell or a run of
/// cells along one rank.
fn read_token(tok: &str) -> Result<(bool, Vec<usize>), SetupError> {
    let bad = || SetupError::BadCell(cut(tok));
    let (king, body) = match tok.strip_prefix(['K', 'k']) {
        Some(rest) => (true, rest),
        None => (false, tok),
    };
    let cell = |t: &str| cell_of_name(t).ok_or_else(bad);
    let list = match body.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (cell(a)?, cell(b)?);
            if a / 8 != b / 8 || a > b {
                return Err(bad());
            }
            (a..=b).collect()
        }
        None => vec![cell(body)?],
    };
    Ok((king, list))
}

fn read_pieces(pos: &mut Position, color: Color, list: &str) -> Result<(), SetupError> {
    if list.trim().is_empty() {
        return Ok(());
    }
    for tok in list.split(',').map(str::trim) {
        let (king, list) = read_token(tok)?;
        for cell in list {
            if pos.piece_at(cell).is_some() {
                return Err(SetupError::DoubledCell(cell_name(cell)));
            }
            let last_row = if color == Color::White {
                cell >= 56
            } else {
                cell < 8
            };
            if !king && last_row {
                return Err(SetupError::ManOnLastRow(color.name(), cell_name(cell)));
            }
            pos.put(cell, Piece { color, king });
        }
    }
    Ok(())
}

/// The tokens of one side's pieces of one kind: runs of three or more
/// cells along a rank as `a1-h1`, others one by one.
fn tokens(set: Cells, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = set;
    while rest != 0 {
        let first = rest.trailing_zeros() as usize;
        let mut last = first;
        while last % 8 < 7 && rest & (1 << (last + 1)) != 0 {
            last += 1;
        }
        if last - first >= 2 {
            out.push(format!("{prefix}{}-{}", cell_name(first), cell_name(last)));
            rest &= !((2u64 << last) - (1u64 << first));
        } else {
            out.push(format!("{prefix}{}", cell_name(first)));
            rest &= rest - 1;
        }
    }
    out
}

impl Position {
    /// The opponent's pieces a capture path passes over: each leg must run
    /// along a rank or a file; None otherwise.
    fn captured_along(&self, path: &[usize]) -> Option<Cells> {
        let enemy = self.color_cells(self.side_to_move().opposite());
        path.windows(2).try_fold(0, |acc, w| {
            let (a, b) = (w[0] as i32, w[1] as i32);
            let step = match (a / 8 == b / 8, a % 8 == b % 8) {
                (true, false) => (b - a).signum(),
                (false, true) => 8 * (b - a).signum(),
                _ => return None,
            };
            let between = (1..(b - a) / step).fold(0u64, |s, k| s | 1 << (a + k * step));
            Some(acc | (between & enemy))
        })
    }
}

/// Read a setup string: side to move, then each side's pieces, then an
/// optional `H<n>` counter of reversible plies.
pub(super) fn read_setup(text: &str) -> Result<Position, SetupError> {
    let fields = split_setup(text)?;
    let mut pos = Position::empty();
    for c in [Color::White, Color::Black] {
        read_pieces(&mut pos, c, fields.pieces[c.index()])?;
        let n = pos.color_cells(c).count_ones();
        if n > 18 {
            return Err(SetupError::TooManyPieces(c.name(), n));
        }
    }
    pos.set_reversible_plies(fields.counter);
    pos.set_side(fields.side);
    Ok(pos)
}

/// The setup string: each side's men, then its kings, in cell order;
/// the `H` field only when the counter is not zero.
pub(super) fn setup_text(pos: &Position) -> String {
    let mut s = String::new();
    s.push(pos.side_to_move().letter());
    for c in [Color::White, Color::Black] {
        s.push(':');
        s.push(c.letter());
        let mut toks = tokens(pos.men(c), "");
        toks.extend(tokens(pos.kings(c), "K"));
        s.push_str(&toks.join(","));
    }
    if pos.no_progress() > 0 {
        s.push_str(&format!(":H{}", pos.no_progress()));
    }
    s
}

/// A move's full text: `c3-c4`, a line move `c1-c4`, or a capture's
/// every landing cell (`d4xd6xf6`).
pub(super) fn move_text(m: &Move) -> String {
    let mut t = cell_name(m.from());
    if !m.is_capture() {
        t.push('-');
        t.push_str(&cell_name(m.to()));
    }
    for c in m.landings() {
        t.push('x');
        t.push_str(&cell_name(c));
    }
    t
}

/// Read a move: `c3-c4`, a line move `c1-c4`, a capture's full path
/// `d4xd6xf6`, or its start and end `d4xf6` when only one legal capture
/// joins them.
pub(super) fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let t = text.trim();
    let syntax = |why: &str| ParseMoveError::Syntax(t.to_string(), why.to_string());
    let (is_capture, parts) = crate::game::notation::move_tokens(t)?;
    let mut path = Vec::with_capacity(parts.len());
    for p in &parts {
        path.push(cell_of_name(p).ok_or_else(|| syntax(&format!("'{p}' is not a cell a1..h8")))?);
    }
    let legal = pos.legal_moves();
    let names = || legal.iter().map(move_text).collect::<Vec<_>>();
    let captured = if is_capture && path.len() > 2 {
        Some(
            pos.captured_along(&path)
                .ok_or_else(|| ParseMoveError::Illegal(t.to_string(), names()))?,
        )
    } else {
        None
    };
    let candidates: Vec<&Move> = legal
        .iter()
        .filter(|m| m.from() == path[0] && m.to() == path[path.len() - 1] && m.is_capture() == is_capture)
        .filter(|m| captured.is_none_or(|c| m.captured() == c))
        .collect();
    match candidates.as_slice() {
        [] => Err(ParseMoveError::Illegal(t.to_string(), names())),
        [m] => Ok(**m),
        many => Err(ParseMoveError::Ambiguous(
            t.to_string(),
            many.iter().map(|m| move_text(m)).collect(),
        )),
    }
}
