//! Matches and tournaments: scheduling games (colours alternate; each
//! seeded random opening is played with both colours), running them in
//! parallel, game records, standings and Elo ratings.

use super::spec::PlayerFactory;
use crate::game::{to_pdn, DrawRules, Game, GamePosition, Outcome, PdnHeaders};
use crate::util::elo::{mle_ratings, score_interval};
use crate::util::{atomic_write, derive_seed, rng_stream};
use rand::Rng as _;
use rayon::prelude::*;
use serde::Serialize;

/// How games are set up.
#[derive(Clone, Debug)]
pub struct MatchSettings<P: GamePosition> {
    /// Games per pairing (two per opening: one with each colour).
    pub games_per_pair: u32,
    /// Master seed: openings and players' random streams come from it.
    pub seed: u64,
    /// Random plies played from the start to diversify openings.
    pub opening_plies: u32,
    /// Start position (its variant gives the rules).
    pub start: P,
    /// Draw limits.
    pub rules: DrawRules,
    /// Event name for the PDN headers.
    pub event: String,
    /// Opening positions (`--openings FILE`); when not empty, opening k is
    /// position k modulo their number and no random plies are played.
    pub openings: Vec<P>,
}

impl<P: GamePosition> MatchSettings<P> {
    /// Two games per pairing, 4 random opening plies, seed 1, from `start`.
    pub fn from_start(start: P) -> Self {
        MatchSettings {
            games_per_pair: 2,
            seed: 1,
            opening_plies: 4,
            start,
            rules: DrawRules::default(),
            event: format!("{} match", P::ID),
            openings: Vec::new(),
        }
    }
}

/// One game to play: who plays which colour, which opening, which seed.
#[derive(Clone, Debug)]
pub struct GameTask {
    /// The game's number in the schedule, from 0.
    pub index: usize,
    /// The player with White, by index into the players.
    pub white: usize,
    /// The player with Black, by index into the players.
    pub black: usize,
    /// The opening, by number (its random plies, or an opening position).
    pub opening: usize,
    /// The seed of the game's random streams.
    pub seed: u64,
}

/// Schedule the games of the given pairings: for pairing (a, b), game k
/// uses opening k / 2, with `a` as White in even games.
pub fn schedule<P: GamePosition>(pairs: &[(usize, usize)], s: &MatchSettings<P>) -> Vec<GameTask> {
    let mut tasks = Vec::new();
    for (pi, &(a, b)) in pairs.iter().enumerate() {
        for k in 0..s.games_per_pair as usize {
            let (white, black) = if k % 2 == 0 { (a, b) } else { (b, a) };
            let index = tasks.len();
            tasks.push(GameTask {
                index,
                white,
                black,
                opening: k / 2,
                seed: derive_seed(s.seed, "match-game", (pi as u64) << 32 | k as u64),
            });
        }
    }
    tasks
}

