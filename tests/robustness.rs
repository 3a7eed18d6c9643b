//! Bad input survives (issue 10): lines that are not UTF-8, empty lines and
//! huge tokens in the engine and in terminal play; finished games said to
//! be over the same way everywhere; budgets and options of the engine's
//! player; crafted player-file headers; partial configs.

use crate::common;

use common::{bin, engine_with, run};

use damone::arena::Player as _;
use damone::game::{
    damone::{Position, Variant},
    DrawRules, GamePosition,
};
use damone::mcts::SearchParams;
use damone::net::{ModelConfig, PolicyHeadKind, ENCODING_VERSION};
use damone::player::{decode_player, encode_player, PlayerHeader, Provenance, PLAYER_FORMAT_VERSION};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Run the engine with `player` on `input`; its stdout lines.
fn engine(player: &str, input: &[u8]) -> (bool, Vec<String>, String) {
    engine_with(&["--player", player], input)
}

#[test]
fn engine_answers_bad_lines_and_goes_on() {
    let mut input = b"hello\n\xff\xfe bad\n\nisready\nposition startpos moves ".to_vec();
    input.extend(std::iter::repeat_n(b'x', 2_000_000));
    input.extend_from_slice(b"\nisready\nquit\n");
    let (ok, lines, err) = engine("alphabeta:depth=2", &input);
    assert!(ok, "{err}");
    assert_eq!(
        lines[0..3],
        [
            "id name damone 0.1.0".to_string(),
            "id game damone".into(),
            "ready".into()
        ][..]
    );
    let lines = &lines[1..];
    assert!(
        lines[2].starts_with("error") && lines[2].contains("UTF-8"),
        "{lines:?}"
    );
    assert!(
        lines[3].starts_with("error") && lines[3].contains("empty"),
        "{lines:?}"
    );
    assert_eq!(lines[4], "ready");
    assert!(
        lines[5].starts_with("error") && lines[5].len() < 400,
        "{}",
        &lines[5][..100]
    );
    assert_eq!(lines[6], "ready");
}

