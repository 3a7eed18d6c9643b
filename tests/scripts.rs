//! The helper scripts behind docs/experiments.md's figures: `scripts/seeds_summary.py`
//! (the multi-seed rows of `scripts/ablation.sh`) and `scripts/selfplay_figures.py`
//! (docs/strength.md's speed of each network shape). Skipped with a notice
//! where `python3` is missing, a failure then under `DAMONE_REQUIRE_TOOLS`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `python3` runs here. Where it does not, the test skips with a
/// notice, unless `DAMONE_REQUIRE_TOOLS` is set (`.ci/run` sets it): then a
/// missing python3 fails the test instead of passing it unseen.
fn have_python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("DAMONE_REQUIRE_TOOLS").is_none(),
            "DAMONE_REQUIRE_TOOLS is set but python3 does not run"
        );
        eprintln!("NOTICE: python3 not found; skipping the scripts' tests");
    }
    ok
}

/// A rated run folder as `scripts/ablation.sh` leaves it (the columns the
/// summary reads, with the headers `damone rate` and `damone train` write).
fn fake_run(root: &Path, name: &str, wdl: (u32, u32, u32), games: u32) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let (w, d, l) = wdl;
    let n = (w + d + l) as f64;
    let score = (w as f64 + 0.5 * d as f64) / n;
    std::fs::write(
        dir.join("rating.csv"),
        format!(
            "iteration,train_minutes,train_games,mode,opponent,sims,net_ms_per_move,games,wins,draws,losses,score,score_95\n\
             198,30.0,{games},sims,alphabeta:depth=4,64,0.0,{n},{w},{d},{l},{score},0.056\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("metrics.csv"),
        format!("iteration,total_games,total_steps\n198,{games},13225\n"),
    )
    .unwrap();
    dir
}

/// Runs `scripts/<name>` with `args`: (success, stdout, stderr).
fn run_script(name: &str, args: &[&Path]) -> (bool, String, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(name);
    let out = Command::new("python3").arg(script).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn seeds_summary_gives_the_mean_over_seeds_and_the_pooled_games() {
    if !have_python() {
        return;
    }
    let root = std::env::temp_dir().join(format!("damone-seeds-{}", std::process::id()));
    let a = fake_run(&root, "def-s1", (60, 67, 73), 12675);
    let b = fake_run(&root, "def-s2", (49, 52, 99), 11396);
    let (ok, out, err) = run_script("seeds_summary.py", &[&a, &b]);
    assert!(ok, "{err}");
    assert!(
        out.contains("| def-s1 | 12675 | 13225 | alphabeta:depth=4 | 60-67-73 | 46.8%"),
        "{out}"
    );
    // Mean of 46.75% and 37.5%; the t interval with one degree of freedom
    // is 12.706 standard errors of the mean.
    assert!(out.contains("mean over 2 seeds: 42.1% ± 58.8"), "{out}");
    assert!(out.contains("standard deviation 6.5 points"), "{out}");
    assert!(
        out.contains("pooled: 109-119-172 in 400 games, 42.1% ± 4.0"),
        "{out}"
    );

    let c = fake_run(&root, "def-s3", (80, 60, 60), 12000);
    let (ok, out, _) = run_script("seeds_summary.py", &[&a, &b, &c]);
    assert!(ok);
    assert!(out.contains("mean over 3 seeds: 46.4%"), "{out}");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn seeds_summary_names_a_missing_or_bad_rating() {
    if !have_python() {
        return;
    }
    let root = std::env::temp_dir().join(format!("damone-seeds-bad-{}", std::process::id()));
    let missing = root.join("never-rated");
    std::fs::create_dir_all(&missing).unwrap();
    let (ok, _, err) = run_script("seeds_summary.py", &[&missing]);
    assert!(!ok);
    assert!(err.contains("never-rated/rating.csv"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let bad = fake_run(&root, "bad", (1, 1, 1), 10);
    std::fs::write(bad.join("rating.csv"), "iteration,wins\n3,x\n").unwrap();
    let (ok, _, err) = run_script("seeds_summary.py", &[&bad]);
    assert!(!ok);
    assert!(err.contains("bad/rating.csv: bad or missing column"), "{err}");
    std::fs::remove_dir_all(&root).ok();
}

/// `scripts/selfplay_figures.py --hourly` credits each iteration to the
/// hour of training time it ended in, and gives each hour's self-play
/// evaluations per second of self-play; a folder without metrics.csv is
/// a one-line error.
#[test]
fn hourly_figures_bucket_iterations_by_training_time() {
    if !have_python() {
        return;
    }
    let root = std::env::temp_dir().join(format!("damone-hourly-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("metrics.csv"),
        "iteration,wall_s,games,steps,net_evals,selfplay_s\n\
         1,1800,64,70,1000,10\n2,3599,64,80,3000,10\n3,3601,32,40,500,5\n",
    )
    .unwrap();
    let (ok, out, err) = run_script("selfplay_figures.py", &[Path::new("--hourly"), &root]);
    assert!(ok, "{err}");
    let rows: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1)
        .collect();
    assert_eq!(rows, ["1,128,150,200", "2,32,40,100"], "{out}");

    // A folder without metrics.csv: one line naming the file, no traceback.
    let empty = root.join("never-trained");
    std::fs::create_dir_all(&empty).unwrap();
    let (ok, _, err) = run_script("selfplay_figures.py", &[Path::new("--hourly"), &empty]);
    assert!(!ok);
    assert!(err.contains("never-trained/metrics.csv: not found"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    std::fs::remove_dir_all(&root).ok();
}
