#!/usr/bin/env python3
"""Summarise one ablation row trained with several seeds (issue 11).

    scripts/seeds_summary.py RUN_DIR [RUN_DIR ...]

Each RUN_DIR is a run rated by scripts/ablation.sh (its rating.csv, last
row, and its metrics.csv). Prints each seed's score against its opponent,
then the mean over the seeds with a 95% t interval built from the spread
between them (what a second training run would differ by), and all games
pooled with the interval of the games alone (what more rating games would
shrink). A gain claimed for a row is the difference of two such means.
"""
import csv
import math
import os
import sys

# Two-sided 95% quantiles of Student's t, by degrees of freedom.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def t975(df):
    return T975[df - 1] if df <= len(T975) else 1.96 + 2.5 / df


def score_interval(w, d, l):
    """Score and its 95% half-width from W/D/L: the formula of damone's
    `util::elo::score_interval`, which wrote each rating.csv's score_95."""
    n = w + d + l
    if n == 0:
        return 0.5, 0.5
    p = (w + 0.5 * d) / n
    var = (w * (1 - p) ** 2 + d * (0.5 - p) ** 2 + l * p**2) / n
    return p, 1.96 * math.sqrt(var / n)


def last_row(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"seeds_summary: cannot read {path}: {e.strerror}")
    if not rows:
        sys.exit(f"seeds_summary: {path} has no rows")
    return rows[-1]


def main(dirs):
    if not dirs:
        sys.exit(__doc__.strip())
    scores, w, d, l, lines = [], 0, 0, 0, []
    for run in dirs:
        r = last_row(os.path.join(run, "rating.csv"))
        m = last_row(os.path.join(run, "metrics.csv"))
        try:
            wi, di, li = int(r["wins"]), int(r["draws"]), int(r["losses"])
            s, ci = float(r["score"]), float(r["score_95"])
        except (KeyError, ValueError) as e:
            sys.exit(f"seeds_summary: {run}/rating.csv: bad or missing column ({e})")
        scores.append(s)
        w, d, l = w + wi, d + di, l + li
        lines.append(f"| {os.path.basename(run.rstrip('/'))} | {m.get('total_games', '?')} "
                     f"| {m.get('total_steps', '?')} | {r['opponent']} | {wi}-{di}-{li} "
                     f"| {100 * s:.1f}% ± {100 * ci:.1f} |")
    print("| run | self-play games | steps | opponent | W-D-L | score, 95% |")
    print("| --- | --- | --- | --- | --- | --- |")
    print("\n".join(lines))
    k = len(scores)
    mean = sum(scores) / k
    if k > 1:
        sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / (k - 1))
        half = t975(k - 1) * sd / math.sqrt(k)
        print(f"mean over {k} seeds: {100 * mean:.1f}% ± {100 * half:.1f} "
              f"(95% t interval; seed-to-seed standard deviation {100 * sd:.1f} points)")
    else:
        print(f"one seed: {100 * mean:.1f}% (no interval over seeds)")
    p, half = score_interval(w, d, l)
    print(f"pooled: {w}-{d}-{l} in {w + d + l} games, {100 * p:.1f}% ± "
          f"{100 * half:.1f} (the rating games' interval only)")


if __name__ == "__main__":
    main(sys.argv[1:])
