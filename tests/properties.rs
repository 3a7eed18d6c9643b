//! Property tests over every parser and loader: generated and mutated
//! inputs never panic, never allocate without bound, and every error is
//! one line. FEN, move, player spec, config TOML, player file, replay file,
//! optimiser state, games-in-flight file.

use damone::arena::{builtin_factory, PlayerSpec};
use damone::data::{ReplayWindow, Sample};
use damone::game::{
    damone::{parse_move, Position, Variant},
    DrawRules, GamePosition,
};
use damone::mcts::{SearchParams, Wdl};
use damone::net::{ModelConfig, ENCODING_VERSION};
use damone::player::{decode_player, encode_player, PlayerHeader, Provenance, PLAYER_FORMAT_VERSION};
use damone::run::{RunConfig, DEFAULT_CONFIG};
use damone::selfplay::{SelfPlay, SelfPlayConfig};
use damone::train::optim::{Optimizer, Rule};
use proptest::prelude::*;
use std::sync::OnceLock;

fn one_line(e: impl std::fmt::Display) -> bool {
    !e.to_string().contains('\n')
}

/// Bytes of `base` with some bytes replaced, then cut at `cut` (if shorter).
fn mutate(base: &[u8], edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(at, v) in edits {
        if !b.is_empty() {
            let n = b.len();
            b[at % n] = v;
        }
    }
    b.truncate(cut.max(1).min(b.len()));
    b
}

const FENS: [&str; 3] = [
    "W:WIh1,Df1,Dh3,d1,e2,f3,g4,h5:BIa8,Da6,Dc8,a4,b5,c6,d7,e8",
    "B:WIh1,Df1,Dg2,c2,e2,f3,e4:BIa8,Db7,Dc6,b5,d5,f5,a4",
    "W:Wh1:Bg2,f3",
];

fn player_bytes() -> &'static Vec<u8> {
    static B: OnceLock<Vec<u8>> = OnceLock::new();
    B.get_or_init(|| {
        let model = ModelConfig {
            blocks: 1,
            channels: 4,
            value_hidden: 4,
            ..ModelConfig::default()
        };
        let h = PlayerHeader {
            format_version: PLAYER_FORMAT_VERSION,
            encoding_version: ENCODING_VERSION,
            game: damone::game::GameKind::Damone.id(),
            variant: "standard".into(),
            rules: DrawRules::default(),
            model: model.clone(),
            search: SearchParams::plain(),
            provenance: Provenance::default(),
        };
        encode_player(&h, &model.init(&burn::tensor::Device::flex())).unwrap()
    })
}

fn replay_bytes() -> Vec<u8> {
    let mut w = ReplayWindow::new(10);
    let pos = Position::start(Variant::Standard);
    w.extend((0..3).map(|i| Sample {
        pos,
        repeated: i == 1,
        no_progress: 0.1,
        policy: vec![(i, 0.5), (i + 40, 0.5)],
        z: Wdl::WIN,
        q: Wdl::DRAW,
        surprise: i as f32,
        aux: (i != 1).then_some(damone::data::AuxTargets {
            material: 0.25,
            plies_left: 0.5,
        }),
        reply: (i != 2).then_some(100 + i),
    }));
    w.to_bytes()
}

fn optimizer_bytes() -> Vec<u8> {
    let device = burn::tensor::Device::flex();
    let model = ModelConfig {
        blocks: 1,
        channels: 4,
        value_hidden: 4,
        ..ModelConfig::default()
    };
    let mut t = damone::train::Trainer::new(model, Default::default(), device.clone());
    let samples = damone::train::bench_samples(
        &damone::net::bench_games(damone::game::damone::Position::start(Default::default()), 4, 1),
        &damone::net::bench_games(damone::game::damone::Position::start(Default::default()), 4, 1)
            .iter()
            .map(|g| g.position().legal_moves())
            .collect::<Vec<_>>(),
    );
    let refs: Vec<&Sample<Position>> = samples.iter().collect();
    t.train_step(&refs, &mut damone::util::rng_stream(1, "p", 0));
    t.optimizer_bytes().unwrap()
}

