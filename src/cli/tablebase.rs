//! `damone tablebase build | probe | verify | grade | convert`.

use super::{progress_bar, GameOpt};
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use damone::game::interface::setup_or_start;
use damone::game::TableGame;
use damone::player::endgames::{play_won_positions, won_positions};
use damone::player::grade::{grade, replay_positions, uniform_positions, GradeRow};
use damone::player::LoadedNet;
use damone::run::RunGame;
use damone::tablebase::{build, game_of_tables, verify, BuildOptions, TableReport, Tablebase};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct TablebaseArgs {
    #[command(subcommand)]
    command: TablebaseCommand,
}

#[derive(Subcommand, Debug)]
enum TablebaseCommand {
    /// Build every table of 2 up to N pieces of a game (tables already in
    /// the folder are kept). The other commands read the game from the
    /// folder's tables.
    Build(BuildArgs),
    /// The exact value of a position, and of each of its moves.
    Probe(ProbeArgs),
    /// Check every entry against a one-ply search over its successors.
    Verify(VerifyArgs),
    /// Grade a network against the tables: how often its WDL argmax, and
    /// its search's, name the exact result, per balance.
    Grade(GradeArgs),
    /// Play won positions out: a player on the winning side of positions
    /// the tables call won, against an opponent; how many it wins.
    Convert(ConvertArgs),
}

/// The folder of the tables, and how they are opened.
#[derive(Args, Debug)]
struct DirOpt {
    /// Folder holding one game's tables (`<balance>.dtb` files).
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
}

