//! The value head graded against the endgame tables: for positions the
//! tables cover, how often the network's WDL argmax, and the WDL of its
//! search at a given number of simulations, name the exact result. The
//! search's result is read two ways: the root's mean over all its
//! simulations, and the value of the move it chose (Gumbel's sequential
//! halving spends most simulations on moves it then drops, so the root's
//! mean mixes their values in).
//!
//! Positions come from two sources: drawn uniformly from each balance's
//! table (the side to move White or Black, half each), and taken from a
//! checkpoint's replay window (the positions its self-play reached). A
//! finished position (the side to move has no legal move) is left out:
//! the network is never asked about one.

use super::LoadedNet;
use crate::game::{DrawRules, Game, TableGame};
use crate::mcts::{search_batched, EvalRequest, Evaluator, SearchParams, Tree, Wdl};
use crate::net::NetEvaluator;
use crate::run::Checkpoint;
use crate::tablebase::{Material, Tablebase};
use crate::util::rng_stream;
use std::collections::BTreeMap;
use std::path::Path;

/// Positions graded per network call.
const BATCH: usize = 256;

/// One balance's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GradeRow {
    /// The balance's name (see [`Material::name`]), or `all`.
    pub balance: String,
    /// Positions graded.
    pub positions: u64,
    /// Positions whose network WDL argmax is the exact result.
    pub net_agree: u64,
    /// Positions whose search WDL argmax (the root's mean) is the exact
    /// result.
    pub search_agree: u64,
    /// Positions whose search's chosen move has a WDL argmax equal to the
    /// exact result (the search's verdict once it has picked its move).
    pub move_agree: u64,
}

impl GradeRow {
    /// Share of positions the network's argmax gets right.
    pub fn net_share(&self) -> f64 {
        self.net_agree as f64 / self.positions.max(1) as f64
    }
    /// Share of positions the search's argmax gets right.
    pub fn search_share(&self) -> f64 {
        self.search_agree as f64 / self.positions.max(1) as f64
    }
    /// Share of positions the chosen move's WDL argmax gets right.
    pub fn move_share(&self) -> f64 {
        self.move_agree as f64 / self.positions.max(1) as f64
    }
}

/// +1, 0 or -1: the most likely of win, draw and loss (a tie goes to the
/// draw, then the win).
fn argmax(w: &Wdl) -> i32 {
    if w.draw >= w.win && w.draw >= w.loss {
        0
    } else if w.win >= w.loss {
        1
    } else {
        -1
    }
}

/// Up to `per_balance` positions of every balance `tb` holds, drawn
/// uniformly from its table with seed `seed`, half with Black to move;
/// finished positions left out.
pub fn uniform_positions<P: TableGame>(tb: &Tablebase<P>, per_balance: usize, seed: u64) -> Vec<P> {
    let mut out = Vec::new();
    for (k, m) in tb.materials().iter().enumerate() {
        let mut rng = rng_stream(seed, "grade-uniform", k as u64);
        let (mut found, mut tries) = (0, 0);
        while found < per_balance && tries < per_balance * 100 {
            tries += 1;
            let Some(p) = m.random_position::<P>(&mut rng) else {
                continue;
            };
            if p.legal_moves().is_empty() {
                continue;
            }
            out.push(p);
            found += 1;
        }
    }
    out
}

/// The positions of the replay window of the checkpoint at `path` (a
/// checkpoint or a run folder: its newest) that `tb` covers, unfinished,
/// at most `limit`. Refused for a run that trained with tables: its
/// self-play ended each game at the first position they cover, so the
/// covered positions of its window were drawn from them, not reached.
pub fn replay_positions<P: TableGame + crate::net::Board>(
    path: &Path,
    tb: &Tablebase<P>,
    limit: usize,
) -> Result<Vec<P>, String> {
    let ck = Checkpoint::for_player(path, true).map_err(|e| e.to_string())?;
    if ck.config.game != P::ID {
        return Err(format!(
            "{} is a run of {}, and the tables are {}'s",
            path.display(),
            ck.config.game,
            P::ID
        ));
    }
    if !ck.config.tablebase.is_empty() {
        return Err(format!(
            "--selfplay {}: that run's self-play ended its games at the tables, so it reached no position they cover",
            path.display()
        ));
    }
    let bytes = ck.read("replay.bin").map_err(|e| e.to_string())?;
    let window = crate::data::ReplayWindow::<P>::from_bytes(&bytes)
        .map_err(|e| format!("{}: replay.bin: {e}", ck.dir.display()))?;
    Ok(window
        .iter()
        .map(|s| s.pos)
        .filter(|p| tb.probe(p).is_some() && !p.legal_moves().is_empty())
        .take(limit)
        .collect())
}

