//! The layout the three games' setup strings share (PDN-FEN style):
//! the side to move, then a `W` and a `B` field with each side's pieces,
//! then an optional `H<plies>` counter last, joined by `:`
//! (`W:W21,K5:B1,2:H3`). Each game reads its own piece lists
//! (each game folder's setup reader).

use super::types::Color;

/// Why the fields of a setup string were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupFieldsError {
    /// Nothing but spaces.
    #[error("empty setup string")]
    Empty,
    /// The first field is not `W` or `B`.
    #[error("bad side to move '{0}' (expected W or B)")]
    BadSideToMove(String),
    /// A side's piece field is missing.
    #[error("missing piece field for {0} (expected a field starting with '{1}')")]
    MissingSide(&'static str, char),
    /// A side's piece field appears twice.
    #[error("piece field for {0} given twice")]
    DuplicateSide(&'static str),
    /// A field is none of `W...`, `B...` or `H<plies>`.
    #[error("bad field '{0}' (expected W..., B... or H<plies>)")]
    BadField(String),
    /// The `H` field's plies do not read.
    #[error("bad counter field '{0}' (expected H followed by a number of plies)")]
    BadCounter(String),
    /// The `H` field is not the last.
    #[error("the counter field '{0}' must come last")]
    CounterNotLast(String),
}

/// A setup string's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetupFields<'a> {
    /// The side to move.
    pub side: Color,
    /// Each side's piece list, by [`Color::index`], without its letter.
    pub pieces: [&'a str; 2],
    /// The `H` counter (0 when absent).
    pub counter: u16,
}

/// An input token as echoed in an error: cut to 40 characters.
pub fn cut(s: &str) -> String {
    crate::util::clip(s, 40)
}

/// Split `text` into its fields: both piece fields present once each, the
/// counter (if any) last.
pub fn split_setup(text: &str) -> Result<SetupFields<'_>, SetupFieldsError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(SetupFieldsError::Empty);
    }
    let fields: Vec<&str> = text.split(':').map(str::trim).collect();
    let side = match fields[0] {
        "W" | "w" => Color::White,
        "B" | "b" => Color::Black,
        other => return Err(SetupFieldsError::BadSideToMove(cut(other))),
    };
    let mut pieces: [Option<&str>; 2] = [None, None];
    let mut counter = 0;
    for (k, field) in fields[1..].iter().enumerate() {
        let color = match field.chars().next() {
            Some('W') => Color::White,
            Some('B') => Color::Black,
            Some('H') if k + 2 != fields.len() => return Err(SetupFieldsError::CounterNotLast(cut(field))),
            Some('H') => {
                counter = field[1..]
                    .parse::<u16>()
                    .map_err(|_| SetupFieldsError::BadCounter(cut(field)))?;
                continue;
            }
            _ => return Err(SetupFieldsError::BadField(cut(field))),
        };
        if pieces[color.index()].replace(&field[1..]).is_some() {
            return Err(SetupFieldsError::DuplicateSide(color.name()));
        }
    }
    let list = |c: Color| pieces[c.index()].ok_or(SetupFieldsError::MissingSide(c.name(), c.letter()));
    Ok(SetupFields {
        side,
        pieces: [list(Color::White)?, list(Color::Black)?],
        counter,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_split_and_their_errors() {
        let f = split_setup(" B:W21,K5:B1-3:H7 ").unwrap();
        assert_eq!((f.side, f.pieces, f.counter), (Color::Black, ["21,K5", "1-3"], 7));
        let f = split_setup("w:B:W").unwrap();
        assert_eq!((f.side, f.pieces, f.counter), (Color::White, ["", ""], 0));
        let e = |t: &str| split_setup(t).unwrap_err();
        assert_eq!(e(" "), SetupFieldsError::Empty);
        assert_eq!(e("X:W1:B2"), SetupFieldsError::BadSideToMove("X".into()));
        assert_eq!(e("W:W1"), SetupFieldsError::MissingSide("black", 'B'));
        assert_eq!(e("W:W1:W2:B3"), SetupFieldsError::DuplicateSide("white"));
        assert_eq!(e("W:W1:B2:Q"), SetupFieldsError::BadField("Q".into()));
        assert_eq!(e("W:W1:B2:Hx"), SetupFieldsError::BadCounter("Hx".into()));
        assert_eq!(e("W:H3:W1:B2"), SetupFieldsError::CounterNotLast("H3".into()));
    }
}
