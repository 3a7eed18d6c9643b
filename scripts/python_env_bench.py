#!/usr/bin/env python3
"""Environment steps per second from Python, side by side in one run.

Every row plays uniformly random legal moves and counts plies played
(one step of one game). Rows:

  damone VecEnv              batch of --batch games, actions drawn by the
                             environment (sample_actions), planes and masks
                             written every step, all cores (and one core)
  damone VecEnv, NumPy pick  the same, the random legal action drawn in
                             NumPy from the mask
  damone Game, Python loop   one game at a time: legal_actions(),
                             random.choice, play_action (and with the
                             planes and the mask every ply, as VecEnv)
  damone PettingZoo AEC      the PettingZoo environment (observation dicts)
  OpenSpiel checkers         pyspiel's C++ checkers through its Python API:
                             legal_actions, random.choice, apply_action
                             (and with observation_tensor every ply)

Prints a Markdown table. Needs the damone package; the OpenSpiel rows need
open_spiel (skipped with a note when missing). scripts/python-tests.sh
builds the package into .venv-python with open_spiel.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import time

import numpy as np

import damone


def timed(step, seconds: float) -> float:
    """Plies per second of `step` (which returns the plies it played)."""
    step()  # warm up
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        plies += step()
    return plies / (time.perf_counter() - start)


def vecenv(batch: int, game: str, numpy_pick: bool):
    env = damone.VecEnv(batch, game, seed=1)
    env.reset()
    rng = np.random.default_rng(1)

    def step() -> int:
        if numpy_pick:
            mask = env.action_mask
            actions = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(axis=1)
        else:
            actions = env.sample_actions()
        env.step(actions)
        return batch

    return step


def python_loop(game: str, observe: bool):
    rng = random.Random(1)
    state = {"g": damone.Game(game)}

    def step() -> int:
        for _ in range(100):
            g = state["g"]
            if g.is_over():
                state["g"] = g = damone.Game(game)
            if observe:
                g.observation()
                g.action_mask()
            g.play_action(rng.choice(g.legal_actions()))
        return 100

    return step


def pettingzoo_loop(game: str):
    from damone.pettingzoo import raw_env

    e = raw_env(game=game)
    e.reset(seed=1)
    rng = random.Random(1)

    def step() -> int:
        played = 0
        while played < 100:
            if any(e.terminations.values()) or any(e.truncations.values()):
                e.reset()
            obs = e.observe(e.agent_selection)
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            played += 1
        return played

    return step


def openspiel_loop(observe: bool):
    import pyspiel

    game = pyspiel.load_game("checkers")
    rng = random.Random(1)
    state = {"s": game.new_initial_state()}

    def step() -> int:
        for _ in range(100):
            s = state["s"]
            if s.is_terminal():
                state["s"] = s = game.new_initial_state()
            if observe:
                s.observation_tensor(s.current_player())
            s.apply_action(rng.choice(s.legal_actions()))
        return 100

    return step


def one_core_vecenv(batch: int, game: str, seconds: float) -> float:
    """The VecEnv row in a child process limited to one worker thread."""
    code = (
        "import sys; sys.argv=['x'];"
        "from python_env_bench import timed, vecenv;"
        f"print(timed(vecenv({batch}, '{game}', False), {seconds}))"
    )
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.abspath(__file__)), check=True)
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=1024, help="games in the VecEnv (default 1024)")
    ap.add_argument("--seconds", type=float, default=5.0, help="time per row (default 5)")
    ap.add_argument("--game", default="damone", choices=damone.GAMES, help="damone's game for its rows")
    a = ap.parse_args()

    rows = [
        (f"damone VecEnv, batch {a.batch}, all cores", timed(vecenv(a.batch, a.game, False), a.seconds)),
        (f"damone VecEnv, batch {a.batch}, 1 thread", one_core_vecenv(a.batch, a.game, a.seconds)),
        (f"damone VecEnv, batch {a.batch}, action drawn in NumPy", timed(vecenv(a.batch, a.game, True), a.seconds)),
        ("damone Game, Python loop", timed(python_loop(a.game, False), a.seconds)),
        ("damone Game, Python loop + observation() and action_mask()", timed(python_loop(a.game, True), a.seconds)),
        ("damone PettingZoo AEC env", timed(pettingzoo_loop(a.game), a.seconds)),
    ]
    try:
        rows.append(("OpenSpiel checkers, Python API", timed(openspiel_loop(False), a.seconds)))
        rows.append(("OpenSpiel checkers, Python API + observation_tensor", timed(openspiel_loop(True), a.seconds)))
    except ImportError:
        print("(open_spiel is not installed: its rows are left out)", file=sys.stderr)
    base = rows[-1][1] if len(rows) > 6 else rows[4][1]
    print(f"{a.game}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"damone {damone.__version__}, {a.seconds:g} s per row\n")
    print("| stepping | plies/s | vs the last row |")
    print("| --- | ---: | ---: |")
    for name, rate in rows:
        print(f"| {name} | {rate:,.0f} | {rate / base:,.1f}x |")


if __name__ == "__main__":
    main()
