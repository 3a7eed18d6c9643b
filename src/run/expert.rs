//! Expert games for the network (expert iteration, Anthony, Tian and
//! Barber 2017, with alpha-beta as the expert): each iteration, alpha-beta
//! with a learned evaluation plays `expert.games_per_iteration` games
//! against itself, and each position it searched joins the replay window
//! beside the MCTS self-play's: the expert's move as the policy target, the
//! game's result as the outcome, the search's value as the search value
//! (`train.value_q_weight` mixes the two, as for self-play samples).
//!
//! The games are [`play_game`]'s, the self-training's games, played under
//! the run's draw rules at `expert.nodes` nodes a move (a node budget: the
//! same games on any machine), their openings seeded by the run's seed
//! and the iteration.

use super::self_train::{play_game, score_label, PlayedGame, SelfTrainConfig};
use crate::arena::alphabeta::Baseline;
use crate::arena::tournament::MatchSettings;
use crate::data::{AuxTargets, Sample};
use crate::game::{DrawRules, Game, GameId, GamePosition};
use crate::learned::LearnedEval;
use crate::mcts::Wdl;
use crate::net::{policy_indices, Board};
use crate::util::derive_seed;
use crate::util::range::{check, Bounds};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The `[expert]` section of a run config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExpertConfig {
    /// Alpha-beta games added to each iteration's samples (0: none).
    pub games_per_iteration: usize,
    /// The expert's learned evaluation: [`OWN_EXPERT`] (the run's own,
    /// self-trained before its first iteration) or anything
    /// `alphabeta:eval=` reads (an evaluation or player file, a run or
    /// self-training folder).
    pub eval: String,
    /// Alpha-beta's nodes a move.
    pub nodes: u64,
    /// Random plies opening each game (their positions make no samples).
    pub opening_plies: u32,
}

impl Default for ExpertConfig {
    fn default() -> Self {
        ExpertConfig {
            games_per_iteration: 0,
            eval: String::new(),
            nodes: 2000,
            opening_plies: 6,
        }
    }
}

/// `expert.eval` naming the run's own self-trained evaluation.
pub const OWN_EXPERT: &str = "self-train";

impl ExpertConfig {
    /// True when the run plays expert games with its own self-trained
    /// evaluation.
    pub fn trains_own(&self) -> bool {
        self.games_per_iteration > 0 && self.eval == OWN_EXPERT
    }

    /// Check the ranges; a one-line error naming the key.
    pub fn validate(&self) -> Result<(), String> {
        check(
            "expert.games_per_iteration",
            self.games_per_iteration,
            Bounds::Closed(0, 100_000),
        )?;
        check("expert.nodes", self.nodes, Bounds::Closed(1, 100_000_000))?;
        check("expert.opening_plies", self.opening_plies, Bounds::Closed(0, 60))?;
        if self.games_per_iteration > 0 && self.eval.is_empty() {
            return Err(
                "expert.games_per_iteration needs expert.eval (the learned evaluation that plays the games)"
                    .into(),
            );
        }
        Ok(())
    }

    /// The expert's evaluation, read from `eval` and checked to be `game`'s;
    /// None when the run plays no expert games or trains its own expert
    /// (it is made when the run starts).
    pub fn open(&self, game: GameId) -> Result<Option<Arc<LearnedEval>>, String> {
        if self.games_per_iteration == 0 || self.trains_own() {
            return Ok(None);
        }
        let file = crate::player::learned_eval_at(Path::new(&self.eval), Some(game))
            .map_err(|e| format!("expert.eval: {e}"))?;
        Ok(Some(Arc::new(LearnedEval::new(file.float))))
    }

    /// The settings [`play_game`] reads.
    fn game_settings(&self) -> SelfTrainConfig {
        SelfTrainConfig {
            nodes: self.nodes,
            label_nodes: 0,
            tree_depth: 0,
            opening_plies: self.opening_plies,
            ..SelfTrainConfig::default()
        }
    }
}

/// What an iteration's expert games gave.
pub struct ExpertGames<P: GamePosition> {
    /// Their samples, game after game.
    pub samples: Vec<Sample<P>>,
    /// Games played.
    pub games: usize,
    /// Alpha-beta nodes searched.
    pub nodes: u64,
}

/// Play `cfg.games_per_iteration` games of the expert `eval` from `start`
/// under `rules` on the current rayon pool, openings seeded by `seed`;
/// their samples in game order (the same on any thread count).
/// `on_game` hears the count of finished games.
pub fn play_expert_games<P: Baseline + Board>(
    eval: &Arc<LearnedEval>,
    cfg: &ExpertConfig,
    (start, rules): (P, DrawRules),
    seed: u64,
    on_game: &(dyn Fn(usize) + Sync),
) -> ExpertGames<P> {
    let mut settings = MatchSettings::from_start(start);
    settings.seed = derive_seed(seed, "expert-openings", 0);
    settings.opening_plies = cfg.opening_plies;
    settings.rules = rules;
    let game_settings = cfg.game_settings();
    let done = AtomicUsize::new(0);
    let played: Vec<PlayedGame<P>> = (0..cfg.games_per_iteration)
        .into_par_iter()
        .map(|i| {
            let g = play_game(eval, &game_settings, &settings, i);
            on_game(done.fetch_add(1, Ordering::Relaxed) + 1);
            g
        })
        .collect();
    ExpertGames {
        games: played.len(),
        nodes: played.iter().map(|g| g.nodes).sum(),
        samples: played.iter().flat_map(expert_samples).collect(),
    }
}

