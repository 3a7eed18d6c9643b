//! A shallow tactical check for the search, at the root and optionally at
//! every expanded node ([`SearchParams::tactics_margin`](super::SearchParams::tactics_margin)).
//!
//! A small network searched with a few dozen simulations misses shots that
//! a capture search sees at once: a move that lets the opponent sacrifice a
//! man and take two, or leaves a piece to be taken. For each move at the
//! root this module plays the move, every reply of the opponent, and then
//! the compulsory captures that follow to the end (each side choosing its
//! best capture, as captures are compulsory there is no standing pat), and
//! counts material ([`GamePosition::material`]). A move's *balance* is the
//! material difference for the mover after the opponent's best reply and
//! the captures. The search leaves out moves whose balance is worse than
//! the best move's by more than the margin.
//!
//! The root's check may look further ahead
//! ([`SearchParams::tactics_depth`](super::SearchParams::tactics_depth)):
//! with a depth of `d` moves of each side, the move and the `2d - 1` plies
//! after it are searched in full (alpha-beta on the material at the
//! leaves, each leaf's captures played out as above), so that a move
//! walking into a combination two moves deep is left out too.

use crate::game::GamePosition;

/// A side with no legal move has lost: worth more than any material.
const NO_MOVES: i32 = 100_000;

/// The longest capture exchange followed; deeper ones count the material
/// as it stands (a position has at most 24 pieces, so a longer exchange
/// cannot happen in standard draughts).
const MAX_EXCHANGE: usize = 24;

/// Beyond any balance: the bounds of a full alpha-beta window (a side
/// without moves, [`NO_MOVES`], stays inside it).
const INFINITY: i32 = 4 * NO_MOVES;

/// Scratch move lists for one check, one per ply of the exchange.
pub(super) struct Tactics<P: GamePosition> {
    bufs: Vec<Vec<P::Move>>,
}

impl<P: GamePosition> Default for Tactics<P> {
    fn default() -> Self {
        Tactics {
            bufs: (0..MAX_EXCHANGE + 1).map(|_| Vec::new()).collect(),
        }
    }
}

impl<P: GamePosition> Tactics<P> {
    /// The material balance for the side to move at `pos` as it stands.
    fn stand(pos: &P) -> i32 {
        let me = pos.side_to_move();
        pos.material(me) - pos.material(me.opposite())
    }

    /// Material balance for the side to move at `pos` once the compulsory
    /// captures are played out (each side taking its best capture); a side
    /// with no legal move has lost.
    fn settled(pos: &P, bufs: &mut [Vec<P::Move>]) -> i32 {
        let stand = Self::stand(pos);
        if pos.decided().is_some() {
            return stand;
        }
        let Some((buf, rest)) = bufs.split_first_mut() else {
            return stand;
        };
        if !pos.has_capture() {
            return if pos.has_moves(buf) { stand } else { -NO_MOVES };
        }
        pos.legal_moves_into(buf);
        let mut best = i32::MIN;
        for m in buf.iter() {
            let mut p = *pos;
            p.play_unchecked(m);
            best = best.max(-Self::settled(&p, rest));
        }
        best
    }

