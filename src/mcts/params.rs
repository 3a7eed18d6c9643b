//! All search coefficients in one serialisable struct.

use crate::util::range::{check, Bounds};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How long one search runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// A fixed number of simulations (deterministic for a seed).
    Simulations(u32),
    /// Search until the time is spent (PUCT; see [`SearchParams::movetime_ms`]).
    Time(Duration),
}

/// Which root search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchAlgorithm {
    /// AlphaZero PUCT at every node; the move is drawn from visit counts.
    Puct,
    /// Gumbel-top-k sampling with sequential halving at the root and the
    /// completed-Q policy target (Danihelka et al., 2022).
    Gumbel,
}

/// Search parameters. Every coefficient the search uses lives here. A key
/// missing from a saved file (a player file's header) takes its
/// [`SearchParams::plain`] value, the one it had before the key existed;
/// [`Default`] is configs/default.toml's `[search]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default = "SearchParams::plain")]
pub struct SearchParams {
    /// Root search algorithm.
    pub algorithm: SearchAlgorithm,
    /// Simulations (leaf evaluations or terminal visits) per move.
    pub simulations: u32,
    /// When above 0, search for this many milliseconds per move instead of
    /// `simulations`. Gumbel's sequential halving needs its budget up front,
    /// so a timed search runs PUCT.
    pub movetime_ms: u64,
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child's value is the parent's value
    /// minus this times the square root of the prior mass already visited.
    pub fpu_reduction: f32,
    /// Same, at the root (usually smaller, or 0 when noise is on).
    pub fpu_reduction_root: f32,
    /// Total Dirichlet concentration; each move gets `alpha_total / n_moves`.
    pub dirichlet_alpha_total: f32,
    /// Weight of Dirichlet noise in the root priors (0 turns noise off).
    pub dirichlet_epsilon: f32,
    /// Temperature for choosing a move from visit counts in the opening (PUCT).
    pub temperature: f32,
    /// Temperature after `temperature_plies` plies (0 = most visited).
    pub temperature_final: f32,
    /// Plies played at `temperature` before switching to `temperature_final`.
    pub temperature_plies: u32,
    /// Leaves one tree may have in flight at once (virtual loss spreads them).
    pub leaves_per_tree: u32,
    /// Keep the subtree of the played move for the next search.
    pub reuse_tree: bool,
    /// Gumbel: actions sampled at the root before sequential halving.
    pub gumbel_considered: u32,
    /// Gumbel: sigma(q) = (c_visit + max visits) * c_scale * q.
    pub gumbel_c_visit: f32,
    /// Gumbel: see `gumbel_c_visit`.
    pub gumbel_c_scale: f32,
    /// Gumbel: the q in sigma(q) is the node's completed Q rescaled by its
    /// min and max to [0, 1], as mctx does (off: (Q + 1) / 2, the value's
    /// own scale, so near-equal values give a flat target).
    pub gumbel_rescale: bool,
    /// Gumbel: add Gumbel noise to the root logits (off = deterministic top-k).
    pub gumbel_noise: bool,
    /// MCTS-solver: a node whose children's results are known exactly (a
    /// won child, or all children lost or drawn) is proven; a proven node
    /// backs up its exact value instead of being searched, a proven child's
    /// exact value is its Q, and a proven root gives the move, the policy
    /// target and the value target.
    pub solver: bool,
    /// Forced moves inside the tree: a position below the root with one
    /// legal move (a compulsory capture, say) is not evaluated; the
    /// simulation plays that move and goes on to the first position with a
    /// choice, whose evaluation it backs up. Fewer network calls, and values
    /// taken after an exchange rather than in the middle of it.
    pub collapse_forced: bool,
    /// What a draw is worth to the side to move, for both sides alike, in
    /// [-1, 0]: the search values a node as win - loss + `draw_score` x
    /// draw (a contempt). Below 0, self-play steers away from draws (such as
    /// a repetition both sides would accept) that a zero-sum search scores
    /// as even. A training setting: [`SearchParams::for_play`] sets it to 0
    /// (a player spec's `draw=` sets it for play).
    pub draw_score: f32,
    /// Weight of the network's predicted final material (its auxiliary
    /// head: the side to move's pieces minus the opponent's at the game's
    /// end, over 8, clamped to [-1, 1]) in the search's value, in [0, 1]:
    /// Q = win - loss + `draw_score` x draw + `material_utility` x material,
    /// a tie-break towards winning material among moves of equal value
    /// (KataGo's score utility). Terminal positions count their actual
    /// material; evaluators without the head give 0. Kept in play.
    pub material_utility: f32,
    /// At the root, leave out every move into a position the game has
    /// already had since its last irreversible move (a repetition), unless
    /// every move is one; the other moves' priors are renormalised. Self-play
    /// then makes progress instead of shuffling a piece back and forth into
    /// a threefold repetition, and its policy targets never hold such a
    /// move. Below the root the rules are unchanged. A training setting:
    /// [`SearchParams::for_play`] turns it off.
    pub avoid_repetition: bool,
    /// The root's tactical check, in Pedine (0 = off): each root move is
    /// played with every reply of the opponent and the compulsory captures
    /// that follow ([`GamePosition::material`](crate::game::GamePosition::material)
    /// counted after the opponent's best reply), and moves that end worse
    /// for the mover than the best move by more than this margin are left
    /// out (unless every move is), as the repetition filter does. A move
    /// that hangs a piece or walks into a shot is then never searched or
    /// played; below the root the search is unchanged unless
    /// `tactics_in_tree`. Kept in play.
    pub tactics_margin: f32,
    /// Apply the tactical check of `tactics_margin` at every node the
    /// search expands, not only at the root: the tree then assumes neither
    /// side hangs material within one reply. Kept in play.
    pub tactics_in_tree: bool,
    /// How far the root's tactical check looks, in moves of each side: 1
    /// plays the move and every reply; 2 the move, every reply, every
    /// answer and every reply to that (alpha-beta on material, captures
    /// played out after the last). At most 3. Below the root the check
    /// looks one move deep. Kept in play.
    pub tactics_depth: u32,
}

