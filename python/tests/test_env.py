"""The vectorised environment's invariants on random play, its seeding,
truncation, and bad actions refused without a change."""

from __future__ import annotations

import numpy as np
import pytest

import damone


@pytest.mark.parametrize("game", damone.GAMES)
def test_invariants_on_random_play(game):
    n = 64
    env = damone.VecEnv(n, game, seed=4, opening_plies=2, max_plies=150)
    obs, info = env.reset()
    assert obs.shape == (n, *env.observation_shape) and obs.dtype == np.float32
    assert info["action_mask"].shape == (n, damone.POLICY_SIZE)
    finished = decided = 0
    for step in range(400):
        mask = info["action_mask"]
        for i in range(0, n, 9):
            g = env.game_at(i)
            # The mask, the side to move and the planes are the game's own.
            assert sorted(np.flatnonzero(mask[i])) == sorted(g.legal_actions())
            assert info["to_play"][i] == g.current_player
            assert (obs[i] == g.observation()).all()
        actions = env.sample_actions()
        assert mask[np.arange(n), actions].all()
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert (rewards.sum(axis=1) == 0).all()
        assert (rewards[~terminated] == 0).all()
        assert not truncated.any()
        for i in np.flatnonzero(terminated):
            finished += 1
            decided += rewards[i, 0] != 0
            assert env.game_at(i).ply <= 2  # reset: a new game after its opening
        assert info["action_mask"].any(axis=1).all()
    assert finished > n and decided > 0


def test_same_seed_same_games_and_reset_reseeds():
    def trajectory(env, steps=50):
        out = []
        obs, _ = env.reset(seed=11)
        for _ in range(steps):
            obs, rewards, *_ = env.step(env.sample_actions())
            out.append((obs.copy(), rewards.copy()))
        return out

    a = trajectory(damone.VecEnv(8, opening_plies=3))
    b = trajectory(damone.VecEnv(8, opening_plies=3, seed=99))
    assert all((x[0] == y[0]).all() and (x[1] == y[1]).all() for x, y in zip(a, b))
    env = damone.VecEnv(8, opening_plies=3)
    env.reset(seed=12)
    first = env.game_at(0).setup
    env.reset(seed=12)
    assert env.game_at(0).setup == first


def test_truncation_cuts_at_the_limit():
    env = damone.VecEnv(4, truncate_plies=10)
    env.reset()
    for ply in range(1, 11):
        _, rewards, terminated, truncated, _ = env.step(env.sample_actions())
        if ply < 10:
            assert not truncated.any()
    assert truncated.all() and not terminated.any() and (rewards == 0).all()
    assert all(env.game_at(i).ply == 0 for i in range(4))


def test_bad_actions_change_nothing():
    env = damone.VecEnv(3)
    env.reset()
    before = [env.game_at(i).setup for i in range(3)]
    actions = env.sample_actions()
    bad = actions.copy()
    bad[1] = np.flatnonzero(~env.action_mask[1])[0]
    with pytest.raises(damone.DamoneError, match="game 1"):
        env.step(bad)
    with pytest.raises(damone.DamoneError, match="expected 3 actions"):
        env.step(actions[:2])
    with pytest.raises(damone.DamoneError, match="not a legal move"):
        env.step(np.array([-1, 0, 70000]))
    assert [env.game_at(i).setup for i in range(3)] == before
    env.step(actions)
    with pytest.raises(damone.DamoneError, match="num_envs"):
        damone.VecEnv(0)
    with pytest.raises(damone.DamoneError, match="out of range"):
        env.game_at(3)


def test_a_setup_start_and_draughts_inputs():
    env = damone.VecEnv(2, "italian", setup="W:W21-32:B1-12", inputs="draughts")
    obs, info = env.reset()
    assert obs.shape == (2, 19, 8, 8)
    assert info["action_mask"].sum(axis=1).tolist() == [7, 7]


def test_actions_of_any_integer_type():
    env = damone.VecEnv(2)
    env.reset()
    actions = env.sample_actions()
    env.step(actions.astype(np.int32))
    env.step([int(a) for a in env.sample_actions()])
    with pytest.raises(damone.DamoneError, match="integers"):
        env.step(env.sample_actions().astype(np.float64))
    with pytest.raises(damone.DamoneError, match="one-dimensional"):
        env.step(env.sample_actions()[None])
