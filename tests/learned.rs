//! The learned evaluation's contract: the accumulator a search updates
//! move by move equals the one summed from scratch, in all three games
//! and with either inputs (pieces, pairs), over random playouts with
//! moves made and unmade; the integer model stays within a stated
//! tolerance of the float one; an evaluation of pieces widened to pairs
//! scores as before; files of either inputs read back; training lowers the
//! loss on held-out positions; a damaged or wrong-game file is a one-line
//! error; alpha-beta plays whole games with it; `damone train` and
//! `damone learn-eval` make one that `alphabeta:eval=` players, `export`
//! and `info` take.

use crate::common;

use damone::arena::{AlphaBeta, Baseline, Limits, Player};
use damone::game::{dameo, damone::Position, italian, Game, GameKind, GamePosition};
use damone::learned::features::{cells_of, Inputs, FEATURES};
use damone::learned::train::{fit, loss, split, Example};
use damone::learned::{planes, AccumulatorStack, EvalFile, FloatEval, LearnEvalConfig, LearnedEval, Shape};
use damone::net::Board;
use damone::util::{rng_stream, Rng};
use rand::Rng as _;
use std::sync::Arc;

/// The integer model's output may differ from the float model's by at
/// most this much (in logits of the expected score; 0.05 is 13 of the
/// search's units, an eighth of a man at the hand-written scale's usual
/// exchange rate). Rounding the first layer to 1/255 moves a unit by at
/// most 0.5/255 per active input, so the error grows with the inputs a
/// position activates: some 20-40 pieces, and with pairs some 100 more
/// (0.08, a fifth of a man).
fn quant_tolerance(inputs: Inputs) -> f32 {
    match inputs {
        Inputs::Pieces => 0.05,
        Inputs::Pairs => 0.08,
    }
}

fn model(seed: u64) -> LearnedEval {
    model_of(seed, Inputs::Pieces, u64::MAX)
}

/// A random evaluation reading `inputs` on the cells `cells`, its pairs'
/// rows random too (a new one's are zero).
fn model_of(seed: u64, inputs: Inputs, cells: u64) -> LearnedEval {
    let mut rng = rng_stream(seed, "learned-test", 0);
    let shape = Shape {
        hidden: 48,
        hidden2: 8,
        inputs,
    };
    let mut float = FloatEval::new(shape, cells, &mut rng);
    // Biases spread over the units' range, so that clipping is exercised.
    for b in float.b1.iter_mut().chain(float.b2.iter_mut()) {
        *b = rng.random_range(-0.5..1.5);
    }
    for w in float.w1[FEATURES * shape.hidden..].iter_mut() {
        *w = rng.random_range(-0.1..0.1);
    }
    LearnedEval::new(float)
}

/// [`model_of`] for `P`'s cells.
fn model_for<P: Board>(seed: u64, inputs: Inputs) -> LearnedEval {
    model_of(seed, inputs, cells_of::<P>())
}

