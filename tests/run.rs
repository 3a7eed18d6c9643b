//! A tiny run driven through the library API (no binary): the observer sees
//! every phase and iteration, checkpoints and logs read back through the
//! library's types, a resumed run continues, and a stop request is obeyed.

use damone::player::LoadedNet;
use damone::run::{read_rows, Checkpoint, Event, Metrics, Phase, Run, RunConfig, Start};
use std::path::Path;
use std::sync::atomic::Ordering;

fn tiny(dir: &Path, iterations: u32) -> RunConfig {
    let mut cfg = RunConfig::load(
        Some(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/configs/tiny.toml"
        ))),
        &[format!("iterations={iterations}"), "eval.interval=2".into()],
    )
    .unwrap();
    cfg.checkpoint_dir = dir.display().to_string();
    cfg
}

#[test]
fn a_tiny_run_through_the_library_api() {
    let dir = std::env::temp_dir().join(format!("damone-librun-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut events = Vec::new();
    let run = Run::<damone::game::damone::Position>::start(tiny(&dir, 2), Start::New, &mut |e: &Event| {
        events.push(e.clone())
    })
    .unwrap();
    // Started, then per iteration: self-play, training (and evaluation and
    // the learned evaluation at iteration 2, the last), each with progress,
    // then the iteration; then Finished.
    assert!(matches!(
        events.first(),
        Some(Event::Started {
            iteration: 1,
            resumed: false,
            ..
        })
    ));
    assert!(matches!(events.last(), Some(Event::Finished { iterations: 2 })));
    let phases: Vec<(u32, Phase)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Phase { iteration, phase, .. } => Some((*iteration, *phase)),
            _ => None,
        })
        .collect();
    assert_eq!(
        phases,
        [
            (1, Phase::SelfPlay),
            (1, Phase::Training),
            (2, Phase::SelfPlay),
            (2, Phase::Training),
            (2, Phase::Evaluation),
            (2, Phase::LearnedEval)
        ]
    );
    let played: u64 = events
        .iter()
        .filter_map(|e| match e {
            Event::Progress {
                iteration: 1,
                phase: Phase::SelfPlay,
                done,
            } => Some(*done),
            _ => None,
        })
        .max()
        .unwrap();
    assert!(played >= 8, "self-play progress reached {played}");
    let reported: Vec<Metrics> = events
        .iter()
        .filter_map(|e| match e {
            Event::Iteration { metrics, .. } => Some((**metrics).clone()),
            _ => None,
        })
        .collect();
    // The observer saw exactly what metrics.csv holds.
    let logged: Vec<Metrics> = read_rows(&run.dir().join("metrics.csv")).unwrap();
    assert_eq!(reported, logged);
    assert_eq!(run.metrics(), &logged[..]);
    assert!(logged.iter().all(|m| m.games >= 8 && m.games_in_flight == 8));
    assert!(logged[0].min_batch >= 1 && logged[0].mean_batch >= logged[0].min_batch as f64);
    // One reader for checkpoints: the run's, a player's.
    let ck = Checkpoint::open(&run.dir().join("iter_0002")).unwrap();
    assert_eq!(ck.state.iteration, 2);
    assert_eq!(ck.state.games, logged[1].total_games);
    let loaded = LoadedNet::load(&ck.dir).unwrap();
    assert_eq!(loaded.header.provenance.iteration, 2);
    drop(run);
    // Resume for one more iteration.
    let mut resumed = Run::<damone::game::damone::Position>::open(
        tiny(&dir, 2),
        Start::Resume {
            sets: vec!["iterations=3".into(), "train.lr=0.001".into()],
            from_intact: false,
        },
    )
    .unwrap();
    assert_eq!(resumed.state().iteration, 2);
    assert_eq!(resumed.config().train.lr, 0.001);
    let log = std::fs::read_to_string(resumed.dir().join("resume.log")).unwrap();
    assert_eq!(log, "iteration 3: resumed with iterations=3 train.lr=0.001\n");
    let m = resumed.iterate(&mut |_: &Event| {}).unwrap();
    assert_eq!(m.iteration, 3);
    assert_eq!(m.total_games, logged[1].total_games + m.games as u64);
    assert_eq!(
        read_rows::<Metrics>(&resumed.dir().join("metrics.csv"))
            .unwrap()
            .len(),
        3
    );
    // A stop request ends the run before its next iteration.
    resumed.stop_handle().store(true, Ordering::Relaxed);
    let mut last = None;
    resumed.run(&mut |e: &Event| last = Some(e.clone())).unwrap();
    assert_eq!(last, Some(Event::Finished { iterations: 0 }));
    drop(resumed);
    // A new run in the same folder is refused, naming what to do.
    let e = Run::<damone::game::damone::Position>::open(tiny(&dir, 2), Start::New)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("already has checkpoints"), "{e}");
    // Keys the checkpoint depends on cannot change on resume.
    let e = Run::<damone::game::damone::Position>::open(
        tiny(&dir, 2),
        Start::Resume {
            sets: vec!["model.blocks=2".into()],
            from_intact: false,
        },
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("'model.blocks' cannot change"), "{e}");
    // Damage each file of the newest checkpoint in turn: every loader
    // names the file and none panics.
    let ck_dir = dir.join("tiny/iter_0003");
    for name in damone::run::checkpoint::CHECKPOINT_FILES {
        let path = ck_dir.join(name);
        let good = std::fs::read(&path).unwrap();
        for (k, at) in [0, good.len() / 2, good.len() - 1].into_iter().enumerate() {
            let mut bad = good.clone();
            if k == 2 {
                bad.truncate(at);
            } else {
                bad[at] ^= 0x10;
            }
            std::fs::write(&path, &bad).unwrap();
            let needle = format!("{name} is damaged");
            let e = match Checkpoint::open(&ck_dir) {
                Err(e) => e.to_string(),
                Ok(ck) => ck.verify().unwrap_err().to_string(),
            };
            assert!(e.contains(&needle), "{e}");
            let e = LoadedNet::load(&ck_dir).err().map(|e| e.to_string());
            if name == "config.toml" || name == "model.bpk" {
                assert!(e.as_deref().is_some_and(|e| e.contains(&needle)), "{e:?}");
            }
            let e = Run::<damone::game::damone::Position>::open(
                tiny(&dir, 2),
                Start::Resume {
                    sets: vec![],
                    from_intact: false,
                },
            )
            .err()
            .unwrap()
            .to_string();
            assert!(e.contains(&needle) && e.contains("--from-intact"), "{e}");
        }
        std::fs::write(&path, &good).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_measuring_protocol_rates_a_runs_checkpoints() {
    use damone::net::ComputeDevice;
    use damone::player::rate::{rate, RateConfig, RateEvent, RatingRow};
    let dir = std::env::temp_dir().join(format!("damone-rate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run =
        Run::<damone::game::damone::Position>::start(tiny(&dir, 2), Start::New, &mut |_: &Event| {}).unwrap();
    let cfg = RateConfig {
        sims: 4,
        depths: vec![1, 2],
        games: 4,
        policy_depth: Some(1),
        timing_positions: 3,
        equal_time_threads: vec![1, 2],
        ..Default::default()
    };
    let mut games = 0;
    let mut matches = 0;
    let rows = rate(run.dir(), &cfg, &ComputeDevice::cpu(), &mut |e| match e {
        RateEvent::Game => games += 1,
        RateEvent::Match { .. } => matches += 1,
        RateEvent::Row(_) => {}
    })
    .unwrap();
    // Two kept checkpoints x (two depths, the raw policy, equal time on 1
    // and on 2 threads); the last, which trained a learned evaluation,
    // also that against alpha-beta and the network on 1 and 2 threads.
    assert_eq!(rows.len(), 14);
    assert_eq!(matches, 14);
    assert_eq!(games, 14 * 4);
    let modes: Vec<&str> = rows[..5].iter().map(|r| r.mode.as_str()).collect();
    assert_eq!(modes, ["sims", "sims", "policy", "equal-time", "equal-time"]);
    let modes: Vec<&str> = rows[9..].iter().map(|r| r.mode.as_str()).collect();
    assert_eq!(
        modes,
        [
            "learned",
            "learned-vs-net",
            "equal-time",
            "learned",
            "learned-vs-net"
        ]
    );
    assert_eq!(rows[0].iteration, 1);
    assert_eq!(rows[5].iteration, 2);
    for r in &rows {
        assert_eq!(r.wins + r.draws + r.losses, 4, "{r:?}");
        assert!((0.0..=1.0).contains(&r.score) && r.score_95 >= 0.0);
    }
    let eq = &rows[3];
    assert!(eq.net_ms_per_move > 0.0 && eq.opponent.starts_with("alphabeta:movetime="));
    assert_eq!(eq.threads, 1);
    let eq2 = &rows[4];
    assert!(
        eq2.net_ms_per_move > 0.0 && eq2.opponent.ends_with(",threads=2"),
        "{eq2:?}"
    );
    assert_eq!(eq2.threads, 2);
    assert_eq!(rows[2].sims, 0);
    // The rows are in rating.csv, and the same seed gives the same results
    // for the fixed-simulation and policy matches.
    let back: Vec<RatingRow> = read_rows(&run.dir().join("rating.csv")).unwrap();
    assert_eq!(back, rows);
    let last = rate(
        run.dir(),
        &RateConfig {
            last_only: true,
            equal_time: false,
            ..cfg.clone()
        },
        &ComputeDevice::cpu(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(last.len(), 3);
    for (a, b) in last.iter().zip(&rows[5..8]) {
        assert_eq!((a.wins, a.draws, a.losses), (b.wins, b.draws, b.losses));
    }
    // rating.csv accumulates: the three matches rated again replace their
    // rows, every other row stays.
    let kept: Vec<RatingRow> = read_rows(&run.dir().join("rating.csv")).unwrap();
    assert_eq!(kept.len(), 14);
    assert_eq!(kept[..5], rows[..5]);
    assert!(last.iter().all(|r| kept.contains(r)));
    // `every`: iterations that are multiples of it, and the newest; the rows
    // go to the file asked for.
    let curve_csv = dir.join("curve.csv");
    let curve = rate(
        run.dir(),
        &RateConfig {
            every: 5,
            equal_time: false,
            policy_depth: None,
            csv: Some(curve_csv.clone()),
            ..cfg.clone()
        },
        &ComputeDevice::cpu(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(curve.iter().map(|r| r.iteration).collect::<Vec<_>>(), [2, 2]);
    // Without the ladder: the raw policy alone.
    let policy_only = RateConfig {
        last_only: true,
        ladder: false,
        equal_time: false,
        csv: Some(dir.join("policy.csv")),
        ..cfg.clone()
    };
    let rows = rate(run.dir(), &policy_only, &ComputeDevice::cpu(), &mut |_| {}).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.mode.as_str()).collect::<Vec<_>>(),
        ["policy"]
    );
    assert_eq!(read_rows::<RatingRow>(&curve_csv).unwrap(), curve);
    let e = rate(
        run.dir(),
        &RateConfig { games: 3, ..cfg },
        &ComputeDevice::cpu(),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("games must be even"), "{e}");
    let e = rate(
        run.dir(),
        &RateConfig {
            iterations: vec![9],
            ..Default::default()
        },
        &ComputeDevice::cpu(),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no checkpoint of iteration 9 (kept: 1, 2)"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Dameo run from a config built in code: its network numbers all 64
/// cells whatever the config said, and its checkpoint records that.
#[test]
fn a_dameo_run_trains_the_network_of_its_board() {
    use damone::game::{dameo, GameKind};
    let dir = std::env::temp_dir().join(format!("damone-dameo-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = tiny(&dir, 2);
    cfg.game = GameKind::Dameo.id();
    assert_eq!(cfg.model.board, damone::net::BoardCells::DARK);
    let run = Run::<dameo::Position>::start(cfg, Start::New, &mut |_: &Event| {}).unwrap();
    let ck = Checkpoint::open(&run.dir().join("iter_0002")).unwrap();
    assert_eq!(ck.config.game, GameKind::Dameo);
    assert_eq!(ck.config.model.board, damone::net::BoardCells::ALL);
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An Italian draughts run: trains with `game = "italian"`, records the
/// game in its checkpoints (so that a resume from a plain config finds
/// it), and is refused by name when opened as a Damone run.
#[test]
fn an_italian_run_records_its_game_and_is_refused_as_damone() {
    use damone::game::{italian, GameKind};
    let dir = std::env::temp_dir().join(format!("damone-italian-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = tiny(&dir, 2);
    cfg.game = GameKind::Italian.id();
    let run = Run::<italian::Position>::start(cfg.clone(), Start::New, &mut |_: &Event| {}).unwrap();
    let ck = Checkpoint::open(&run.dir().join("iter_0002")).unwrap();
    assert_eq!(ck.config.game, GameKind::Italian);
    drop(run);
    let live = std::fs::read_to_string(dir.join("tiny/live.json")).unwrap();
    assert!(live.contains("\"game\":\"italian\""), "{live}");
    let resume = || Start::Resume {
        sets: vec!["iterations=3".into()],
        from_intact: false,
    };
    let config = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml"));
    let sets = [format!("checkpoint_dir={}", dir.display())];
    assert_eq!(
        damone::run::run_game(Some(config), &sets, &resume()).unwrap(),
        GameKind::Italian
    );
    let e = Run::<damone::game::damone::Position>::open(tiny(&dir, 2), resume())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("is a run of italian, not of damone"), "{e}");
    let e = Run::<damone::game::damone::Position>::open(cfg.clone(), Start::Overwrite)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("run of italian, not of damone"), "{e}");
    // The refused overwrite left the run as it was.
    let mut resumed = Run::<italian::Position>::open(tiny(&dir, 2), resume()).unwrap();
    assert_eq!(resumed.iterate(&mut |_: &Event| {}).unwrap().iteration, 3);
    cfg.variant = "three-damas".into();
    assert!(cfg.validate().unwrap_err().contains("three-damas"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The schedules follow the run's planned length: four iterations played
/// in one sitting and in four (the same config, resumed each time) log the
/// same learning rates and losses, and each iteration trains at the
/// cosine of the share of the run done when it starts, whatever the step
/// count.
#[test]
fn a_runs_schedule_is_the_same_in_one_sitting_or_in_four() {
    let root = std::env::temp_dir().join(format!("damone-sittings-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let config = |dir: &Path| {
        let mut cfg = tiny(dir, 4);
        cfg.eval.interval = 0;
        cfg.learned_eval.train_in_run = false;
        cfg.keep_last = 1;
        cfg
    };
    let (one, four) = (root.join("one"), root.join("four"));
    Run::<damone::game::damone::Position>::start(config(&one), Start::New, &mut |_: &Event| {}).unwrap();
    for sitting in 0..4 {
        let start = if sitting == 0 {
            Start::New
        } else {
            Start::Resume {
                sets: vec![],
                from_intact: false,
            }
        };
        // Kept every 6 ms of training: every checkpoint stays.
        let mut cfg = config(&four);
        cfg.keep_every_minutes = 1e-4;
        let mut run = Run::<damone::game::damone::Position>::open(cfg, start).unwrap();
        assert_eq!(run.state().iteration, sitting);
        run.iterate(&mut |_: &Event| {}).unwrap();
    }
    let kept = |dir: &Path| damone::run::checkpoint::RunDir::new(dir.join("tiny")).checkpoints();
    assert_eq!((kept(&one), kept(&four)), (vec![4], vec![1, 2, 3, 4]));
    let rows = |dir: &Path| read_rows::<Metrics>(&dir.join("tiny/metrics.csv")).unwrap();
    let (a, b) = (rows(&one), rows(&four));
    assert_eq!(a.len(), 4);
    let cfg = config(&one);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            (x.lr, x.total_steps),
            (y.lr, y.total_steps),
            "iteration {}",
            x.iteration
        );
        assert_eq!((x.loss_policy, x.loss_value), (y.loss_policy, y.loss_value));
        // Past the warm-up, iteration k trains at the cosine of (k - 1) / 4
        // of the run over the span.
        if x.iteration > 1 {
            let t = (x.iteration - 1) as f64 / 4.0 / cfg.train.schedule_span;
            let want = cfg.train.lr * damone::util::cosine_decay(t, cfg.train.min_lr_factor);
            assert!(
                (x.lr - want).abs() < 1e-6,
                "iteration {}: {} vs {want}",
                x.iteration,
                x.lr
            );
        }
    }
    // The share of the planned length: of iterations, of time, the larger.
    let mut c = cfg.clone();
    assert_eq!(c.planned_share(1, 1e6), Some(0.25));
    c.time_limit_minutes = 60.0;
    assert_eq!(c.planned_share(1, 2700.0), Some(0.75));
    c.iterations = 0;
    assert_eq!(c.planned_share(3, 1800.0), Some(0.5));
    c.time_limit_minutes = 0.0;
    assert_eq!(c.planned_share(3, 1800.0), None);
    // Without a planned length the schedule counts steps; the window grows
    // with the samples made once their share passes its size.
    let t = &cfg.train;
    assert_eq!(t.schedule_step(123, None), 123.0);
    assert_eq!(t.schedule_fraction(10, Some(0.5)), 0.5 / t.schedule_span);
    let grows = damone::train::TrainParams {
        window: 1000,
        window_share: 0.2,
        ..Default::default()
    };
    assert_eq!((grows.window_for(100), grows.window_for(10_000)), (1000, 2000));
    let _ = std::fs::remove_dir_all(&root);
}

/// One process at a time trains a run: a second open of its folder is
/// refused while the first is open, naming the holder, and allowed once it
/// is dropped.
#[test]
fn a_run_folder_is_trained_by_one_process_at_a_time() {
    let dir = std::env::temp_dir().join(format!("damone-runlock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let resume = || Start::Resume {
        from_intact: false,
        sets: Vec::new(),
    };
    let run =
        Run::<damone::game::damone::Position>::start(tiny(&dir, 1), Start::New, &mut |_: &Event| {}).unwrap();
    let e = Run::<damone::game::damone::Position>::open(tiny(&dir, 1), resume())
        .err()
        .expect("a second open of a run in use is refused")
        .to_string();
    assert!(
        e.contains("is in use by another process") && e.contains(&format!("process {}", std::process::id())),
        "{e}"
    );
    drop(run);
    Run::<damone::game::damone::Position>::open(tiny(&dir, 1), resume())
        .expect("the folder is free once the run is dropped");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `self_train.minutes_in_run`, the run's learned evaluation trains
/// itself after the last iteration in the run's `self-train` folder,
/// starting from that iteration's learned evaluation; a resumed run whose
/// minutes are spent plays no more rounds, and one given more minutes
/// continues the folder.
#[test]
fn a_run_self_trains_its_learned_evaluation_after_its_last_iteration() {
    use damone::run::self_train::{RoundRow, RUN_SELF_TRAIN_DIR, SELF_TRAIN_LOG};
    let dir = std::env::temp_dir().join(format!("damone-selftrain-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = tiny(&dir, 1);
    cfg.self_train.minutes_in_run = 1e-9;
    cfg.self_train.games = 4;
    cfg.self_train.nodes = 200;
    cfg.self_train.epochs = 1;
    let mut events = Vec::new();
    let run = Run::<damone::game::damone::Position>::start(cfg.clone(), Start::New, &mut |e: &Event| {
        events.push(e.clone())
    })
    .unwrap();
    let rounds: Vec<RoundRow> = events
        .iter()
        .filter_map(|e| match e {
            Event::SelfTrainRound { row } => Some((**row).clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        rounds.len(),
        1,
        "a sitting's first round plays, then the minutes are spent"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Phase {
            iteration: 1,
            phase: Phase::SelfTrain,
            total: 4
        }
    )));
    let st = run.dir().join(RUN_SELF_TRAIN_DIR);
    let logged: Vec<RoundRow> = read_rows(&st.join(SELF_TRAIN_LOG)).unwrap();
    assert_eq!(logged, rounds);
    let line = damone::run::self_train::summary(&st).unwrap().unwrap();
    assert!(line.contains("1 rounds, 4 games"), "{line}");
    assert_eq!(damone::run::self_train::summary(run.dir()).unwrap(), None);
    // Round 0 is the run's own learned evaluation, trained at iteration 1;
    // the checkpoint's then becomes the newest round's.
    let start = damone::learned::EvalFile::read(&st.join("round_0000.bin")).unwrap();
    assert!(
        start.note.starts_with("iteration 1 of run tiny"),
        "{}",
        start.note
    );
    let own = std::fs::read(run.dir().join("iter_0001/learned_eval.bin")).unwrap();
    assert_eq!(own, std::fs::read(st.join("round_0001.bin")).unwrap());
    drop(run);
    let resume = |sets: Vec<String>| {
        let mut run = Run::<damone::game::damone::Position>::open(
            tiny(&dir, 1),
            Start::Resume {
                sets,
                from_intact: false,
            },
        )
        .unwrap();
        run.run(&mut |_: &Event| {}).unwrap();
        read_rows::<RoundRow>(&st.join(SELF_TRAIN_LOG)).unwrap().len()
    };
    assert_eq!(resume(Vec::new()), 1, "the minutes are spent");
    // A little more than the first round took: one more round.
    let spent = (logged[0].play_s + logged[0].train_s) / 60.0;
    let more = format!("self_train.minutes_in_run={}", spent + 1e-5);
    assert_eq!(resume(vec![more]), 2);
    let own = std::fs::read(dir.join("tiny/iter_0001/learned_eval.bin")).unwrap();
    assert_eq!(own, std::fs::read(st.join("round_0002.bin")).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}
