//! Dameo (Christian Freeling, 2000) as docs/rules-dameo.md decides it:
//! eighteen men a side on all 64 cells, men that step straight or
//! diagonally forward and advance in lines, kings that move like a chess
//! queen, orthogonal captures only (men by short leap forwards, sideways
//! and backwards, kings by long leap), captured pieces removed when the
//! move ends and never jumped twice, the most captures compulsory, and
//! promotion of a man that ends its move on the last row.
//!
//! The board is its own (`u64`, bit `rank * 8 + file`); the game plugs
//! into the layers above through [`GamePosition`].

mod notation;
mod position;

pub use notation::{cell_name, cell_of_name, SetupError};
pub use position::{cells, Cells, Move, Position, MAX_JUMPS};

use super::interface::{GameKind, GamePosition};
use super::types::Color;
use super::ParseMoveError;

/// The byte files write for Dameo positions (Damone 0-2, Italian 3).
const VARIANT_CODE: u8 = 4;

impl GamePosition for Position {
    type Move = Move;
    type Variant = ();
    type SetupError = SetupError;

    const KIND: GameKind = GameKind::Dameo;
    const REPETITION_DRAW: usize = 3;

    fn variant_code(_: ()) -> u8 {
        VARIANT_CODE
    }
    fn variant_of_code(code: u8) -> Option<()> {
        (code == VARIANT_CODE).then_some(())
    }
    fn variant_name(_: ()) -> &'static str {
        "standard"
    }
    fn variant_named(name: &str) -> Result<(), String> {
        match name.trim() {
            "standard" => Ok(()),
            other => Err(format!(
                "unknown variant '{other}' for dameo (it has one: standard)"
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
    fn has_moves(&self, _scratch: &mut Vec<Move>) -> bool {
        Position::has_capture(self) || Position::has_quiet_move(self)
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
        let mine = self.color_cells(c).count_ones() as f32;
        let theirs = self.color_cells(c.opposite()).count_ones() as f32;
        (mine - theirs) / 18.0
    }
    fn material(&self, c: Color) -> i32 {
        Position::material(self, c)
    }
    fn diagram(&self) -> String {
        Position::diagram(self)
    }
    const PIECE_KINDS: &'static [&'static str] = &["man", "king"];
    const PIECE_LETTERS: &'static [char] = &['M', 'K'];
    const MOVE_EXAMPLES: &'static str = "c3-c4, c1-c4, d4xd6xf6";
    fn playable(file: i32, rank: i32) -> bool {
        (0..8).contains(&file) && (0..8).contains(&rank)
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        let coords = |c: usize| ((c % 8) as i32, (c / 8) as i32);
        let mut path: Vec<(i32, i32)> = std::iter::once(m.from())
            .chain(m.landings())
            .map(coords)
            .collect();
        if path.len() == 1 {
            path.push(coords(m.to()));
        }
        path
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        if !Self::playable(file, rank) {
            return None;
        }
        let p = self.piece_at((rank * 8 + file) as usize)?;
        Some((p.color, p.king as usize))
    }
}

#[cfg(test)]
mod tests;
