"""The games registered with OpenSpiel pass its random simulation test."""

from __future__ import annotations

import pytest

import damone

from conftest import require_or_skip

try:
    import pyspiel
except ImportError:
    pyspiel = None


@pytest.mark.parametrize("game_name", damone.GAMES)
def test_openspiel_random_simulation(game_name):
    if pyspiel is None:
        require_or_skip("open_spiel is not installed (pip install damone[openspiel])")
    import damone.openspiel  # registers the games

    name = damone.openspiel.SHORT_NAMES[game_name]
    assert name in {"python_damone", "python_italian_draughts", "python_dameo"}
    assert name in pyspiel.registered_names()
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    assert len(state.observation_tensor(0)) == 9 * 64
