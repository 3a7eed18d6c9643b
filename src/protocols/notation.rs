//! How positions and moves are written in the draughts world's protocols.
//!
//! [`HubNotation`] is what the Hub protocol sends of a game. Italian
//! draughts is written as the draughts programs write a numbered board:
//! a position as the side to move followed by one letter per square 1 to 32
//! (`w` `b` a man, `W` `B` a king, `e` empty), a move as `from-to` or, for
//! a capture, `fromxto` followed by `x` and each captured square
//! (`23x14x18`: from 23 to 14 taking 18). Damone and Dameo, which no other
//! program plays, are written in their own notation (setup strings and
//! move texts, as everywhere else in damone). [`NumberedBoard`] is the
//! numbered men-and-kings board both Hub and DXP need of a game.

use crate::game::dameo;
use crate::game::italian::{self, square_number, square_of_number};
use crate::game::types::squares;
use crate::game::{Color, GamePosition};

/// How the Hub protocol writes a game's positions and moves; by default
/// the game's own setup strings and move texts.
pub trait HubNotation: GamePosition {
    /// The position as the protocol writes it.
    fn hub_position(&self) -> String {
        self.to_setup()
    }
    /// The position a protocol position string describes; the game's own
    /// setup strings are read too.
    fn read_hub_position(text: &str, variant: Self::Variant) -> Result<Self, String> {
        Self::from_setup(text, variant).map_err(|e| e.to_string())
    }
    /// A legal move as the protocol writes it.
    fn hub_move(&self, mv: &Self::Move) -> String {
        self.move_text(mv)
    }
    /// The legal move a protocol move text names (the game's own move
    /// texts are read too).
    fn read_hub_move(&self, text: &str) -> Result<Self::Move, String> {
        self.parse_move(text).map_err(|e| e.to_string())
    }
}

impl HubNotation for crate::game::damone::Position {}
impl HubNotation for dameo::Position {}

/// A game on numbered squares with men and kings of two colours: what
/// the numbered protocol notations (Hub's letters, DXP's messages) read
/// and write.
pub trait NumberedBoard: GamePosition {
    /// Squares, numbered 1 to `SQUARES`.
    const SQUARES: u32;
    /// The piece on square `n`: its colour and whether it is a king.
    fn piece_on_square(&self, n: u32) -> Option<(Color, bool)>;
    /// The position with these pieces (square, colour, king) and `side`
    /// to move; the error says what the rules refuse.
    fn with_pieces(pieces: &[NumberedPiece], side: Color) -> Result<Self, String>;
    /// A move's start and end squares and its captured squares, ascending.
    fn move_squares(mv: &Self::Move) -> (u32, u32, Vec<u32>);
}

impl NumberedBoard for italian::Position {
    const SQUARES: u32 = 32;
    fn piece_on_square(&self, n: u32) -> Option<(Color, bool)> {
        let p = self.piece_at(square_of_number(n)?)?;
        Some((p.color, p.king))
    }
    fn with_pieces(pieces: &[NumberedPiece], side: Color) -> Result<Self, String> {
        let side_text = |c: Color| {
            pieces
                .iter()
                .filter(|p| p.1 == c)
                .map(|&(n, _, king)| format!("{}{n}", if king { "K" } else { "" }))
                .collect::<Vec<_>>()
                .join(",")
        };
        let setup = format!(
            "{}:W{}:B{}",
            letter(side),
            side_text(Color::White),
            side_text(Color::Black)
        );
        Self::from_setup(&setup, ()).map_err(|e| e.to_string())
    }
    fn move_squares(mv: &italian::Move) -> (u32, u32, Vec<u32>) {
        let mut captured: Vec<u32> = squares(mv.captured()).map(|s| square_number(s) as u32).collect();
        captured.sort_unstable();
        (
            square_number(mv.from()) as u32,
            square_number(mv.to()) as u32,
            captured,
        )
    }
}

