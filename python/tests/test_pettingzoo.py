"""The PettingZoo AEC environment passes PettingZoo's own API test."""

from __future__ import annotations

import numpy as np
import pytest

import damone

pettingzoo = pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install damone[pettingzoo])")
from pettingzoo.test import api_test  # noqa: E402

from damone.pettingzoo import env  # noqa: E402


@pytest.mark.parametrize("game", damone.GAMES)
def test_pettingzoo_api_test(game):
    api_test(env(game=game), num_cycles=500, verbose_progress=False)


def test_a_random_game_ends_with_opposite_rewards():
    e = env(max_plies=200)
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    totals = {a: 0.0 for a in e.possible_agents}
    steps = 0
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        totals[agent] += reward
        if termination or truncation:
            action = None
        else:
            assert obs["observation"].shape == (9, 8, 8)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            steps += 1
        e.step(action)
    assert steps > 10
    assert totals["player_0"] == -totals["player_1"]
