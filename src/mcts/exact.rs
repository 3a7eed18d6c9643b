//! Exact values from outside the search: a tree given [`ExactValues`]
//! treats every position they cover below its root as a finished game
//! with that value (as the MCTS-solver treats proven nodes), so it needs
//! no evaluation and its value is backed up and proven at once. Damone's
//! endgame tablebases ([`Tablebase`]) are such values.

use super::wdl::Wdl;
use crate::game::{dameo, italian, DrawRules, Game, GamePosition, Position};
use crate::tablebase::{Tablebase, Value};
use std::path::Path;
use std::sync::Arc;

/// Exact values of some positions of a game.
pub trait ExactValues<P: GamePosition>: Send + Sync {
    /// The exact value of `game`'s position for its side to move, where
    /// known (under the game's own draw rules), else None.
    fn exact(&self, game: &Game<P>) -> Option<Wdl>;

    /// The move that keeps the best exact result of `game`'s position
    /// (the nearest win, or the furthest loss), where known.
    fn best_move(&self, game: &Game<P>) -> Option<P::Move> {
        let _ = game;
        None
    }
}

/// Exact values with the drawn positions left out: a player's search goes
/// on searching a drawn ending, where an opponent that errs may still
/// lose, while won and lost positions stay exact. (Self-play keeps the
/// draws: there the exact value is the target.)
pub struct DecisiveOnly<P: GamePosition>(pub Arc<dyn ExactValues<P>>);

impl<P: GamePosition> ExactValues<P> for DecisiveOnly<P> {
    fn exact(&self, game: &Game<P>) -> Option<Wdl> {
        self.0.exact(game).filter(|w| *w != Wdl::DRAW)
    }

    fn best_move(&self, game: &Game<P>) -> Option<P::Move> {
        self.exact(game).and_then(|_| self.0.best_move(game))
    }
}

impl ExactValues<Position> for Tablebase {
    /// The tables' value with the position's no-progress counter; None
    /// where no table covers it or the game's no-progress limit is not the
    /// one the tables were built for.
    fn exact(&self, game: &Game<Position>) -> Option<Wdl> {
        if !self.serves(&game.rules()) {
            return None;
        }
        self.probe(game.position()).map(|v| match v {
            Value::Win(_) => Wdl::WIN,
            Value::Draw => Wdl::DRAW,
            Value::Loss(_) => Wdl::LOSS,
        })
    }

    /// The first of [`Tablebase::move_values`]: the nearest conversion of
    /// a win, the furthest of a loss.
    fn best_move(&self, game: &Game<Position>) -> Option<crate::game::Move> {
        if !self.serves(&game.rules()) {
            return None;
        }
        self.move_values(game.position())?.first().map(|(m, _)| *m)
    }
}

/// Opening a game's exact values from a folder: Damone's endgame
/// tablebases; the other games have none.
pub trait OpenExactValues: GamePosition {
    /// The exact values in `dir` for games under `rules`.
    fn open_exact_values(dir: &Path, rules: DrawRules) -> Result<Arc<dyn ExactValues<Self>>, String> {
        let _ = (dir, rules);
        Err("endgame tablebases exist for Damone only".into())
    }
}

impl OpenExactValues for Position {
    /// The tables in `dir`, read into memory; refused when they were built
    /// for another no-progress limit than `rules`'.
    fn open_exact_values(dir: &Path, rules: DrawRules) -> Result<Arc<dyn ExactValues<Self>>, String> {
        let tb = Tablebase::open(dir, false).map_err(|e| e.to_string())?;
        if !tb.serves(&rules) {
            return Err(format!(
                "the tables in {} are built for a no-progress limit of {} plies, the games play to {}",
                dir.display(),
                tb.limit(),
                rules.no_progress_plies
            ));
        }
        Ok(Arc::new(tb))
    }
}

impl OpenExactValues for italian::Position {}
impl OpenExactValues for dameo::Position {}
