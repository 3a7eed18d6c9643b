//! `damone match` and `damone tournament`.

use super::chart::line_chart;
use super::{parse_position, parse_variant, progress_bar, DeviceOpt};
use anyhow::{bail, Context, Result};
use clap::Args;
use damone::arena::tournament::{schedule, GameRecord};
use damone::arena::{
    read_openings, run_games, run_sprt, MatchSettings, PlayerFactory, Sprt, SprtDecision, Standings,
};
use damone::game::DrawRules;
use damone::net::ComputeDevice;
use damone::run::{read_rows, Metrics, RunDir};
use damone::util::atomic_write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options shared by `match` and `tournament`.
#[derive(Args, Debug, Clone)]
pub struct ArenaOpts {
    /// Games per pairing (colours alternate; each opening is played with both colours).
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// Master seed for openings and players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies from the start position to diversify openings.
    #[arg(long, default_value_t = 4)]
    pub opening_plies: u32,
    /// Opening positions, one FEN per line (`#` comments); each is played
    /// with both colours, in order, cycling (replaces --opening-plies).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Rules variant: standard, damone-hunt or three-damas.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Custom start position (FEN), played under the variant's rules.
    #[arg(long)]
    pub fen: Option<String>,
    /// Draw after this many plies without capture or promotion.
    #[arg(long, default_value_t = 80)]
    pub no_progress_plies: u32,
    /// Draw when a game reaches this many plies.
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// Folder for games.csv, games.pdn and standings.csv.
    #[arg(long, default_value = "out/arena")]
    pub out: PathBuf,
    /// Rating anchor (a player spec as written); default: `random` if playing, else the first player.
    #[arg(long)]
    pub anchor: Option<String>,
    #[command(flatten)]
    pub device: DeviceOpt,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// First player spec (e.g. alphabeta:depth=4).
    pub a: String,
    /// Second player spec (e.g. random).
    pub b: String,
    /// Sequential probability ratio test of the first player against the
    /// second, e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05: games are played
    /// in rounds and the match stops as soon as the test decides (--games is
    /// then the maximum).
    #[arg(long)]
    pub sprt: Option<String>,
    #[command(flatten)]
    pub opts: ArenaOpts,
}

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// Player specs, comma separated: random,alphabeta:depth=2,mcts:sims=100,algo=gumbel
    /// (an item `key=value` belongs to the spec before it). With --run: the
    /// baseline ladder (default random,alphabeta:depth=2,alphabeta:depth=4,alphabeta:depth=6).
    #[arg(long, required_unless_present = "run")]
    pub players: Option<String>,
    /// Rate every kept checkpoint of this training run against the baselines,
    /// and plot rating against training time.
    #[arg(long)]
    pub run: Option<String>,
    /// Folder holding runs (for --run).
    #[arg(long, default_value = "checkpoints")]
    pub checkpoint_dir: PathBuf,
    /// Simulations per move for checkpoint players (for --run).
    #[arg(long, default_value_t = 64)]
    pub sims: u32,
    /// Play the first player against each of the others only.
    #[arg(long)]
    pub gauntlet: bool,
    #[command(flatten)]
    pub opts: ArenaOpts,
}

/// Split a `--players` list, re-attaching `key=value` items to their spec.
pub fn split_players(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tok in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let is_option = tok.contains('=') && !tok.contains(':');
        match out.last_mut() {
            Some(last) if is_option => {
                if !last.contains(':') {
                    last.push(':');
                } else {
                    last.push(',');
                }
                last.push_str(tok);
            }
            _ => out.push(tok.to_string()),
        }
    }
    out
}

/// Build a factory for any player spec, the network kind included.
fn factory(text: &str, device: &ComputeDevice) -> Result<PlayerFactory> {
    damone::player::factory_on(text, device).with_context(|| format!("player '{text}'"))
}