    /// The value for the side to move at `pos` of a full-width search
    /// `plies` deep whose leaves are [`settled`](Self::settled), in the
    /// alpha-beta window (`alpha`, `beta`): exact inside it, a bound at or
    /// beyond it (fail-soft). A side with no legal move has lost.
    fn search(pos: &P, plies: usize, mut alpha: i32, beta: i32, bufs: &mut [Vec<P::Move>]) -> i32 {
        if plies == 0 {
            return Self::settled(pos, bufs);
        }
        if pos.decided().is_some() {
            return Self::stand(pos);
        }
        let (moves, rest) = bufs.split_first_mut().expect("scratch lists");
        pos.legal_moves_into(moves);
        if moves.is_empty() {
            return -NO_MOVES;
        }
        let mut best = -INFINITY;
        for m in moves.iter() {
            let mut p = *pos;
            p.play_unchecked(m);
            best = best.max(-Self::search(&p, plies - 1, -beta, -alpha, rest));
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The mover's material balance after `mv` at `pos`, `depth` moves of
    /// each side deep: the opponent's best reply (and for a depth above 1
    /// the moves after it, each side choosing its best), then the captures
    /// that follow. Once the balance is sure to fall below `floor` the
    /// search stops and returns a figure below `floor` (the move is out
    /// whatever the rest gives); above `floor` it is exact.
    pub(super) fn balance(&mut self, pos: &P, mv: &P::Move, floor: i32, depth: usize) -> i32 {
        let mut after = *pos;
        after.play_unchecked(mv);
        let plies = 2 * depth.max(1) - 1;
        if self.bufs.len() < MAX_EXCHANGE + 1 + plies {
            self.bufs.resize_with(MAX_EXCHANGE + 1 + plies, Vec::new);
        }
        // The opponent's search refutes the move once it finds a reply
        // worth more than -floor to it, that is a balance below floor.
        let beta = 1i32.saturating_sub(floor).min(INFINITY);
        -Self::search(&after, plies, -INFINITY, beta, &mut self.bufs)
    }

    /// Which of `moves` at `pos` to keep: those whose balance `depth`
    /// moves deep is within `margin` Pedine (100 material units each) of
    /// the best move's. A move already below the best so far by more than
    /// the margin is out, so its balance is taken only that far
    /// ([`Tactics::balance`]'s floor).
    pub(super) fn keep(&mut self, pos: &P, moves: &[P::Move], margin: f32, depth: usize) -> Vec<bool> {
        let margin = (margin * 100.0).round() as i32;
        let mut best_so_far = i32::MIN;
        let balances: Vec<i32> = moves
            .iter()
            .map(|m| {
                let b = self.balance(pos, m, best_so_far.saturating_sub(margin), depth);
                best_so_far = best_so_far.max(b);
                b
            })
            .collect();
        balances
            .iter()
            .map(|&b| b as i64 >= best_so_far as i64 - margin as i64)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{
        damone::{parse_move, Position, Variant},
        DrawRules, Game,
    };
    use crate::mcts::{search, SearchAlgorithm, SearchParams, Tree, UniformEvaluator};
    use crate::util::rng_stream;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, Variant::Standard).unwrap()
    }

    fn balances(fen: &str) -> Vec<(String, i32)> {
        let p = pos(fen);
        let mut t = Tactics::default();
        let mut v: Vec<(String, i32)> = p
            .legal_moves()
            .iter()
            .map(|m| (m.to_string(), t.balance(&p, m, i32::MIN, 1)))
            .collect();
        v.sort();
        v
    }

    /// White's e4-d5 puts the Pedina where Black's c6 takes it (c6xe4);
    /// every other move keeps the material level. With 2 Pedine against 2,
    /// a Pedina lost is a balance of -100.
    #[test]
    fn balance_counts_the_best_reply_and_its_captures() {
        let b = balances("W:We4,h3:Bb7,c6");
        let names: Vec<&str> = b.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(names, ["e4-d3", "e4-d5", "e4-f5", "h3-g2", "h3-g4"]);
        for (m, v) in &b {
            assert_eq!(*v, if m == "e4-d5" { -100 } else { 0 }, "{m}");
        }
        let p = pos("W:We4,h3:Bb7,c6");
        let moves = p.legal_moves();
        let kept = |margin| {
            let keep = Tactics::default().keep(&p, &moves, margin, 1);
            moves.iter().zip(keep).filter(|(_, k)| *k).count()
        };
        assert_eq!(kept(0.5), 4, "half a Pedina: e4-d5 left out");
        assert_eq!(kept(1.0), 5, "a Pedina lost is within a margin of one");
    }

    /// A capture that leaves the opponent without a move wins outright;
    /// a move after which the mover has no move loses.
    #[test]
    fn balance_scores_a_side_without_moves_as_lost() {
        // White's only piece takes Black's only piece: Black has no move.
        let b = balances("W:Wd5:Bc6");
        assert_eq!(b, [("d5xb7".to_string(), NO_MOVES)]);
        // White's lone e4 to d5 is taken by c6: White has no piece left.
        let b = balances("W:We4:Bc6");
        assert_eq!(
            b,
            [
                ("e4-d3".to_string(), 0),
                ("e4-d5".to_string(), -NO_MOVES),
                ("e4-f5".to_string(), 0)
            ]
        );
    }

    /// A plain minimax of `plies` full-width plies over settled leaves, for
    /// the side to move at `pos`: what the alpha-beta search must return.
    fn minimax<P: GamePosition>(pos: &P, plies: usize) -> i32 {
        if plies == 0 {
            let mut bufs: Vec<Vec<P::Move>> = (0..MAX_EXCHANGE + 1).map(|_| Vec::new()).collect();
            return Tactics::settled(pos, &mut bufs);
        }
        if pos.decided().is_some() {
            return Tactics::stand(pos);
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return -NO_MOVES;
        }
        moves
            .iter()
            .map(|m| {
                let mut p = *pos;
                p.play_unchecked(m);
                -minimax(&p, plies - 1)
            })
            .max()
            .unwrap()
    }

    /// The moves kept by minimax balances `depth` moves deep, each taken to
    /// the end.
    fn keep_exact<P: GamePosition>(pos: &P, moves: &[P::Move], margin: i32, depth: usize) -> Vec<bool> {
        let b: Vec<i32> = moves
            .iter()
            .map(|m| {
                let mut after = *pos;
                after.play_unchecked(m);
                -minimax(&after, 2 * depth - 1)
            })
            .collect();
        let best = b.iter().copied().max().unwrap_or(0);
        b.iter()
            .map(|&x| x as i64 >= best as i64 - margin as i64)
            .collect()
    }

    /// Skipping the replies of moves already out, and alpha-beta below
    /// them, keeps exactly the moves that minimax balances keep, over
    /// random playouts of each game (`games` playouts of up to `plies`).
    fn cut_keeps_what_minimax_keeps<P: GamePosition>(
        start: P,
        depth: usize,
        games: usize,
        plies: usize,
    ) -> usize {
        use rand::Rng as _;
        let mut rng = rng_stream(11, "tactics-cut", 0);
        let mut checked = 0;
        let mut scratch = Tactics::default();
        for _ in 0..games {
            let mut pos = start;
            for _ in 0..plies {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.decided().is_some() {
                    break;
                }
                for margin in [0.0f32, 0.5, 1.0, 2.0] {
                    let cut = scratch.keep(&pos, &moves, margin, depth);
                    let exact = keep_exact(&pos, &moves, (margin * 100.0).round() as i32, depth);
                    assert_eq!(cut, exact, "{pos} margin {margin} depth {depth}");
                }
                checked += 1;
                pos.play_unchecked(&moves[rng.random_range(0..moves.len())]);
            }
        }
        checked
    }

    #[test]
    fn cut_balances_keep_the_same_moves_in_every_game() {
        let damone = <Position as GamePosition>::start(Variant::Standard);
        let italian = <crate::game::italian::Position as GamePosition>::start(());
        let dameo = <crate::game::dameo::Position as GamePosition>::start(());
        assert!(cut_keeps_what_minimax_keeps(damone, 1, 12, 120) > 500);
        assert!(cut_keeps_what_minimax_keeps(italian, 1, 12, 120) > 500);
        assert!(cut_keeps_what_minimax_keeps(dameo, 1, 12, 120) > 500);
    }

    /// Two moves deep, alpha-beta keeps what minimax keeps (Dameo's
    /// breadth makes its minimax slow: fewer of its positions).
    #[test]
    fn deeper_balances_keep_what_minimax_keeps() {
        let damone = <Position as GamePosition>::start(Variant::Standard);
        let italian = <crate::game::italian::Position as GamePosition>::start(());
        let dameo = <crate::game::dameo::Position as GamePosition>::start(());
        assert!(cut_keeps_what_minimax_keeps(damone, 2, 4, 100) > 200);
        assert!(cut_keeps_what_minimax_keeps(italian, 2, 4, 100) > 200);
        assert!(cut_keeps_what_minimax_keeps(dameo, 2, 1, 6) == 6);
    }

    /// With the check in the tree, a node below the root drops its own
    /// side's losing move: after Black's b7-a6 White's e4-d5 would hang a
    /// Pedina to c6, and that node's edges leave it out; without
    /// `tactics_in_tree` it stays.
    #[test]
    fn tactics_in_tree_prunes_interior_nodes() {
        for algorithm in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
            for in_tree in [false, true] {
                let params = SearchParams {
                    algorithm,
                    simulations: 400,
                    tactics_margin: 0.5,
                    tactics_in_tree: in_tree,
                    ..SearchParams::plain()
                };
                let g = Game::new(pos("B:We4,h3:Bb7,c6"), DrawRules::default());
                let mut t = Tree::new(&g, params, rng_stream(5, "t", 0));
                search(&mut t, &mut UniformEvaluator).unwrap();
                let root = &t.nodes[t.root as usize];
                let mv = parse_move(g.position(), "b7-a6").unwrap();
                let edge = t.edges[root.edge_range()]
                    .iter()
                    .find(|e| e.mv == mv)
                    .expect("b7-a6 at the root");
                let child = &t.nodes[edge.child as usize];
                let moves: Vec<String> = t.edges[child.edge_range()]
                    .iter()
                    .map(|e| e.mv.to_string())
                    .collect();
                assert!(!moves.is_empty(), "{algorithm:?}: b7-a6 was expanded");
                assert_eq!(
                    moves.contains(&"e4-d5".to_string()),
                    !in_tree,
                    "{algorithm:?} {in_tree}: {moves:?}"
                );
            }
        }
    }
}
