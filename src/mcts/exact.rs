//! Exact values from outside the search: a tree given [`ExactValues`]
//! treats every position they cover below its root as a finished game
//! with that value (as the MCTS-solver treats proven nodes), so it needs
//! no evaluation and its value is backed up and proven at once. A game's
//! endgame tablebases ([`Tablebase`]) are such values.

use super::wdl::Wdl;
use crate::game::{DrawRules, Game, GamePosition, TableGame};
use crate::tablebase::{draw_positions, Tablebase, Value};
use crate::util::Rng;
use std::path::Path;
use std::sync::Arc;

/// Exact values of some positions of a game.
pub trait ExactValues<P: GamePosition>: Send + Sync {
    /// The exact value of `pos` for its side to move under the draw rules
    /// `rules` (its no-progress counter counted), where known, else None.
    /// Cheap where none is known: a search asks at every node.
    fn exact_at(&self, pos: &P, rules: &DrawRules) -> Option<Wdl>;

    /// The exact value of `game`'s position for its side to move, where
    /// known (under the game's own draw rules), else None.
    fn exact(&self, game: &Game<P>) -> Option<Wdl> {
        self.exact_at(game.position(), &game.rules())
    }

    /// The move that keeps the best exact result of `game`'s position
    /// (the nearest win, or the furthest loss), where known.
    fn best_move(&self, game: &Game<P>) -> Option<P::Move> {
        let _ = game;
        None
    }

    /// `count` positions they cover drawn at random (for training samples
    /// taken from the values themselves), each with its value and the
    /// moves that keep it; fewer (none) where they cannot be drawn from.
    fn draw(&self, count: usize, rng: &mut Rng) -> Vec<ExactPosition<P>> {
        let _ = (count, rng);
        Vec::new()
    }
}

/// A position drawn from exact values ([`ExactValues::draw`]): unfinished,
/// its no-progress counter 0.
#[derive(Clone, Debug)]
pub struct ExactPosition<P: GamePosition> {
    /// The position.
    pub pos: P,
    /// Its exact value for the side to move.
    pub value: Wdl,
    /// Its legal moves that keep that value best: the nearest conversion
    /// of a win, every drawing move of a draw, the furthest loss.
    pub best: Vec<P::Move>,
}

/// Exact values with the drawn positions left out: a player's search goes
/// on searching a drawn ending, where an opponent that errs may still
/// lose, while won and lost positions stay exact. (Self-play keeps the
/// draws: there the exact value is the target.)
pub struct DecisiveOnly<P: GamePosition>(pub Arc<dyn ExactValues<P>>);

impl<P: GamePosition> ExactValues<P> for DecisiveOnly<P> {
    fn exact_at(&self, pos: &P, rules: &DrawRules) -> Option<Wdl> {
        self.0.exact_at(pos, rules).filter(|w| *w != Wdl::DRAW)
    }

    fn best_move(&self, game: &Game<P>) -> Option<P::Move> {
        self.exact(game).and_then(|_| self.0.best_move(game))
    }
}

impl<P: TableGame> ExactValues<P> for Tablebase<P> {
    /// The tables' value with the position's no-progress counter; None
    /// where no table covers it or the game's no-progress limit is not the
    /// one the tables were built for.
    fn exact_at(&self, pos: &P, rules: &DrawRules) -> Option<Wdl> {
        if !self.serves(rules) {
            return None;
        }
        self.probe(pos).map(wdl_of)
    }

    /// The first of [`Tablebase::move_values`]: the nearest conversion of
    /// a win, the furthest of a loss.
    fn best_move(&self, game: &Game<P>) -> Option<P::Move> {
        if !self.serves(&game.rules()) {
            return None;
        }
        self.move_values(game.position())?.first().map(|(m, _)| *m)
    }

    /// Each a balance drawn uniformly among the tables', then a position
    /// of its table ([`crate::tablebase::Material::random_position`]),
    /// drawn again where the index holds no position or the position is
    /// finished (at most 1,000 tries a position).
    fn draw(&self, count: usize, rng: &mut Rng) -> Vec<ExactPosition<P>> {
        draw_positions(&self.materials(), count, count * 1_000, rng, |pos: P, _| {
            let (Some(_), Some(moves)) = (self.entry(&pos), self.move_values(&pos)) else {
                return None;
            };
            let &(_, value) = moves.first()?;
            let best = moves
                .iter()
                .filter(|(_, v)| *v == value)
                .map(|(m, _)| *m)
                .collect();
            Some(ExactPosition {
                pos,
                value: wdl_of(value),
                best,
            })
        })
    }
}

/// A table value as a certain WDL.
fn wdl_of(v: Value) -> Wdl {
    match v {
        Value::Win(_) => Wdl::WIN,
        Value::Draw => Wdl::DRAW,
        Value::Loss(_) => Wdl::LOSS,
    }
}

/// Opening a game's exact values from a folder: its endgame tables. Every
/// [`TableGame`] has it; a game without tables implements it empty, and
/// every folder is then refused with a one-line error.
pub trait OpenExactValues: GamePosition {
    /// The exact values in `dir` for games under `rules`.
    fn open_exact_values(dir: &Path, rules: DrawRules) -> Result<Arc<dyn ExactValues<Self>>, String> {
        let _ = rules;
        Err(format!(
            "{} has no endgame tables (asked for {})",
            Self::ID,
            dir.display()
        ))
    }
}

impl<P: TableGame> OpenExactValues for P {
    /// The tables in `dir`, read into memory; refused when they are
    /// another game's or were built for another no-progress limit than
    /// `rules`'.
    fn open_exact_values(dir: &Path, rules: DrawRules) -> Result<Arc<dyn ExactValues<Self>>, String> {
        let tb = Tablebase::<P>::open(dir, false).map_err(|e| e.to_string())?;
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