fn settings(o: &ArenaOpts, event: &str) -> Result<MatchSettings> {
    if o.games == 0 {
        bail!("--games must be at least 1");
    }
    if o.max_plies == 0 || o.no_progress_plies == 0 {
        bail!("--max-plies and --no-progress-plies must be at least 1");
    }
    let v = parse_variant(&o.variant)?;
    let mut s = MatchSettings::new(v);
    s.start = parse_position(o.fen.as_deref(), v)?;
    s.games_per_pair = o.games;
    s.seed = o.seed;
    s.opening_plies = o.opening_plies;
    s.rules = DrawRules {
        no_progress_plies: o.no_progress_plies,
        max_plies: o.max_plies,
    };
    s.event = event.to_string();
    if let Some(path) = &o.openings {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read --openings {}", path.display()))?;
        s.openings = read_openings(&text, v, s.rules)
            .map_err(|e| anyhow::anyhow!("--openings {}: {e}", path.display()))?;
    }
    Ok(s)
}

/// Write games.csv, games.pdn and standings.csv atomically.
pub fn write_outputs(dir: &Path, records: &[GameRecord], standings: &Standings) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in records {
        w.serialize(r)?;
    }
    atomic_write(&dir.join("games.csv"), &w.into_inner()?)?;
    let pdn: String = records.iter().map(|r| r.pdn.as_str()).collect();
    atomic_write(&dir.join("games.pdn"), pdn.as_bytes())?;
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in &standings.rows {
        w.serialize(r)?;
    }
    atomic_write(&dir.join("standings.csv"), &w.into_inner()?)?;
    Ok(())
}

/// Play all pairings among `names` (or, with `sprt`, the one pairing until
/// the test decides), print standings, write outputs.
pub fn run(
    names: Vec<String>,
    pairs: Vec<(usize, usize)>,
    o: &ArenaOpts,
    event: &str,
    sprt: Option<&Sprt>,
) -> Result<Standings> {
    let s = settings(o, event)?;
    let device = o.device.for_players(names.iter().map(String::as_str))?;
    let factories = names
        .iter()
        .map(|n| factory(n, &device))
        .collect::<Result<Vec<_>>>()?;
    let anchor = match &o.anchor {
        Some(a) => names
            .iter()
            .position(|n| n == a)
            .with_context(|| format!("--anchor '{a}' is not one of the players"))?,
        None => names.iter().position(|n| n == "random").unwrap_or(0),
    };
    let tasks = schedule(&pairs, &s);
    let pb = progress_bar(tasks.len() as u64, "games", o.quiet);
    let t = Instant::now();
    let (records, verdict) = match sprt {
        None => (run_games(&tasks, &names, &factories, &s, &pb), None),
        Some(t) => {
            let chunk = 2 * rayon::current_num_threads();
            let (r, v) = run_sprt(&tasks, &names, &factories, &s, t, chunk, &pb);
            (r, Some(v))
        }
    };
    pb.finish_and_clear();
    let standings = Standings::compute(&names, &records, anchor);
    print!("{}", standings.table());
    if let (Some(t), Some(v)) = (sprt, &verdict) {
        let (lo, hi) = t.bounds();
        println!(
            "SPRT elo0={} elo1={} alpha={} beta={}: {} games ({}-{}-{} for {}), LLR {:.3} (bounds {:.3}, {:.3}): {}",
            t.elo0,
            t.elo1,
            t.alpha,
            t.beta,
            records.len(),
            v.wins,
            v.draws,
            v.losses,
            names[0],
            v.llr,
            lo,
            hi,
            match v.decision {
                Some(SprtDecision::H1) => "H1 accepted",
                Some(SprtDecision::H0) => "H0 accepted",
                None => "no decision within --games",
            }
        );
    }
    write_outputs(&o.out, &records, &standings)?;
    eprintln!(
        "{} games in {:.1} s; wrote {}/games.csv, games.pdn, standings.csv",
        records.len(),
        t.elapsed().as_secs_f64(),
        o.out.display()
    );
    Ok(standings)
}

pub fn run_match(a: MatchArgs) -> Result<()> {
    if a.a.trim() == a.b.trim() {
        bail!(
            "both players are '{}': a match needs two different specs (one spec twice would be rated against itself)",
            a.a
        );
    }
    let names = vec![a.a.clone(), a.b.clone()];
    let sprt = a
        .sprt
        .as_deref()
        .map(|t| t.parse::<Sprt>().map_err(|e| anyhow::anyhow!("--sprt: {e}")))
        .transpose()?;
    run(names, vec![(0, 1)], &a.opts, "damone match", sprt.as_ref())?;
    Ok(())
}

