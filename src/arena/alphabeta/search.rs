//! One thread's search ([`Worker`]): negamax with iterative deepening over
//! the shared transposition table, move ordering, capture extension, the
//! leaf evaluation and the exact values.

use super::*;
use crate::game::Outcome;

impl<P: Baseline, E: LeafEval<P>> Worker<P, E> {
    pub(super) fn new(tt: Arc<SharedTable>, done: Arc<AtomicBool>, eval: Arc<E>) -> Self {
        Worker {
            tt,
            state: eval.new_state(),
            eval,
            done,
            abort: None,
            history: vec![0; P::MOVE_CODES],
            limits: Limits::default(),
            nodes: 0,
            start: Instant::now(),
            stopped: false,
            path: Vec::new(),
            bufs: Vec::new(),
            exact: None,
            contempt: 0,
            node_values: None,
        }
    }

    /// Another thread's worker for the same search: the same table, stop
    /// flag, evaluation, exact values and contempt; its own history, path
    /// and buffers.
    pub(super) fn sibling(&self) -> Self {
        Worker {
            exact: self.exact.clone(),
            contempt: self.contempt,
            abort: self.abort.clone(),
            ..Worker::new(self.tt.clone(), self.done.clone(), self.eval.clone())
        }
    }

    /// A draw's score for the side to move `ply` plies below the root:
    /// the root's side pays the contempt, its opponent gains it.
    pub(super) fn draw_score(&self, ply: usize) -> i32 {
        if ply.is_multiple_of(2) {
            -self.contempt
        } else {
            self.contempt
        }
    }

    /// The score of a position where the game has ended, for its side to
    /// move `ply` plies below the root; `None` when play goes on. A result
    /// by the rules ([`decided`](crate::game::GamePosition::decided)) scores as that result says,
    /// a draw as every other draw; no legal move loses.
    pub(super) fn end_score(&self, pos: &P, no_moves: bool, ply: usize) -> Option<i32> {
        let win = WIN - ply as i32;
        match pos.decided() {
            Some(Outcome { winner: None, .. }) => Some(self.draw_score(ply)),
            Some(Outcome { winner: Some(c), .. }) if c == pos.side_to_move() => Some(win),
            Some(_) => Some(-win),
            None if no_moves => Some(-win),
            None => None,
        }
    }

    /// Ready for a search of `game` under `limits`, timed from `start`.
    pub(super) fn begin(&mut self, game: &Game<P>, limits: Limits, start: Instant) {
        self.limits = limits;
        self.nodes = 0;
        self.start = start;
        self.stopped = false;
        self.path.clear();
        self.path.extend_from_slice(game.history());
    }

