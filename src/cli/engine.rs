//! `damone engine`: a line protocol on stdin/stdout for GUIs and scripts
//! (documented in the README). A malformed line gets `error ...` and the
//! engine keeps running.

use anyhow::{Context, Result};
use clap::Args;
use damone::arena::Player;
use damone::game::{parse_move, DrawRules, Game, Position, Variant};
use damone::mcts::Budget;
use damone::player::factory;
use std::io::{BufRead, Write};
use std::time::Duration;

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The engine's player: a player file, a checkpoint folder, or a spec
    /// (net:PATH, mcts:sims=N, alphabeta:depth=N, random).
    #[arg(long, default_value = "alphabeta:depth=6")]
    pub player: String,
    /// Rules variant for `position startpos` and FENs.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Simulations for `go` without a budget, for players that search
    /// (default: the player's own, e.g. a player file's stored setting).
    #[arg(long)]
    pub sims: Option<u32>,
}

type Engine = Box<dyn Player>;

fn open_engine(spec: &str, sims: Option<u32>) -> Result<Engine> {
    let mut p = factory(spec)?(1);
    if let (Some(n), Some(params)) = (sims, p.search_params_mut()) {
        params.set_budget(Budget::Simulations(n.max(1)));
    }
    Ok(p)
}

fn parse_budget(words: &[&str]) -> Result<(Option<Budget>, usize), String> {
    let mut budget = None;
    let mut lines = 5;
    let mut i = 0;
    while i < words.len() {
        let val = words
            .get(i + 1)
            .ok_or_else(|| format!("'{}' needs a value", words[i]))?;
        let n: u64 = val
            .parse()
            .map_err(|_| format!("'{}' needs a number, got '{val}'", words[i]))?;
        if n == 0 {
            return Err(format!("'{}' must be at least 1", words[i]));
        }
        match words[i] {
            "sims" => budget = Some(Budget::Simulations(n.min(10_000_000) as u32)),
            "time" => budget = Some(Budget::Time(Duration::from_millis(n))),
            "lines" => lines = n as usize,
            other => return Err(format!("unknown option '{other}' (expected sims, time or lines)")),
        }
        i += 2;
    }
    Ok((budget, lines))
}

fn set_position(words: &[&str], variant: Variant) -> Result<Game, String> {
    let (start, rest) = match words.first() {
        Some(&"startpos") => (Position::start(variant), &words[1..]),
        Some(&"fen") => {
            let fen = words.get(1).ok_or("'position fen' needs a FEN")?;
            (
                Position::from_fen(fen, variant).map_err(|e| format!("bad FEN: {e}"))?,
                &words[2..],
            )
        }
        _ => return Err("expected 'position startpos' or 'position fen <FEN>' [moves ...]".into()),
    };
    let mut game = Game::new(start, DrawRules::default());
    match rest.first() {
        None => {}
        Some(&"moves") => {
            for m in &rest[1..] {
                let mv = parse_move(game.position(), m).map_err(|e| e.to_string())?;
                game.play_unchecked(&mv);
            }
        }
        Some(other) => return Err(format!("unexpected '{other}' (expected 'moves')")),
    }
    Ok(game)
}

/// Handle one line; returns the response lines, or None to quit.
fn handle(line: &str, engine: &mut Engine, game: &mut Game, variant: Variant) -> Option<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&cmd) = words.first() else {
        return Some(vec![]);
    };
    let args = &words[1..];
    let out = match cmd {
        "quit" => return None,
        "hello" => vec![format!("id name damone {}", env!("CARGO_PKG_VERSION")), "ready".into()],
        "isready" => vec!["ready".into()],
        "newgame" => {
            *game = Game::from_variant(variant, DrawRules::default());
            vec!["ok".into()]
        }
        "position" => match set_position(args, variant) {
            Ok(g) => {
                *game = g;
                vec!["ok".into()]
            }
            Err(e) => vec![format!("error {e}")],
        },
        "play" => match args.first().map(|m| parse_move(game.position(), m)) {
            Some(Ok(m)) if game.outcome().is_none() => {
                game.play_unchecked(&m);
                vec!["ok".into()]
            }
            Some(Ok(_)) => vec!["error the game is over".into()],
            Some(Err(e)) => vec![format!("error {e}")],
            None => vec!["error 'play' needs a move".into()],
        },
        "show" => {
            let mut v = vec![format!("fen {}", game.position().to_fen())];
            match game.outcome() {
                Some(o) => v.push(format!("result {} {}", o.pdn_result(), o.reason.name())),
                None => v.push("result *".into()),
            }
            v.push("ok".into());
            v
        }
        "go" | "analyse" | "analyze" => match parse_budget(args) {
            Err(e) => vec![format!("error {e}")],
            Ok(_) if game.outcome().is_some() => vec!["bestmove none".into()],
            Ok((budget, lines)) => {
                // A budget given with the command holds for this search only.
                let saved = engine.search_params_mut().map(|p| p.clone());
                if let (Some(b), Some(p)) = (budget, engine.search_params_mut()) {
                    p.set_budget(b);
                }
                let analysis = engine.analyse(game);
                if let (Some(s), Some(p)) = (saved, engine.search_params_mut()) {
                    *p = s;
                }
                match analysis {
                Some(a) => {
                    let mut v = Vec::new();
                    if cmd != "go" {
                        for (i, l) in a.lines.iter().take(lines).enumerate() {
                            v.push(format!(
                                "info line {} move {} visits {} prior {:.4} q {}",
                                i + 1,
                                l.mv,
                                l.visits,
                                l.prior,
                                l.q.map_or("-".to_string(), |q| format!("{q:.4}"))
                            ));
                        }
                    }
                    v.push(format!(
                        "info value win {:.4} draw {:.4} loss {:.4} sims {}",
                        a.wdl.win, a.wdl.draw, a.wdl.loss, a.simulations
                    ));
                    v.push(format!("bestmove {}", a.best));
                    v
                }
                None => vec![format!("bestmove {}", engine.choose(game))],
                }
            }
        },
        other => vec![format!(
            "error unknown command '{other}' (expected hello, isready, newgame, position, play, go, analyse, show, quit)"
        )],
    };
    Some(out)
}

pub fn run_engine(a: EngineArgs) -> Result<()> {
    let variant: Variant = a.variant.parse()?;
    let mut engine =
        open_engine(&a.player, a.sims).with_context(|| format!("cannot open player '{}'", a.player))?;
    let mut game = Game::from_variant(variant, DrawRules::default());
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.context("cannot read stdin")?;
        match handle(line.trim(), &mut engine, &mut game, variant) {
            None => break,
            Some(out) => {
                for l in out {
                    writeln!(stdout, "{l}")?;
                }
                stdout.flush()?;
            }
        }
    }
    Ok(())
}
