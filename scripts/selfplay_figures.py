#!/usr/bin/env python3
"""Self-play figures of training runs from their metrics.csv: mean and
minimum network batch, network evaluations per second of self-play, and
positions (moves) per second of self-play, over every iteration of each run.

    python3 scripts/selfplay_figures.py checkpoints/before checkpoints/after
    python3 scripts/selfplay_figures.py --hourly checkpoints/run [...]

With `--hourly`, one row per hour of training time (metrics.csv's wall_s,
which counts only time spent training, across resumes): the hour's
self-play games, training steps and network evaluations per second of
self-play. An hour is credited with the iterations that ended in it.
"""
import csv
import sys
from pathlib import Path


def read_metrics(run_dir: Path) -> list:
    path = run_dir / "metrics.csv"
    if not path.is_file():
        sys.exit(f"{path}: not found (give run folders, each holding the metrics.csv that `damone train` writes)")
    return list(csv.DictReader(open(path)))


def num(row: dict, key: str) -> float:
    """A metrics.csv cell as a number; 0 where an older file lacks the column."""
    return float(row[key]) if row.get(key) not in (None, "") else 0.0


def figures(run_dir: Path) -> dict:
    rows = read_metrics(run_dir)
    sp = sum(num(r, "selfplay_s") for r in rows)
    evals = sum(num(r, "net_evals") for r in rows)
    batches = sum(num(r, "net_evals") / num(r, "mean_batch") for r in rows if num(r, "mean_batch") > 0)
    return {
        "iterations": len(rows),
        "games": int(sum(num(r, "games") for r in rows)),
        "selfplay_s": sp,
        "mean_batch": evals / batches if batches else float("nan"),
        "min_batch": int(min(num(r, "min_batch") for r in rows)) if rows else 0,
        "evals_per_s": evals / sp if sp else float("nan"),
        "positions_per_s": sum(num(r, "positions") for r in rows) / sp if sp else float("nan"),
        "train_s": sum(num(r, "train_s") for r in rows),
    }


def hourly(run_dir: Path) -> list:
    rows = read_metrics(run_dir)
    hours = {}
    for r in rows:
        h = hours.setdefault(int(float(r["wall_s"]) // 3600) + 1, [0.0, 0.0, 0.0, 0.0])
        for i, key in enumerate(("games", "steps", "net_evals", "selfplay_s")):
            h[i] += num(r, key)
    return [(k, int(g), int(st), ev / sp if sp else float("nan")) for k, (g, st, ev, sp) in sorted(hours.items())]


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--hourly":
        print("run,hour,games,steps,selfplay_evals_per_s")
        for d in sys.argv[2:]:
            for hour, games, steps, eps in hourly(Path(d)):
                print(f"{d},{hour},{games},{steps},{eps:.0f}")
        return
    cols = ["run", "iterations", "games", "selfplay_s", "train_s", "mean_batch", "min_batch", "evals_per_s", "positions_per_s"]
    print(",".join(cols))
    for d in sys.argv[1:]:
        f = figures(Path(d))
        print(",".join([d] + [f"{f[c]:.1f}" if isinstance(f[c], float) else str(f[c]) for c in cols[1:]]))


if __name__ == "__main__":
    main()