    pub(super) fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
        }
        if self.nodes & 1023 == 0 {
            let late = self.limits.movetime.is_some_and(|t| self.start.elapsed() >= t);
            let aborted = self.abort.as_ref().is_some_and(Stop::requested);
            if late || aborted || self.done.load(Relaxed) {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Iterative deepening over the root `moves` (at least two) up to
    /// `max_depth`, the previous depth's best move searched first. Helper
    /// `helper` (0: the main thread) starts one ply deeper when odd and
    /// turns the order of the other root moves by its number each depth.
    pub(super) fn iterate(
        &mut self,
        game: &Game<P>,
        mut moves: Vec<P::Move>,
        max_depth: u32,
        helper: usize,
    ) -> Found<P::Move> {
        let root = *game.position();
        self.eval.set_root(&mut self.state, &root);
        let first = 1 + (helper % 2) as u32;
        let mut found = Found {
            best: moves[0],
            score: 0,
            depth: 0,
        };
        for depth in first..=max_depth {
            if let Some(i) = moves.iter().position(|m| *m == found.best) {
                moves.swap(0, i);
            }
            let others = moves.len() - 1;
            moves[1..].rotate_left(helper % others);
            let mut alpha = -WIN - 1;
            let beta = WIN + 1;
            let mut iter_best = moves[0];
            for m in moves.clone() {
                let child = root.after(&m);
                let score = -self.negamax(game, &child, depth as i32 - 1, 1, -beta, -alpha);
                if self.stopped {
                    break;
                }
                if score > alpha {
                    alpha = score;
                    iter_best = m;
                }
            }
            if self.stopped && depth > first {
                break;
            }
            found = Found {
                best: iter_best,
                score: alpha,
                depth,
            };
            if alpha.abs() > WIN - 1000 || self.stopped {
                break;
            }
        }
        found
    }

    pub(super) fn negamax(
        &mut self,
        game: &Game<P>,
        pos: &P,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        if ply >= self.bufs.len() {
            self.bufs.resize_with(ply + 1, || Vec::with_capacity(32));
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        pos.legal_moves_into(&mut moves);
        let score = self.negamax_inner(game, pos, &mut moves, depth, ply, &mut alpha, beta);
        self.bufs[ply] = moves;
        score
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax_inner(
        &mut self,
        game: &Game<P>,
        pos: &P,
        moves: &mut [P::Move],
        depth: i32,
        ply: usize,
        alpha: &mut i32,
        beta: i32,
    ) -> i32 {
        if let Some(score) = self.end_score(pos, moves.is_empty(), ply) {
            return score;
        }
        let rules = game.rules();
        if pos.no_progress() as u32 >= rules.no_progress_plies || (game.ply() + ply) as u32 >= rules.max_plies
        {
            return self.draw_score(ply);
        }
        // A repetition inside the search (or of the game's history) scores as a draw.
        if self.path.contains(&pos.hash_key()) {
            return self.draw_score(ply);
        }
        if let Some(w) = self.exact.as_ref().and_then(|e| e.exact_at(pos, &rules)) {
            return table_score(w, ply);
        }
        let capture = P::captures(&moves[0]) > 0;
        if depth <= 0 && (!capture || depth < -8) {
            self.eval.enter(&mut self.state, ply, pos);
            return self.eval.evaluate(&self.state, ply, pos);
        }
        let key = pos.hash_key();
        let tt_move = match self.probe(key, depth, ply, *alpha, beta) {
            Ok(score) => return score,
            Err(tt_move) => tt_move,
        };
        self.eval.enter(&mut self.state, ply, pos);
        self.order(moves, tt_move);
        let alpha0 = *alpha;
        let mut best = -WIN - 1;
        let mut best_code = 0;
        self.path.push(key);
        // A forced move does not use up depth.
        let next_depth = if moves.len() == 1 { depth } else { depth - 1 };
        for m in moves.iter() {
            let child = pos.after(m);
            let s = -self.negamax(game, &child, next_depth, ply + 1, -beta, -*alpha);
            if self.stopped {
                self.path.pop();
                return 0;
            }
            if s > best {
                best = s;
                best_code = P::move_code(m);
            }
            if s > *alpha {
                *alpha = s;
            }
            if *alpha >= beta {
                if P::captures(m) == 0 {
                    self.history[P::move_code(m) as usize] += depth * depth;
                }
                break;
            }
        }
        self.path.pop();
        let bound = if best <= alpha0 {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        let entry = TtEntry {
            best: best_code,
            depth: depth as i16,
            score: to_tt(best, ply),
            bound,
        };
        self.tt.store(key, entry);
        if let Some((min_depth, values)) = self.node_values.as_mut() {
            if bound == EXACT && depth >= *min_depth {
                values.push((*pos, best));
            }
        }
        best
    }

    /// The shared table's word on `key` at `depth`: Ok(its score) when it
    /// settles the node within (`alpha`, `beta`), else Err(the best move
    /// it stored, 0 for none).
    pub(super) fn probe(&self, key: u64, depth: i32, ply: usize, alpha: i32, beta: i32) -> Result<i32, u16> {
        let Some(e) = self.tt.load(key) else {
            return Err(0);
        };
        if e.depth as i32 >= depth {
            let s = from_tt(e.score, ply);
            if e.bound == EXACT || (e.bound == LOWER && s >= beta) || (e.bound == UPPER && s <= alpha) {
                return Ok(s);
            }
        }
        Err(e.best)
    }

    /// Search order: the table's move, then captures (larger first), then
    /// quiet moves by their history counts.
    pub(super) fn order(&self, moves: &mut [P::Move], tt_move: u16) {
        if moves.len() > 1 {
            let hist = &self.history;
            moves.sort_by_cached_key(|m| {
                let code = P::move_code(m);
                if code == tt_move {
                    i32::MIN
                } else {
                    -(P::captures(m) as i32 * 1_000_000) - hist[code as usize]
                }
            });
        }
    }
}
