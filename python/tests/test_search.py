"""MCTS with a Python callable as the evaluator."""

from __future__ import annotations

import numpy as np
import pytest

import damone


def uniform(observations, mask):
    n = observations.shape[0]
    return np.zeros((n, damone.POLICY_SIZE), np.float32), np.zeros(n, np.float32)


def test_search_with_a_callable():
    g = damone.Game()
    calls = []

    def evaluator(observations, mask):
        calls.append(observations.shape[0])
        assert observations.shape[1:] == (9, 8, 8) and mask.shape[1] == damone.POLICY_SIZE
        return uniform(observations, mask)

    r = damone.search(g, evaluator, simulations=64, batch_size=4)
    assert r.best in g.legal_moves()
    assert sorted(r.moves) == sorted(g.legal_moves())
    assert r.actions == [g.move_to_action(m) for m in r.moves]
    assert sum(r.visits) >= 60 and r.simulations >= 60
    assert np.allclose(r.priors, 1 / 8)
    assert abs(sum(r.policy) - 1) < 1e-5
    assert r.policy_array().shape == (damone.POLICY_SIZE,)
    assert max(calls) <= 4 and sum(calls) >= 16


def test_priors_follow_the_logits_and_wdl_values_are_read():
    g = damone.Game()
    favourite = g.legal_actions()[3]

    def evaluator(observations, mask):
        logits = np.zeros((observations.shape[0], damone.POLICY_SIZE))
        logits[:, favourite] = 5.0
        return logits, np.tile([0.6, 0.3, 0.1], (observations.shape[0], 1))

    r = damone.search(g, evaluator, simulations=32)
    p = dict(zip(r.actions, r.priors))
    assert p[favourite] > 0.9
    assert r.best == g.action_to_move(favourite)


def test_the_search_sees_a_won_ending():
    # The capture of Black's last piece wins: the search's value says so
    # although the evaluator calls every position a draw.
    g = damone.Game(setup="W:Wd3:Be4")
    r = damone.search(g, uniform, simulations=20)
    assert r.best == "d3xf5" and r.wdl[0] > 0.9


def test_evaluator_errors_are_raised():
    g = damone.Game()

    def broken(observations, mask):
        raise RuntimeError("evaluator broke")

    with pytest.raises(RuntimeError, match="evaluator broke"):
        damone.search(g, broken, simulations=8)
    with pytest.raises(damone.DamoneError, match="expected"):
        damone.search(g, lambda o, m: (np.zeros((1, 5)), np.zeros(1)), simulations=8)
    with pytest.raises(damone.DamoneError, match="return"):
        damone.search(g, lambda o, m: 3, simulations=8)
    with pytest.raises(damone.DamoneError, match="callable"):
        damone.search(g, 42)
    with pytest.raises(damone.DamoneError, match="algorithm"):
        damone.search(g, uniform, algorithm="minimax")
    finished = damone.Game(setup="B:Wf5:B")
    with pytest.raises(damone.DamoneError, match="over"):
        damone.search(finished, uniform)
