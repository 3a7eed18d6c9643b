"""OpenSpiel's own AlphaZero trainer drives damone's game (docs/peers.md).

A short run of open_spiel.python.algorithms.alpha_zero on python_damone:
its actor is a spawned process that receives the game by pickling, so the
game must load there without the test importing anything for it; the run
trains two steps, and its checkpoint plays a legal move through OpenSpiel's
MCTS bot.
"""

from __future__ import annotations

import json
import math

import damone

from conftest import require_or_skip

try:
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.alpha_zero import alpha_zero
    from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib
    from open_spiel.python.algorithms.alpha_zero import utils
    import pyspiel
except ImportError as error:
    alpha_zero = None
    import_error = error


def _tiny_config(path: str):
    return alpha_zero.Config(
        game="python_damone",
        path=path,
        learning_rate=1e-3,
        weight_decay=1e-4,
        decouple_weight_decay=False,
        train_batch_size=16,
        replay_buffer_size=64,
        replay_buffer_reuse=1,
        max_steps=2,
        checkpoint_freq=1,
        actors=1,
        evaluators=0,
        evaluation_window=4,
        eval_levels=2,
        uct_c=1.4,
        max_simulations=2,
        policy_alpha=1.0,
        policy_epsilon=0.25,
        temperature=1.0,
        temperature_drop=10,
        nn_model="mlp",
        nn_width=16,
        nn_depth=1,
        observation_shape=None,
        output_size=None,
        verbose=False,
        quiet=True,
        nn_api_version="nnx",
    )


def test_openspiel_alpha_zero_trains_on_damone_and_its_bot_plays(tmp_path):
    if alpha_zero is None:
        require_or_skip(
            f"OpenSpiel's AlphaZero cannot be imported ({import_error}); "
            "pip install open-spiel==2.0.2 jax==0.8.1 jaxlib==0.8.1 flax==0.12.1 optax==0.2.6 chex==0.1.91"
        )
    import damone.openspiel  # registers the games in this process only

    alpha_zero.alpha_zero(_tiny_config(str(tmp_path)))

    steps = [json.loads(line) for line in (tmp_path / "learner.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps] == [1, 2]
    assert steps[-1]["total_states"] >= 64
    assert all(math.isfinite(s["loss"]["sum"]) and s["loss"]["sum"] > 0 for s in steps)

    with open(tmp_path / "config.json") as file:
        config = json.load(file)
    assert config["observation_shape"] == [9, 8, 8]
    assert config["output_size"] == damone.POLICY_SIZE
    game = pyspiel.load_game("python_damone")
    model = utils.api_selector("nnx").Model.build_model(
        "mlp", config["observation_shape"], config["output_size"], 16, 1, 1e-4, 1e-3, str(tmp_path)
    )
    model.load_checkpoint(2)
    bot = mcts.MCTSBot(
        game,
        1.4,
        8,
        evaluator_lib.AlphaZeroEvaluator(game, model),
        solve=False,
        dirichlet_noise=None,
        child_selection_fn=mcts.SearchNode.puct_value,
        dont_return_chance_node=True,
    )
    state = game.new_initial_state()
    action = bot.step(state)
    assert action in state.legal_actions()
    assert state.action_to_string(0, action) in damone.Game("damone").legal_moves()
