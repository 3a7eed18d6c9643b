"""damone's one list of games (``game_list!`` in the Rust crate), walked
through the Python package: every game it names is offered by every class
and function that takes a game, under its title."""

from __future__ import annotations

import pytest

import damone


def test_the_list_names_each_game_once_with_its_title():
    assert len(damone.GAMES) >= 3
    assert len(set(damone.GAMES)) == len(damone.GAMES)
    assert list(damone.GAME_TITLES) == damone.GAMES
    assert damone.GAME_TITLES["italian"] == "Italian draughts"


@pytest.mark.parametrize("game", damone.GAMES)
def test_every_class_plays_every_game(game):
    g = damone.Game(game)
    assert g.game == game and g.legal_moves()
    assert damone.perft(1, game=game) == len(g.legal_moves())
    env = damone.VecEnv(2, game, seed=1)
    assert env.game == game and env.game_at(0).game == game
    player = damone.Player("alphabeta:depth=1", game=game)
    assert player.game == game
    move = player.choose(g)
    assert move in g.legal_moves()
    g.play(move)
    assert g.ply == 1