/// Positions of random playouts from the start (a spread of real positions).
fn playout_positions<P: GamePosition>(games: usize, rng: &mut Rng) -> Vec<P> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = P::start(Default::default());
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.decided().is_some() {
                break;
            }
            out.push(pos);
            pos.play_unchecked(&moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

/// Walk random playouts, unmaking 1-3 moves at random, and compare the
/// stack's accumulator with one summed from scratch at every step.
fn incremental_equals_full<P: Board>(seed: u64, inputs: Inputs) {
    let eval = model_for::<P>(seed, inputs);
    let mut rng = rng_stream(seed, "learned-walk", 0);
    let mut stack = AccumulatorStack::new(&eval.quant);
    let mut fresh = eval.quant.new_accumulator();
    let mut checked = 0;
    for _ in 0..30 {
        let mut path = vec![P::start(Default::default())];
        stack.set_root(&eval.quant, &path[0]);
        for _ in 0..300 {
            let ply = path.len() - 1;
            let moves = path[ply].legal_moves();
            if ply > 0 && (moves.is_empty() || rng.random_bool(0.25)) {
                let back = rng.random_range(1..=3.min(ply));
                path.truncate(path.len() - back);
            } else if moves.is_empty() {
                break;
            } else {
                let child = path[ply].after(&moves[rng.random_range(0..moves.len())]);
                path.push(child);
                stack.enter(&eval.quant, ply + 1, &child);
            }
            let ply = path.len() - 1;
            eval.quant.refresh(&planes(&path[ply]), &mut fresh);
            assert_eq!(stack.at(ply), &fresh, "{:?} at ply {ply}", P::ID);
            let stm = path[ply].side_to_move();
            assert_eq!(eval.quant.score(stack.at(ply), stm), eval.score(&path[ply]));
            checked += 1;
        }
    }
    assert!(checked > 3000, "{checked} positions checked");
}

#[test]
fn incremental_accumulator_equals_full_sum_in_every_game() {
    for inputs in [Inputs::Pieces, Inputs::Pairs] {
        incremental_equals_full::<Position>(1, inputs);
        incremental_equals_full::<italian::Position>(2, inputs);
        incremental_equals_full::<dameo::Position>(3, inputs);
    }
}

fn quant_close_to_float<P: Board>(seed: u64, inputs: Inputs) -> f32 {
    let eval = model_for::<P>(seed, inputs);
    let mut rng = rng_stream(seed, "learned-quant", 0);
    let positions = playout_positions::<P>(40, &mut rng);
    let mut worst = 0f32;
    let mut acc = eval.quant.new_accumulator();
    for pos in &positions {
        let float = eval.float.logit(&planes(pos), pos.side_to_move());
        eval.quant.refresh(&planes(pos), &mut acc);
        let quant = eval.quant.logit(&acc, pos.side_to_move());
        worst = worst.max((float - quant).abs());
    }
    assert!(
        worst <= quant_tolerance(inputs),
        "{:?} ({inputs:?}): integer model off by {worst} logits",
        P::ID
    );
    worst
}

#[test]
fn integer_model_stays_within_tolerance_of_float() {
    for inputs in [Inputs::Pieces, Inputs::Pairs] {
        let worst = [
            quant_close_to_float::<Position>(4, inputs),
            quant_close_to_float::<italian::Position>(5, inputs),
            quant_close_to_float::<dameo::Position>(6, inputs),
        ];
        eprintln!("largest integer-float difference per game, {inputs:?} (logits): {worst:?}");
    }
}

/// Pairs read only the game's cells: positions that differ nowhere on
/// them score alike, and an evaluation of pieces widened to pairs (its
/// pairs' rows zero) scores every position as before, float and integer.
fn widened_scores_as_before<P: Board>(seed: u64) {
    let pieces = model_for::<P>(seed, Inputs::Pieces);
    let widened = LearnedEval::new(pieces.float.clone().with_pairs(cells_of::<P>()));
    assert_eq!(widened.float.shape.inputs, Inputs::Pairs);
    let mut rng = rng_stream(seed, "learned-widen", 0);
    for pos in playout_positions::<P>(10, &mut rng) {
        let (p, stm) = (planes(&pos), pos.side_to_move());
        assert_eq!(widened.float.logit(&p, stm), pieces.float.logit(&p, stm));
        assert_eq!(widened.score(&pos), pieces.score(&pos));
    }
}

#[test]
fn a_widened_evaluation_scores_as_before() {
    widened_scores_as_before::<Position>(13);
    widened_scores_as_before::<italian::Position>(14);
    widened_scores_as_before::<dameo::Position>(15);
}

/// Positions labelled by the hand-written evaluation's expected score: a
/// target the learned evaluation can learn from its inputs.
fn labelled<P: Board + Baseline>(games: usize, seed: u64) -> Vec<Example> {
    let mut rng = rng_stream(seed, "learned-labels", 0);
    playout_positions::<P>(games, &mut rng)
        .into_iter()
        .filter(|p| !p.has_capture())
        .map(|p| Example {
            planes: planes(&p),
            stm: p.side_to_move(),
            target: 1.0 / (1.0 + (-(p.evaluate() as f32) / 150.0).exp()),
        })
        .collect()
}

#[test]
fn training_lowers_the_held_out_loss() {
    let (train, held_out) = split(labelled::<Position>(150, 7), 0.2, 7);
    assert!(held_out.len() > 500, "{} held-out positions", held_out.len());
    for inputs in [Inputs::Pieces, Inputs::Pairs] {
        trains_with(inputs, &train, &held_out);
    }
}

/// Training an evaluation of `inputs` halves its held-out loss, and its
/// integer model keeps within the tolerance.
fn trains_with(inputs: Inputs, train: &[Example], held_out: &[Example]) {
    let settings = LearnEvalConfig {
        hidden: 32,
        hidden2: 8,
        inputs,
        epochs: 6,
        batch_size: 128,
        ..LearnEvalConfig::default()
    };
    let mut rng = rng_stream(7, "learned-fit", 0);
    let mut float = FloatEval::new(settings.shape(), cells_of::<Position>(), &mut rng);
    let report = fit(&mut float, train, held_out, &settings, &mut rng, |_, _| {});
    let (before, after) = (report.held_out_loss[0], *report.held_out_loss.last().unwrap());
    assert!(
        after < 0.5 * before,
        "{inputs:?}: held-out loss {before} -> {after}"
    );
    assert_eq!(loss(&float, held_out), after);
    // The integer model of the trained network keeps its accuracy.
    let quant = LearnedEval::new(float);
    let mut acc = quant.quant.new_accumulator();
    let worst = held_out
        .iter()
        .map(|e| {
            quant.quant.refresh(&e.planes, &mut acc);
            (quant.quant.logit(&acc, e.stm) - quant.float.logit(&e.planes, e.stm)).abs()
        })
        .fold(0f32, f32::max);
    assert!(
        worst <= quant_tolerance(inputs),
        "{inputs:?}: trained model: integer off by {worst}"
    );
    eprintln!("{inputs:?}: held-out loss {before} -> {after}, integer off by at most {worst} logits");
}

#[test]
fn damaged_or_foreign_files_are_one_line_errors() {
    let file = EvalFile {
        game: GameKind::Italian.id(),
        float: model(9).float,
        note: "test".into(),
    };
    let bytes = file.to_bytes();
    assert_eq!(EvalFile::from_bytes(&bytes).unwrap(), file);
    let mut flipped = bytes.clone();
    flipped[100] ^= 1;
    let e = EvalFile::from_bytes(&flipped).unwrap_err().to_string();
    assert!(e.contains("checksum") && !e.contains('\n'), "{e}");
    let e = EvalFile::from_bytes(&bytes[..bytes.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\n'), "{e}");
    let e = EvalFile::from_bytes(b"not an evaluation file at all")
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad magic"), "{e}");
    let e = file.check_game(GameKind::Damone.id()).unwrap_err();
    assert!(e.contains("italian") && e.contains("damone"), "{e}");
    assert!(file.check_game(GameKind::Italian.id()).is_ok());
}

/// An evaluation of pairs is written as version 2 with its inputs and
/// cells, and reads back whole; one of pieces alone stays version 1.
#[test]
fn files_of_either_inputs_read_back() {
    let version = |b: &[u8]| u32::from_le_bytes(b[8..12].try_into().unwrap());
    let pieces = EvalFile {
        game: GameKind::Dameo.id(),
        float: model_for::<dameo::Position>(16, Inputs::Pieces).float,
        note: "pieces".into(),
    };
    assert_eq!(version(&pieces.to_bytes()), 1);
    let pairs = EvalFile {
        game: GameKind::Dameo.id(),
        float: model_for::<dameo::Position>(16, Inputs::Pairs).float,
        note: "pairs".into(),
    };
    let bytes = pairs.to_bytes();
    assert_eq!(version(&bytes), damone::learned::EVAL_FILE_VERSION);
    let back = EvalFile::from_bytes(&bytes).unwrap();
    assert_eq!(back, pairs);
    assert_eq!(back.float.cells, cells_of::<dameo::Position>());
    assert_eq!(back.float.w1.len(), Inputs::Pairs.count() * 48);
}

fn plays_whole_games<P: Board + Baseline>(seed: u64) {
    let eval = Arc::new(model(seed));
    let limits = Limits {
        depth: Some(3),
        ..Limits::default()
    };
    let mut learned = AlphaBeta::<P, LearnedEval>::with_eval("learned".into(), limits, eval).with_threads(2);
    let mut hand = AlphaBeta::<P>::new("hand".into(), limits);
    let mut game = Game::<P>::new(P::start(Default::default()), Default::default());
    loop {
        let moves = game.position().legal_moves();
        if game.outcome_with(&moves).is_some() {
            break;
        }
        let m = if game.ply().is_multiple_of(2) {
            learned.choose(&game)
        } else {
            hand.choose(&game)
        };
        game.play(&m).expect("a legal move");
    }
    assert!(game.ply() > 0);
}

#[test]
fn alphabeta_plays_whole_games_with_a_learned_evaluation() {
    plays_whole_games::<Position>(10);
    plays_whole_games::<italian::Position>(11);
    plays_whole_games::<dameo::Position>(12);
}

/// The network's value mixed with the learned evaluation's at the leaves:
/// at weight w the value is (1 - w) x the inner one + w x the learned
/// search's expected result, and the priors stay the inner evaluator's.
#[test]
fn leaf_mix_weighs_the_learned_search_into_the_value() {
    use damone::mcts::{EvalRequest, Evaluator, UniformEvaluator};
    use damone::player::LeafMix;
    let eval = Arc::new(model(21));
    let mut rng = rng_stream(21, "leaf-mix", 0);
    let mut search = AlphaBeta::with_eval("ab".into(), Limits::default(), eval.clone());
    let mut half = LeafMix::<_, Position>::new(UniformEvaluator, eval.clone(), 0.5);
    let mut whole = LeafMix::<_, Position>::new(UniformEvaluator, eval, 1.0);
    let mut spread = 0.0f32;
    for pos in playout_positions::<Position>(4, &mut rng).into_iter().take(40) {
        let game = Game::new(pos, Default::default());
        let moves = pos.legal_moves();
        if moves.is_empty() || game.outcome().is_some() {
            continue;
        }
        let req = [EvalRequest {
            game: &game,
            moves: &moves,
        }];
        let score = search.shallow_score(&game) as f32 / 256.0;
        let learned = 2.0 / (1.0 + (-score).exp()) - 1.0;
        let [h, w] = [half.evaluate(&req).remove(0), whole.evaluate(&req).remove(0)];
        // The inner evaluator's value is 0 (a certain draw).
        assert!(
            (w.wdl.win - w.wdl.loss - learned).abs() < 1e-4,
            "{:?} vs {learned}",
            w.wdl
        );
        assert!((h.wdl.win - h.wdl.loss - 0.5 * learned).abs() < 1e-4);
        assert!((h.wdl.win + h.wdl.draw + h.wdl.loss - 1.0).abs() < 1e-4);
        assert_eq!(h.priors, vec![1.0 / moves.len() as f32; moves.len()]);
        spread += learned.abs();
    }
    assert!(spread > 0.1, "the learned values are all 0");
}

/// A tiny run trains its learned evaluation at its last iteration (its
/// time in metrics.csv); `learn-eval` trains one again; a match, an
/// exported player file and `info` take it; a damaged one is refused in
/// one line.
#[test]
fn a_run_makes_a_learned_evaluation_that_players_use() {
    use common::{run, tmpdir};
    let dir = tmpdir("learned-run");
    let ck = format!("checkpoint_dir={}", dir.display());
    let sets = ["--set", &ck, "--set", "iterations=2", "--set", "eval.interval=0"];
    let (code, _, err) = run(&[
        &["train", "--config", "configs/tiny.toml", "--quiet"][..],
        &sets[..],
    ]
    .concat());
    assert_eq!(code, 0, "{err}");
    let run_dir = dir.join("tiny");
    let file = run_dir.join("iter_0002/learned_eval.bin");
    assert!(
        file.is_file(),
        "the run's last checkpoint has no learned evaluation"
    );
    let metrics = std::fs::read_to_string(run_dir.join("metrics.csv")).unwrap();
    let header: Vec<&str> = metrics.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "learned_eval_s")
        .expect("learned_eval_s column");
    let last: Vec<&str> = metrics.lines().last().unwrap().split(',').collect();
    assert!(last[col].parse::<f64>().unwrap() > 0.0, "{metrics}");

    let run_path = run_dir.to_str().unwrap();
    let (code, out, err) = run(&["learn-eval", run_path, "--latest", "--set", "epochs=2", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("held-out loss"), "{out}");

    let spec = format!("alphabeta:eval={run_path},depth=2");
    let (code, _, err) = run(&["match", &spec, "alphabeta:depth=2", "--games", "2", "--quiet"]);
    assert_eq!(code, 0, "{err}");

    let player = dir.join("tiny.dmp");
    let ckpt = run_dir.join("iter_0002");
    let (code, _, err) = run(&[
        "export",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--out",
        player.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["info", player.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("learned evaluation for alpha-beta: 64x8 hidden"),
        "{out}"
    );
    let spec = format!("alphabeta:eval={},depth=2", player.display());
    let (code, _, err) = run(&["match", &spec, "random", "--games", "2", "--quiet"]);
    assert_eq!(code, 0, "{err}");

    // The network player with the learned evaluation at its leaves.
    let spec = format!("net:{},sims=8,leaf=0.5", player.display());
    let (code, _, err) = run(&["match", &spec, "random", "--games", "2", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let spec = format!("net:{},leaf=1.5", player.display());
    let (code, _, err) = run(&["match", &spec, "random", "--games", "2", "--quiet"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("at most 1") && err.trim().lines().count() == 1,
        "{err}"
    );

    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let spec = format!("alphabeta:eval={}", file.display());
    let (code, _, err) = run(&["match", &spec, "random", "--games", "2", "--quiet"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("checksum") && err.trim().lines().count() == 1,
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
