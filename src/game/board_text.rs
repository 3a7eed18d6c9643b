//! A position as text for a terminal: each game's board
//! ([`GamePosition::GRID`]) in its own notation. A game that names its
//! cells by file and rank (Damone, Dameo) gets `a`-`h` and `1`-`8` along
//! the edges; a game that numbers its
//! squares ([`GamePosition::cell_number`]: Italian draughts' 1-32) shows
//! each empty square's number in place, as its diagrams do.

use super::{Color, GamePosition};

/// The glyph of a piece of kind `kind` (0 lowest) and colour. Unicode:
/// a plain disc for the lowest kind, a crowned one for the next, a king
/// for Damone's Damone. ASCII: the game's letters, upper case for White.
fn glyph<P: GamePosition>(piece: Option<(Color, usize)>, ascii: bool) -> String {
    const WHITE: [&str; 3] = ["⛀", "⛁", "♔"];
    const BLACK: [&str; 3] = ["⛂", "⛃", "♚"];
    match (piece, ascii) {
        (None, true) => ".".into(),
        (None, false) => "·".into(),
        (Some((Color::White, k)), true) => P::PIECE_LETTERS[k].to_string(),
        (Some((Color::Black, k)), true) => P::PIECE_LETTERS[k].to_ascii_lowercase().to_string(),
        (Some((Color::White, k)), false) => WHITE[k.min(2)].into(),
        (Some((Color::Black, k)), false) => BLACK[k.min(2)].into(),
    }
}

/// Whether the game numbers its cells rather than naming them.
fn numbered<P: GamePosition>() -> bool {
    let (files, ranks) = P::GRID;
    (0..files).any(|f| (0..ranks).any(|r| P::cell_number(f, r).is_some()))
}

/// The board as text, seen from `view`'s side, with a legend of the
/// glyphs; ASCII letters instead of Unicode glyphs with `ascii`.
pub fn board_text<P: GamePosition>(pos: &P, view: Color, ascii: bool) -> String {
    let white = view == Color::White;
    let (file_count, rank_count) = P::GRID;
    let ranks: Vec<i32> = if white {
        (0..rank_count).rev().collect()
    } else {
        (0..rank_count).collect()
    };
    let files: Vec<i32> = if white {
        (0..file_count).collect()
    } else {
        (0..file_count).rev().collect()
    };
    let numbers = numbered::<P>();
    let mut s = String::new();
    for &r in &ranks {
        if !numbers {
            s.push_str(&format!(" {} ", r + 1));
        }
        for &f in &files {
            s.push_str(&cell_text(pos, f, r, numbers, ascii));
        }
        s.push('\n');
    }
    if !numbers {
        s.push_str("   ");
        for &f in &files {
            s.push_str(&format!(" {}", (b'a' + f as u8) as char));
        }
        s.push('\n');
    }
    s.push_str(&legend::<P>(ascii));
    s
}

/// One cell: two columns wide by file and rank, three when numbered (an
/// empty square shows its number).
fn cell_text<P: GamePosition>(pos: &P, file: i32, rank: i32, numbers: bool, ascii: bool) -> String {
    let piece = pos.piece_on(file, rank);
    match (P::playable(file, rank), numbers) {
        (false, false) => "  ".into(),
        (false, true) => "   ".into(),
        (true, false) => format!(" {}", glyph::<P>(piece, ascii)),
        (true, true) => match (piece, P::cell_number(file, rank)) {
            (None, Some(n)) => format!(" {n:>2}"),
            (p, _) => format!("  {}", glyph::<P>(p, ascii)),
        },
    }
}

/// What each glyph stands for.
fn legend<P: GamePosition>(ascii: bool) -> String {
    let parts: Vec<String> = [Color::White, Color::Black]
        .iter()
        .map(|&color| {
            let names: Vec<String> = P::PIECE_KINDS
                .iter()
                .enumerate()
                .map(|(k, name)| format!("{} {name}", glyph::<P>(Some((color, k)), ascii)))
                .collect();
            format!("{}: {}", color.name(), names.join(", "))
        })
        .collect();
    format!("    {}\n", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{
        dameo,
        damone::{Position, Variant},
        italian,
    };

    #[test]
    fn each_game_draws_its_board_in_its_own_notation() {
        let damone = board_text(&Position::start(Variant::Standard), Color::White, true);
        assert!(damone.contains(" a b c d e f g h"), "{damone}");
        assert!(damone.lines().next().unwrap().starts_with(" 8 "), "{damone}");
        let start = <italian::Position as GamePosition>::start(());
        let it = board_text(&start, Color::White, true);
        assert!(!it.contains(" a b c"), "{it}");
        // The empty middle rows show their numbers: 13-16 and 17-20.
        let lines: Vec<&str> = it.lines().collect();
        for (line, numbers) in [
            (lines[3], ["13", "14", "15", "16"]),
            (lines[4], ["17", "18", "19", "20"]),
        ] {
            let found: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(found, numbers, "{it}");
        }
        // Seen from Black, square 32 (h1) is at the top left.
        let black = board_text(&start, Color::Black, true);
        assert_eq!(
            black.lines().next().unwrap().split_whitespace().count(),
            4,
            "{black}"
        );
        let dameo = board_text(&<dameo::Position as GamePosition>::start(()), Color::White, true);
        assert!(dameo.contains(" a b c d e f g h"), "{dameo}");
    }
}
