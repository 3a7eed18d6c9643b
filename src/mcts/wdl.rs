//! [`Wdl`]: win, draw and loss probabilities for one side, the value
//! convention of every evaluator, search result and training target.

use crate::game::{Color, Outcome};
use serde::{Deserialize, Serialize};

/// The win/draw/loss part of what the search maximises for one side, from
/// its win, draw and loss weights (probabilities, or their sums over
/// visits): win - loss + `draw_score` x draw
/// ([`SearchParams::draw_score`](super::SearchParams::draw_score); 0 gives
/// the zero-sum win - loss). The whole value is `tree::search_value`.
pub(super) fn utility<T>(win: T, draw: T, loss: T, draw_score: T) -> T
where
    T: Copy + std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
{
    win - loss + draw_score * draw
}

/// Win, draw and loss probabilities, from the point of view of one side
/// (the side to move, unless a field says otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wdl {
    /// Probability of a win for the side to move.
    pub win: f32,
    /// Probability of a draw.
    pub draw: f32,
    /// Probability of a loss for the side to move.
    pub loss: f32,
}

impl Default for Wdl {
    fn default() -> Self {
        Wdl::DRAW
    }
}

impl Wdl {
    /// A certain win.
    pub const WIN: Wdl = Wdl::new(1.0, 0.0, 0.0);
    /// A certain draw.
    pub const DRAW: Wdl = Wdl::new(0.0, 1.0, 0.0);
    /// A certain loss.
    pub const LOSS: Wdl = Wdl::new(0.0, 0.0, 1.0);

    /// Win, draw and loss probabilities (they should sum to 1).
    pub const fn new(win: f32, draw: f32, loss: f32) -> Wdl {
        Wdl { win, draw, loss }
    }

    /// The result of a finished game for `side`.
    pub fn of_outcome(o: &Outcome, side: Color) -> Wdl {
        match o.winner {
            None => Wdl::DRAW,
            Some(w) if w == side => Wdl::WIN,
            Some(_) => Wdl::LOSS,
        }
    }

    /// The same probabilities seen by the other side.
    pub fn flipped(self) -> Wdl {
        Wdl::new(self.loss, self.draw, self.win)
    }

    /// Expected score in [-1, 1]: win minus loss.
    pub fn value(self) -> f32 {
        self.win - self.loss
    }

    /// The win/draw/loss part of the search's value of these
    /// probabilities: [`Wdl::value`] plus `draw_score` x draw.
    pub fn utility(self, draw_score: f32) -> f32 {
        utility(self.win, self.draw, self.loss, draw_score)
    }

    /// `(1 - w) * self + w * other`.
    pub fn mix(self, other: Wdl, w: f32) -> Wdl {
        let m = |a: f32, b: f32| (1.0 - w) * a + w * b;
        Wdl::new(
            m(self.win, other.win),
            m(self.draw, other.draw),
            m(self.loss, other.loss),
        )
    }

    /// As `[win, draw, loss]` (the order of the network's value head).
    pub fn to_array(self) -> [f32; 3] {
        [self.win, self.draw, self.loss]
    }

    /// From `[win, draw, loss]`.
    pub fn from_array(a: [f32; 3]) -> Wdl {
        Wdl::new(a[0], a[1], a[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::EndReason;

    #[test]
    fn outcome_flip_and_mix() {
        let o = Outcome {
            winner: Some(Color::White),
            reason: EndReason::NoMoves,
        };
        assert_eq!(Wdl::of_outcome(&o, Color::White), Wdl::WIN);
        assert_eq!(Wdl::of_outcome(&o, Color::Black), Wdl::LOSS);
        assert_eq!(Wdl::WIN.flipped(), Wdl::LOSS);
        assert_eq!(Wdl::new(0.5, 0.3, 0.2).value(), 0.3);
        assert_eq!(Wdl::WIN.mix(Wdl::LOSS, 0.25), Wdl::new(0.75, 0.0, 0.25));
    }
}
