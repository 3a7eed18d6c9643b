"""Players: the built-in kinds, a trained player file and checkpoint
loaded and asked for moves and analyses, matches against the alpha-beta
ladder."""

from __future__ import annotations

import numpy as np
import pytest

import damone


def test_alphabeta_chooses_legal_moves_and_beats_random():
    g = damone.Game()
    p = damone.Player("alphabeta:depth=2")
    assert p.game == "damone" and not p.is_network
    assert p.choose(g) in g.legal_moves()
    r = damone.play_match("alphabeta:depth=2", "random", games=6, seed=3)
    assert r.wins + r.draws + r.losses == 6 and len(r.pdn) == 6
    assert r.score >= 0.75, r
    assert 0 <= r.interval < 0.5
    it = damone.Player("alphabeta:depth=1", game="italian")
    assert it.choose(damone.Game("italian")) in damone.Game("italian").legal_moves()


def test_the_shipped_players_are_fixed_baselines_of_every_game():
    listed = damone.shipped_players()
    assert sorted({p["game"] for p in listed}) == sorted(damone.GAMES)
    for info in listed:
        kind = info["kind"]
        expected = f"shipped:{info['game']}" + (",kind=net" if kind == "net" else "")
        assert info["spec"] == expected
        assert 50_000 < info["bytes"] < 1_000_000 and "%" in info["rating"]
        p = damone.Player.shipped(info["game"], movetime=5, kind=kind)
        assert p.game == info["game"] and p.is_network == (kind == "net")
        g = damone.Game(info["game"])
        assert p.choose(g) in g.legal_moves()
    # Without a kind, the game's stronger per second: the learned evaluation.
    assert not damone.Player.shipped("damone").is_network
    r = damone.play_match("shipped:italian,depth=3", "random", games=4, game="italian", seed=2)
    assert r.wins == 4, r
    with pytest.raises(damone.DamoneError, match="plays italian"):
        damone.Player("shipped:italian", game="dameo")
    with pytest.raises(damone.DamoneError, match="must be eval"):
        damone.Player.shipped("damone", kind="tree")


def test_a_player_file_is_loaded_and_asked_for_moves(trained):
    path = str(trained["player"])
    p = damone.Player(path)
    assert p.is_network and p.game == "damone"
    g = damone.Game()
    for _ in range(6):
        m = p.choose(g)
        assert m in g.legal_moves()
        g.play(m)
    # Same file, same seed: the same choice.
    g = damone.Game()
    assert damone.Player(path, seed=5).choose(g) == damone.Player(path, seed=5).choose(g)
    a = p.analyse(g, simulations=24)
    assert sum(a.visits) >= 20 and a.best in g.legal_moves()
    assert abs(sum(a.wdl) - 1) < 1e-4
    # The loaded network as the search's evaluator.
    r = damone.search(g, p, simulations=16)
    assert r.best in g.legal_moves() and abs(sum(r.priors) - 1) < 1e-4
    # A checkpoint folder and a run folder load too, and meet in a match.
    assert damone.Player(str(trained["checkpoint"])).is_network
    m = damone.play_match(f"net:{path},sims=8", "alphabeta:depth=1", games=2)
    assert m.wins + m.draws + m.losses == 2


def test_alphabeta_with_the_runs_learned_evaluation(trained):
    """The tiny run trained a learned evaluation at its last iteration; its
    run folder and its exported player file give it to alpha-beta."""
    g = damone.Game()
    for source in (trained["run"], trained["player"]):
        p = damone.Player(f"alphabeta:eval={source},depth=2")
        assert p.game == "damone" and not p.is_network
        assert p.choose(g) in g.legal_moves()
    m = damone.play_match(f"alphabeta:eval={trained['run']},depth=2", "random", games=2)
    assert m.wins + m.draws + m.losses == 2
    with pytest.raises(damone.DamoneError, match="italian"):
        damone.Player(f"alphabeta:eval={trained['player']}", game="italian")


def test_player_errors(trained):
    with pytest.raises(damone.DamoneError, match="unknown"):
        damone.Player("grandmaster")
    with pytest.raises(damone.DamoneError):
        damone.Player("net:/no/such/file.dmp")
    with pytest.raises(damone.DamoneError, match="italian"):
        damone.Player(str(trained["player"]), game="italian")
    p = damone.Player(str(trained["player"]))
    with pytest.raises(damone.DamoneError, match="italian"):
        p.choose(damone.Game("italian"))
    with pytest.raises(damone.DamoneError, match="not a network"):
        damone.Player("random").analyse(damone.Game())
    with pytest.raises(damone.DamoneError, match="games"):
        damone.play_match("random", "random", games=0)


def test_a_runs_samples_as_arrays(trained, tmp_path):
    data = damone.read_samples(str(trained["checkpoint"]))
    n = data["observations"].shape[0]
    assert n > 0 and data["game"] == "damone"
    assert data["observations"].shape == (n, 9, 8, 8)
    assert data["policy"].shape == data["action_mask"].shape == (n, damone.POLICY_SIZE)
    assert np.allclose(data["policy"].sum(axis=1), 1, atol=1e-4)
    assert (data["policy"][~data["action_mask"]] == 0).all()
    assert np.allclose(data["z"].sum(axis=1), 1, atol=1e-4)
    assert np.allclose(data["q"].sum(axis=1), 1, atol=1e-3)
    # The first sample's legal actions are its position's.
    g = damone.Game(setup=data["setups"][0])
    assert sorted(np.flatnonzero(data["action_mask"][0])) == sorted(g.legal_actions())
    # The run folder (its newest checkpoint) and the bare file read the same.
    assert damone.read_samples(str(trained["run"]))["observations"].shape[0] == n
    assert damone.read_samples(str(trained["checkpoint"] / "replay.bin"), inputs="draughts")["observations"].shape == (n, 19, 8, 8)
    bad = tmp_path / "garbage.bin"
    bad.write_bytes(b"not a replay file at all")
    with pytest.raises(damone.DamoneError, match="garbage.bin"):
        damone.read_samples(str(bad))
    with pytest.raises(damone.DamoneError, match="cannot read"):
        damone.read_samples(str(tmp_path / "missing.bin"))
