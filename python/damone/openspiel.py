"""damone's games as OpenSpiel games (needs ``open_spiel``).

Importing this module registers every game of ``damone.GAMES`` with
pyspiel as ``python_`` and its title in snake case (``python_damone``,
``python_italian_draughts``, ``python_dameo``; :data:`SHORT_NAMES`), so
that OpenSpiel's algorithms and test harnesses can load them::

    import pyspiel
    import damone.openspiel
    game = pyspiel.load_game("python_damone")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])

Actions are damone's policy indices (POLICY_SIZE of them), the
observation tensor is the network's basic input planes seen by the
player asked for, and the game ends with damone's rules (no moves, the
repetition and no-progress draws, the game-length cap).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ._damone import GAME_TITLES, GAMES, POLICY_SIZE, Game

_PLANES = 9


def _game_type(short: str, long: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short,
        long_name=long,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )


def _game_info(max_plies: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=POLICY_SIZE,
        max_chance_outcomes=0,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=max_plies,
    )


class DamoneState(pyspiel.State):
    """A state: a damone ``Game`` (position and history)."""

    def __init__(self, game: pyspiel.Game, kind: str) -> None:
        super().__init__(game)
        self.game_state = Game(kind)

    def current_player(self) -> int:
        if self.game_state.is_over():
            return pyspiel.PlayerId.TERMINAL
        return self.game_state.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.game_state.legal_actions())

    def _apply_action(self, action: int) -> None:
        self.game_state.play_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.game_state.action_to_move(action)

    def is_terminal(self) -> bool:
        return self.game_state.is_over()

    def returns(self) -> list[float]:
        return list(self.game_state.returns())

    def __str__(self) -> str:
        return self.game_state.setup


class DamoneObserver:
    """The basic input planes of the state, seen by the player asked for."""

    def __init__(self, params: dict | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.tensor = np.zeros(_PLANES * 64, np.float32)
        self.dict = {"observation": self.tensor.reshape(_PLANES, 8, 8)}

    def set_from(self, state: DamoneState, player: int) -> None:
        self.tensor[:] = state.game_state.observation("basic", player).reshape(-1)

    def string_from(self, state: DamoneState, player: int) -> str:
        return f"{state.game_state.setup} {' '.join(state.game_state.moves)}"


def _load_registered(short: str) -> pyspiel.Game:
    """The registered game of that short name (the unpickling of a game)."""
    return pyspiel.load_game(short)


def _register(kind: str, short: str, long: str, max_plies: int = 400) -> type:
    game_type = _game_type(short, long)
    game_info = _game_info(max_plies)

    class _Game(pyspiel.Game):
        def __init__(self, params: dict | None = None) -> None:
            super().__init__(game_type, game_info, params or {})

        def new_initial_state(self) -> DamoneState:
            return DamoneState(self, kind)

        def make_py_observer(self, iig_obs_type=None, params=None) -> DamoneObserver:
            return DamoneObserver(params)

        def __reduce__(self):
            # Unpickling imports this module, which registers the games: a
            # process spawned by OpenSpiel (its AlphaZero's actors) loads the
            # game without importing damone.openspiel itself.
            return (_load_registered, (short,))

    _Game.__name__ = _Game.__qualname__ = f"{kind.capitalize()}Game"
    pyspiel.register_game(game_type, _Game)
    return _Game


#: The pyspiel short name of each of damone's games, by damone's name.
SHORT_NAMES = {kind: "python_" + GAME_TITLES[kind].lower().replace(" ", "_") for kind in GAMES}

#: The registered game class of each of damone's games, by damone's name.
GAME_CLASSES = {
    kind: _register(kind, SHORT_NAMES[kind], f"Python {GAME_TITLES[kind]} (damone's Rust rules)") for kind in GAMES
}
