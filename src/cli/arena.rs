//! `damone match` and `damone tournament`.

use super::{progress_bar, DeviceOpt};
use anyhow::{bail, Context, Result};
use clap::Args;
use damone::arena::tournament::schedule;
use damone::arena::{
    read_openings, run_games, run_sprt, split_player_list, write_match_outputs, MatchSettings, PlayerFactory,
    Sprt, Standings,
};
use damone::game::interface::setup_or_start;
use damone::game::{DrawRules, GameKind, GamePosition};
use damone::player::run_tournament::{CheckpointTournament, DEFAULT_BASELINES};
use damone::run::RunGame;
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
    /// The game; default: the network players' game, else the first game.
    #[arg(long, value_parser = super::game_arg())]
    pub game: Option<GameKind>,
    #[arg(long, default_value = "standard", help = damone::game::registry::variant_help())]
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
    /// Games played at once (default: one per core). With players given
    /// `threads=N`, `--concurrency 1` leaves each search its own threads.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: Option<u32>,
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
    /// Rate every kept checkpoint of this run folder (checkpoints/<run>)
    /// against the baselines, and plot rating against training time.
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Simulations per move for checkpoint players (for --run).
    #[arg(long, default_value_t = 64)]
    pub sims: u32,
    /// Play the first player against each of the others only.
    #[arg(long)]
    pub gauntlet: bool,
    #[command(flatten)]
    pub opts: ArenaOpts,
}

fn settings<P: GamePosition>(o: &ArenaOpts, event: &str) -> Result<MatchSettings<P>> {
    if o.games == 0 {
        bail!("--games must be at least 1");
    }
    if o.max_plies == 0 || o.no_progress_plies == 0 {
        bail!("--max-plies and --no-progress-plies must be at least 1");
    }
    let start: P = setup_or_start(o.fen.as_deref(), &o.variant).map_err(anyhow::Error::msg)?;
    let v = start.variant();
    let mut s = MatchSettings::from_start(start);
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

/// Play all pairings among `names` (or, with `sprt`, the one pairing until
/// the test decides) in their game, print standings, write outputs.
/// `event` names the event after the game (`match` -> `italian match`).
pub fn run(
    names: Vec<String>,
    pairs: Vec<(usize, usize)>,
    o: &ArenaOpts,
    event: &str,
    sprt: Option<&Sprt>,
) -> Result<Standings> {
    let game = damone::player::game_of_players(names.iter().map(String::as_str), o.game.map(GameKind::id))?
        .kind()?;
    damone::with_game!(game, P => run_game::<P>(names, pairs, o, event, sprt))
}

/// [`run`] in the game `P`.
fn run_game<P: RunGame>(
    names: Vec<String>,
    pairs: Vec<(usize, usize)>,
    o: &ArenaOpts,
    event: &str,
    sprt: Option<&Sprt>,
) -> Result<Standings> {
    let s = settings::<P>(o, &format!("{} {event}", P::ID))?;
    let device = o.device.for_players(names.iter().map(String::as_str))?;
    let factories = names
        .iter()
        .map(|n| {
            damone::player::open::<P>(n, &device)
                .map(|(f, _)| f)
                .with_context(|| format!("player '{n}'"))
        })
        .collect::<Result<Vec<PlayerFactory<P>>>>()?;
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
    let play = || match sprt {
        None => (run_games(&tasks, &names, &factories, &s, &|_| pb.inc(1)), None),
        Some(t) => {
            let chunk = 2 * rayon::current_num_threads();
            let (r, v) = run_sprt(&tasks, &names, &factories, &s, t, chunk, &|_| pb.inc(1));
            (r, Some(v))
        }
    };
    let (records, verdict) = match o.concurrency {
        None => play(),
        Some(n) => damone::util::thread_pool(n as usize)
            .map_err(anyhow::Error::msg)?
            .install(play),
    };
    pb.finish_and_clear();
    let standings = Standings::compute(&names, &records, anchor);
    print!("{}", standings.table());
    if let (Some(t), Some(v)) = (sprt, &verdict) {
        println!("{}", v.summary(t, records.len(), &names[0]));
    }
    write_match_outputs(&o.out, &records, &standings).map_err(anyhow::Error::msg)?;
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
    run(names, vec![(0, 1)], &a.opts, "match", sprt.as_ref())?;
    Ok(())
}

pub fn run_tournament(a: TournamentArgs) -> Result<()> {
    if let Some(run_dir) = &a.run {
        return run_checkpoints(&a, run_dir);
    }
    let names = split_player_list(a.players.as_deref().unwrap_or_default());
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
    run(names, pairs, &a.opts, "tournament", None)?;
    Ok(())
}

/// `tournament --run`: every kept checkpoint against the baseline ladder.
fn run_checkpoints(a: &TournamentArgs, run_dir: &Path) -> Result<()> {
    let baselines = split_player_list(a.players.as_deref().unwrap_or(DEFAULT_BASELINES));
    let t = CheckpointTournament::new(run_dir, baselines, a.sims).map_err(anyhow::Error::msg)?;
    let standings = run(
        t.names.clone(),
        t.pairs.clone(),
        &a.opts,
        "checkpoint tournament",
        None,
    )?;
    let (csv, svg) = t
        .write_ratings(&standings, &a.opts.out)
        .map_err(anyhow::Error::msg)?;
    eprintln!("wrote {} and {}", csv.display(), svg.display());
    Ok(())
}
