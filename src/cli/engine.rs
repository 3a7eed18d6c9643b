//! `damone engine`: a line protocol on stdin/stdout for GUIs and scripts
//! (documented in the README). A malformed line gets `error ...` and the
//! engine keeps running.

use super::{clip, next_line};
use anyhow::{Context, Result};
use clap::Args;
use damone::arena::Player;
use damone::game::{parse_move, DrawRules, Game, Position, Variant};
use damone::mcts::Budget;
use damone::player::open_on;
use std::io::Write;
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
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

type Engine = Box<dyn Player>;

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

fn set_position(words: &[&str], variant: Variant, rules: DrawRules) -> Result<Game, String> {
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
    let mut game = Game::new(start, rules);
    match rest.first() {
        None => {}
        Some(&"moves") => {
            for m in &rest[1..] {
                if let Some(o) = game.outcome() {
                    return Err(format!("move {}: {}", clip(m, 40), o.over_message()));
                }
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
    let rules = game.rules();
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&cmd) = words.first() else {
        return Some(vec!["error empty line (expected a command)".into()]);
    };
    let args = &words[1..];
    let out = match cmd {
        "quit" => return None,
        "hello" => vec![format!("id name damone {}", env!("CARGO_PKG_VERSION")), "ready".into()],
        "isready" => vec!["ready".into()],
        "newgame" => {
            *game = Game::from_variant(variant, rules);
            vec!["ok".into()]
        }
        "position" => match set_position(args, variant, rules) {
            Ok(g) => {
                *game = g;
                vec!["ok".into()]
            }
            Err(e) => vec![format!("error {e}")],
        },
        "play" => match (game.outcome(), args.first()) {
            (Some(o), _) => vec![format!("error {}", o.over_message())],
            (None, None) => vec!["error 'play' needs a move".into()],
            (None, Some(m)) => match parse_move(game.position(), m) {
                Ok(m) => {
                    game.play_unchecked(&m);
                    vec!["ok".into()]
                }
                Err(e) => vec![format!("error {e}")],
            },
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
                let set = budget.is_some() && engine.set_budget(budget);
                let analysis = engine.analyse(game);
                let out = match analysis {
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
                };
                if set {
                    engine.set_budget(None);
                }
                out
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
    let device = a.device.for_players([a.player.as_str()])?;
    let (f, header) =
        open_on(&a.player, &device).with_context(|| format!("cannot open player '{}'", a.player))?;
    let mut engine: Engine = f(1);
    // A network player's own draw rules.
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let mut game = Game::from_variant(variant, rules);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut stdout = std::io::stdout().lock();
    while let Some(line) = next_line(&mut input) {
        let answer = match line {
            Ok(line) => handle(line.trim(), &mut engine, &mut game, variant),
            Err(e) => Some(vec![format!("error {e}")]),
        };
        let Some(out) = answer else { break };
        for l in out {
            // An error never echoes a huge input back whole.
            let l = if l.starts_with("error") { clip(&l, 300) } else { l };
            writeln!(stdout, "{l}")?;
        }
        stdout.flush()?;
    }
    Ok(())
}
