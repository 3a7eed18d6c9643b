//! Italian draughts (Dama italiana) as the Italian federation (FID) plays
//! it (docs/rules-italian.md): twelve men a side on the 32 dark squares,
//! men that move and capture forward only and never take a king, kings of
//! one step in the four diagonal directions, compulsory capture with the
//! four precedence criteria, promotion on the last row.
//!
//! It shares the 32-square board of [`crate::game::types`] with Damone
//! (the same orientation: h1 and a8 are dark) and plugs into the layers
//! above through [`GamePosition`].

mod notation;
mod position;

pub use notation::{square_number, square_of_number, SetupError};
pub use position::{Move, Piece, Position, MAX_JUMPS};

use super::interface::{GameKind, GamePosition};
use super::types::Color;
use super::ParseMoveError;

impl GamePosition for Position {
    type Move = Move;
    type Variant = ();
    type SetupError = SetupError;

    const KIND: GameKind = GameKind::Italian;
    const REPETITION_DRAW: usize = 3;

    fn variant_code(_: ()) -> u8 {
        3
    }
    fn variant_of_code(code: u8) -> Option<()> {
        (code == 3).then_some(())
    }
    fn variant_name(_: ()) -> &'static str {
        "standard"
    }
    fn variant_named(name: &str) -> Result<(), String> {
        match name.trim() {
            "standard" => Ok(()),
            other => Err(format!(
                "unknown variant '{other}' for italian (it has one: standard)"
            )),
        }
    }
    fn start(_: ()) -> Self {
        Position::start()
    }
    fn from_setup(text: &str, _: ()) -> Result<Self, SetupError> {
        Position::from_setup(text)
    }
    fn to_setup(&self) -> String {
        Position::to_setup(self)
    }
    fn variant(&self) {}
    #[inline]
    fn side_to_move(&self) -> Color {
        Position::side_to_move(self)
    }
    #[inline]
    fn hash_key(&self) -> u64 {
        Position::hash(self)
    }
    #[inline]
    fn no_progress(&self) -> u16 {
        self.reversible_plies()
    }
    #[inline]
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        Position::legal_moves_into(self, out)
    }
    #[inline]
    fn count_moves(&self, scratch: &mut Vec<Move>) -> u64 {
        Position::count_moves(self, scratch)
    }
    #[inline]
    fn has_capture(&self) -> bool {
        Position::has_capture(self)
    }
    #[inline]
    fn play_unchecked(&mut self, m: &Move) -> bool {
        Position::play_unchecked(self, m)
    }
    fn move_text(&self, m: &Move) -> String {
        Position::move_text(self, m)
    }
    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        Position::parse_move(self, text)
    }
    fn piece_balance(&self, c: Color) -> f32 {
        let mine = self.color_bb(c).count_ones() as f32;
        let theirs = self.color_bb(c.opposite()).count_ones() as f32;
        (mine - theirs) / 12.0
    }
    fn material(&self, c: Color) -> i32 {
        Position::material(self, c)
    }
    fn diagram(&self) -> String {
        Position::diagram(self)
    }
    const PIECE_KINDS: &'static [&'static str] = &["man", "king"];
    const PIECE_LETTERS: &'static [char] = &['M', 'K'];
    const MOVE_EXAMPLES: &'static str = "22-18, 21x14x7";
    fn playable(file: i32, rank: i32) -> bool {
        super::Square::from_coords(file, rank).is_some()
    }
    fn cell_number(file: i32, rank: i32) -> Option<u32> {
        super::Square::from_coords(file, rank).map(|s| square_number(s) as u32)
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        super::types::click_path(m.from(), m.landings(), m.to())
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        let p = self.piece_at(super::Square::from_coords(file, rank)?)?;
        Some((p.color, p.king as usize))
    }
}

/// Perft counting capture paths: as [`crate::game::perft`], but a capture
/// that can take the same pieces along two paths counts twice, as the
/// published Italian counts do (they differ from the move count from depth
/// 12 of the start position on).
pub fn perft_paths(pos: &Position, depth: u32) -> u64 {
    fn count(pos: &Position, depth: u32, bufs: &mut [Vec<Move>]) -> u64 {
        let (buf, rest) = bufs.split_first_mut().expect("one buffer per ply");
        pos.capture_paths_into(buf);
        if depth == 1 {
            return buf.len() as u64;
        }
        buf.iter().map(|m| count(&pos.after(m), depth - 1, rest)).sum()
    }
    if depth == 0 {
        return 1;
    }
    let mut bufs: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(32)).collect();
    count(pos, depth, &mut bufs)
}

#[cfg(test)]
mod tests;
