//! Damone's position behind the game interface ([`GamePosition`]): each
//! method hands on to the engine's own (`position.rs`, `fen.rs`,
//! `notation.rs`), with the variants' codes and names for files.

use super::interface::GamePosition;
use super::position::{Move, Position};
use super::types::{Color, Rank, Square};
use super::variant::Variant;

impl GamePosition for Position {
    type Move = Move;
    type Variant = Variant;
    type SetupError = super::ParseFenError;

    const KIND: super::GameKind = super::GameKind::Damone;
    const REPETITION_DRAW: usize = 3;

    fn variant_code(variant: Variant) -> u8 {
        match variant {
            Variant::Standard => 0,
            Variant::DamoneHunt => 1,
            Variant::ThreeDamas => 2,
        }
    }
    fn variant_of_code(code: u8) -> Option<Variant> {
        match code {
            0 => Some(Variant::Standard),
            1 => Some(Variant::DamoneHunt),
            2 => Some(Variant::ThreeDamas),
            _ => None,
        }
    }
    fn variant_name(variant: Variant) -> &'static str {
        variant.name()
    }
    fn variant_named(name: &str) -> Result<Variant, String> {
        name.parse().map_err(|e: super::UnknownVariant| e.to_string())
    }
    fn start(variant: Variant) -> Self {
        Position::start(variant)
    }
    fn from_setup(text: &str, variant: Variant) -> Result<Self, super::ParseFenError> {
        Position::from_fen(text, variant)
    }
    fn to_setup(&self) -> String {
        self.to_fen()
    }
    fn variant(&self) -> Variant {
        Position::variant(self)
    }
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
        Position::no_progress(self)
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
    #[inline]
    fn decided(&self) -> Option<super::Outcome> {
        if !Position::variant(self).damone_hunt() {
            return None;
        }
        let side = Position::side_to_move(self);
        let lost = [side, side.opposite()]
            .into_iter()
            .find(|&c| Position::variant(self).damone_hunt() && self.pieces(c, Rank::Damone) == 0)?;
        Some(super::Outcome {
            winner: Some(lost.opposite()),
            reason: super::EndReason::DamoneLost,
        })
    }
    fn move_text(&self, m: &Move) -> String {
        m.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Move, super::ParseMoveError> {
        super::parse_move(self, text)
    }
    fn piece_balance(&self, c: Color) -> f32 {
        Position::piece_balance(self, c)
    }
    fn material(&self, c: Color) -> i32 {
        Position::material(self, c)
    }
    fn diagram(&self) -> String {
        Position::diagram(self)
    }
    const PIECE_KINDS: &'static [&'static str] = &["pedina", "dama", "damone"];
    const PIECE_LETTERS: &'static [char] = &['P', 'D', 'I'];
    const MOVE_EXAMPLES: &'static str = "f3-e4, e4xg6xe8";
    fn playable(file: i32, rank: i32) -> bool {
        Square::from_coords(file, rank).is_some()
    }
    fn move_path(m: &Move) -> Vec<(i32, i32)> {
        super::types::click_path(m.from(), m.landings(), m.to())
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        let p = self.piece_at(Square::from_coords(file, rank)?)?;
        Some((p.color, p.rank.index()))
    }
}
