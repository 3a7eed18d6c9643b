"""damone: Damone and Italian draughts from Python.

The rules, the vectorised environment, the search and the players are
damone's Rust library (the native module ``damone._damone``); this package
adds the PettingZoo environment (``damone.pettingzoo``) and the OpenSpiel
games (``damone.openspiel``).

Quick start::

    import damone
    g = damone.Game()                    # Damone's start position
    g.legal_moves()                      # ['f1-g2', 'd1-c2', ...]
    g.play("f3-e4")
    env = damone.VecEnv(1024, seed=1)    # 1,024 games stepped together
    obs, info = env.reset()
    mask = info["action_mask"]           # legal actions, 1,024 x POLICY_SIZE
"""

from . import _damone
from ._damone import *  # noqa: F401,F403  (the names of _damone.__all__)

__all__ = list(_damone.__all__)
__version__ = "0.1.0"