#[test]
fn a_finished_game_says_so_everywhere() {
    // White has no piece that can move: Black has won.
    let fen = "W:Wh1:Bg2,f3";
    let (ok, lines, err) = engine(
        "alphabeta:depth=2",
        format!("position fen {fen}\nplay h1-g2\nposition fen {fen} moves h1-g2\ngo\nquit\n").as_bytes(),
    );
    assert!(ok, "{err}");
    assert_eq!(lines[0], "ok");
    assert!(lines[1].starts_with("error the game is over: 0-1"), "{lines:?}");
    assert!(
        lines[2].starts_with("error move h1-g2: the game is over: 0-1"),
        "{lines:?}"
    );
    assert_eq!(lines[3], "bestmove none");
    let out = bin().args(["moves", "--fen", fen]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("the game is over: 0-1"), "{text}");
    // damone-hunt: a side without a Damone has lost, and `moves` says so.
    let out = bin()
        .args(["moves", "--variant", "damone-hunt", "--fen", "W:WIh1,b1:Ba8"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("the game is over: 1-0 damone_lost"), "{text}");
    // `moves` defaults to the start position.
    let out = bin().args(["moves"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 8);
}

/// `hello` names the engine's game, and alpha-beta's analysis comes in
/// that game's notation, in every game.
#[test]
fn the_engine_names_its_game_and_alphabeta_reports_its_line() {
    for game in ["damone", "italian", "dameo"] {
        let args = ["--player", "alphabeta:depth=3", "--game", game];
        let (ok, lines, err) = engine_with(&args, b"hello\nanalyse\nquit\n");
        let text = lines.join("\n");
        assert!(ok, "{game}: {err}");
        assert_eq!(lines[1], format!("id game {game}"), "{text}");
        let info = &lines[3];
        assert!(info.starts_with("info depth 3 nodes "), "{game}: {info}");
        let pv = info.split(" pv ").nth(1).unwrap();
        assert!(pv.split(' ').count() >= 3, "{game}: {info}");
        let best = lines[4].strip_prefix("bestmove ").unwrap();
        assert_eq!(pv.split(' ').next(), Some(best), "{game}: {text}");
        if game == "italian" {
            // The federation's square numbers.
            assert!(best.chars().all(|c| c.is_ascii_digit() || c == '-'), "{best}");
        }
    }
}

#[test]
fn alphabeta_takes_a_time_budget_in_the_engine() {
    let t = Instant::now();
    let (ok, lines, err) = engine("alphabeta:depth=30", b"go time 100\nquit\n");
    assert!(ok, "{err}");
    // Its depth, score and principal variation, then its move.
    assert!(
        lines[0].starts_with("info depth ") && lines[0].contains(" pv "),
        "{lines:?}"
    );
    assert!(lines[1].starts_with("bestmove "), "{lines:?}");
    assert!(
        t.elapsed().as_secs_f64() < 5.0,
        "go time 100 took {:?}",
        t.elapsed()
    );
}

#[test]
fn mcts_spec_options_reach_the_engine() {
    let (ok, lines, err) = engine("mcts:sims=16,rollouts=1", b"go\ngo sims 5\ngo\nquit\n");
    assert!(ok, "{err}");
    let sims: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("info value"))
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    // The spec's budget, a budget for one search, then the spec's again.
    assert_eq!(sims, ["16", "5", "16"]);
    let (ok, _, err) = engine("mcts:sims=16,bogus=3", b"quit\n");
    assert!(!ok);
    assert!(err.contains("unknown option 'bogus'"), "{err}");
}

#[test]
fn terminal_play_survives_bad_bytes_and_saves_its_game() {
    let dir = std::env::temp_dir().join(format!("damone-robust-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pdn = dir.join("g.pdn");
    let mut child = bin()
        .args([
            "play",
            "--opponent",
            "random",
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
        .write_all(b"\xff\xfe\nf3-e4\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error: the line is not valid UTF-8"), "{text}");
    assert!(text.contains("you play f3-e4"), "{text}");
    let saved = std::fs::read_to_string(&pdn).unwrap();
    assert!(saved.contains("1. f3-e4"), "{saved}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn header() -> PlayerHeader {
    PlayerHeader {
        format_version: PLAYER_FORMAT_VERSION,
        encoding_version: ENCODING_VERSION,
        game: damone::game::GameKind::Damone.id(),
        variant: "standard".into(),
        rules: DrawRules::default(),
        model: ModelConfig {
            blocks: 1,
            channels: 8,
            value_hidden: 8,
            policy_head: PolicyHeadKind::Dense,
            policy_planes: 2,
            ..ModelConfig::default()
        },
        search: SearchParams::plain(),
        provenance: Provenance::default(),
    }
}

#[test]
fn crafted_player_headers_get_one_line_errors() {
    let device = burn::tensor::Device::flex();
    let net = header().model.init(&device);
    type Change = Box<dyn Fn(&mut PlayerHeader)>;
    let cases: Vec<(Change, &str)> = vec![
        (Box::new(|h| h.search.gumbel_considered = 0), "gumbel_considered"),
        (Box::new(|h| h.model.channels = 0), "model.channels"),
        (Box::new(|h| h.model.value_hidden = 0), "model.value_hidden"),
        (Box::new(|h| h.model.policy_planes = 99), "model.policy_planes"),
        (Box::new(|h| h.model.blocks = 1_000_000), "model.blocks"),
        (Box::new(|h| h.format_version = 7), "version 7"),
        (Box::new(|h| h.rules.max_plies = 0), "rules.max_plies"),
        (Box::new(|h| h.encoding_version = 9), "encoding version 9"),
    ];
    for (change, needle) in cases {
        let mut h = header();
        change(&mut h);
        let bytes = encode_player(&h, &net).unwrap();
        let e = decode_player(&bytes, "p.dmp").unwrap_err().to_string();
        assert!(e.contains(needle) && !e.contains('\n'), "{needle}: {e}");
    }
    // The good header still loads, and plays.
    let bytes = encode_player(&header(), &net).unwrap();
    let (h, _) = decode_player(&bytes, "p.dmp").unwrap();
    assert_eq!(h, header());
    let loaded = damone::player::LoadedNet::new(h, net);
    let mut p = loaded.player("p", 1);
    let g = damone::game::Game::new(Position::start(Variant::Standard), DrawRules::default());
    assert!(p.analyse(&g).is_some());
}

#[test]
fn small_defects_stay_fixed() {
    use damone::game::damone::Position;
    // FEN: at most 12 pieces a side; the counter field comes last.
    let twelve_white_pieces = "W:Wb1,d1,f1,h1,a2,c2,e2,g2,b3,d3,f3,h3:Ba8";
    assert!(Position::from_fen(twelve_white_pieces, Variant::Standard).is_ok());
    let e =
        Position::from_fen(&twelve_white_pieces.replace(":Ba8", ",a4:Ba8"), Variant::Standard).unwrap_err();
    assert!(e.to_string().contains("13 pieces"), "{e}");
    let e = Position::from_fen("W:H3:Wh1:Ba8", Variant::Standard).unwrap_err();
    assert!(e.to_string().contains("must come last"), "{e}");
    // A bad --set value is blamed on the --set, not on the config file.
    let (code, _, err) = run(&["train", "--set", "train.lr=-1"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--set train.lr=-1") && err.contains("train.lr must be"),
        "{err}"
    );
    // clap's errors are one line too.
    let (code, _, err) = run(&["match", "random", "random", "--bogus"]);
    assert_eq!(code, 2);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // A match needs two different players.
    let (code, _, err) = run(&["match", "random", "random", "--games", "2", "--quiet"]);
    assert_eq!(code, 2);
    assert!(err.contains("both players are 'random'"), "{err}");
    // A repeated option is refused.
    let (code, _, err) = run(&["match", "alphabeta:depth=2,depth=3", "random", "--games", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("given twice"), "{err}");
}

#[test]
fn analyse_prints_candidates_and_the_wdl_or_a_principal_variation() {
    let (code, out, err) = run(&["analyse", "--player", "mcts:sims=64", "--lines", "3"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[1].trim_start().starts_with("1 "), "{out}");
    assert!(lines[4].contains("(64 simulations)"), "{out}");
    let (code, out, err) = run(&["analyse", "--player", "alphabeta:depth=2"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("depth 2 nodes ") && lines[0].contains(" score eval "),
        "{out}"
    );
    assert!(lines[1].starts_with("pv "), "{out}");
    let (code, _, err) = run(&["analyse", "--player", "random"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not search"), "{err}");
}

#[test]
fn a_file_never_shadows_a_builtin_spec_and_weights_errors_are_short() {
    let dir = std::env::temp_dir().join(format!("damone-shadow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("random"), b"not a player").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_damone"))
        .current_dir(&dir)
        .args([
            "match",
            "random",
            "alphabeta:depth=1",
            "--games",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Weights of another shape: a short, one-line error.
    let device = burn::tensor::Device::flex();
    let small = header().model;
    let bytes = damone::net::weights_to_bytes(&small.init(&device)).unwrap();
    let other = ModelConfig {
        blocks: 2,
        channels: 16,
        value_hidden: 8,
        ..ModelConfig::default()
    };
    let e = damone::net::net_from_bytes(&other, bytes.clone(), &device, "w.bpk")
        .err()
        .unwrap()
        .to_string();
    assert!(e.len() < 400 && !e.contains('\n'), "{} bytes: {e}", e.len());
    // A dense policy head read as a bilinear one with a convolution of the
    // same width (the bias is missing), and a policy convolution of
    // another width.
    for (change, needle) in [
        (
            ModelConfig {
                policy_head: PolicyHeadKind::Bilinear,
                policy_planes: small.policy_planes / 2,
                ..small.clone()
            },
            "policy_bias",
        ),
        (
            ModelConfig {
                policy_planes: small.policy_planes + 1,
                ..small.clone()
            },
            "policy_conv",
        ),
    ] {
        let e = damone::net::net_from_bytes(&change, bytes.clone(), &device, "w.bpk")
            .err()
            .unwrap_or_else(|| panic!("{}: loaded", change.describe()))
            .to_string();
        assert!(
            e.contains(needle) && e.len() < 400 && !e.contains('\n'),
            "{} bytes: {e}",
            e.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `damone serve` stops on SIGTERM within 20 seconds with status 0, even
/// with a connection open, and says so.
#[test]
fn serve_stops_on_sigterm() {
    use std::io::{BufRead, BufReader};
    let mut child = bin()
        .args(["serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or_else(|| panic!("no address in: {first}"))
        .to_string();
    // An idle connection that never sends a request.
    let _idle = std::net::TcpStream::connect(&addr).unwrap();
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = child.wait().unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(sent.elapsed().as_secs() < 20, "took {:?}", sent.elapsed());
    assert_eq!(status.code(), Some(0), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("stopped on request")), "{rest:?}");
}