/// The opening position of game `opening`: a few seeded random plies from
/// the start (re-drawn if the game would end during them).
pub fn opening_game<P: GamePosition>(s: &MatchSettings<P>, opening: usize) -> Game<P> {
    if !s.openings.is_empty() {
        return Game::new(s.openings[opening % s.openings.len()], s.rules);
    }
    for attempt in 0..100u64 {
        let mut rng = rng_stream(s.seed, "opening", (opening as u64) << 8 | attempt);
        let mut g = Game::new(s.start, s.rules);
        let mut ok = true;
        for _ in 0..s.opening_plies {
            let moves = g.position().legal_moves();
            if g.outcome_with(&moves).is_some() {
                ok = false;
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            g.play_unchecked(&m);
        }
        if ok && g.outcome().is_none() {
            return g;
        }
    }
    Game::new(s.start, s.rules)
}

/// The record of one finished game.
#[derive(Clone, Debug, Serialize)]
pub struct GameRecord {
    /// The game's number, from 1.
    pub game: usize,
    /// White's player spec.
    pub white: String,
    /// Black's player spec.
    pub black: String,
    /// The PDN result: 1-0, 0-1 or 1/2-1/2.
    pub result: String,
    /// White's score: 1, 1/2 or 0.
    pub white_score: f64,
    /// Plies played.
    pub plies: usize,
    /// Why the game ended.
    pub reason: String,
    /// The seed of the game's random streams.
    pub seed: u64,
    /// The opening's moves (or its setup string).
    pub opening: String,
    /// White's index into the players.
    #[serde(skip)]
    pub white_idx: usize,
    /// Black's index into the players.
    #[serde(skip)]
    pub black_idx: usize,
    /// The game as PDN.
    #[serde(skip)]
    pub pdn: String,
    /// How it ended, with its reason (always given for a game played).
    #[serde(skip)]
    pub outcome: Option<Outcome>,
}

impl GameRecord {
    /// The score of the player at `index` of the match's player list (1 for
    /// a win, 1/2 for a draw, 0 for a loss).
    pub fn score_for_player(&self, index: usize) -> f64 {
        if self.white_idx == index {
            self.white_score
        } else {
            1.0 - self.white_score
        }
    }

    /// 1, 0 or -1: the game won, drawn or lost by the player at `index` (a
    /// score above 3/4 is a win, below 1/4 a loss).
    pub fn result_for_player(&self, index: usize) -> i32 {
        match self.score_for_player(index) {
            s if s > 0.75 => 1,
            s if s < 0.25 => -1,
            _ => 0,
        }
    }
}

/// The wins, draws and losses of the player at `index` over `records`.
pub fn tally(records: &[GameRecord], index: usize) -> (u32, u32, u32) {
    records
        .iter()
        .fold((0, 0, 0), |(w, d, l), r| match r.result_for_player(index) {
            1 => (w + 1, d, l),
            -1 => (w, d, l + 1),
            _ => (w, d + 1, l),
        })
}

/// Play one game between two players from the game's current position.
pub fn play_out<P: GamePosition>(
    white: &mut dyn super::Player<P>,
    black: &mut dyn super::Player<P>,
    mut game: Game<P>,
) -> (Game<P>, Outcome) {
    loop {
        let moves = game.position().legal_moves();
        if let Some(o) = game.outcome_with(&moves) {
            return (game, o);
        }
        let mover: &mut dyn super::Player<P> = match game.position().side_to_move() {
            crate::game::Color::White => &mut *white,
            crate::game::Color::Black => &mut *black,
        };
        let mut m = mover.choose(&game);
        if !moves.contains(&m) {
            // A player bug must not corrupt the game: fall back to a legal move.
            m = moves[0];
        }
        game.play_unchecked(&m);
        white.observe(&m);
        black.observe(&m);
    }
}

/// Run the tasks in parallel on all cores; records come back in task order.
/// `on_game` hears of each game as it ends (a progress bar, a log).
pub fn run_games<P: GamePosition>(
    tasks: &[GameTask],
    names: &[String],
    factories: &[PlayerFactory<P>],
    s: &MatchSettings<P>,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> Vec<GameRecord> {
    tasks
        .par_iter()
        .map(|t| {
            let start = opening_game(s, t.opening);
            let opening: Vec<String> = if start.moves().is_empty() && !s.openings.is_empty() {
                vec![start.position().to_setup()]
            } else {
                move_texts(&start)
            };
            let mut w = factories[t.white](t.seed);
            let mut b = factories[t.black](derive_seed(t.seed, "black-player", 0));
            let (game, outcome) = play_out(w.as_mut(), b.as_mut(), start);
            let headers = PdnHeaders {
                event: s.event.clone(),
                round: (t.index + 1).to_string(),
                white: names[t.white].clone(),
                black: names[t.black].clone(),
                extra: vec![("Seed".into(), t.seed.to_string())],
                ..Default::default()
            };
            let pdn = to_pdn(&game, Some(&outcome), &headers);
            let record = GameRecord {
                game: t.index + 1,
                white: names[t.white].clone(),
                black: names[t.black].clone(),
                result: outcome.pdn_result().to_string(),
                white_score: outcome.score_for(crate::game::Color::White),
                plies: game.ply(),
                reason: outcome.reason.name().to_string(),
                seed: t.seed,
                opening: opening.join(" "),
                white_idx: t.white,
                black_idx: t.black,
                pdn,
                outcome: Some(outcome),
            };
            on_game(&record);
            record
        })
        .collect()
}

/// The text of each move of `game`, each in the position it was played in.
pub fn move_texts<P: GamePosition>(game: &Game<P>) -> Vec<String> {
    let mut pos = *game.start();
    game.moves()
        .iter()
        .map(|m| {
            let text = pos.move_text(m);
            pos.play_unchecked(m);
            text
        })
        .collect()
}

/// Opening positions from text: one FEN per line; blank lines and lines
/// starting with `#` are skipped. The error names the line.
pub fn read_openings<P: GamePosition>(
    text: &str,
    variant: P::Variant,
    rules: DrawRules,
) -> Result<Vec<P>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = P::from_setup(line, variant).map_err(|e| format!("line {}: {e}", i + 1))?;
        if let Some(o) = Game::new(pos, rules).outcome() {
            return Err(format!(
                "line {}: the game is already over there ({} {})",
                i + 1,
                o.pdn_result(),
                o.reason.name()
            ));
        }
        out.push(pos);
    }
    if out.is_empty() {
        return Err("no opening positions (one FEN per line)".into());
    }
    Ok(out)
}

