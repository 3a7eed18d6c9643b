"""Damone and Italian draughts as a PettingZoo AEC environment.

    from damone.pettingzoo import env
    e = env(game="damone")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else \\
            e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are "player_0" (White) and "player_1" (Black), as in PettingZoo's
classic games. An observation is a dict: "observation", the network's
input planes seen by the agent (float32, planes x 8 x 8), and
"action_mask", the legal actions (int8, POLICY_SIZE). Rewards are +1,
-1 or 0 at the end; a game ended by the game's rules is a termination, one
cut at `truncate_plies` a truncation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._damone import POLICY_SIZE, Game

AGENTS = ["player_0", "player_1"]


def env(**kwargs: Any) -> AECEnv:
    """The environment inside PettingZoo's usual order-enforcing wrappers."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):
    """One game of Damone or Italian draughts between two agents."""

    metadata = {"render_modes": ["ansi", "human"], "name": "damone_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str = "damone",
        variant: str | None = None,
        inputs: str = "basic",
        truncate_plies: int = 0,
        no_progress_plies: int = 80,
        max_plies: int = 400,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._settings = dict(game=game, variant=variant, no_progress_plies=no_progress_plies, max_plies=max_plies)
        self._game = Game(**self._settings)
        self._inputs = inputs
        self._truncate_plies = truncate_plies
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        shape = self._game.observation(inputs).shape
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (POLICY_SIZE,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(POLICY_SIZE) for a in AGENTS}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = AGENTS.index(agent)
        mask = np.zeros(POLICY_SIZE, dtype=np.int8)
        if player == self._game.current_player and not self._game.is_over():
            mask[self._game.legal_actions()] = 1
        return {"observation": self._game.observation(self._inputs, player), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._game = Game(**self._settings)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._game.current_player]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._game.play_action(int(action))
        self.rewards = {a: 0.0 for a in AGENTS}
        if self._game.is_over():
            white, black = self._game.returns()
            self.rewards = {AGENTS[0]: white, AGENTS[1]: black}
            self.terminations = {a: True for a in AGENTS}
        elif self._truncate_plies and self._game.ply >= self._truncate_plies:
            self.truncations = {a: True for a in AGENTS}
        self.agent_selection = AGENTS[self._game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = str(self._game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    @property
    def game(self) -> Game:
        """The game being played."""
        return self._game
