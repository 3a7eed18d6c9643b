//! The federation's notation: squares numbered 1 to 32, setup strings in
//! the PDN style (`W:W21-32:B1-12`, kings prefixed `K`), moves `22-18` and
//! captures `21x14x7` (or `21x7` when that is unambiguous).
//!
//! Square 1 is a8, the top-left dark square seen from White's side; the
//! numbers run left to right along each row and down the board, so White's
//! back row is 29 (b1) to 32 (h1). The board stands with a light square
//! in each player's left-hand corner, as the federation sets it.

use super::position::{Move, Piece, Position};
use crate::game::interface::GamePosition;
use crate::game::setup::{cut, split_setup, SetupFieldsError};
use crate::game::types::{Bitboard, Color, Square};
use crate::game::ParseMoveError;

/// The federation's number (1..=32) of a square.
pub fn square_number(s: Square) -> u8 {
    let i = s.index() as u8;
    (7 - i / 4) * 4 + i % 4 + 1
}

/// The square with a federation number, if it is 1..=32.
pub fn square_of_number(n: u32) -> Option<Square> {
    if !(1..=32).contains(&n) {
        return None;
    }
    let k = (n - 1) as u8;
    Some(Square::new((7 - k / 4) * 4 + k % 4))
}

/// Why a setup string was refused; each variant names the bad field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The fields do not split (see [`SetupFieldsError`]).
    #[error(transparent)]
    Fields(#[from] SetupFieldsError),
    /// A square that is not a number 1 to 32 or a range of them.
    #[error("bad square '{0}' (expected a square number 1 to 32, K before a king, or a range like 21-32)")]
    BadSquare(String),
    /// A square given twice.
    #[error("square {0} used twice")]
    DoubledSquare(u32),
    /// A man on the row it would have been promoted on.
    #[error("a {0} man on square {1}, its promotion row (it would be a king)")]
    ManOnLastRow(&'static str, u32),
    /// A side with more than twelve pieces.
    #[error("{0} has {1} pieces (at most 12)")]
    TooManyPieces(&'static str, u32),
}

/// The squares one token names: `K`-prefixed or not, a number or a range.
fn read_token(tok: &str) -> Result<(bool, Vec<u32>), SetupError> {
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
    let numbers = match body.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(bad());
            }
            (a..=b).collect()
        }
        None => vec![number(body)?],
    };
    Ok((king, numbers))
}

fn read_pieces(pos: &mut Position, color: Color, list: &str) -> Result<(), SetupError> {
    if list.trim().is_empty() {
        return Ok(());
    }
    for tok in list.split(',').map(str::trim) {
        let (king, numbers) = read_token(tok)?;
        for n in numbers {
            let sq = square_of_number(n).expect("read_token checks the range");
            if pos.piece_at(sq).is_some() {
                return Err(SetupError::DoubledSquare(n));
            }
            let last_row = if color == Color::White { n <= 4 } else { n >= 29 };
            if !king && last_row {
                return Err(SetupError::ManOnLastRow(color.name(), n));
            }
            pos.put(sq, Piece { color, king });
        }
    }
    Ok(())
}

/// The squares a path of short jumps passes over; `None` when two
/// consecutive squares are not a jump apart.
fn jumped_squares(path: &[Square]) -> Option<Bitboard> {
    path.windows(2).try_fold(0, |acc, w| {
        let (df, dr) = (w[1].file() - w[0].file(), w[1].rank() - w[0].rank());
        if df.abs() != 2 || dr.abs() != 2 {
            return None;
        }
        Square::from_coords(w[0].file() + df / 2, w[0].rank() + dr / 2).map(|s| acc | s.bb())
    })
}

/// Read a setup string: side to move, then each side's pieces, then an
/// optional `H<n>` counter of reversible plies.
pub(super) fn read_setup(text: &str) -> Result<Position, SetupError> {
    let fields = split_setup(text)?;
    let mut pos = Position::empty();
    for c in [Color::White, Color::Black] {
        read_pieces(&mut pos, c, fields.pieces[c.index()])?;
        let n = pos.color_bb(c).count_ones();
        if n > 12 {
            return Err(SetupError::TooManyPieces(c.name(), n));
        }
    }
    pos.set_reversible_plies(fields.counter);
    pos.set_side(fields.side);
    Ok(pos)
}

/// The setup string, squares in number order; the `H` field only when
/// the counter is not zero.
pub(super) fn setup_text(pos: &Position) -> String {
    let mut s = String::new();
    s.push(pos.side_to_move().letter());
    for c in [Color::White, Color::Black] {
        s.push(':');
        s.push(c.letter());
        let mut list: Vec<(u8, bool)> = Square::all()
            .filter_map(|sq| {
                pos.piece_at(sq)
                    .filter(|p| p.color == c)
                    .map(|p| (square_number(sq), p.king))
            })
            .collect();
        list.sort();
        let toks: Vec<String> = list
            .iter()
            .map(|&(n, king)| format!("{}{n}", if king { "K" } else { "" }))
            .collect();
        s.push_str(&toks.join(","));
    }
    if pos.no_progress() > 0 {
        s.push_str(&format!(":H{}", pos.no_progress()));
    }
    s
}

/// A move's full text: `22-18`, or a capture's every landing square
/// (`21x14x7`).
pub(super) fn move_text(m: &Move) -> String {
    let mut t = square_number(m.from()).to_string();
    if !m.is_capture() {
        t.push_str(&format!("-{}", square_number(m.to())));
    }
    for s in m.landings() {
        t.push_str(&format!("x{}", square_number(s)));
    }
    t
}

/// Read a move: `22-18`, a capture's full path `21x14x7`, or its start
/// and end `21x7` when only one legal capture joins them.
pub(super) fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let t = text.trim();
    let syntax = |why: &str| ParseMoveError::Syntax(t.to_string(), why.to_string());
    let (is_capture, parts) = crate::game::notation::move_tokens(t)?;
    let mut path = Vec::with_capacity(parts.len());
    for p in &parts {
        let n = p.trim().parse::<u32>().ok().and_then(square_of_number);
        path.push(n.ok_or_else(|| syntax(&format!("'{p}' is not a square number 1 to 32")))?);
    }
    let legal = pos.legal_moves();
    let names = || legal.iter().map(move_text).collect::<Vec<_>>();
    let captured = if is_capture && path.len() > 2 {
        Some(jumped_squares(&path).ok_or_else(|| ParseMoveError::Illegal(t.to_string(), names()))?)
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
