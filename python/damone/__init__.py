"""damone: Damone and Italian draughts from Python.

The rules, the vectorised environment, the search and the players are
damone's Rust library (the native module ``damone._damone``); this package
adds the PettingZoo environment (``damone.pettingzoo``) and the OpenSpiel
games (``damone.openspiel``).

Quick start::

    import damone
    g = damone.Game()                    # Damone's start position
    g.legal_moves()                      # ['a3-b4', ...]
    g.play("c3-d4")
    env = damone.VecEnv(1024, seed=1)    # 1,024 games stepped together
    obs, info = env.reset()
    mask = info["action_mask"]           # legal actions, 1,024 x POLICY_SIZE
"""

from ._damone import (
    ENCODING_VERSION,
    GAMES,
    POLICY_SIZE,
    DamoneError,
    Game,
    MatchResult,
    Outcome,
    Player,
    SearchResult,
    VecEnv,
    perft,
    play_match,
    read_samples,
    search,
)

__all__ = [
    "ENCODING_VERSION",
    "GAMES",
    "POLICY_SIZE",
    "DamoneError",
    "Game",
    "MatchResult",
    "Outcome",
    "Player",
    "SearchResult",
    "VecEnv",
    "perft",
    "play_match",
    "read_samples",
    "search",
]
__version__ = "0.1.0"
