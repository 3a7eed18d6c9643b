//! How often two legal moves share a start and an end cell (and so a
//! policy index but for its slot), over random playouts of a game:
//!
//!     cargo run --release --example collide -- [damone|italian|dameo] [GAMES]
//!
//! Prints the histogram of the largest number of moves sharing one start
//! and end per position, and the first position of each new maximum.
use damone::game::{DrawRules, Game, GameKind};
use damone::net::Board;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

fn collide<P: Board>(games: u64) {
    let mut worst = 0;
    let mut hist: HashMap<usize, u64> = HashMap::new();
    let mut positions = 0u64;
    for seed in 0..games {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut g = Game::new(P::start(Default::default()), DrawRules::default());
        loop {
            let moves = g.position().legal_moves();
            if g.outcome_with(&moves).is_some() {
                break;
            }
            positions += 1;
            let mut shared: HashMap<(usize, usize), usize> = HashMap::new();
            for m in &moves {
                let (from, to, _) = P::move_cells(m);
                *shared.entry((from, to)).or_default() += 1;
            }
            let most = *shared.values().max().unwrap();
            *hist.entry(most).or_insert(0) += 1;
            if most > worst {
                worst = most;
                println!("{most} moves share a start and end: {}", g.position().to_setup());
            }
            let m = moves[rng.random_range(0..moves.len())];
            g.play_unchecked(&m);
        }
    }
    let mut hist: Vec<_> = hist.into_iter().collect();
    hist.sort();
    println!(
        "{} positions of {games} games; positions by the most moves sharing one start and end: {hist:?}",
        positions
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let game: GameKind = args
        .next()
        .as_deref()
        .unwrap_or("damone")
        .parse()
        .expect("a game name");
    let games: u64 = args
        .next()
        .map_or(10_000, |n| n.parse().expect("a number of games"));
    damone::with_game!(game, P => collide::<P>(games));
}
