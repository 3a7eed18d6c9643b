//! The one list of games (`game_list!`) walked through the front ends:
//! every registered game is offered by every `--game` option and its
//! `--help`, counted by `perft`, read from a config's `game` key (its
//! network built for the game's board), named by the engine protocol's
//! `hello` and played there, and played on the web page's WebSocket. The
//! Python package's classes, PettingZoo environment and OpenSpiel
//! registrations are walked over `damone.GAMES` by the Python tests
//! (scripts/python-tests.sh).

mod common;

use common::ws::{connect, next, send, start_server_until};
use common::{engine_with, run};
use damone::game::{Board, GameKind, GamePosition, GAME_NAMES};
use damone::run::RunConfig;
use damone::serve::ServeConfig;
use serde_json::json;

/// The commands with a `--game` option.
const WITH_GAME: [&str; 7] = ["perft", "moves", "match", "play", "engine", "analyse", "serve"];

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