pub fn run_tournament(a: TournamentArgs) -> Result<()> {
    if let Some(run_name) = &a.run {
        return run_checkpoints(&a, run_name);
    }
    let names = split_players(a.players.as_deref().unwrap_or_default());
    if names.len() < 2 {
        bail!("--players needs at least two player specs, got {}", names.len());
    }
    let mut seen = std::collections::HashSet::new();
    for n in &names {
        if !seen.insert(n) {
            bail!("player '{n}' is listed twice");
        }
    }
    let pairs: Vec<(usize, usize)> = if a.gauntlet {
        (1..names.len()).map(|j| (0, j)).collect()
    } else {
        (0..names.len())
            .flat_map(|i| (i + 1..names.len()).map(move |j| (i, j)))
            .collect()
    };
    run(names, pairs, &a.opts, "damone tournament", None)?;
    Ok(())
}

/// `tournament --run`: every kept checkpoint against the baseline ladder.
fn run_checkpoints(a: &TournamentArgs, run_name: &str) -> Result<()> {
    let dir = a.checkpoint_dir.join(run_name);
    if !dir.is_dir() {
        bail!("no run folder {}", dir.display());
    }
    let iters = RunDir::new(&dir).checkpoints();
    if iters.is_empty() {
        bail!("run {} has no checkpoints", dir.display());
    }
    if a.sims == 0 {
        bail!("--sims must be at least 1");
    }
    let baselines = split_players(
        a.players
            .as_deref()
            .unwrap_or("random,alphabeta:depth=2,alphabeta:depth=4,alphabeta:depth=6"),
    );
    let mut names = baselines.clone();
    for k in &iters {
        names.push(format!("net:{}/iter_{k:04},sims={}", dir.display(), a.sims));
    }
    let nb = baselines.len();
    let mut pairs: Vec<(usize, usize)> = (0..nb).flat_map(|i| (i + 1..nb).map(move |j| (i, j))).collect();
    for c in nb..names.len() {
        for b in 0..nb {
            pairs.push((c, b));
        }
    }
    let standings = run(
        names.clone(),
        pairs,
        &a.opts,
        "damone checkpoint tournament",
        None,
    )?;
    // Rating against training time.
    let wall: std::collections::BTreeMap<u32, f64> = read_rows::<Metrics>(&RunDir::new(&dir).metrics_path())?
        .into_iter()
        .map(|m| (m.iteration, m.wall_s))
        .collect();
    let mut csv = String::from("iteration,training_minutes,elo,elo_95,score,games\n");
    let mut pts = Vec::new();
    for (k, name) in iters.iter().zip(&names[nb..]) {
        let row = standings
            .rows
            .iter()
            .find(|r| &r.player == name)
            .expect("player in standings");
        let minutes = wall.get(k).copied().unwrap_or(0.0) / 60.0;
        csv.push_str(&format!(
            "{k},{minutes:.1},{:.1},{:.1},{:.4},{}\n",
            row.elo, row.elo_95, row.score, row.games
        ));
        pts.push((minutes, row.elo));
    }
    atomic_write(&a.opts.out.join("ratings_by_iteration.csv"), csv.as_bytes())?;
    let mut series = vec![("checkpoints".to_string(), pts)];
    for b in &baselines {
        if let Some(r) = standings.rows.iter().find(|r| &r.player == b) {
            let (x0, x1) = (0.0, wall.values().copied().fold(1.0, f64::max) / 60.0);
            series.push((b.clone(), vec![(x0, r.elo), (x1, r.elo)]));
        }
    }
    let svg = a.opts.out.join("rating.svg");
    line_chart(
        &svg,
        &format!(
            "rating of run '{run_name}' against training time (anchor: {})",
            standings.anchor
        ),
        "training time (minutes)",
        "Elo",
        &series,
    )?;
    eprintln!(
        "wrote {}/ratings_by_iteration.csv and {}",
        a.opts.out.display(),
        svg.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split_players;

    #[test]
    fn players_list_keeps_options_with_their_spec() {
        assert_eq!(
            split_players("random,alphabeta:depth=2,mcts:sims=100,algo=gumbel,net:a/b,sims=5"),
            [
                "random",
                "alphabeta:depth=2",
                "mcts:sims=100,algo=gumbel",
                "net:a/b,sims=5"
            ]
        );
    }
}