/// `W` or `B`.
fn letter(c: Color) -> char {
    match c {
        Color::White => 'W',
        Color::Black => 'B',
    }
}

/// The position as a side letter and a letter a square.
pub fn numbered_position<P: NumberedBoard>(pos: &P) -> String {
    let mut out = String::with_capacity(P::SQUARES as usize + 1);
    out.push(letter(pos.side_to_move()));
    for n in 1..=P::SQUARES {
        out.push(match pos.piece_on_square(n) {
            None => 'e',
            Some((Color::White, false)) => 'w',
            Some((Color::White, true)) => 'W',
            Some((Color::Black, false)) => 'b',
            Some((Color::Black, true)) => 'B',
        });
    }
    out
}

/// A piece on a numbered board: its square, colour and whether it is a king.
pub type NumberedPiece = (u32, Color, bool);

/// A square's content in a lettered position: None empty, else a piece's
/// colour and whether it is a king.
pub type SquareContent = Option<(Color, bool)>;

/// The side to move and the pieces (square, colour, king) of a side letter
/// followed by exactly one letter a square, each read by `side` and
/// `square`; None if the count is wrong or a letter reads as nothing.
pub fn lettered_pieces<P: NumberedBoard>(
    text: &str,
    side: impl Fn(char) -> Option<Color>,
    square: impl Fn(char) -> Option<SquareContent>,
) -> Option<(Color, Vec<NumberedPiece>)> {
    let mut chars = text.chars();
    let to_move = side(chars.next()?)?;
    let mut pieces = Vec::new();
    let mut count = 0;
    for (n, c) in (1..).zip(chars) {
        if let Some((colour, king)) = square(c)? {
            pieces.push((n, colour, king));
        }
        count = n;
    }
    (count == P::SQUARES).then_some((to_move, pieces))
}

/// The position a side letter and a letter a square describe.
pub fn read_numbered_position<P: NumberedBoard>(text: &str) -> Result<P, String> {
    let text = text.trim();
    let side = |c| match c {
        'W' | 'w' => Some(Color::White),
        'B' | 'b' => Some(Color::Black),
        _ => None,
    };
    let square = |c| match c {
        'e' | 'E' | '.' => Some(None),
        'w' => Some(Some((Color::White, false))),
        'W' => Some(Some((Color::White, true))),
        'b' => Some(Some((Color::Black, false))),
        'B' => Some(Some((Color::Black, true))),
        _ => None,
    };
    let (to_move, pieces) = lettered_pieces::<P>(text, side, square).ok_or_else(|| {
        format!(
            "bad position '{}' (expected W or B and then {} letters w, b, W, B or e, one a square)",
            crate::util::clip(text, 60),
            P::SQUARES
        )
    })?;
    P::with_pieces(&pieces, to_move)
}

/// `from-to` or `fromxtoxc1xc2...` (captured squares ascending).
pub fn numbered_move<P: NumberedBoard>(mv: &P::Move) -> String {
    let (from, to, captured) = P::move_squares(mv);
    if captured.is_empty() {
        return format!("{from}-{to}");
    }
    let mut out = format!("{from}x{to}");
    for c in captured {
        out.push_str(&format!("x{c}"));
    }
    out
}

