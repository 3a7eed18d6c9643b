//! A learned evaluation for alpha-beta found by any path a user may name
//! (`alphabeta:eval=PATH`, `bench --eval`, `info`, the web page), and the
//! network player's leaves valued with it as well (`net:PATH,leaf=W`).

use super::{decode_player_with, MAGIC};
use crate::arena::{AlphaBeta, Limits};
use crate::game::GameId;
use crate::learned::{expected_score_of, EvalFile, LearnedEval};
use crate::mcts::{EvalRequest, Evaluation, Evaluator, Wdl};
use crate::run::RunGame;
use std::path::Path;
use std::sync::Arc;

/// A network's evaluations with their value mixed with a learned
/// evaluation's: each position searched one ply, the captures after it to
/// the end, by alpha-beta with the learned evaluation
/// ([`AlphaBeta::shallow_score`]); that score read as an expected result
/// ([`expected_score_of`]: the evaluation is trained on it), and the
/// value taken as `(1 - weight) x network + weight x learned`. The priors
/// stay the network's.
pub struct LeafMix<E, P: RunGame> {
    inner: E,
    search: AlphaBeta<P, LearnedEval>,
    weight: f32,
}

impl<E, P: RunGame> LeafMix<E, P> {
    /// `inner`'s evaluations mixed with `eval`'s at `weight` (in [0, 1]).
    pub fn new(inner: E, eval: Arc<LearnedEval>, weight: f32) -> Self {
        LeafMix {
            inner,
            search: AlphaBeta::with_eval("leaf".into(), Limits::default(), eval),
            weight,
        }
    }
}

impl<E: Evaluator<P>, P: RunGame> Evaluator<P> for LeafMix<E, P> {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, P>]) -> Vec<Evaluation> {
        let mut out = self.inner.evaluate(batch);
        for (r, e) in batch.iter().zip(out.iter_mut()) {
            if r.moves.is_empty() {
                continue;
            }
            let expected = expected_score_of(self.search.shallow_score(r.game));
            e.wdl = e.wdl.mix(Wdl::new(expected, 0.0, 1.0 - expected), self.weight);
        }
        out
    }
}

/// The learned evaluation `path` names: a `learned_eval.bin` file, a
/// player file holding one, or a checkpoint or run folder (a checkpoint's
/// own, a run folder's newest:
/// [`checkpoint_eval_file`](crate::run::learned_eval::checkpoint_eval_file)),
/// or a self-training folder (its newest round).
/// With `game`, one of another game is refused by name.
pub fn learned_eval_at(path: &Path, game: Option<GameId>) -> Result<EvalFile, String> {
    let file = if crate::run::self_train::is_self_train_folder(path) {
        crate::run::self_train::newest_eval(path)?
    } else if path.is_dir() {
        crate::run::learned_eval::checkpoint_eval_file(path)?
    } else {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {what}: {e}"))?;
        if bytes.starts_with(MAGIC) {
            let (_, _, learned) = decode_player_with(&bytes, &what).map_err(|e| e.to_string())?;
            learned.ok_or_else(|| {
                format!("{what} holds no learned evaluation (export it again after `damone learn-eval` on its run)")
            })?
        } else {
            EvalFile::from_bytes(&bytes).map_err(|e| format!("{what}: {e}"))?
        }
    };
    if let Some(g) = game {
        file.check_game(g)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(file)
}
