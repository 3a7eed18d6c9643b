//! Exported players: export then load plays the same moves as the
//! checkpoint; the engine protocol drives a whole game through a child
//! process; bad player files get clear errors.

use crate::common;

use common::{bin, run};

use damone::game::{
    damone::{parse_move, Position, Variant},
    DrawRules, Game, GamePosition,
};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Train one tiny iteration and export it; returns (checkpoint, player file).
fn trained(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("damone-player-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let ck = format!("checkpoint_dir={}", dir.display());
    let (code, _, err) = run(&[
        "train",
        "--config",
        "configs/tiny.toml",
        "--quiet",
        "--set",
        &ck,
        "--set",
        "iterations=1",
        "--set",
        "eval.interval=0",
    ]);
    assert_eq!(code, 0, "{err}");
    let ckpt = dir.join("tiny/iter_0001");
    let file = dir.join("tiny.dmp");
    let (code, _, err) = run(&[
        "export",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(dir.join("tiny.safetensors").exists());
    (dir, ckpt, file)
}

fn games_csv(player: &Path, out: &Path) -> Vec<String> {
    let spec = format!("net:{},sims=12", player.display());
    let (code, _, err) = run(&[
        "match",
        &spec,
        "alphabeta:depth=2",
        "--games",
        "4",
        "--seed",
        "3",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // Drop the player-name columns; keep results, plies, reasons, openings.
    std::fs::read_to_string(out.join("games.csv"))
        .unwrap()
        .lines()
        .map(|l| {
            l.split(',')
                .enumerate()
                .filter(|(i, _)| *i != 1 && *i != 2)
                .map(|(_, v)| v)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

#[test]
fn export_then_load_plays_the_same_moves_as_the_checkpoint() {
    let (dir, ckpt, file) = trained("same");
    let a = games_csv(&ckpt, &dir.join("m1"));
    let b = games_csv(&file, &dir.join("m2"));
    assert_eq!(a, b);
    // `info` shows what a player file, a checkpoint and a run folder hold.
    for p in [&file, &ckpt, &ckpt.parent().unwrap().to_path_buf()] {
        let (code, out, err) = run(&["info", p.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("blocks=1 channels=16") || out.contains("latest: iteration 1"),
            "{out}"
        );
    }
    // `export` of a run folder takes its best (here: only) checkpoint.
    let again = dir.join("again.dmp");
    let (code, _, err) = run(&[
        "export",
        "--checkpoint",
        ckpt.parent().unwrap().to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("iter_0001"), "{err}");
    let moves = |p: &Path| -> String {
        std::fs::read_to_string(p.join("games.pdn"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('['))
            .collect()
    };
    assert_eq!(moves(&dir.join("m1")), moves(&dir.join("m2")));
    // A run folder names the same player wherever a player is named: a
    // `net:` spec in a match plays as its checkpoint does, and `analyse`
    // takes it.
    let run_dir = ckpt.parent().unwrap().to_path_buf();
    assert_eq!(games_csv(&run_dir, &dir.join("m3")), a);
    let (code, out, err) = run(&["analyse", "--player", run_dir.to_str().unwrap(), "--sims", "8"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(8 simulations)"), "{out}");
    // `tournament --run` takes the run folder's path, as `rate` does.
    let (code, out, err) = run(&[
        "tournament",
        "--run",
        run_dir.to_str().unwrap(),
        "--players",
        "random,alphabeta:depth=1",
        "--games",
        "2",
        "--sims",
        "4",
        "--quiet",
        "--out",
        dir.join("t").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("iter_0001"), "{out}");
    assert!(dir.join("t/ratings_by_iteration.csv").exists());
    let (code, _, err) = run(&["tournament", "--run", "no/such/run", "--games", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/run is not a run folder"), "{err}");
    // The library API loads the file too.
    let loaded = damone::player::LoadedNet::load(&file).unwrap();
    assert_eq!(loaded.header.provenance.iteration, 1);
    let mut p = loaded.player("p", 1);
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    use damone::arena::Player as _;
    p.set_budget(Some(damone::mcts::Budget::Simulations(8)));
    assert_eq!(p.analyse(&g).unwrap().simulations, 8);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn engine_protocol_drives_a_whole_game() {
    let (dir, _, file) = trained("engine");
    let mut child = bin()
        .args(["engine", "--player", file.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut read_until = |prefixes: &[&str]| -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut l = String::new();
            assert!(stdout.read_line(&mut l).unwrap() > 0, "engine closed its output");
            let l = l.trim_end().to_string();
            let done = prefixes.iter().any(|p| l.starts_with(p));
            lines.push(l);
            if done {
                return lines;
            }
        }
    };
    writeln!(stdin, "hello").unwrap();
    assert!(read_until(&["ready"])[0].starts_with("id name damone"));
    writeln!(stdin, "newgame").unwrap();
    assert_eq!(read_until(&["ok", "error"]), ["ok"]);
    // The engine plays under the player's rules: configs/tiny.toml's.
    let mut game = Game::new(
        Position::start(Variant::Standard),
        DrawRules {
            no_progress_plies: 40,
            max_plies: 120,
        },
    );
    let mut played: Vec<String> = Vec::new();
    while game.outcome().is_none() {
        writeln!(stdin, "position startpos moves {}", played.join(" ")).unwrap();
        assert_eq!(read_until(&["ok", "error"]), ["ok"]);
        if played.len() == 3 {
            // A malformed line: an error, and the engine keeps running.
            writeln!(stdin, "go sims banana").unwrap();
            let r = read_until(&["error", "bestmove"]);
            assert!(r[0].starts_with("error"), "{r:?}");
            writeln!(stdin, "analyse sims 16 lines 2").unwrap();
            let r = read_until(&["bestmove"]);
            assert!(r.iter().any(|l| l.starts_with("info line 1 move")), "{r:?}");
        }
        writeln!(stdin, "go sims 8").unwrap();
        let r = read_until(&["bestmove", "error"]);
        let best = r
            .last()
            .unwrap()
            .strip_prefix("bestmove ")
            .expect("bestmove line")
            .to_string();
        let m = parse_move(game.position(), &best)
            .unwrap_or_else(|e| panic!("engine move {best} in {}: {e}", game.position().to_fen()));
        game.play(&m).unwrap();
        played.push(best);
    }
    writeln!(stdin, "position startpos moves {}", played.join(" ")).unwrap();
    assert_eq!(read_until(&["ok", "error"]), ["ok"]);
    writeln!(stdin, "go sims 8").unwrap();
    assert_eq!(read_until(&["bestmove"]), ["bestmove none"]);
    writeln!(stdin, "show").unwrap();
    let r = read_until(&["ok"]);
    assert!(
        r.iter().any(|l| l.starts_with("result ") && l != "result *"),
        "{r:?}"
    );
    writeln!(stdin, "quit").unwrap();
    assert!(child.wait().unwrap().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_player_files_get_clear_errors() {
    let dir = std::env::temp_dir().join(format!("damone-badplayer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_player = dir.join("x.dmp");
    std::fs::write(&not_player, b"this is not a player").unwrap();
    let (code, _, err) = run(&["engine", "--player", not_player.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("not a damone player file"), "{err}");
    let (code, _, err) = run(&[
        "match",
        &format!("net:{},sims=4", not_player.display()),
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not a damone player file") && !err.contains("panicked"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "export",
        "--checkpoint",
        dir.to_str().unwrap(),
        "--out",
        "/tmp/x.dmp",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not a checkpoint folder"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn terminal_play_rejects_illegal_input_undoes_and_saves_pdn() {
    let dir = std::env::temp_dir().join(format!("damone-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pdn = dir.join("game.pdn");
    let mut child = bin()
        .args([
            "play",
            "--opponent",
            "alphabeta:depth=2",
            "--color",
            "white",
            "--ascii",
            "--pdn",
            pdn.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"f3-f4\nmoves\nf3-e4\nundo\nd1-c2\nresign\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("light square"), "{text}");
    assert!(text.contains("legal moves: "), "{text}");
    assert!(text.contains("alphabeta:depth=2 plays"), "{text}");
    assert!(text.contains("result: 0-1 (resignation)"), "{text}");
    let saved = std::fs::read_to_string(&pdn).unwrap();
    assert!(saved.contains("[Result \"0-1\"]"), "{saved}");
    // f3-e4 was taken back: the game starts with d1-c2.
    assert!(saved.contains("1. d1-c2 "), "{saved}");
    let _ = std::fs::remove_dir_all(&dir);
}
