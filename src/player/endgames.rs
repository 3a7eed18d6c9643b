//! Won endgames played out: positions the endgame tables call won for the
//! side to move, a player on that side against an opponent. A player that
//! wins every one plays those endings well enough; one that draws or loses
//! some lets the win slip (a shortest line the opponent could not stop was
//! there).

use crate::arena::{run_games, tally, GameRecord, GameTask, MatchSettings, PlayerFactory};
use crate::game::{Color, DrawRules, TableGame};
use crate::tablebase::{draw_positions, Material, Tablebase, Value};
use crate::util::{derive_seed, rng_stream};

/// `count` positions the tables call won for the side to move, of at most
/// `max_pieces` pieces: a balance drawn uniformly among those the tables
/// hold, then a position of its table, the colours swapped half the time
/// (seeded). Fewer when the tables hold too few such positions.
pub fn won_positions<P: TableGame>(tb: &Tablebase<P>, max_pieces: u32, count: usize, seed: u64) -> Vec<P> {
    let balances: Vec<Material> = tb
        .materials()
        .into_iter()
        .filter(|m| m.pieces() <= max_pieces)
        .collect();
    let mut rng = rng_stream(seed, "won-endgames", 0);
    draw_positions(&balances, count, count * 10_000, &mut rng, |p: P, kept| {
        (matches!(tb.probe(&p), Some(Value::Win(_))) && !kept.contains(&p)).then_some(p)
    })
}

/// What playing won positions out gave the player on the winning side.
#[derive(Clone, Debug, Default)]
pub struct Conversions {
    /// Positions it won.
    pub wins: u32,
    /// Positions it drew.
    pub draws: u32,
    /// Positions it lost.
    pub losses: u32,
    /// The positions it did not win, as setup strings.
    pub missed: Vec<String>,
    /// Every game, in the order of the positions.
    pub records: Vec<GameRecord>,
}

/// Play each of `positions` out, `player` on the side to move and
/// `opponent` on the other (named `names`), under the tables' no-progress
/// limit `limit`; the games run in parallel over the current rayon pool.
pub fn play_won_positions<P: TableGame>(
    positions: &[P],
    players: [PlayerFactory<P>; 2],
    names: [String; 2],
    limit: u16,
    seed: u64,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> Conversions {
    let mut settings = MatchSettings::<P>::from_start(P::start(Default::default()));
    settings.rules = DrawRules {
        no_progress_plies: limit as u32,
        ..DrawRules::default()
    };
    settings.seed = seed;
    settings.openings = positions.to_vec();
    settings.event = "won endgames".into();
    let tasks: Vec<GameTask> = positions
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let white_moves = p.side_to_move() == Color::White;
            GameTask {
                index: k,
                white: if white_moves { 0 } else { 1 },
                black: if white_moves { 1 } else { 0 },
                opening: k,
                seed: derive_seed(seed, "won-endgame", k as u64),
            }
        })
        .collect();
    let records = run_games(&tasks, &names, &players, &settings, on_game);
    let (wins, draws, losses) = tally(&records, 0);
    let missed = records
        .iter()
        .zip(positions)
        .filter(|(r, _)| r.result_for_player(0) != 1)
        .map(|(_, p)| p.to_setup())
        .collect();
    Conversions {
        wins,
        draws,
        losses,
        missed,
        records,
    }
}