/// The run's search defaults: configs/default.toml's `[search]` (a test
/// holds the two equal), with 200 simulations for players.
impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            algorithm: SearchAlgorithm::Gumbel,
            dirichlet_epsilon: 0.25,
            temperature_plies: 12,
            leaves_per_tree: 2,
            gumbel_considered: 8,
            collapse_forced: true,
            tactics_margin: 1.0,
            tactics_in_tree: true,
            ..SearchParams::plain()
        }
    }
}

impl SearchParams {
    /// A plain PUCT search: 200 simulations, no root noise, one leaf per
    /// tree, no forced-move collapse, no tactical check. The base of the
    /// `mcts:` players and of tests that set only what they measure.
    pub fn plain() -> SearchParams {
        SearchParams {
            algorithm: SearchAlgorithm::Puct,
            simulations: 200,
            movetime_ms: 0,
            c_puct: 1.5,
            fpu_reduction: 0.25,
            fpu_reduction_root: 0.0,
            dirichlet_alpha_total: 5.0,
            dirichlet_epsilon: 0.0,
            temperature: 1.0,
            temperature_final: 0.0,
            temperature_plies: 0,
            leaves_per_tree: 1,
            reuse_tree: true,
            gumbel_considered: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            gumbel_rescale: false,
            gumbel_noise: true,
            solver: false,
            collapse_forced: false,
            draw_score: 0.0,
            material_utility: 0.0,
            avoid_repetition: false,
            tactics_margin: 0.0,
            tactics_in_tree: false,
            tactics_depth: 1,
        }
    }

    /// The same settings for play rather than training: `sims` simulations,
    /// no root noise, no Gumbel noise, always the best move, one leaf per
    /// tree, no contempt and every legal move at the root.
    pub fn for_play(&self, sims: u32) -> SearchParams {
        SearchParams {
            simulations: sims,
            dirichlet_epsilon: 0.0,
            temperature: 0.0,
            temperature_final: 0.0,
            temperature_plies: 0,
            gumbel_noise: false,
            leaves_per_tree: 1,
            draw_score: 0.0,
            avoid_repetition: false,
            ..self.clone()
        }
    }

    /// The search budget these settings give.
    pub fn budget(&self) -> Budget {
        if self.movetime_ms > 0 {
            Budget::Time(Duration::from_millis(self.movetime_ms))
        } else {
            Budget::Simulations(self.simulations)
        }
    }

    /// Set the budget (simulations, or a time per move).
    pub fn set_budget(&mut self, budget: Budget) {
        match budget {
            Budget::Simulations(n) => {
                self.simulations = n.max(1);
                self.movetime_ms = 0;
            }
            Budget::Time(t) => self.movetime_ms = (t.as_millis() as u64).max(1),
        }
    }

    /// Check every value; the error names the field.
    pub fn validate(&self) -> Result<(), String> {
        let at_least_0 = Bounds::AtLeast(0.0);
        check("simulations", self.simulations, Bounds::AtLeast(1))?;
        check("c_puct", self.c_puct, at_least_0)?;
        check("fpu_reduction", self.fpu_reduction, at_least_0)?;
        check("fpu_reduction_root", self.fpu_reduction_root, at_least_0)?;
        check("dirichlet_alpha_total", self.dirichlet_alpha_total, at_least_0)?;
        check(
            "dirichlet_epsilon",
            self.dirichlet_epsilon,
            Bounds::Closed(0.0, 1.0),
        )?;
        check("temperature", self.temperature, at_least_0)?;
        check("temperature_final", self.temperature_final, at_least_0)?;
        check("leaves_per_tree", self.leaves_per_tree, Bounds::AtLeast(1))?;
        check("gumbel_considered", self.gumbel_considered, Bounds::AtLeast(1))?;
        check("gumbel_c_visit", self.gumbel_c_visit, at_least_0)?;
        check("gumbel_c_scale", self.gumbel_c_scale, at_least_0)?;
        check("tactics_margin", self.tactics_margin, at_least_0)?;
        check("tactics_depth", self.tactics_depth, Bounds::Closed(1, 3))?;
        check("draw_score", self.draw_score, Bounds::Closed(-1.0, 0.0))?;
        check(
            "material_utility",
            self.material_utility,
            Bounds::Closed(0.0, 1.0),
        )?;
        Ok(())
    }
}