fn inflight_bytes() -> Vec<u8> {
    let cfg = SelfPlayConfig {
        games_per_iteration: 3,
        parallel_games: 3,
        ..Default::default()
    };
    SelfPlay::new(&cfg, Position::start(Variant::Standard), DrawRules::default(), 1).to_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn fen_parser_never_panics(s in "\\PC{0,60}", edits in prop::collection::vec((0usize..200, 32u8..127), 0..4), which in 0usize..3) {
        for text in [s.clone(), String::from_utf8_lossy(&mutate(FENS[which].as_bytes(), &edits, 200)).into_owned()] {
            for v in [Variant::Standard, Variant::DamoneHunt, Variant::ThreeDamas] {
                if let Err(e) = Position::from_fen(&text, v) {
                    prop_assert!(one_line(&e), "{e}");
                }
            }
        }
    }

    #[test]
    fn move_parser_never_panics(s in "[a-hx0-9:\\- ]{0,24}|\\PC{0,16}", which in 0usize..3) {
        let pos = Position::from_fen(FENS[which], Variant::Standard).unwrap();
        if let Err(e) = parse_move(&pos, &s) {
            prop_assert!(one_line(&e), "{e}");
        }
    }

    #[test]
    fn player_specs_never_panic(s in "(random|alphabeta|mcts|net|x)?(:[a-z]{0,8}(=[0-9a-z.\\-]{0,6})?(,[a-z]{0,8}(=[0-9a-z.\\-]{0,6})?){0,3})?|\\PC{0,30}") {
        match PlayerSpec::parse(&s) {
            Err(e) => prop_assert!(one_line(&e), "{e}"),
            Ok(spec) if spec.kind != damone::arena::PlayerKind::Net => {
                if let Err(e) = builtin_factory::<damone::game::damone::Position>(&spec) {
                    prop_assert!(one_line(&e), "{e}");
                }
            }
            Ok(_) => {}
        }
    }

    #[test]
    fn config_parser_never_panics(edits in prop::collection::vec((0usize..4000, 32u8..127), 0..6), cut in 0usize..4000, set in "[a-z_.]{1,24}=[0-9a-z.\\[\\]\"\\-]{0,8}") {
        let text = String::from_utf8_lossy(&mutate(DEFAULT_CONFIG.as_bytes(), &edits, cut)).into_owned();
        if let Err(e) = RunConfig::from_toml(&text, &[set], "x.toml") {
            prop_assert!(one_line(&e), "{e}");
        }
    }

    #[test]
    fn player_files_never_panic(edits in prop::collection::vec((0usize..100_000, any::<u8>()), 0..4), cut in 0usize..100_000) {
        let b = mutate(player_bytes(), &edits, cut);
        if let Err(e) = decode_player(&b, "p.dmp") {
            prop_assert!(one_line(&e), "{e}");
        }
    }

    #[test]
    fn replay_files_never_panic(edits in prop::collection::vec((0usize..400, any::<u8>()), 0..4), cut in 0usize..400) {
        let b = mutate(&replay_bytes(), &edits, cut);
        if let Err(e) = ReplayWindow::<damone::game::damone::Position>::from_bytes(&b) {
            prop_assert!(one_line(&e), "{e}");
        }
    }

    #[test]
    fn inflight_files_never_panic(edits in prop::collection::vec((0usize..400, any::<u8>()), 0..4), cut in 0usize..400) {
        let b = mutate(&inflight_bytes(), &edits, cut);
        let cfg = SelfPlayConfig { games_per_iteration: 3, parallel_games: 3, ..Default::default() };
        let mut sp = SelfPlay::new(&cfg, Position::start(Variant::Standard), DrawRules::default(), 1);
        if let Err(e) = sp.restore(&b) {
            prop_assert!(one_line(&e), "{e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn optimizer_state_never_panics(edits in prop::collection::vec((0usize..100_000, any::<u8>()), 0..4), cut in 0usize..100_000) {
        static B: OnceLock<Vec<u8>> = OnceLock::new();
        let base = B.get_or_init(optimizer_bytes);
        let b = mutate(base, &edits, cut);
        let mut o = Optimizer::new(Rule::Sgd { momentum: 0.9 }, 0.0, 0.0, burn::tensor::Device::flex());
        if let Err(e) = o.load_bytes(&b) {
            prop_assert!(one_line(&e), "{e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Any lines at all: the engine answers each one and keeps running.
    #[test]
    fn engine_answers_every_line(lines in prop::collection::vec(
        "(hello|isready|newgame|show|go|go sims [0-9]{1,3}|go time [0-9]{1,3}|analyse lines [0-9]|position startpos( moves( [a-h][1-8][-x][a-h][1-8]){0,3})?|position fen [WB:a-h1-8,DI]{0,20}|play [a-h][1-8]-[a-h][1-8])|\\PC{0,30}",
        1..12,
    )) {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_damone"))
            .args(["engine", "--player", "mcts:sims=8"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = lines.iter().filter(|l| l.trim() != "quit").cloned().collect::<Vec<_>>().join("\n");
        input.push_str("\nisready\n");
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        prop_assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        // Every command's answer ends with a fixed last line.
        let ends = text
            .lines()
            .filter(|l| l.starts_with("ok") || l.starts_with("ready") || l.starts_with("bestmove") || l.starts_with("error"))
            .count();
        prop_assert!(ends >= input.lines().count(), "{input:?} -> {text}");
        prop_assert!(text.trim_end().ends_with("ready"), "{text}");
    }
}