/// Grade `net` on `positions` (each covered by `tb`): per balance and in
/// all, how many its WDL argmax and its search's at `sims` simulations
/// (the tables not used) get right, under the tables' no-progress limit.
pub fn grade<P: TableGame + crate::run::RunGame>(
    net: &LoadedNet,
    tb: &Tablebase<P>,
    positions: &[P],
    sims: u32,
    seed: u64,
) -> Vec<GradeRow> {
    let rules = DrawRules {
        no_progress_plies: tb.limit() as u32,
        ..DrawRules::default()
    };
    let mut params = net.header.search.clone();
    params.simulations = sims.max(1);
    params.movetime_ms = 0;
    let mut eval = NetEvaluator::on_device(&net.net, &net.device);
    let mut rows: BTreeMap<(u32, String), GradeRow> = BTreeMap::new();
    for (c, chunk) in positions.chunks(BATCH).enumerate() {
        let games: Vec<Game<P>> = chunk.iter().map(|p| Game::new(*p, rules)).collect();
        let net_wdl = evaluate(&mut eval, &games);
        let search_wdl = search_all(&mut eval, &games, &params, seed ^ c as u64);
        for ((g, nw), (sw, mw)) in games.iter().zip(net_wdl).zip(search_wdl) {
            let pos = g.position();
            let Some(exact) = tb.probe(pos) else { continue };
            let m = Material::of(pos);
            let row = rows.entry((m.pieces(), m.name::<P>())).or_default();
            row.positions += 1;
            row.net_agree += (argmax(&nw) == exact.score()) as u64;
            row.search_agree += (argmax(&sw) == exact.score()) as u64;
            row.move_agree += (argmax(&mw) == exact.score()) as u64;
        }
    }
    let mut out: Vec<GradeRow> = rows
        .into_iter()
        .map(|((_, name), r)| GradeRow { balance: name, ..r })
        .collect();
    let all = out.iter().fold(
        GradeRow {
            balance: "all".into(),
            ..GradeRow::default()
        },
        |a, r| GradeRow {
            positions: a.positions + r.positions,
            net_agree: a.net_agree + r.net_agree,
            search_agree: a.search_agree + r.search_agree,
            move_agree: a.move_agree + r.move_agree,
            ..a
        },
    );
    out.push(all);
    out
}

/// The network's WDL of each game's position, in one call.
fn evaluate<P: crate::run::RunGame>(eval: &mut NetEvaluator, games: &[Game<P>]) -> Vec<Wdl> {
    let moves: Vec<Vec<P::Move>> = games.iter().map(|g| g.position().legal_moves()).collect();
    let reqs: Vec<EvalRequest<'_, P>> = games
        .iter()
        .zip(&moves)
        .map(|(game, moves)| EvalRequest { game, moves })
        .collect();
    eval.evaluate(&reqs).into_iter().map(|e| e.wdl).collect()
}

/// The root WDL and the chosen move's WDL of a search of each game's
/// position, the trees searched together.
fn search_all<P: crate::run::RunGame>(
    eval: &mut NetEvaluator,
    games: &[Game<P>],
    params: &SearchParams,
    seed: u64,
) -> Vec<(Wdl, Wdl)> {
    let mut trees: Vec<Tree<P>> = games
        .iter()
        .enumerate()
        .map(|(i, g)| Tree::new(g, params.clone(), rng_stream(seed, "grade-search", i as u64)))
        .collect();
    for t in &mut trees {
        t.start(params.simulations);
    }
    let mut refs: Vec<&mut Tree<P>> = trees.iter_mut().collect();
    search_batched(&mut refs, eval);
    trees
        .iter_mut()
        .map(|t| t.result().map_or((Wdl::DRAW, Wdl::DRAW), |r| (r.wdl, r.move_wdl)))
        .collect()
}