#[derive(Args, Debug)]
struct BuildArgs {
    #[command(flatten)]
    game: GameOpt,
    /// Most pieces on the board, 2 to 5 (Damone's up to 4: 48 MB; 5 adds
    /// 1.9 GB; docs/tablebases.md has each game's sizes).
    #[arg(long, default_value_t = 4)]
    pieces: u32,
    #[command(flatten)]
    dir: DirOpt,
    /// The no-progress limit the tables are for (plies without a capture
    /// or a promotion before a draw; the games' `rules.no_progress_plies`).
    #[arg(long, default_value_t = 80)]
    no_progress_plies: u16,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct ProbeArgs {
    /// The position, as a setup string of the tables' game (standard
    /// variant).
    #[arg(long)]
    fen: String,
    /// Plies already played without a capture or a promotion (default:
    /// the setup string's own counter, else 0).
    #[arg(long)]
    counter: Option<u16>,
    #[command(flatten)]
    dir: DirOpt,
    /// Memory-map the tables instead of reading them into memory.
    #[arg(long)]
    mmap: bool,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    #[command(flatten)]
    dir: DirOpt,
    /// Memory-map the tables instead of reading them into memory.
    #[arg(long)]
    mmap: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct GradeArgs {
    /// The network: a player file, a checkpoint folder or a run folder
    /// (its best checkpoint).
    #[arg(long)]
    player: PathBuf,
    #[command(flatten)]
    dir: DirOpt,
    /// Positions drawn from each balance's table.
    #[arg(long, default_value_t = 200)]
    per_balance: usize,
    /// Also grade positions a run's self-play reached: a run or checkpoint
    /// folder (the newest checkpoint's replay window).
    #[arg(long)]
    selfplay: Option<PathBuf>,
    /// Most self-play positions graded.
    #[arg(long, default_value_t = 5000)]
    selfplay_positions: usize,
    /// Simulations of the graded search (the rating protocol's 64).
    #[arg(long, default_value_t = 64)]
    sims: u32,
    /// Seed of the drawn positions and of the searches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args, Debug)]
struct ConvertArgs {
    /// The player on the winning side: a spec (`net:PATH,tb=DIR` plays with
    /// the tables) or a player file or checkpoint folder.
    #[arg(long)]
    player: String,
    /// The opponent's spec.
    #[arg(long, default_value = "alphabeta:depth=6")]
    opponent: String,
    #[command(flatten)]
    dir: DirOpt,
    /// Won positions played out.
    #[arg(long, default_value_t = 100)]
    positions: usize,
    /// Most pieces of the positions (their balance drawn uniformly among
    /// the tables' of at most this many).
    #[arg(long, default_value_t = 4)]
    pieces: u32,
    /// Seed of the positions and of the players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run_tablebase(a: TablebaseArgs) -> Result<()> {
    match a.command {
        TablebaseCommand::Build(b) => run_build(b),
        TablebaseCommand::Probe(p) => run_probe(p),
        TablebaseCommand::Verify(v) => run_verify(v),
        TablebaseCommand::Grade(g) => run_grade(g),
        TablebaseCommand::Convert(c) => run_convert(c),
    }
}

fn run_convert(a: ConvertArgs) -> Result<()> {
    if a.positions == 0 {
        bail!("--positions must be at least 1");
    }
    damone::with_game!(game_of_tables(&a.dir.dir)?, P => convert::<P>(&a))
}

fn convert<P: RunGame + TableGame>(a: &ConvertArgs) -> Result<()> {
    let tb = Tablebase::<P>::open(&a.dir.dir, false)?;
    let positions = won_positions(&tb, a.pieces, a.positions, a.seed);
    if positions.len() < a.positions {
        bail!(
            "the tables in {} hold only {} won positions of up to {} pieces",
            a.dir.dir.display(),
            positions.len(),
            a.pieces
        );
    }
    let open = |spec: &str| -> Result<_> {
        if damone::player::game_of_players([spec], Some(P::ID)).is_err() {
            bail!("{spec} is not a {} player; the tables are {}'s", P::ID, P::ID);
        }
        damone::player::open::<P>(spec, &damone::net::ComputeDevice::cpu())
            .map(|(f, _)| f)
            .map_err(|e| anyhow::anyhow!("cannot open player '{spec}': {e}"))
    };
    let players = [open(&a.player)?, open(&a.opponent)?];
    let pb = progress_bar(positions.len() as u64, "won positions", a.quiet);
    let names = [a.player.clone(), a.opponent.clone()];
    let c = play_won_positions(&positions, players, names, tb.limit(), a.seed, &|_| pb.inc(1));
    pb.finish_and_clear();
    for fen in &c.missed {
        println!("not won: {fen}");
    }
    let n = positions.len() as u32;
    println!(
        "{} on the winning side of {n} won positions of up to {} pieces against {}: won {}, drew {}, lost {} ({:.1}%)",
        a.player,
        a.pieces,
        a.opponent,
        c.wins,
        c.draws,
        c.losses,
        100.0 * c.wins as f64 / n as f64
    );
    Ok(())
}

fn run_grade(a: GradeArgs) -> Result<()> {
    damone::with_game!(game_of_tables(&a.dir.dir)?, P => grade_net::<P>(&a))
}

fn grade_net<P: RunGame + TableGame>(a: &GradeArgs) -> Result<()> {
    let tb = Tablebase::<P>::open(&a.dir.dir, false)?;
    let net = LoadedNet::load(&a.player)?;
    if net.header.game != P::ID {
        bail!(
            "{} plays {}; the tables are {}'s",
            a.player.display(),
            net.header.game,
            P::ID
        );
    }
    let reached = match &a.selfplay {
        Some(run) => Some(replay_positions(run, &tb, a.selfplay_positions).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let uniform = uniform_positions(&tb, a.per_balance, a.seed);
    print_grade(
        "drawn uniformly from each table",
        &grade(&net, &tb, &uniform, a.sims, a.seed),
        a.sims,
    );
    if let (Some(run), Some(reached)) = (&a.selfplay, reached) {
        if reached.is_empty() {
            println!(
                "\nno position of {}'s replay window is in the tables",
                run.display()
            );
        } else {
            let rows = grade(&net, &tb, &reached, a.sims, a.seed);
            print_grade("reached in self-play", &rows, a.sims);
        }
    }
    Ok(())
}

/// The grading's table: per balance, positions and the three agreements
/// (the network, the search's root mean, the search's chosen move).
fn print_grade(what: &str, rows: &[GradeRow], sims: u32) {
    println!("positions {what}:");
    println!(
        "{:<10} {:>9} {:>10} {:>14} {:>14}",
        "balance",
        "positions",
        "net WDL",
        format!("search {sims}"),
        format!("move {sims}")
    );
    for r in rows {
        println!(
            "{:<10} {:>9} {:>9.1}% {:>13.1}% {:>13.1}%",
            r.balance,
            r.positions,
            100.0 * r.net_share(),
            100.0 * r.search_share(),
            100.0 * r.move_share()
        );
    }
}

fn run_build(a: BuildArgs) -> Result<()> {
    damone::with_game!(a.game.game, P => build_tables::<P>(&a))
}

fn build_tables<P: RunGame + TableGame>(a: &BuildArgs) -> Result<()> {
    let opts = BuildOptions {
        max_pieces: a.pieces,
        limit: a.no_progress_plies,
        dir: a.dir.dir.clone(),
    };
    let t = Instant::now();
    let pb = progress_bar(0, "tables", a.quiet);
    let mut reports: Vec<TableReport> = Vec::new();
    build::<P>(&opts, &mut |r, done, total| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
        pb.suspend(|| println!("{}", table_line(r)));
        reports.push(r.clone());
    })?;
    pb.finish_and_clear();
    let bytes: u64 = reports.iter().map(|r| r.file_bytes).sum();
    let positions: u64 = reports.iter().map(|r| r.positions).sum();
    println!(
        "{} {} tables of up to {} pieces in {}: {positions} positions, {:.1} MB, {:.1} s",
        reports.len(),
        P::ID,
        a.pieces,
        a.dir.dir.display(),
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// One table's line of the build's output.
fn table_line(r: &TableReport) -> String {
    let share = |n: u64| 100.0 * n as f64 / r.positions.max(1) as f64;
    format!(
        "{:<8} {:>10} positions  win {:5.1}%  draw {:5.1}%  loss {:5.1}%  longest {:>3} plies  {}",
        r.name,
        r.positions,
        share(r.wins),
        share(r.draws),
        share(r.losses),
        r.longest,
        if r.kept {
            "kept".to_string()
        } else {
            format!("{:.2} s", r.seconds)
        }
    )
}

fn run_probe(a: ProbeArgs) -> Result<()> {
    damone::with_game!(game_of_tables(&a.dir.dir)?, P => probe::<P>(&a))
}

fn probe<P: RunGame + TableGame>(a: &ProbeArgs) -> Result<()> {
    let pos: P = setup_or_start(Some(&a.fen), "standard").map_err(anyhow::Error::msg)?;
    let tb = Tablebase::<P>::open(&a.dir.dir, a.mmap)?;
    let counter = a.counter.unwrap_or(pos.no_progress());
    if counter > tb.limit() {
        bail!(
            "a no-progress counter of {counter} is past the tables' no-progress limit of {} plies (the game is drawn)",
            tb.limit()
        );
    }
    let Some(value) = tb.probe_at(&pos, counter) else {
        bail!(
            "no table covers {} (the folder holds every balance of up to {} pieces)",
            pos.to_setup(),
            tb.max_pieces()
        );
    };
    println!("{value}");
    for (m, v) in tb.move_values_at(&pos, counter).unwrap_or_default() {
        println!("{} {v}", pos.move_text(&m));
    }
    Ok(())
}

fn run_verify(a: VerifyArgs) -> Result<()> {
    damone::with_game!(game_of_tables(&a.dir.dir)?, P => verify_tables::<P>(&a))
}

fn verify_tables<P: RunGame + TableGame>(a: &VerifyArgs) -> Result<()> {
    let tb = Tablebase::<P>::open(&a.dir.dir, a.mmap)?;
    let t = Instant::now();
    let pb = progress_bar(0, "tables", a.quiet);
    let report = verify(&tb, &mut |_, done, total| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    })?;
    pb.finish_and_clear();
    for (fen, entry, searched) in &report.examples {
        println!("mismatch {fen}: table says {entry}, one-ply search {searched}");
    }
    println!(
        "{} tables, {} positions checked in {:.1} s: {} mismatches",
        report.tables,
        report.positions,
        t.elapsed().as_secs_f64(),
        report.mismatches
    );
    if report.mismatches > 0 {
        bail!("{} entries disagree with a one-ply search", report.mismatches);
    }
    Ok(())
}
