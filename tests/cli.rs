//! The command-line contracts: output formats and exit status 2 with a
//! one-line `error: ...` on bad input.

use crate::common;

use common::run;

#[test]
fn perft_prints_one_line_per_depth() {
    let (code, out, err) = run(&["perft", "--depth", "6"]);
    assert_eq!(code, 0, "{err}");
    let want = "perft 1 8\nperft 2 64\nperft 3 569\nperft 4 4703\nperft 5 42778\nperft 6 374398\n";
    assert_eq!(out, want);
    assert!(err.contains("nodes/s"), "{err}");
}

#[test]
fn moves_prints_move_and_fen() {
    let (code, out, _) = run(&["moves", "--fen", "W:WDe4:Bf5,d5"]);
    assert_eq!(code, 0);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(lines, ["e4xc6 B:WDc6:Bf5", "e4xg6 B:WDg6:Bd5"]);
}

#[test]
fn bad_input_exits_2_with_a_clear_error() {
    for (args, needle) in [
        (vec!["perft", "--depth", "3", "--fen", "W:Wz1:Ba8"], "bad square"),
        (
            vec!["perft", "--depth", "3", "--fen", "W:Wa1:Ba8"],
            "light square",
        ),
        (
            vec!["perft", "--depth", "3", "--fen", "W:Wh1,h1:Ba8"],
            "used twice",
        ),
        (
            vec!["perft", "--depth", "3", "--fen", "W:WQh1:Ba8"],
            "unknown piece prefix",
        ),
        (
            vec!["perft", "--depth", "3", "--fen", "W:Wh1"],
            "missing piece field",
        ),
        (
            vec!["perft", "--depth", "3", "--variant", "chess"],
            "unknown variant",
        ),
        (vec!["perft", "--depth", "0"], "depth"),
        (vec!["moves", "--fen", "X:Wh1:Ba8"], "bad side to move"),
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn match_with_the_same_seed_writes_the_same_csv() {
    let dir = std::env::temp_dir().join(format!("damone-cli-{}", std::process::id()));
    let mut csvs = Vec::new();
    for run_no in 0..2 {
        let out = dir.join(format!("run{run_no}"));
        let (code, stdout, err) = run(&[
            "match",
            "mcts:sims=50",
            "alphabeta:depth=2",
            "--games",
            "6",
            "--seed",
            "9",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(stdout.contains("Elo"), "{stdout}");
        csvs.push(std::fs::read_to_string(out.join("games.csv")).unwrap());
        let pdn = std::fs::read_to_string(out.join("games.pdn")).unwrap();
        assert_eq!(pdn.matches("[Event ").count(), 6);
    }
    assert_eq!(csvs[0], csvs[1]);
    assert_eq!(csvs[0].lines().count(), 7);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_player_specs_exit_2() {
    for (spec, needle) in [
        ("chess", "unknown player kind"),
        ("alphabeta:depth=x", "bad value"),
        ("alphabeta:depth=0", "at least 1"),
        ("alphabeta:speed=3", "unknown option"),
        ("mcts:sims", "bad option"),
        ("net:", "needs"),
    ] {
        let (code, _, err) = run(&[
            "match",
            spec,
            "random",
            "--games",
            "2",
            "--quiet",
            "--out",
            "/nonexistent/x",
        ]);
        assert_eq!(code, 2, "{spec}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{spec}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{spec}: {err}");
    }
}

#[test]
fn sprt_stops_when_it_decides_and_openings_come_from_a_file() {
    let dir = std::env::temp_dir().join(format!("damone-sprt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let openings = dir.join("openings.txt");
    std::fs::write(
        &openings,
        "# two openings\nW:WIh1,Df1,Dh3,d1,e2,f3,g4,h5:BIa8,Da6,Dc8,a4,b5,c6,d7,e8\n\nB:WIh1,Df1,Dg2,c2,e2,f3,e4:BIa8,Db7,Dc6,b5,d5,f5,a4\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let (code, out, err) = run(&[
        "match",
        "alphabeta:depth=2",
        "random",
        "--sprt",
        "elo0=0,elo1=50",
        "--games",
        "400",
        "--openings",
        openings.to_str().unwrap(),
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.starts_with("SPRT")).unwrap_or_default();
    assert!(line.contains("H1 accepted") && line.contains("LLR"), "{out}");
    let games = std::fs::read_to_string(out_dir.join("games.csv")).unwrap();
    let n = games.lines().count() - 1;
    assert!((2..400).contains(&n) && n.is_multiple_of(2), "{n} games");
    // Each opening is played with both colours, in order.
    let first: Vec<&str> = games.lines().skip(1).take(3).collect();
    assert!(
        first[0].contains("\"W:WIh1,Df1,Dh3") && first[1].contains("\"W:WIh1,Df1,Dh3"),
        "{games}"
    );
    assert!(first[2].contains("\"B:WIh1"), "{games}");
    for (sprt, needle) in [
        ("elo0=5,elo1=0", "elo0 < elo1"),
        ("elo1=5", "needs elo0"),
        ("elo0=0,elo1=5,alpha=0.9", "alpha"),
    ] {
        let (code, _, err) = run(&["match", "random", "alphabeta:depth=1", "--sprt", sprt]);
        assert_eq!(code, 2);
        assert!(err.contains(needle), "{sprt}: {err}");
    }
    std::fs::write(&openings, "W:Wh1:Bg2,f3\n").unwrap();
    let (code, _, err) = run(&[
        "match",
        "random",
        "alphabeta:depth=1",
        "--openings",
        openings.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("line 1") && err.contains("already over"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn device_choices_are_checked() {
    let (code, _, err) = run(&["match", "random", "random", "--device", "tpu"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown device 'tpu'"), "{err}");
    // A build without the `gpu` feature says how to get one, and leaves the
    // run folder untouched.
    if !cfg!(feature = "gpu") {
        let dir = std::env::temp_dir().join(format!("damone-cli-gpu-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let at = format!("checkpoint_dir={}", dir.display());
        let (code, out, err) = run(&["train", "--device", "gpu", "--set", &at, "--quiet"]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: ") && err.contains("--features gpu"),
            "{err}"
        );
        assert!(!dir.exists());
        let (code, _, err) = run(&["analyse", "--player", "net:nowhere.dmp", "--device", "gpu"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--features gpu"), "{err}");
    }
}

/// `damone plot` with several runs draws their strength against training
/// hours in one chart, a line per run, from their `rating.csv`; a measure
/// that matches no series is refused with the series named.
#[test]
fn plot_draws_several_runs_strength_against_hours() {
    let root = std::env::temp_dir().join(format!("damone-plot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let head = "iteration,train_minutes,train_games,mode,opponent,sims,net_ms_per_move,threads,games,wins,draws,losses,score,score_95\n";
    for (name, scores) in [("short", [0.4, 0.5]), ("long", [0.45, 0.7])] {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("metrics.csv"),
            "iteration,wall_s,loss_policy,loss_value\n1,60.0,3.0,1.0\n2,120.0,2.5,0.9\n",
        )
        .unwrap();
        let rows: String = [(1, 60.0, scores[0]), (2, 240.0, scores[1])]
            .iter()
            .map(|(k, minutes, s)| {
                format!("{k},{minutes},100,equal-time,alphabeta:movetime=9ms,64,9.0,1,200,0,0,0,{s},0.05\n")
            })
            .collect();
        std::fs::write(dir.join("rating.csv"), format!("{head}{rows}")).unwrap();
    }
    let (short, long, out) = (root.join("short"), root.join("long"), root.join("charts"));
    let args = [
        "plot",
        short.to_str().unwrap(),
        long.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(out.join("strength.svg")).unwrap();
    assert!(
        svg.contains("short: equal time") && svg.contains("long: equal time"),
        "{svg}"
    );
    assert!(svg.contains("training hours"), "{svg}");
    assert!(out.join("long/loss.svg").exists());
    let (code, _, err) = run(&[&args[..], &["--measure", "learned eval"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no rating series matches 'learned eval'") && err.contains("equal time"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
