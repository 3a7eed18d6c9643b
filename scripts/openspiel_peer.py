#!/usr/bin/env python3
"""OpenSpiel's AlphaZero on a damone game, and its trained bot against damone.

Two commands, run by scripts/openspiel-peer.sh inside the pinned OpenSpiel
environment (docs/peers.md):

  train  OpenSpiel's own trainer (open_spiel.python.algorithms.alpha_zero)
         on damone's game through damone.openspiel, for a wall time, as
         shipped or with compiled inference (--compiled).
  match  the trained OpenSpiel MCTS bot against a damone player spec run
         by `damone engine` in its own process, at equal time per move,
         from openings of random plies played with both colours; every
         move is checked legal by damone's rules.

Importing damone.openspiel here registers the games in this process and in
every process OpenSpiel spawns (each child imports this file again).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import random
import signal
import subprocess
import sys
import time

import damone
import damone.openspiel  # noqa: F401  (registers python_damone, ... with pyspiel)
import numpy as np

# The settings of the peer run and why each was chosen (docs/peers.md).
TRAIN_SETTINGS = {
    # The nnx API: the example's default, linen, was 3-4x slower per call here.
    "nn_api_version": "nnx",
    # The MLP: OpenSpiel's conv and ResNet models read the last observation
    # axis as channels, while its observations are channels-first.
    "nn_model": "mlp",
    # The example's width and depth.
    "nn_width": 256,
    "nn_depth": 2,
    # The example's search and exploration settings.
    "max_simulations": 40,
    "uct_c": 1.41,
    "policy_alpha": 1.0,
    "policy_epsilon": 0.25,
    "temperature": 1.0,
    # The example's 2 is for tic-tac-toe's short games ("less than AZ due to
    # short games"); draughts games last about a hundred plies.
    "temperature_drop": 20,
    # The example's learner settings, with a window twice its size for
    # longer games.
    "train_batch_size": 128,
    "replay_buffer_size": 2**14,
    "replay_buffer_reuse": 4,
    "learning_rate": 1e-3,
    "weight_decay": 1e-4,
    "decouple_weight_decay": False,
    "checkpoint_freq": 25,
    # One actor per core given; no evaluator process, so that the core
    # trains (an evaluator only plays rating games against rollout MCTS).
    "evaluators": 0,
    "evaluation_window": 50,
    "eval_levels": 7,
}


def _patch_compiled_inference() -> None:
    """The fair change: the same forward pass compiled once with jax.jit.

    As shipped, Model.inference runs the flax model op by op on every call
    and the evaluator empties jax's compilation caches on every checkpoint;
    here the forward pass is one compiled function of the weights (new
    weights need no new compilation), its outputs are NumPy arrays, and a
    checkpoint reload empties only the evaluator's own position cache.
    """
    import jax
    import jax.numpy as jnp
    from flax import nnx
    from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib
    from open_spiel.python.algorithms.alpha_zero import model_nnx

    @functools.partial(jax.jit, static_argnums=0)
    def forward(graphdef, params, batch_stats, observation, legals_mask):
        model = nnx.merge(graphdef, params, batch_stats)
        model.eval()
        logits, value = model(observation)
        logits = jnp.where(legals_mask, logits, jnp.finfo(jnp.float32).min)
        return value, nnx.softmax(logits)

    def inference(self, observation, legals_mask):
        state = self._state
        value, policy = forward(
            state.graphdef,
            state.params,
            state.batch_stats,
            jnp.asarray(observation, dtype=jnp.float32),
            jnp.asarray(legals_mask, dtype=jnp.bool_),
        )
        return np.asarray(value), np.asarray(policy)

    def clear_cache(self):
        self._cache.clear()

    model_nnx.Model.inference = inference
    evaluator_lib.AlphaZeroEvaluator.clear_cache = clear_cache


def _patch_inference_counter(folder: str) -> None:
    """Counts the network calls of each process and the seconds they take,
    written every 2,000 calls to FOLDER/inference-PID.json (the profile of
    where an actor spends its time)."""
    from open_spiel.python.algorithms.alpha_zero import model_nnx

    inner = model_nnx.Model.inference
    totals = {"calls": 0, "seconds": 0.0, "started": time.time()}
    path = os.path.join(folder, f"inference-{os.getpid()}.json")

    def counted(self, observation, legals_mask):
        start = time.perf_counter()
        answer = inner(self, observation, legals_mask)
        totals["seconds"] += time.perf_counter() - start
        totals["calls"] += 1
        if totals["calls"] % 2000 == 0:
            totals["wall"] = time.time() - totals["started"]
            with open(path + ".tmp", "w") as out:
                json.dump(totals, out)
            os.replace(path + ".tmp", path)
        return answer

    model_nnx.Model.inference = counted


def _patch_update_counter(totals: dict) -> None:
    """Counts the learner's training steps (batches) and their seconds."""
    from open_spiel.python.algorithms.alpha_zero import model_nnx

    inner = model_nnx.Model.update

    def counted(self, batch):
        start = time.perf_counter()
        losses = inner(self, batch)
        totals["updates"] += 1
        totals["update_seconds"] += time.perf_counter() - start
        return losses

    model_nnx.Model.update = counted


