use damone::game::*;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
fn main() {
    let mut maxc = 0;
    let mut hist = HashMap::new();
    let mut positions = 0u64;
    for v in [Variant::Standard, Variant::ThreeDamas] {
        for seed in 0..100000u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut g = Game::from_variant(v, DrawRules::default());
            loop {
                let moves = g.position().legal_moves();
                if g.outcome_with(&moves).is_some() {
                    break;
                }
                positions += 1;
                let mut c: HashMap<(usize, usize), usize> = HashMap::new();
                for m in &moves {
                    *c.entry((m.from().index(), m.to().index())).or_default() += 1;
                }
                let mx = *c.values().max().unwrap();
                *hist.entry(mx).or_insert(0u64) += 1;
                if mx > maxc {
                    maxc = mx;
                    println!("{mx} {}", g.position().to_fen());
                }
                let m = moves[rng.random_range(0..moves.len())];
                g.play_unchecked(&m);
            }
        }
    }
    println!("positions {positions} hist {hist:?}");
}