/// A played game's samples: one for each position a search chose the move
/// of, in the order played. The policy target is that move alone, the
/// outcome the game's result, the search value the search's score as a
/// [`Wdl`] ([`wdl_of_expected`]), the auxiliary targets and replies the
/// game's.
pub fn expert_samples<P: Board>(played: &PlayedGame<P>) -> Vec<Sample<P>> {
    let searched: HashMap<u64, i32> = played.scores.iter().map(|(p, s)| (p.hash_key(), *s)).collect();
    let record = &played.game;
    let replies = crate::selfplay::reply_indices(record);
    let limit = record.rules().no_progress_plies.max(1) as f32;
    let mut game = Game::new(*record.start(), record.rules());
    let mut samples = Vec::new();
    for (ply, mv) in record.moves().iter().enumerate() {
        let pos = *game.position();
        if let Some(&score) = searched.get(&pos.hash_key()) {
            let side = pos.side_to_move();
            let legal = pos.legal_moves();
            let policy = policy_indices(&pos, &legal)
                .into_iter()
                .zip(&legal)
                .map(|(j, m)| (j, if m == mv { 1.0 } else { 0.0 }))
                .collect();
            samples.push(Sample {
                pos,
                repeated: game.repetitions() > 1,
                no_progress: (pos.no_progress() as f32 / limit).min(1.0),
                policy,
                z: Wdl::of_outcome(&played.outcome, side),
                q: wdl_of_expected(score_label(score)),
                surprise: 0.0,
                aux: Some(AuxTargets::at_end(
                    record.position(),
                    side,
                    (record.ply() - ply) as u32,
                )),
                reply: replies[ply],
            });
        }
        game.play_unchecked(mv);
    }
    samples
}

/// The win-draw-loss of an expected score `s` (a win 1, a draw a half)
/// with the most draw it allows: a half is a sure draw, 1 a sure win, and
/// between them the rest of the score is a win's (or a loss's) share.
pub fn wdl_of_expected(s: f32) -> Wdl {
    let s = s.clamp(0.0, 1.0);
    let draw = 1.0 - (2.0 * s - 1.0).abs();
    Wdl::new(s - draw / 2.0, draw, 1.0 - s - draw / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::alphabeta::{AlphaBeta, Limits};
    use crate::game::damone::Position;
    use crate::learned::{FloatEval, Shape};

    fn random_eval(seed: u64) -> Arc<LearnedEval> {
        let float = FloatEval::new(
            Shape::default(),
            u64::MAX,
            &mut crate::util::rng_stream(seed, "test-eval", 0),
        );
        Arc::new(LearnedEval::new(float))
    }

    fn cfg(games: usize) -> ExpertConfig {
        ExpertConfig {
            games_per_iteration: games,
            eval: "x".into(),
            nodes: 300,
            opening_plies: 4,
        }
    }

    #[test]
    fn samples_are_the_experts_moves_values_and_results() {
        let eval = random_eval(5);
        let start = Position::start(Default::default());
        let got = play_expert_games(&eval, &cfg(2), (start, DrawRules::default()), 9, &|_| {});
        assert_eq!(got.games, 2);
        assert!(got.samples.len() > 20, "{} samples", got.samples.len());
        let mut searcher = AlphaBeta::with_eval(
            "check".into(),
            Limits {
                nodes: Some(300),
                ..Limits::default()
            },
            eval.clone(),
        );
        for s in got.samples.iter().take(12) {
            let targets: Vec<_> = s.policy.iter().filter(|(_, p)| *p > 0.0).collect();
            assert_eq!(targets.len(), 1, "one move is the target");
            let game = Game::new(s.pos, DrawRules::default());
            let (best, score) = searcher.search(&game);
            let legal = s.pos.legal_moves();
            let k = legal.iter().position(|m| *m == best).expect("legal");
            assert_eq!(
                policy_indices(&s.pos, &legal)[k],
                targets[0].0,
                "the search's move"
            );
            let q = wdl_of_expected(score_label(score));
            assert!((s.q.value() - q.value()).abs() < 1e-6, "the search's value");
            assert!([Wdl::WIN, Wdl::DRAW, Wdl::LOSS].contains(&s.z));
        }
    }

    #[test]
    fn the_same_games_on_any_thread_count() {
        let eval = random_eval(6);
        let start = Position::start(Default::default());
        let on = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| play_expert_games(&eval, &cfg(3), (start, DrawRules::default()), 4, &|_| {}))
        };
        let (one, two) = (on(1), on(2));
        assert_eq!(one.nodes, two.nodes);
        assert_eq!(one.samples.len(), two.samples.len());
        assert!(one
            .samples
            .iter()
            .zip(&two.samples)
            .all(|(a, b)| a.pos == b.pos && a.policy == b.policy));
    }

    #[test]
    fn expected_scores_map_to_wdl() {
        assert_eq!(wdl_of_expected(1.0), Wdl::WIN);
        assert_eq!(wdl_of_expected(0.0), Wdl::LOSS);
        assert_eq!(wdl_of_expected(0.5), Wdl::DRAW);
        let w = wdl_of_expected(0.8);
        assert!((w.win + w.draw / 2.0 - 0.8).abs() < 1e-6 && w.loss.abs() < 1e-6);
    }

    #[test]
    fn bad_settings_are_one_line_errors() {
        let mut c = cfg(1);
        c.eval.clear();
        assert!(c.validate().unwrap_err().contains("expert.eval"));
        c.eval = "/nonexistent/eval.bin".into();
        let Err(e) = c.open(<Position as GamePosition>::ID) else {
            panic!("a missing file is refused")
        };
        assert!(e.starts_with("expert.eval:") && !e.contains('\n'), "{e}");
        c.nodes = 0;
        assert!(c.validate().unwrap_err().contains("expert.nodes"));
    }
}
