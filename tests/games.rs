//! The one list of games (`game_list!`) walked through the front ends:
//! every registered game is offered by every `--game` option and its
//! `--help`, counted by `perft`, read from a config's `game` key (its
//! network built for the game's board), named by the engine protocol's
//! `hello` and played there, self-trained by `damone self-train` and
//! played with the result, and played on the web page's WebSocket. The
//! Python package's classes, PettingZoo environment and OpenSpiel
//! registrations are walked over `damone.GAMES` by the Python tests
//! (scripts/python-tests.sh).

use crate::common;

use common::ws::{connect, next, send, start_server_until};
use common::{engine_with, run};
use damone::game::{Board, GameKind, GamePosition, GAME_NAMES};
use damone::run::RunConfig;
use damone::serve::ServeConfig;
use serde_json::json;

/// The commands with a `--game` option.
const WITH_GAME: [&str; 8] = [
    "perft",
    "moves",
    "match",
    "play",
    "engine",
    "analyse",
    "serve",
    "self-train",
];

/// The start of `P`'s standard variant.
fn start<P: GamePosition>() -> P {
    P::start(P::Variant::default())
}

#[test]
fn every_game_option_offers_every_game() {
    for command in WITH_GAME {
        let (code, out, err) = run(&[command, "--help"]);
        assert_eq!(code, 0, "{command} --help: {err}");
        assert!(out.contains("--game"), "{command} --help has no --game: {out}");
        for name in GAME_NAMES {
            assert!(
                out.contains(name),
                "{command} --help does not offer {name}: {out}"
            );
        }
    }
    let (code, _, err) = run(&["perft", "--game", "chess", "--depth", "1"]);
    assert_ne!(code, 0);
    assert!(GAME_NAMES.iter().all(|n| err.contains(n)), "{err}");
}

#[test]
fn perft_counts_every_game() {
    for kind in GameKind::ALL {
        let start = damone::with_game!(kind, P => damone::game::perft(&start::<P>(), 2));
        let (code, out, err) = run(&["perft", "--game", kind.name(), "--depth", "2"]);
        assert_eq!(code, 0, "{kind}: {err}");
        assert!(out.contains(&start.to_string()), "{kind}: {out}");
    }
}

#[test]
fn a_config_names_every_game() {
    for kind in GameKind::ALL {
        let cfg = RunConfig::load(None, &[format!("game={kind}")]).unwrap();
        assert_eq!(cfg.game, kind);
        let cells = damone::with_game!(kind, P => <P as Board>::CELLS);
        assert_eq!(
            cfg.model.board, cells,
            "{kind}: the network is built for the game's board"
        );
    }
}

#[test]
fn the_engine_protocol_names_and_plays_every_game() {
    for kind in GameKind::ALL {
        let (ok, lines, err) = engine_with(
            &["--game", kind.name(), "--player", "alphabeta:depth=1"],
            b"hello\nposition startpos\ngo\nquit\n",
        );
        assert!(ok, "{kind}: {err}");
        assert!(
            lines.iter().any(|l| l == &format!("id game {kind}")),
            "{kind}: {lines:?}"
        );
        let best = lines
            .iter()
            .find_map(|l| l.strip_prefix("bestmove "))
            .unwrap_or_else(|| panic!("{kind}: no bestmove in {lines:?}"));
        let legal = damone::with_game!(kind, P => start::<P>().parse_move(best).is_ok());
        assert!(legal, "{kind}: bestmove {best} is not a legal first move");
    }
}

/// Every game's learned evaluation trains itself from random weights
/// (`damone self-train`), and an alpha-beta player plays with the folder.
#[test]
fn every_game_self_trains_and_plays_the_result() {
    for kind in GameKind::ALL {
        let dir = common::tmpdir(&format!("self-train-{kind}"));
        let folder = dir.join("st");
        let folder_arg = folder.display().to_string();
        let (code, out, err) = run(&[
            "self-train",
            &folder_arg,
            "--game",
            kind.name(),
            "--rounds",
            "1",
            "--set",
            "games=4",
            "--set",
            "nodes=200",
            "--quiet",
        ]);
        assert_eq!(code, 0, "{kind}: {err}");
        assert!(out.contains("round 1"), "{kind}: {out}");
        // `damone info` on the folder sums up its log.
        let (code, out, err) = run(&["info", &folder_arg]);
        assert_eq!(code, 0, "{kind}: {err}");
        assert!(
            out.contains("1 rounds, 4 games") && out.contains("after round 1"),
            "{kind}: {out}"
        );
        let eval = format!("alphabeta:eval={folder_arg},depth=1");
        let out_dir = dir.join("match").display().to_string();
        let (code, out, err) = run(&[
            "match",
            &eval,
            "random",
            "--game",
            kind.name(),
            "--games",
            "2",
            "--quiet",
            "--out",
            &out_dir,
        ]);
        assert_eq!(code, 0, "{kind}: {err}");
        assert!(
            out.contains(&eval) && err.contains("2 games in"),
            "{kind}: {out} {err}"
        );
        // A new folder from an existing evaluation starts from its weights
        // (`--from` takes any learned evaluation: a run, a checkpoint, a file).
        let first = folder.join("round_0001.bin");
        let second = dir.join("st-from").display().to_string();
        let from = first.display().to_string();
        let (code, _, err) = run(&["self-train", &second, "--from", &from, "--rounds", "0", "--quiet"]);
        assert_eq!(code, 0, "{kind}: {err}");
        let start = std::fs::read(dir.join("st-from/round_0000.bin")).unwrap();
        assert_eq!(
            start,
            std::fs::read(&first).unwrap(),
            "{kind}: the start is the file's"
        );
        // The folder is of its game: another game's player refuses it.
        let other = GameKind::ALL.into_iter().find(|k| *k != kind).unwrap();
        let (code, _, err) = run(&[
            "match",
            &eval,
            "random",
            "--game",
            other.name(),
            "--games",
            "2",
            "--quiet",
            "--out",
            &out_dir,
        ]);
        assert_ne!(code, 0, "{kind} evaluation accepted for {other}");
        assert!(err.contains(&format!("plays {}", kind.name())), "{kind}: {err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[tokio::test]
async fn the_web_page_plays_every_game() {
    for kind in GameKind::ALL {
        let cfg = ServeConfig {
            game: kind,
            ..Default::default()
        };
        let stop = damone::util::stop::Stop::new();
        let addr = start_server_until(cfg, stop.clone()).await;
        let mut ws = connect(addr, "").await;
        let new = json!({"type": "new", "opponent": "alphabeta:depth=2", "color": "white"});
        send(&mut ws, new).await;
        let state = next(&mut ws, "state").await;
        assert_eq!(state["game"], kind.name());
        let pieces = state["board"].as_array().unwrap().len();
        assert!(pieces > 0, "{kind}: {state}");
        let first = state["moves"][0]["text"].as_str().unwrap().to_string();
        let mv = json!({"type": "move", "move": first});
        send(&mut ws, mv).await;
        let after = next(&mut ws, "state").await;
        assert_eq!(after["history"][0], first, "{kind}: {after}");
        stop.request();
    }
}
