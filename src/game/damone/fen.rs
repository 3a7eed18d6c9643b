//! FEN notation (PDN-FEN style): `W:WIh1,Df1,d1:BIa8,Da6,a4` with optional
//! trailing counter field `H<n>` (plies since the last capture or promotion);
//! the fields are split as every game's are ([`crate::game::setup`]).

use super::position::Position;
use super::rank::{Piece, Rank};
use super::variant::Variant;
use crate::game::interface::GamePosition;
use crate::game::setup::{cut, split_setup, SetupFieldsError};
use crate::game::types::*;

/// Why a FEN string was rejected; each variant names the bad field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// The fields do not split (see [`SetupFieldsError`]).
    #[error(transparent)]
    Fields(#[from] SetupFieldsError),
    /// A square that does not read.
    #[error("bad square '{0}' (expected a1..h8)")]
    BadSquare(String),
    /// A light square (pieces stand on dark squares only).
    #[error("light square '{0}' (pieces stand only on dark squares: file+rank odd, e.g. h1, a8)")]
    LightSquare(String),
    /// A square given twice.
    #[error("square '{0}' used twice")]
    DoubledSquare(String),
    /// A piece prefix other than `I`, `D` or none.
    #[error("unknown piece prefix '{0}' in '{1}' (expected I for Damone, D for Dama, none for Pedina)")]
    UnknownPrefix(String, String),
    /// A side with more than twelve pieces.
    #[error("{0} has {1} pieces (at most 12)")]
    TooManyPieces(&'static str, u32),
}

impl Position {
    /// Parse a FEN under the given variant's rules.
    pub fn from_fen(fen: &str, variant: Variant) -> Result<Position, ParseFenError> {
        let fields = split_setup(fen)?;
        let mut pos = Position::empty(variant);
        for color in [Color::White, Color::Black] {
            read_pieces(&mut pos, color, fields.pieces[color.index()])?;
            let n = pos.count(color);
            if n > 12 {
                return Err(ParseFenError::TooManyPieces(color.name(), n));
            }
        }
        pos.set_no_progress(fields.counter);
        pos.set_side(fields.side);
        Ok(pos)
    }

    /// Write the FEN; the `H` counter field is added only when it is non-zero.
    pub fn to_fen(&self) -> String {
        let mut s = String::new();
        s.push(self.side_to_move().letter());
        for c in [Color::White, Color::Black] {
            s.push(':');
            s.push(c.letter());
            let mut list: Vec<(Rank, Square)> = Square::all()
                .filter_map(|sq| self.piece_at(sq).filter(|p| p.color == c).map(|p| (p.rank, sq)))
                .collect();
            list.sort_by_key(|&(r, sq)| (std::cmp::Reverse(r), sq.file(), sq.rank()));
            let toks: Vec<String> = list
                .iter()
                .map(|(r, sq)| format!("{}{}", r.prefix(), sq))
                .collect();
            s.push_str(&toks.join(","));
        }
        if self.no_progress() > 0 {
            s.push_str(&format!(":H{}", self.no_progress()));
        }
        s
    }
}

/// Put the pieces of one side's list (`If3,Dd1,b7`) on `pos`.
fn read_pieces(pos: &mut Position, color: Color, list: &str) -> Result<(), ParseFenError> {
    if list.trim().is_empty() {
        return Ok(());
    }
    for tok in list.split(',').map(str::trim) {
        if tok.len() < 2 || !tok.is_char_boundary(tok.len() - 2) {
            return Err(ParseFenError::BadSquare(cut(tok)));
        }
        let (prefix, name) = tok.split_at(tok.len() - 2);
        let rank = match prefix {
            "" => Rank::Pedina,
            "D" => Rank::Dama,
            "I" => Rank::Damone,
            p => return Err(ParseFenError::UnknownPrefix(cut(p), cut(tok))),
        };
        let (f, r) = parse_coords(name).ok_or_else(|| ParseFenError::BadSquare(cut(name)))?;
        let sq = Square::from_coords(f, r).ok_or_else(|| ParseFenError::LightSquare(name.to_string()))?;
        if pos.piece_at(sq).is_some() {
            return Err(ParseFenError::DoubledSquare(name.to_string()));
        }
        pos.put(sq, Piece { color, rank });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_fen_round_trips() {
        for v in [Variant::Standard, Variant::ThreeDamas] {
            let p = Position::start(v);
            assert_eq!(p.to_fen(), v.start_fen());
        }
    }

    #[test]
    fn one_error_per_bad_field() {
        let v = Variant::Standard;
        let e = |s: &str| Position::from_fen(s, v).unwrap_err();
        assert_eq!(e(""), ParseFenError::Fields(SetupFieldsError::Empty));
        assert_eq!(
            e("X:Wh1:Ba8"),
            ParseFenError::Fields(SetupFieldsError::BadSideToMove("X".into()))
        );
        assert_eq!(
            e("W:Wh1"),
            ParseFenError::Fields(SetupFieldsError::MissingSide("black", 'B'))
        );
        assert_eq!(
            e("W:Ba8"),
            ParseFenError::Fields(SetupFieldsError::MissingSide("white", 'W'))
        );
        assert_eq!(
            e("W:Wh1:Wf1:Ba8"),
            ParseFenError::Fields(SetupFieldsError::DuplicateSide("white"))
        );
        assert_eq!(
            e("W:Wh1:Ba8:Q"),
            ParseFenError::Fields(SetupFieldsError::BadField("Q".into()))
        );
        assert_eq!(e("W:Wz9:Ba8"), ParseFenError::BadSquare("z9".into()));
        assert_eq!(e("W:Wa1:Ba8"), ParseFenError::LightSquare("a1".into()));
        assert_eq!(e("W:Wh1,Dh1:Ba8"), ParseFenError::DoubledSquare("h1".into()));
        assert_eq!(
            e("W:WXh1:Ba8"),
            ParseFenError::UnknownPrefix("X".into(), "Xh1".into())
        );
        assert_eq!(
            e("W:Wh1:Ba8:Hx"),
            ParseFenError::Fields(SetupFieldsError::BadCounter("Hx".into()))
        );
        assert_eq!(e("W:Wh:Ba8"), ParseFenError::BadSquare("h".into()));
    }

    #[test]
    fn counters_round_trip() {
        let p = Position::from_fen("B:WIh1:BIa8:H17", Variant::Standard).unwrap();
        assert_eq!(p.no_progress(), 17);
        assert_eq!(p.to_fen(), "B:WIh1:BIa8:H17");
    }
}