def _apply_patches_from_environment() -> None:
    """Spawned children take the parent's choices through the environment."""
    if os.environ.get("DAMONE_PEER_COMPILED") == "1":
        _patch_compiled_inference()
    folder = os.environ.get("DAMONE_PEER_FOLDER")
    if folder:
        _patch_inference_counter(folder)


_apply_patches_from_environment()


def train(args: argparse.Namespace) -> None:
    from open_spiel.python.algorithms.alpha_zero import alpha_zero
    from open_spiel.python.utils import spawn

    os.makedirs(args.out, exist_ok=True)
    if os.listdir(args.out):
        sys.exit(f"error: {args.out} is not empty; give a new folder")
    os.environ["DAMONE_PEER_COMPILED"] = "1" if args.compiled else "0"
    os.environ["DAMONE_PEER_FOLDER"] = os.path.abspath(args.out)
    _apply_patches_from_environment()
    totals = {"updates": 0, "update_seconds": 0.0}
    _patch_update_counter(totals)
    settings = dict(TRAIN_SETTINGS, actors=args.actors, max_steps=0)
    config = alpha_zero.Config(
        game=damone.openspiel.SHORT_NAMES[args.game],
        path=os.path.abspath(args.out),
        observation_shape=None,
        output_size=None,
        quiet=True,
        verbose=False,
        **settings,
    )

    def stop(_signum, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(int(args.minutes * 60))
    started = time.time()
    with spawn.main_handler():
        alpha_zero.alpha_zero(config)
    summary = dict(
        totals,
        game=args.game,
        compiled=args.compiled,
        actors=args.actors,
        minutes=args.minutes,
        wall_seconds=time.time() - started,
        settings=settings,
    )
    with open(os.path.join(args.out, "peer-summary.json"), "w") as out:
        json.dump(summary, out, indent=2)
    print(json.dumps(summary))


class Engine:
    """`damone engine` in its own process, spoken to line by line."""

    def __init__(self, binary: str, spec: str, game: str) -> None:
        self.process = subprocess.Popen(
            [binary, "engine", "--player", spec, "--game", game],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.ask("hello", "ready")

    def ask(self, line: str, last: str) -> list[str]:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = []
        while True:
            reply = self.process.stdout.readline()
            if not reply:
                raise RuntimeError(f"damone engine ended after {line!r}")
            reply = reply.strip()
            answer.append(reply)
            if reply.startswith("error"):
                raise RuntimeError(f"damone engine answered {reply!r} to {line!r}")
            if reply.startswith(last):
                return answer

    def best_move(self, moves: list[str], movetime_ms: int) -> str:
        position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        self.ask(position, "ok")
        return self.ask(f"go time {movetime_ms}", "bestmove")[-1].split()[1]

    def close(self) -> None:
        self.process.stdin.write("quit\n")
        self.process.stdin.close()
        self.process.wait(timeout=30)


class OpenSpielBot:
    """A trained OpenSpiel AlphaZero bot, its simulations set each move so
    that its average time per move matches the budget."""

    def __init__(self, run: str, checkpoint: int, pyspiel_game, training_noise: bool = False) -> None:
        from open_spiel.python.algorithms import mcts
        from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib
        from open_spiel.python.algorithms.alpha_zero import utils

        run = os.path.abspath(run)  # orbax reads absolute checkpoint paths only
        with open(os.path.join(run, "config.json")) as file:
            config = json.load(file)
        model = utils.api_selector(config["nn_api_version"]).Model.build_model(
            config["nn_model"],
            config["observation_shape"],
            config["output_size"],
            config["nn_width"],
            config["nn_depth"],
            config["weight_decay"],
            config["learning_rate"],
            run,
        )
        model.load_checkpoint(checkpoint)
        evaluator = evaluator_lib.AlphaZeroEvaluator(pyspiel_game, model)
        self.bot = mcts.MCTSBot(
            pyspiel_game,
            config["uct_c"],
            config["max_simulations"],
            evaluator,
            solve=False,
            # An actor's root noise where it plays as in training (profile).
            dirichlet_noise=(config["policy_epsilon"], config["policy_alpha"]) if training_noise else None,
            child_selection_fn=mcts.SearchNode.puct_value,
            dont_return_chance_node=True,
        )
        self.seconds_per_simulation = None

    def step(self, state, movetime_ms: int) -> int:
        if self.seconds_per_simulation is None:
            self.bot.max_simulations = 20
        else:
            wanted = movetime_ms / 1000 / self.seconds_per_simulation
            self.bot.max_simulations = max(2, int(wanted))
        start = time.perf_counter()
        action = self.bot.step(state)
        spent = time.perf_counter() - start
        measured = spent / self.bot.max_simulations
        old = self.seconds_per_simulation
        self.seconds_per_simulation = measured if old is None else 0.7 * old + 0.3 * measured
        return action


def _opening(game: str, plies: int, rng: random.Random) -> list[str]:
    """Random legal plies from the start, none ending the game."""
    while True:
        position = damone.Game(game)
        for _ in range(plies):
            position.play(rng.choice(sorted(position.legal_moves())))
            if position.is_over():
                break
        if not position.is_over():
            return list(position.moves)


def _play_one(
    game: str,
    opening: list[str],
    openspiel_side: int,
    bot: OpenSpielBot,
    engine: Engine,
    movetime_ms: int,
    times: dict,
) -> float:
    """One game; returns damone's score (1, 0.5 or 0)."""
    pyspiel_game = bot.bot._game
    state = pyspiel_game.new_initial_state()
    for move in opening:
        state.apply_action(state.game_state.move_to_action(move))
    while not state.is_terminal():
        legal = set(state.game_state.legal_moves())
        if state.current_player() == openspiel_side:
            start = time.perf_counter()
            action = bot.step(state, movetime_ms)
            times["openspiel"].append(time.perf_counter() - start)
            if action not in state.legal_actions():
                raise RuntimeError(f"OpenSpiel's bot played an illegal action {action}")
        else:
            start = time.perf_counter()
            move = engine.best_move(list(state.game_state.moves), movetime_ms)
            times["damone"].append(time.perf_counter() - start)
            if move not in legal:
                raise RuntimeError(f"damone played an illegal move {move} (legal: {sorted(legal)})")
            action = state.game_state.move_to_action(move)
        state.apply_action(action)
    damone_side = 1 - openspiel_side
    return (state.returns()[damone_side] + 1) / 2


def match(args: argparse.Namespace) -> None:
    import pyspiel

    if args.games % 2:
        sys.exit("error: --games must be even (each opening is played with both colours)")
    # The bot plays with the compiled forward pass whatever its run used:
    # the same weights, and the most simulations its time allows.
    _patch_compiled_inference()
    pyspiel_game = pyspiel.load_game(damone.openspiel.SHORT_NAMES[args.game])
    bot = OpenSpielBot(args.run, args.checkpoint, pyspiel_game)
    engine = Engine(args.damone, args.opponent, args.game)
    rng = random.Random(args.seed)
    scores, times = [], {"openspiel": [], "damone": []}
    try:
        for pair in range(args.games // 2):
            opening = _opening(args.game, args.opening_plies, rng)
            for openspiel_side in (0, 1):
                scores.append(_play_one(args.game, opening, openspiel_side, bot, engine, args.movetime, times))
            wins = sum(s == 1 for s in scores)
            draws = sum(s == 0.5 for s in scores)
            print(f"{len(scores)} games: damone {wins}-{draws}-{len(scores) - wins - draws}", file=sys.stderr)
    finally:
        engine.close()
    summary = _summary(args, scores, times)
    with open(args.out, "w") as out:
        json.dump(summary, out, indent=2)
    print(json.dumps({k: v for k, v in summary.items() if k != "scores"}))


def _summary(args: argparse.Namespace, scores: list[float], times: dict) -> dict:
    n = len(scores)
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1))
    return {
        "game": args.game,
        "openspiel_run": args.run,
        "damone_player": args.opponent,
        "movetime_ms": args.movetime,
        "games": n,
        "damone_wins": sum(s == 1 for s in scores),
        "draws": sum(s == 0.5 for s in scores),
        "damone_losses": sum(s == 0 for s in scores),
        "damone_score": mean,
        "interval_95": 1.96 * sd / math.sqrt(n),
        "mean_seconds_per_move": {side: sum(t) / len(t) for side, t in times.items() if t},
        "seed": args.seed,
        "opening_plies": args.opening_plies,
        "scores": scores,
    }


def profile(args: argparse.Namespace) -> None:
    """Self-play moves as an actor makes them (the run's bot, its training
    simulations and noise), under cProfile: where the time goes."""
    import cProfile
    import pstats

    import pyspiel

    if args.compiled:
        _patch_compiled_inference()
    game = pyspiel.load_game(damone.openspiel.SHORT_NAMES[args.game])
    bot = OpenSpielBot(args.run, -1, game, training_noise=True).bot
    state, moves = game.new_initial_state(), 0
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    while moves < args.moves:
        if state.is_terminal():
            state = game.new_initial_state()
        state.apply_action(bot.step(state))
        moves += 1
    profiler.disable()
    seconds = time.perf_counter() - started
    print(f"{moves} moves in {seconds:.1f} s: {moves / seconds:.2f} states a second")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser("train", help="train OpenSpiel's AlphaZero on a damone game for a wall time")
    t.add_argument("--game", choices=damone.GAMES, default="damone")
    t.add_argument("--out", required=True, help="a new folder for its checkpoints and logs")
    t.add_argument("--minutes", type=float, default=60.0, help="wall time of the run")
    t.add_argument("--actors", type=int, default=1, help="actor processes (one per core given)")
    t.add_argument("--compiled", action="store_true", help="the fair change: jax.jit inference")
    m = commands.add_parser("match", help="the trained bot against a damone player at equal time")
    m.add_argument("--game", choices=damone.GAMES, default="damone")
    m.add_argument("--run", required=True, help="the OpenSpiel run's folder")
    m.add_argument("--checkpoint", type=int, default=-1, help="its checkpoint step (-1: the latest)")
    m.add_argument("--opponent", required=True, help="a damone player spec (a run folder, alphabeta:eval=...)")
    m.add_argument("--damone", default="target/release/damone", help="the damone binary")
    m.add_argument("--games", type=int, default=100)
    m.add_argument("--movetime", type=int, default=100, help="milliseconds a move, each side")
    m.add_argument("--opening-plies", type=int, default=4, help="random plies before the match's moves")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--out", required=True, help="the match's JSON summary")
    p = commands.add_parser("profile", help="self-play moves of the trained bot under cProfile")
    p.add_argument("--game", choices=damone.GAMES, default="damone")
    p.add_argument("--run", required=True, help="the OpenSpiel run's folder")
    p.add_argument("--moves", type=int, default=300)
    p.add_argument("--top", type=int, default=25, help="functions listed, by own time")
    p.add_argument("--compiled", action="store_true", help="with the fair change's compiled inference")
    args = parser.parse_args()
    {"train": train, "match": match, "profile": profile}[args.command](args)


if __name__ == "__main__":
    main()
