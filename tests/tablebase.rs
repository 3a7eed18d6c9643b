//! The tablebase commands through the binary: build, probe and verify
//! every table of up to 3 pieces, won positions played out, grading, and
//! their one-line errors.

use crate::common;

use common::{run, tmpdir};

#[test]
fn build_probe_and_verify_three_pieces() {
    let dir = tmpdir("three");
    let d = dir.to_str().unwrap();
    let (code, out, err) = run(&["tablebase", "build", "--pieces", "3", "--dir", d]);
    assert!(code == 0, "{err}");
    assert!(out.contains("45 damone tables of up to 3 pieces"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("IvDP ")), "{out}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 45);

    let (code, out, err) = run(&["tablebase", "verify", "--dir", d, "--mmap"]);
    assert!(code == 0, "{err}");
    assert!(
        out.contains("45 tables") && out.contains(": 0 mismatches"),
        "{out}"
    );

    // The Damone takes the last Black piece: a win in one ply, by f3xh5.
    let (code, out, err) = run(&["tablebase", "probe", "--dir", d, "--fen", "W:WIf3:Bg4"]);
    assert!(code == 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "win in 1 plies to conversion", "{out}");
    assert_eq!(lines[1], "f3xh5 win in 1 plies to conversion", "{out}");
    // A blocked side has lost.
    let (code, out, _) = run(&["tablebase", "probe", "--dir", d, "--fen", "W:Wh1:Bg2,f3"]);
    assert!(code == 0);
    assert_eq!(out.trim(), "loss (no legal move)");

    // One-line errors: a bad setup string, a position no table covers, a
    // counter past the limit, a folder without tables, bad options.
    let probe = |fen: &str, extra: &[&str]| {
        let mut a = vec!["tablebase", "probe", "--dir", d, "--fen", fen];
        a.extend_from_slice(extra);
        run(&a)
    };
    for (fen, extra, says) in [
        ("W:Wz9:Bg4", &[][..], "z9"),
        ("W:WIf3,Dd1:Bg4,b7", &[], "no table covers"),
        (
            "W:WIf3:Bg4",
            &["--counter", "81"],
            "past the tables' no-progress limit",
        ),
    ] {
        let (code, _, err) = probe(fen, extra);
        assert!(code != 0, "{fen}");
        assert!(err.contains(says), "{fen}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let empty = tmpdir("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, _, err) = run(&["tablebase", "verify", "--dir", empty.to_str().unwrap()]);
    assert!(code != 0);
    assert!(err.contains("tablebase build --pieces 4"), "{err}");
    let (code, _, err) = run(&["tablebase", "build", "--pieces", "9", "--dir", d]);
    assert!(code != 0 && err.contains("2 to 5 pieces"), "{err}");

    // Won positions played out, alpha-beta on the winning side against
    // random: every game is counted once, and each one not won is listed.
    let convert = |extra: &[&str]| {
        let mut a = vec![
            "tablebase",
            "convert",
            "--dir",
            d,
            "--pieces",
            "3",
            "--opponent",
            "random",
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    let (code, out, err) = convert(&["--positions", "6", "--player", "alphabeta:depth=4"]);
    assert!(code == 0, "{err}");
    let last = out.lines().last().unwrap();
    let count = |key: &str| -> usize {
        let rest = last
            .split(key)
            .nth(1)
            .unwrap_or_else(|| panic!("{key} in {last}"));
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (won, drew, lost) = (count(": won "), count(", drew "), count(", lost "));
    assert_eq!(won + drew + lost, 6, "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("not won: ")).count(),
        drew + lost,
        "{out}"
    );
    // Alpha-beta given the tables plays their moves: every one is won.
    let ab_tb = format!("alphabeta:depth=2,tb={d}");
    let (code, out, err) = convert(&["--positions", "6", "--player", &ab_tb]);
    assert!(code == 0, "{err}");
    assert!(out.lines().last().unwrap().contains(": won 6,"), "{out}");
    // Its analysis of a won root is the tables' move and verdict; one ply
    // before, the search finds the table win below it.
    let (code, out, err) = run(&["analyse", "--player", &ab_tb, "--fen", "W:WIf3:Bg4"]);
    assert!(code == 0, "{err}");
    assert!(
        out.contains("score tablewin 0") && out.contains("pv f3xh5"),
        "{out}"
    );
    let ab_tb4 = format!("alphabeta:depth=4,tb={d}");
    // Two captures, each to a 3-piece position the tables call won.
    let (code, out, err) = run(&["analyse", "--player", &ab_tb4, "--fen", "W:WIf3,Dd1:Bg4,e4"]);
    assert!(code == 0, "{err}");
    assert!(out.contains("score tablewin 1"), "{out}");
    // One capture only: the position after it is analysed, its line follows.
    let (code, out, err) = run(&["analyse", "--player", &ab_tb4, "--fen", "W:WIf3,Dd1:Bg4,c6"]);
    assert!(code == 0, "{err}");
    assert!(
        out.contains("score tablewin ") && out.contains("pv f3xh5 "),
        "{out}"
    );
    let (code, _, err) = run(&[
        "analyse",
        "--player",
        "alphabeta:tb=/nonexistent",
        "--fen",
        "W:WIf3:Bg4",
    ]);
    assert!(code != 0 && err.contains("tb"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    for (extra, says) in [
        (&["--positions", "0", "--player", "random"][..], "at least 1"),
        (&["--player", "nonsense:x"], "cannot open player"),
    ] {
        let (code, _, err) = convert(extra);
        assert!(code != 0 && err.contains(says), "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

/// A run given tables (`tablebase = DIR`) trains; tables for another
/// no-progress limit, or a game without tables, are refused in one line.
#[test]
fn a_run_trains_with_tables_and_refuses_the_wrong_ones() {
    let tables = tmpdir("forty");
    let t = tables.to_str().unwrap();
    let (code, _, err) = run(&[
        "tablebase",
        "build",
        "--pieces",
        "3",
        "--no-progress-plies",
        "40",
        "--dir",
        t,
    ]);
    assert!(code == 0, "{err}");
    let runs = tmpdir("runs");
    let ckpt = format!("checkpoint_dir={}", runs.display());
    let tb = format!("tablebase={t}");
    let train = |extra: &[&str]| {
        let mut a = vec![
            "train",
            "--config",
            "configs/tiny.toml",
            "--quiet",
            "--set",
            &ckpt,
            "--set",
            &tb,
            "--set",
            "iterations=1",
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    let (code, _, err) = train(&["--set", "tablebase_samples=0.25"]);
    assert!(code == 0, "{err}");
    assert!(runs.join("tiny/iter_0001").is_dir());
    // Its network graded against the tables: positions drawn from each
    // table. Its self-play ended its games at the tables, so it reached
    // none of their positions: `--selfplay` is refused in one line.
    let net = runs.join("tiny");
    let net = net.to_str().unwrap();
    let grade = |extra: &[&str]| {
        let mut a = vec![
            "tablebase",
            "grade",
            "--player",
            net,
            "--dir",
            t,
            "--per-balance",
            "10",
            "--sims",
            "8",
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    let (code, out, err) = grade(&[]);
    assert!(code == 0, "{err}");
    assert!(out.contains("search 8") && out.contains("move 8"), "{out}");
    let all = out.lines().find(|l| l.starts_with("all ")).expect("an all row");
    assert_eq!(all.split_whitespace().count(), 5, "{all}");
    let positions: u64 = all.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!((300..=450).contains(&positions), "{out}");
    assert!(out.lines().any(|l| l.starts_with("IvDP ")), "{out}");
    let (code, out, err) = grade(&["--selfplay", net]);
    assert!(code != 0 && out.is_empty(), "{out}");
    assert!(err.contains("ended its games at the tables"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let (code, _, err) = train(&[
        "--set",
        "run=no-tables",
        "--set",
        "tablebase=",
        "--set",
        "tablebase_samples=0.1",
    ]);
    assert!(code != 0);
    assert!(err.contains("tablebase_samples needs tablebase"), "{err}");
    let (code, _, err) = train(&["--set", "run=other", "--set", "rules.no_progress_plies=50"]);
    assert!(code != 0);
    assert!(err.contains("no-progress limit of 40"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let (code, _, err) = train(&["--set", "run=it", "--set", "game=italian"]);
    assert!(code != 0);
    assert!(
        err.contains("these are damone tables, and the game is italian"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&tables);
    let _ = std::fs::remove_dir_all(&runs);
}

/// Italian draughts' tables through the same commands: built with
/// `--game`, the game read back from the files by the others.
#[test]
fn italian_tables_build_probe_and_verify() {
    let dir = tmpdir("italian");
    let d = dir.to_str().unwrap();
    let (code, out, err) = run(&[
        "tablebase",
        "build",
        "--game",
        "italian",
        "--pieces",
        "3",
        "--dir",
        d,
    ]);
    assert!(code == 0, "{err}");
    assert!(out.contains("16 italian tables of up to 3 pieces"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("KvMM ")), "{out}");
    let (code, out, err) = run(&["tablebase", "verify", "--dir", d]);
    assert!(code == 0, "{err}");
    assert!(
        out.contains("16 tables") && out.contains(": 0 mismatches"),
        "{out}"
    );
    // The man takes the last piece: a win in one ply, by 22x13.
    let (code, out, err) = run(&["tablebase", "probe", "--dir", d, "--fen", "W:W22:B18"]);
    assert!(code == 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "win in 1 plies to conversion", "{out}");
    assert_eq!(lines[1], "22x13 win in 1 plies to conversion", "{out}");
    // A Damone setup string is refused in the tables' game's words.
    let (code, _, err) = run(&["tablebase", "probe", "--dir", d, "--fen", "W:WIf3:Bg4"]);
    assert!(code != 0 && err.contains("W:WIf3:Bg4"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
