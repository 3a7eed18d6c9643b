//! The `gpu` feature on a real wgpu adapter (in CI, Mesa's lavapipe: a
//! software Vulkan device): the network's outputs on the GPU path equal the
//! CPU path's, one training step gives the same losses, and a tiny run
//! trains on the GPU with checkpoints that load and resume on the CPU.
//!
//! Without an adapter each test prints a NOTICE and passes, unless
//! `DAMONE_REQUIRE_GPU` is set (`.ci/run` sets it once it has installed the
//! Vulkan packages), when a missing adapter fails the test.
#![cfg(feature = "gpu")]

use damone::game::damone::{Position, Variant};
use damone::game::GamePosition;
use damone::mcts::{EvalRequest, Evaluator};
use damone::net::{
    bench_games, BoardCells, ComputeDevice, DeviceChoice, Inputs, ModelConfig, NetEvaluator, Observation,
    PolicyHeadKind,
};
use damone::player::LoadedNet;
use damone::run::{Event, Run, RunConfig, Start};
use damone::train::{bench_samples, TrainParams, Trainer};
use std::path::Path;

fn gpu() -> Option<ComputeDevice> {
    match ComputeDevice::select(DeviceChoice::Gpu) {
        Ok(d) => {
            assert!(d.is_gpu());
            eprintln!("{}", d.describe());
            Some(d)
        }
        Err(e) if std::env::var_os("DAMONE_REQUIRE_GPU").is_some() => {
            panic!("DAMONE_REQUIRE_GPU is set but no GPU adapter opened: {e}")
        }
        Err(e) => {
            eprintln!("NOTICE: GPU test skipped: {e}");
            None
        }
    }
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// A CPU trainer of `model` after a few steps, so that batch-norm running
/// statistics and weights are no longer at their initial values.
fn trained(model: &ModelConfig, seed: u64) -> Trainer {
    let device = ComputeDevice::cpu().burn().clone();
    device.seed(seed);
    let params = TrainParams {
        batch_size: 32,
        ..Default::default()
    };
    let mut t = Trainer::new(model.clone(), params, device);
    let games = bench_games(Position::start(Variant::Standard), 64, seed);
    let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
    let samples = bench_samples(&games, &moves);
    let batch: Vec<_> = samples.iter().take(32).collect();
    let mut rng = damone::util::rng_stream(seed, "gpu-test", 0);
    for _ in 0..3 {
        t.train_step(&batch, &mut rng);
    }
    t
}

#[test]
fn network_outputs_on_the_gpu_equal_the_cpu_paths() {
    let Some(gpu) = gpu() else { return };
    for (i, model) in [
        ModelConfig {
            blocks: 1,
            channels: 16,
            value_hidden: 16,
            policy_head: PolicyHeadKind::Dense,
            policy_planes: 4,
            inputs: Inputs::Draughts,
            aux_heads: true,
            reply_head: true,
            board: BoardCells::DARK,
        },
        ModelConfig::default(),
        // Dameo's board of 64 cells (on Damone positions: only the
        // arithmetic is compared).
        ModelConfig {
            board: BoardCells::ALL,
            ..ModelConfig::default()
        },
    ]
    .iter()
    .enumerate()
    {
        let t = trained(model, 11 + i as u64);
        let net = t.net();
        let cpu = NetEvaluator::new(net);
        let mut on_gpu = NetEvaluator::on_device(net, &gpu);
        let mut on_cpu = NetEvaluator::on_device(net, &ComputeDevice::cpu());
        for n in [1usize, 7, 70] {
            let games = bench_games(Position::start(Variant::Standard), n, 100 + n as u64);
            let obs: Vec<Observation> = games
                .iter()
                .map(|g| Observation::of_game(g, model.inputs))
                .collect();
            let (pc, vc) = cpu.infer(&obs);
            let (pg, vg) = on_gpu.infer(&obs);
            let (dp, dv) = (max_diff(&pc, &pg), max_diff(&vc, &vg));
            assert!(
                dp <= 1e-4 && dv <= 1e-4,
                "model {model:?} batch {n}: policy {dp}, wdl {dv}"
            );
            let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
            let reqs: Vec<EvalRequest<'_, Position>> = games
                .iter()
                .zip(&moves)
                .map(|(g, m)| EvalRequest { game: g, moves: m })
                .collect();
            let a = on_cpu.evaluate(&reqs);
            let b = on_gpu.evaluate(&reqs);
            for (x, y) in a.iter().zip(&b) {
                assert!(max_diff(&x.priors, &y.priors) <= 1e-4);
                assert!(max_diff(&x.wdl.to_array(), &y.wdl.to_array()) <= 1e-4);
                assert!((x.material - y.material).abs() <= 1e-4);
            }
        }
    }
}

#[test]
fn one_training_step_gives_the_same_losses_on_both_devices() {
    let Some(gpu) = gpu() else { return };
    let model = ModelConfig::default();
    let start = trained(&model, 5);
    let weights = start.weights_bytes().unwrap();
    let optim = start.optimizer_bytes().unwrap();
    let params = TrainParams {
        batch_size: 48,
        ..Default::default()
    };
    let games = bench_games(Position::start(Variant::Standard), 48, 9);
    let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
    let samples = bench_samples(&games, &moves);
    let batch: Vec<_> = samples.iter().collect();
    let mut losses = Vec::new();
    for device in [ComputeDevice::cpu(), gpu] {
        let mut t = Trainer::new(model.clone(), params.clone(), device.burn().clone());
        t.restore(weights.clone(), optim.clone(), start.step).unwrap();
        let mut rng = damone::util::rng_stream(3, "gpu-step", 0);
        // Two steps: the second one's loss shows that the first update (and
        // the optimiser state it read) matched too.
        let first = t.train_step(&batch, &mut rng);
        let second = t.train_step(&batch, &mut rng);
        losses.push((first, second, t.weights_bytes().unwrap()));
    }
    let (c, g) = (&losses[0], &losses[1]);
    for (what, a, b) in [
        ("first policy", c.0.policy, g.0.policy),
        ("first value", c.0.value, g.0.value),
        ("second policy", c.1.policy, g.1.policy),
        ("second value", c.1.value, g.1.value),
    ] {
        assert!((a - b).abs() <= 1e-4, "{what} loss: cpu {a} gpu {b}");
    }
    // The GPU-trained weights load on the CPU.
    damone::net::net_from_bytes(&model, g.2.clone(), ComputeDevice::cpu().burn(), "gpu weights").unwrap();
}

#[test]
fn a_tiny_run_on_the_gpu_resumes_on_the_cpu_and_its_checkpoints_play_on_both() {
    let Some(gpu) = gpu() else { return };
    let dir = std::env::temp_dir().join(format!("damone-gpurun-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = RunConfig::load(
        Some(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/configs/tiny.toml"
        ))),
        &[
            "iterations=2".into(),
            "eval.interval=2".into(),
            "device=gpu".into(),
        ],
    )
    .unwrap();
    cfg.checkpoint_dir = dir.display().to_string();
    let mut started = Vec::new();
    let run = Run::<damone::game::damone::Position>::start(cfg.clone(), Start::New, &mut |e: &Event| {
        if let Event::Started { device, .. } = e {
            started.push(device.clone());
        }
    })
    .unwrap();
    assert_eq!(started, vec![gpu.describe().to_string()]);
    assert_eq!(run.state().iteration, 2);
    let ck = run.dir().join("iter_0002");
    assert!(ck.is_dir());

    // The GPU-trained checkpoint plays on both devices with the same outputs.
    let on_cpu = LoadedNet::load(&ck).unwrap();
    let on_gpu = LoadedNet::load(&ck).unwrap().on(&gpu);
    let games = bench_games(Position::start(Variant::Standard), 20, 4);
    let obs: Vec<Observation> = games
        .iter()
        .map(|g| Observation::of_game(g, on_cpu.net.inputs()))
        .collect();
    let (pc, vc) = NetEvaluator::on_device(&on_cpu.net, &on_cpu.device).infer(&obs);
    let (pg, vg) = NetEvaluator::on_device(&on_gpu.net, &on_gpu.device).infer(&obs);
    assert!(max_diff(&pc, &pg) <= 1e-4 && max_diff(&vc, &vg) <= 1e-4);

    // Resumed on the CPU for one more iteration, once the first run has
    // let go of its folder.
    drop(run);
    let mut resumed_on = Vec::new();
    let run = Run::<damone::game::damone::Position>::start(
        cfg,
        Start::Resume {
            sets: vec!["iterations=3".into(), "device=cpu".into()],
            from_intact: false,
        },
        &mut |e: &Event| {
            if let Event::Started { device, .. } = e {
                resumed_on.push(device.clone());
            }
        },
    )
    .unwrap();
    assert_eq!(run.state().iteration, 3);
    assert!(resumed_on[0].starts_with("cpu"), "{resumed_on:?}");
    let log = std::fs::read_to_string(run.dir().join("resume.log")).unwrap();
    assert!(log.contains("device=cpu"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