/// How an SPRT match ended.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtOutcome {
    /// The first player's wins, draws and losses.
    pub wins: u32,
    /// The first player's draws.
    pub draws: u32,
    /// The first player's losses.
    pub losses: u32,
    /// The log-likelihood ratio when the match stopped.
    pub llr: f64,
    /// None when the game limit came first.
    pub decision: Option<super::SprtDecision>,
}

/// Play `tasks` (a two-player schedule, player 0 first) in chunks of
/// `chunk` games (rounded up to pairs of openings) and stop as soon as the
/// SPRT decides; the records of the games played, in order.
pub fn run_sprt<P: GamePosition>(
    tasks: &[GameTask],
    names: &[String],
    factories: &[PlayerFactory<P>],
    s: &MatchSettings<P>,
    sprt: &super::Sprt,
    chunk: usize,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> (Vec<GameRecord>, SprtOutcome) {
    let chunk = chunk.max(2).div_ceil(2) * 2;
    let mut records = Vec::new();
    let mut o = SprtOutcome {
        wins: 0,
        draws: 0,
        losses: 0,
        llr: 0.0,
        decision: None,
    };
    for part in tasks.chunks(chunk) {
        records.extend(run_games(part, names, factories, s, on_game));
        (o.wins, o.draws, o.losses) = tally(&records, 0);
        o.llr = sprt.llr(o.wins, o.draws, o.losses);
        o.decision = sprt.decide(o.wins, o.draws, o.losses);
        if o.decision.is_some() {
            break;
        }
    }
    (records, o)
}

/// One player's line in the standings.
#[derive(Clone, Debug, Serialize)]
pub struct StandingRow {
    /// The player spec.
    pub player: String,
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Points: a win 1, a draw 1/2.
    pub points: f64,
    /// Points over games.
    pub score: f64,
    /// Elo relative to the anchor (0 for the anchor).
    pub elo: f64,
    /// The half-width of the Elo's 95% interval.
    pub elo_95: f64,
}

/// Standings and ratings of a set of games.
#[derive(Clone, Debug)]
pub struct Standings {
    /// One row per player, best first.
    pub rows: Vec<StandingRow>,
    /// The player whose Elo is 0.
    pub anchor: String,
}

impl Standings {
    /// Tally records; ratings by maximum likelihood anchored at `anchor`.
    pub fn compute(names: &[String], records: &[GameRecord], anchor: usize) -> Standings {
        let n = names.len();
        let mut score = vec![vec![0.0; n]; n];
        let mut games = vec![vec![0.0; n]; n];
        let mut wdl = vec![(0u32, 0u32, 0u32); n];
        for r in records {
            let (w, b) = (r.white_idx, r.black_idx);
            score[w][b] += r.white_score;
            score[b][w] += 1.0 - r.white_score;
            games[w][b] += 1.0;
            games[b][w] += 1.0;
            for p in [w, b] {
                match r.result_for_player(p) {
                    1 => wdl[p].0 += 1,
                    -1 => wdl[p].2 += 1,
                    _ => wdl[p].1 += 1,
                }
            }
        }
        let (elo, ci) = mle_ratings(&score, &games, anchor);
        let mut rows: Vec<StandingRow> = (0..n)
            .map(|i| {
                let (w, d, l) = wdl[i];
                let g = w + d + l;
                let (s, _) = score_interval(w, d, l);
                StandingRow {
                    player: names[i].clone(),
                    games: g,
                    wins: w,
                    draws: d,
                    losses: l,
                    points: w as f64 + 0.5 * d as f64,
                    score: s,
                    elo: elo[i],
                    elo_95: ci[i],
                }
            })
            .collect();
        rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
        Standings {
            rows,
            anchor: names[anchor].clone(),
        }
    }

    /// A plain-text table.
    pub fn table(&self) -> String {
        let w = self.rows.iter().map(|r| r.player.len()).max().unwrap_or(6).max(6);
        let mut s = format!(
            "{:>3}  {:<w$}  {:>5}  {:>5} {:>5} {:>5}  {:>6}  {:>6}  {:>14}\n",
            "#", "player", "games", "W", "D", "L", "points", "score", "Elo (95%)"
        );
        for (i, r) in self.rows.iter().enumerate() {
            let elo = if r.player == self.anchor {
                "0 (anchor)".to_string()
            } else {
                format!("{:.0} ± {:.0}", r.elo, r.elo_95)
            };
            s.push_str(&format!(
                "{:>3}  {:<w$}  {:>5}  {:>5} {:>5} {:>5}  {:>6.1}  {:>5.1}%  {:>14}\n",
                i + 1,
                r.player,
                r.games,
                r.wins,
                r.draws,
                r.losses,
                r.points,
                100.0 * r.score,
                elo
            ));
        }
        s
    }
}

/// Write a match's or tournament's files into `dir`, each atomically:
/// `games.csv` (one [`GameRecord`] a row), `games.pdn` and `standings.csv`
/// (one [`StandingRow`] a row).
pub fn write_match_outputs(
    dir: &std::path::Path,
    records: &[GameRecord],
    standings: &Standings,
) -> Result<(), String> {
    let fail =
        |what: &str, e: &dyn std::fmt::Display| format!("cannot write {}: {e}", dir.join(what).display());
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let games = csv_bytes(records).map_err(|e| fail("games.csv", &e))?;
    atomic_write(&dir.join("games.csv"), &games).map_err(|e| fail("games.csv", &e))?;
    let pdn: String = records.iter().map(|r| r.pdn.as_str()).collect();
    atomic_write(&dir.join("games.pdn"), pdn.as_bytes()).map_err(|e| fail("games.pdn", &e))?;
    let table = csv_bytes(&standings.rows).map_err(|e| fail("standings.csv", &e))?;
    atomic_write(&dir.join("standings.csv"), &table).map_err(|e| fail("standings.csv", &e))
}

fn csv_bytes<T: Serialize>(rows: &[T]) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

impl SprtOutcome {
    /// The match's last line: games, the first player's record, the LLR,
    /// its bounds and the decision.
    pub fn summary(&self, sprt: &super::Sprt, games: usize, first: &str) -> String {
        let (lo, hi) = sprt.bounds();
        let decision = match self.decision {
            Some(super::SprtDecision::H1) => "H1 accepted",
            Some(super::SprtDecision::H0) => "H0 accepted",
            None => "no decision within --games",
        };
        format!(
            "SPRT elo0={} elo1={} alpha={} beta={}: {games} games ({}-{}-{} for {first}), LLR {:.3} (bounds {lo:.3}, {hi:.3}): {decision}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, self.wins, self.draws, self.losses, self.llr
        )
    }
}
