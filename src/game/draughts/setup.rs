//! Setup strings of the games of men and kings, read and written once over
//! a game's cell names: `W:W21-32:B1-12:H3` (side to move, then each
//! side's pieces, kings prefixed `K`, ranges of cells as `a-b`, then an
//! optional counter of plies without progress).

use super::board::{MenKings, MenKingsGame};
use super::cells::{Cell, CellSet};
use super::Piece;
use crate::game::setup::{cut, split_setup, SetupFieldsError};
use crate::game::types::Color;

/// How a game of men and kings writes its cells in setup strings.
pub trait SetupNotation: MenKingsGame {
    /// The most pieces a side may have.
    const MAX_PIECES: u32;
    /// What the game calls a cell in errors (`square`, `cell`).
    const CELL_WORD: &'static str;
    /// What a piece token may be, for the error of a bad one.
    const TOKEN_HINT: &'static str;
    /// A cell's name (`22`, `d4`).
    fn cell_name(cell: Self::Cell) -> String;
    /// The cell a name gives, if any.
    fn cell_named(name: &str) -> Option<Self::Cell>;
    /// The cells of a range token `a-b`, `None` when the two make no range.
    fn range(a: Self::Cell, b: Self::Cell) -> Option<Vec<Self::Cell>>;
    /// One side's pieces as the setup string lists them (by default every
    /// piece alone, ordered by [`SetupNotation::order`], kings prefixed `K`).
    fn piece_tokens(board: &MenKings<Self>, c: Color) -> Vec<String> {
        let mut cells: Vec<Self::Cell> = board.color_bb(c).iter().map(Self::Cell::at).collect();
        cells.sort_by_key(|&cell| Self::order(cell));
        cells
            .into_iter()
            .map(|cell| {
                let king = board.all_kings().has(cell.index());
                format!("{}{}", if king { "K" } else { "" }, Self::cell_name(cell))
            })
            .collect()
    }
    /// The order the default [`SetupNotation::piece_tokens`] lists cells in
    /// (by default their index).
    fn order(cell: Self::Cell) -> u32 {
        cell.index() as u32
    }
}

/// Why a setup string was refused (one line, naming the bad part).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The fields do not split (see [`SetupFieldsError`]).
    #[error(transparent)]
    Fields(#[from] SetupFieldsError),
    /// A piece token that names no cell or range.
    #[error("bad {word} '{token}' (expected {hint})")]
    BadCell {
        /// What the game calls a cell.
        word: &'static str,
        /// The token, clipped.
        token: String,
        /// What a token may be.
        hint: &'static str,
    },
    /// A cell given twice.
    #[error("{word} {cell} used twice")]
    Doubled {
        /// What the game calls a cell.
        word: &'static str,
        /// The cell's name.
        cell: String,
    },
    /// A man on the row it would have been promoted on.
    #[error("a {color} man on {word} {cell}, its promotion row (it would be a king)")]
    ManOnLastRow {
        /// The man's colour.
        color: &'static str,
        /// What the game calls a cell.
        word: &'static str,
        /// The cell's name.
        cell: String,
    },
    /// A side with more pieces than the game has.
    #[error("{color} has {count} pieces (at most {most})")]
    TooManyPieces {
        /// The side.
        color: &'static str,
        /// Its pieces.
        count: u32,
        /// The most the game allows.
        most: u32,
    },
}

/// The cells one token names, and whether they hold kings.
fn read_token<G: SetupNotation>(tok: &str) -> Result<(bool, Vec<G::Cell>), SetupError> {
    let bad = || SetupError::BadCell {
        word: G::CELL_WORD,
        token: cut(tok),
        hint: G::TOKEN_HINT,
    };
    let (king, body) = match tok.strip_prefix(['K', 'k']) {
        Some(rest) => (true, rest),
        None => (false, tok),
    };
    let cell = |t: &str| G::cell_named(t.trim()).ok_or_else(bad);
    let cells = match body.split_once('-') {
        Some((a, b)) => G::range(cell(a)?, cell(b)?).ok_or_else(bad)?,
        None => vec![cell(body)?],
    };
    Ok((king, cells))
}

/// Put one side's listed pieces on the board.
fn read_pieces<G: SetupNotation>(
    board: &mut MenKings<G>,
    color: Color,
    list: &str,
) -> Result<(), SetupError> {
    if list.trim().is_empty() {
        return Ok(());
    }
    for tok in list.split(',').map(str::trim) {
        let (king, cells) = read_token::<G>(tok)?;
        for cell in cells {
            if board.piece_at(cell).is_some() {
                return Err(SetupError::Doubled {
                    word: G::CELL_WORD,
                    cell: G::cell_name(cell),
                });
            }
            if !king && G::PROMOTION[color.index()].has(cell.index()) {
                return Err(SetupError::ManOnLastRow {
                    color: color.name(),
                    word: G::CELL_WORD,
                    cell: G::cell_name(cell),
                });
            }
            board.put(cell, Piece { color, king });
        }
    }
    let count = board.color_bb(color).len();
    if count > G::MAX_PIECES {
        return Err(SetupError::TooManyPieces {
            color: color.name(),
            count,
            most: G::MAX_PIECES,
        });
    }
    Ok(())
}

/// Read a setup string: side to move, each side's pieces, then an optional
/// `H<n>` counter of plies without progress.
pub fn read_setup<G: SetupNotation>(text: &str) -> Result<MenKings<G>, SetupError> {
    let fields = split_setup(text)?;
    let mut board = MenKings::empty();
    for c in [Color::White, Color::Black] {
        read_pieces(&mut board, c, fields.pieces[c.index()])?;
    }
    board.set_no_progress(fields.counter);
    board.set_side(fields.side);
    Ok(board)
}

/// The setup string of a board; the `H` field only when the counter is not
/// zero.
pub fn setup_text<G: SetupNotation>(board: &MenKings<G>) -> String {
    let mut s = String::new();
    s.push(board.side().letter());
    for c in [Color::White, Color::Black] {
        s.push(':');
        s.push(c.letter());
        s.push_str(&G::piece_tokens(board, c).join(","));
    }
    if board.no_progress() > 0 {
        s.push_str(&format!(":H{}", board.no_progress()));
    }
    s
}
