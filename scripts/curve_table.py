#!/usr/bin/env python3
"""Read a run's curve: one row per rated checkpoint, with what the run was
doing around it.

    scripts/curve_table.py RUN_DIR [RUN_DIR ...] [--grades FILE] [--window N]

For each iteration in a run's rating.csv (written by `damone rate`) it
prints, as a Markdown table:

- training hours, self-play games and training steps up to it;
- the network's score at fixed simulations against alpha-beta depths 4
  and 6, at equal time (one thread each), and its raw policy's score;
- the score of alpha-beta with the run's learned evaluation against the
  hand-written alpha-beta at equal time, one thread each (when rated);
- the mean policy entropy (nats, over the legal moves of the training
  positions) of the N iterations up to it (`--window`, default 5);
- the draw rate of those iterations' self-play games;
- the share of the run's wall time up to it spent in self-play, training
  and evaluation (metrics.csv's selfplay_s, train_s, eval_s over iter_s).

With `--grades FILE`, a CSV of `run,iteration,agree` (the value head's
agreement with the endgame tables, the `all` row of
`damone tablebase grade --player RUN/iter_NNNN`, as a fraction) adds a
column. Scores are given with their 95% half-width as rating.csv has them.
"""
import argparse
import csv
import os
import sys


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def score_text(rows, mode, opponent_start, threads="1"):
    for r in rows:
        if r["mode"] == mode and r["opponent"].startswith(opponent_start) and r.get("threads", "1") in (threads, "0"):
            return f"{100 * float(r['score']):.1f} ± {100 * float(r['score_95']):.1f}"
    return ""


def run_rows(run, window, grades):
    metrics = {int(m["iteration"]): m for m in read_csv(os.path.join(run, "metrics.csv"))}
    ratings = read_csv(os.path.join(run, "rating.csv"))
    if not metrics or not ratings:
        sys.exit(f"{run}: needs metrics.csv and rating.csv (rate it with `damone rate` first)")
    name = os.path.basename(os.path.normpath(run))
    out = []
    for it in sorted({int(r["iteration"]) for r in ratings}):
        at = [r for r in ratings if int(r["iteration"]) == it]
        upto = [metrics[k] for k in sorted(metrics) if k <= it]
        recent = upto[-window:]
        total = lambda key, rows: sum(float(m[key]) for m in rows)
        games = total("games", recent)
        draws = total("draws", recent)
        wall = total("iter_s", upto)
        share = lambda key: f"{100 * total(key, upto) / wall:.0f}%" if wall > 0 else ""
        entropies = [float(m.get("policy_entropy") or 0) for m in recent]
        row = {
            "run": name,
            "iteration": it,
            "hours": f"{float(metrics[it]['wall_s']) / 3600:.2f}" if it in metrics else "",
            "games": metrics[it]["total_games"] if it in metrics else "",
            "steps": metrics[it]["total_steps"] if it in metrics else "",
            "vs d4 (64 sims)": score_text(at, "sims", "alphabeta:depth=4"),
            "vs d6 (64 sims)": score_text(at, "sims", "alphabeta:depth=6"),
            "equal time": score_text(at, "equal-time", "alphabeta:movetime="),
            "raw policy": score_text(at, "policy", "alphabeta:"),
            "learned eval, equal time": score_text(at, "learned", "alphabeta:movetime="),
            "policy entropy": f"{sum(entropies) / len(entropies):.3f}" if any(entropies) else "",
            "draw rate": f"{100 * draws / games:.0f}%" if games else "",
            "self-play / train / eval": f"{share('selfplay_s')} / {share('train_s')} / {share('eval_s')}",
        }
        if grades is not None:
            row["value head vs tables"] = grades.get((name, it), "")
        out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="run folders (checkpoints/NAME)")
    ap.add_argument("--window", type=int, default=5, help="iterations averaged for entropy and draw rate")
    ap.add_argument("--grades", help="CSV of run,iteration,agree (the value head against the tables)")
    a = ap.parse_args()
    if a.window < 1:
        sys.exit("--window must be at least 1")
    grades = None
    if a.grades:
        grades = {(g["run"], int(g["iteration"])): f"{100 * float(g['agree']):.1f}%" for g in read_csv(a.grades)}
    rows = [r for run in a.runs for r in run_rows(run, a.window, grades)]
    keys = list(rows[0].keys())
    print("| " + " | ".join(keys) + " |")
    print("| " + " | ".join("---" for _ in keys) + " |")
    for r in rows:
        print("| " + " | ".join(str(r[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
