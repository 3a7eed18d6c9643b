//! FEN notation (PDN-FEN style): `W:WIh1,Df1,d1:BIa8,Da6,a4` with optional
//! trailing counter field `H<n>` (plies since the last capture or promotion).

use super::position::Position;
use super::types::*;
use super::variant::Variant;

/// Why a FEN string was rejected; each variant names the bad field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    #[error("empty FEN")]
    Empty,
    #[error("bad side to move '{0}' (expected W or B)")]
    BadSideToMove(String),
    #[error("missing piece field for {0} (expected a field starting with '{1}')")]
    MissingSide(&'static str, char),
    #[error("piece field for {0} given twice")]
    DuplicateSide(&'static str),
    #[error("bad field '{0}' (expected W..., B... or H<plies>)")]
    BadField(String),
    #[error("bad square '{0}' (expected a1..h8)")]
    BadSquare(String),
    #[error("light square '{0}' (pieces stand only on dark squares: file+rank odd, e.g. h1, a8)")]
    LightSquare(String),
    #[error("square '{0}' used twice")]
    DoubledSquare(String),
    #[error("unknown piece prefix '{0}' in '{1}' (expected I for Damone, D for Dama, none for Pedina)")]
    UnknownPrefix(String, String),
    #[error("bad counter field '{0}' (expected H followed by a number of plies)")]
    BadCounter(String),
    #[error("the counter field '{0}' must come last")]
    CounterNotLast(String),
    #[error("{0} has {1} pieces (at most 12)")]
    TooManyPieces(&'static str, u32),
}

/// An input token as echoed in an error: cut to 40 characters.
fn cut(s: &str) -> String {
    match s.char_indices().nth(40) {
        None => s.to_string(),
        Some((i, _)) => format!("{}...", &s[..i]),
    }
}

impl Position {
    /// Parse a FEN under the given variant's rules.
    pub fn from_fen(fen: &str, variant: Variant) -> Result<Position, ParseFenError> {
        let fen = fen.trim();
        if fen.is_empty() {
            return Err(ParseFenError::Empty);
        }
        let fields: Vec<&str> = fen.split(':').map(str::trim).collect();
        let side = match fields[0] {
            "W" | "w" => Color::White,
            "B" | "b" => Color::Black,
            other => return Err(ParseFenError::BadSideToMove(cut(other))),
        };
        let mut pos = Position::empty(variant);
        let mut seen = [false; 2];
        for (k, field) in fields[1..].iter().enumerate() {
            let (color, rest) = match field.chars().next() {
                Some('W') => (Color::White, &field[1..]),
                Some('B') => (Color::Black, &field[1..]),
                Some('H') => {
                    if k + 2 != fields.len() {
                        return Err(ParseFenError::CounterNotLast(cut(field)));
                    }
                    let n = field[1..]
                        .parse::<u16>()
                        .map_err(|_| ParseFenError::BadCounter(cut(field)))?;
                    pos.set_no_progress(n);
                    continue;
                }
                _ => return Err(ParseFenError::BadField(cut(field))),
            };
            if seen[color.index()] {
                return Err(ParseFenError::DuplicateSide(color.name()));
            }
            seen[color.index()] = true;
            if rest.trim().is_empty() {
                continue;
            }
            for tok in rest.split(',').map(str::trim) {
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
                let sq =
                    Square::from_coords(f, r).ok_or_else(|| ParseFenError::LightSquare(name.to_string()))?;
                if pos.piece_at(sq).is_some() {
                    return Err(ParseFenError::DoubledSquare(name.to_string()));
                }
                pos.put(sq, Piece { color, rank });
            }
        }
        for c in [Color::White, Color::Black] {
            if !seen[c.index()] {
                return Err(ParseFenError::MissingSide(c.name(), c.letter()));
            }
            let n = pos.count(c);
            if n > 12 {
                return Err(ParseFenError::TooManyPieces(c.name(), n));
            }
        }
        pos.set_side(side);
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
        assert_eq!(e(""), ParseFenError::Empty);
        assert_eq!(e("X:Wh1:Ba8"), ParseFenError::BadSideToMove("X".into()));
        assert_eq!(e("W:Wh1"), ParseFenError::MissingSide("black", 'B'));
        assert_eq!(e("W:Ba8"), ParseFenError::MissingSide("white", 'W'));
        assert_eq!(e("W:Wh1:Wf1:Ba8"), ParseFenError::DuplicateSide("white"));
        assert_eq!(e("W:Wh1:Ba8:Q"), ParseFenError::BadField("Q".into()));
        assert_eq!(e("W:Wz9:Ba8"), ParseFenError::BadSquare("z9".into()));
        assert_eq!(e("W:Wa1:Ba8"), ParseFenError::LightSquare("a1".into()));
        assert_eq!(e("W:Wh1,Dh1:Ba8"), ParseFenError::DoubledSquare("h1".into()));
        assert_eq!(
            e("W:WXh1:Ba8"),
            ParseFenError::UnknownPrefix("X".into(), "Xh1".into())
        );
        assert_eq!(e("W:Wh1:Ba8:Hx"), ParseFenError::BadCounter("Hx".into()));
        assert_eq!(e("W:Wh:Ba8"), ParseFenError::BadSquare("h".into()));
    }

    #[test]
    fn counters_round_trip() {
        let p = Position::from_fen("B:WIh1:BIa8:H17", Variant::Standard).unwrap();
        assert_eq!(p.no_progress(), 17);
        assert_eq!(p.to_fen(), "B:WIh1:BIa8:H17");
    }
}
