//! Rule variants: start positions, promotion squares and the "damone-hunt"
//! ending rule.

use crate::game::types::{Bitboard, Color, Square};
use std::fmt;
use std::str::FromStr;

/// The rules variant a position is played under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The standard game (docs/rules.md).
    #[default]
    Standard,
    /// As standard, but a player who has lost all their Damones loses at once.
    DamoneHunt,
    /// Three Damas and three Pedine each; Pedine promote on three squares.
    ThreeDamas,
}

/// Names accepted by [`Variant::from_str`], in display order.
pub const VARIANT_NAMES: [&str; 3] = ["standard", "damone-hunt", "three-damas"];

impl Variant {
    /// The variant's name as used in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::DamoneHunt => "damone-hunt",
            Variant::ThreeDamas => "three-damas",
        }
    }
    /// The start position in FEN.
    pub fn start_fen(self) -> &'static str {
        match self {
            Variant::Standard | Variant::DamoneHunt => {
                "W:WIh1,Df1,Dh3,d1,e2,f3,g4,h5:BIa8,Da6,Dc8,a4,b5,c6,d7,e8"
            }
            Variant::ThreeDamas => "W:WIh1,Df1,Dg2,Dh3,e2,f3,g4:BIa8,Da6,Db7,Dc8,b5,c6,d7",
        }
    }
    /// Squares where a Pedina of `color` becomes a Dama (the opponent's initial
    /// Dama squares).
    pub fn pedina_promotion(self, color: Color) -> Bitboard {
        match (self, color) {
            (Variant::ThreeDamas, Color::White) => A6 | B7 | C8,
            (Variant::ThreeDamas, Color::Black) => F1 | G2 | H3,
            (_, Color::White) => A6 | C8,
            (_, Color::Black) => F1 | H3,
        }
    }
    /// Square where a Dama of `color` becomes a Damone (the opponent's
    /// initial Damone square).
    pub fn dama_promotion(self, color: Color) -> Bitboard {
        match color {
            Color::White => A8,
            Color::Black => H1,
        }
    }
    /// True when losing all Damones loses the game.
    pub fn damone_hunt(self) -> bool {
        self == Variant::DamoneHunt
    }
}

/// The bit of the dark square at (file, rank), both 0-based (a1 = (0, 0)).
const fn bit(file: i32, rank: i32) -> Bitboard {
    match Square::from_coords(file, rank) {
        Some(s) => s.bb(),
        None => panic!("a promotion square must be a dark square"),
    }
}

const A6: Bitboard = bit(0, 5);
const B7: Bitboard = bit(1, 6);
const C8: Bitboard = bit(2, 7);
const A8: Bitboard = bit(0, 7);
const F1: Bitboard = bit(5, 0);
const G2: Bitboard = bit(6, 1);
const H3: Bitboard = bit(7, 2);
const H1: Bitboard = bit(7, 0);

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown variant name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}' (expected one of: standard, damone-hunt, three-damas)")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "standard" => Ok(Variant::Standard),
            "damone-hunt" => Ok(Variant::DamoneHunt),
            "three-damas" => Ok(Variant::ThreeDamas),
            _ => Err(UnknownVariant(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(names: &[&str]) -> Bitboard {
        names
            .iter()
            .map(|n| Square::parse(n).unwrap().bb())
            .fold(0, |a, b| a | b)
    }

    /// The promotion masks name the squares the rules give.
    #[test]
    fn promotion_squares_are_the_rules_squares() {
        for v in [Variant::Standard, Variant::DamoneHunt] {
            assert_eq!(v.pedina_promotion(Color::White), squares(&["a6", "c8"]));
            assert_eq!(v.pedina_promotion(Color::Black), squares(&["f1", "h3"]));
        }
        let three = Variant::ThreeDamas;
        assert_eq!(three.pedina_promotion(Color::White), squares(&["a6", "b7", "c8"]));
        assert_eq!(three.pedina_promotion(Color::Black), squares(&["f1", "g2", "h3"]));
        assert_eq!(three.dama_promotion(Color::White), squares(&["a8"]));
        assert_eq!(three.dama_promotion(Color::Black), squares(&["h1"]));
    }
}