/// The legal move of `pos` that starts on `from`, ends on `to` and, when
/// `captured` is given, takes exactly those squares; None if there is no
/// such move or more than one.
pub fn find_numbered_move<P: NumberedBoard>(
    pos: &P,
    from: u32,
    to: u32,
    captured: Option<&[u32]>,
) -> Option<P::Move> {
    let mut wanted: Option<Vec<u32>> = captured.map(<[u32]>::to_vec);
    if let Some(w) = wanted.as_mut() {
        w.sort_unstable();
    }
    let mut found = pos.legal_moves().into_iter().filter(|m| {
        let (f, t, c) = P::move_squares(m);
        f == from && t == to && wanted.as_ref().is_none_or(|w| *w == c)
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The legal move a Hub move text (`22-18`, `23x14x18`) names.
pub fn read_numbered_move<P: NumberedBoard>(pos: &P, text: &str) -> Result<P::Move, String> {
    let text = text.trim();
    let numbers: Result<Vec<u32>, _> = text
        .split(['-', 'x', 'X'])
        .map(|t| t.trim().parse::<u32>())
        .collect();
    let numbers = numbers.ok().filter(|n| n.len() >= 2);
    let Some(numbers) = numbers else {
        return Err(format!(
            "bad move '{}' (expected from-to, or fromxto followed by xN for each captured square)",
            crate::util::clip(text, 40)
        ));
    };
    let captured = (numbers.len() > 2).then(|| &numbers[2..]);
    find_numbered_move(pos, numbers[0], numbers[1], captured).ok_or_else(|| {
        let legal: Vec<String> = pos.legal_moves().iter().map(numbered_move::<P>).collect();
        format!(
            "'{}' is not one legal move here (legal: {})",
            crate::util::clip(text, 40),
            legal.join(" ")
        )
    })
}

impl HubNotation for italian::Position {
    fn hub_position(&self) -> String {
        numbered_position(self)
    }
    fn read_hub_position(text: &str, variant: ()) -> Result<Self, String> {
        if text.contains(':') {
            return Self::from_setup(text, variant).map_err(|e| e.to_string());
        }
        read_numbered_position(text)
    }
    fn hub_move(&self, mv: &italian::Move) -> String {
        numbered_move::<Self>(mv)
    }
    /// The Hub's move text first; failing that, the federation's (a
    /// capture written by its landing squares, `21x14x7`).
    fn read_hub_move(&self, text: &str) -> Result<italian::Move, String> {
        read_numbered_move(self, text).or_else(|hub_error| self.parse_move(text).map_err(|_| hub_error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn italian_start_reads_back_and_moves_round_trip() {
        let start = italian::Position::start(());
        let text = start.hub_position();
        assert_eq!(
            text,
            format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12))
        );
        assert_eq!(italian::Position::read_hub_position(&text, ()).unwrap(), start);
        for mv in start.legal_moves() {
            let t = start.hub_move(&mv);
            assert_eq!(start.read_hub_move(&t).unwrap(), mv, "{t}");
        }
        assert_eq!(
            start.read_hub_move("22-18").unwrap(),
            start.parse_move("22-18").unwrap()
        );
    }

    #[test]
    fn an_italian_capture_is_written_with_its_captured_squares() {
        // White to move: 22 (d3) takes 18 (c4) and lands on 13 (b5).
        let pos = italian::Position::from_setup("W:W22:B18,1", ()).unwrap();
        let mv = pos.legal_moves()[0];
        let text = pos.hub_move(&mv);
        assert_eq!(text, "22x13x18");
        assert_eq!(pos.read_hub_move("22x13x18").unwrap(), mv);
        assert_eq!(pos.read_hub_move("22x13").unwrap(), mv);
        let e = pos.read_hub_move("22-18").unwrap_err();
        assert!(e.contains("not one legal move") && e.contains("22x13x18"), "{e}");
        assert!(pos.read_hub_move("hello").unwrap_err().contains("bad move"));
    }

    #[test]
    fn bad_positions_are_refused_by_name() {
        for bad in [
            "",
            "W",
            "Xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
            &format!("W{}", "q".repeat(32)),
        ] {
            let e = italian::Position::read_hub_position(bad, ()).unwrap_err();
            assert!(e.contains("bad position"), "{bad}: {e}");
        }
        // A White man on its promotion row is refused by the rules.
        let e = italian::Position::read_hub_position(&format!("Ww{}", "e".repeat(31)), ()).unwrap_err();
        assert!(e.contains("promotion"), "{e}");
    }
}
