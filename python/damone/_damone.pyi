"""Type stubs of damone's native module (PyO3); see each docstring."""

from typing import Callable, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

GAMES: list[str]
"""The games' names, in display order (damone's one list of games)."""
GAME_TITLES: dict[str, str]
"""Each game's title by its name ("italian": "Italian draughts")."""
POLICY_SIZE: int
"""Number of actions: the network's policy index (4 slots x 32 x 32 dark
squares, or Dameo's 64 x 64 cells)."""
ENCODING_VERSION: int
"""Version of the input planes and the policy index."""

class DamoneError(ValueError):
    """Bad input (a setup string, a move, an action, a file, an option);
    the message says what to fix."""

@final
class Outcome:
    """The result of a finished game."""

    winner: Optional[str]
    """"white", "black", or None for a draw."""
    reason: str
    """no_moves, damone_lost, repetition, no_progress, max_plies, resignation or tablebase."""
    result: str
    """The PDN result: "1-0", "0-1" or "1/2-1/2"."""

@final
class Game:
    """A game of Damone or Italian draughts: its position, its history (for
    the draw rules), moves as text or as network actions, its input planes."""

    def __new__(
        cls,
        game: str = "damone",
        setup: Optional[str] = None,
        variant: Optional[str] = None,
        no_progress_plies: int = 80,
        max_plies: int = 400,
    ) -> "Game":
        """A new game from `setup` (the game's setup string), else the
        variant's start position. Raises DamoneError on bad input."""
    @property
    def game(self) -> str:
        """The game's name."""
    @property
    def variant(self) -> str:
        """The variant's name."""
    @property
    def setup(self) -> str:
        """The setup string of the current position."""
    @property
    def side_to_move(self) -> str:
        """"white" or "black"."""
    @property
    def current_player(self) -> int:
        """0 for White, 1 for Black."""
    @property
    def ply(self) -> int:
        """Plies played."""
    @property
    def moves(self) -> list[str]:
        """The moves played, as text."""
    def legal_moves(self) -> list[str]:
        """The legal moves as text."""
    def legal_actions(self) -> list[int]:
        """The action of each legal move, in the order of legal_moves()."""
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """POLICY_SIZE flags, true at the legal actions."""
    def action_to_move(self, action: int) -> str:
        """The text of a legal action; DamoneError if it is not legal."""
    def move_to_action(self, text: str) -> int:
        """The action of a move given as text; DamoneError if it is not legal."""
    def play(self, text: str) -> None:
        """Play a move given as text; DamoneError if it is not legal or the game is over."""
    def play_action(self, action: int) -> None:
        """Play a move given as an action; DamoneError if it is not legal or the game is over."""
    def undo(self) -> bool:
        """Take back the last move; False if there is none."""
    def outcome(self) -> Optional[Outcome]:
        """The result if the game is over, else None."""
    def is_over(self) -> bool:
        """True when the game is over."""
    def returns(self) -> Tuple[float, float]:
        """(White's, Black's) return: +1 win, -1 loss, 0 draw or not over."""
    def observation(self, inputs: str = "basic", player: Optional[int] = None) -> npt.NDArray[np.float32]:
        """The network's input planes (planes x 8 x 8) seen by `player`
        (the side to move when None); inputs "basic" (9) or "draughts" (19)."""
    def perft(self, depth: int, paths: bool = False) -> int:
        """Leaf nodes of the legal-move tree to `depth` plies (`paths`:
        Italian captures along different paths counted apart)."""
    def copy(self) -> "Game":
        """A copy of the game."""
    def __copy__(self) -> "Game": ...
    def __deepcopy__(self, memo: object) -> "Game": ...

def perft(
    depth: int,
    game: str = "damone",
    setup: Optional[str] = None,
    variant: Optional[str] = None,
    paths: bool = False,
) -> int:
    """Leaf nodes of the legal-move tree to `depth` plies from `setup` or
    the start (`paths`: Italian captures along different paths counted
    apart, as the published Italian counts are)."""

@final
class VecEnv:
    """N games stepped in parallel on every core. Observations are the
    network's input planes for the side to move, actions policy indices,
    rewards per player (column 0 White, 1 Black). A finished game is reset
    at once: its reward and flags describe the ending, its observation and
    mask are the new game's. The returned arrays belong to the environment
    and are overwritten by the next call: copy what you keep."""

    def __new__(
        cls,
        num_envs: int,
        game: str = "damone",
        *,
        variant: Optional[str] = None,
        setup: Optional[str] = None,
        seed: int = 0,
        opening_plies: int = 0,
        truncate_plies: int = 0,
        inputs: str = "basic",
        no_progress_plies: int = 80,
        max_plies: int = 400,
    ) -> "VecEnv": ...
    @property
    def num_envs(self) -> int: ...
    @property
    def game(self) -> str: ...
    @property
    def observation_shape(self) -> Tuple[int, int, int]:
        """(planes, 8, 8)."""
    @property
    def num_actions(self) -> int:
        """POLICY_SIZE."""
    @property
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """num_envs x POLICY_SIZE legal-action flags."""
    @property
    def to_play(self) -> npt.NDArray[np.uint8]:
        """The player to move in each game (0 White, 1 Black)."""
    def reset(self, seed: Optional[int] = None) -> Tuple[npt.NDArray[np.float32], dict]:
        """Start every game afresh; (observations, info) with info's
        "action_mask" and "to_play"."""
    def step(
        self, actions: Union[npt.NDArray[np.integer], Sequence[int]]
    ) -> Tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict,
    ]:
        """Play one action per game: (observations, rewards, terminated,
        truncated, info). An illegal action raises DamoneError and changes nothing."""
    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per game, from seeded streams."""
    def game_at(self, i: int) -> Game:
        """A copy of game `i`."""
    def __len__(self) -> int: ...

@final
class SearchResult:
    """A search's report, one entry per legal move."""

    moves: list[str]
    actions: list[int]
    num_actions: int
    """The number of actions on the game's board (the length of `policy_array()`)."""
    visits: list[int]
    priors: list[float]
    q: list[Optional[float]]
    """Mean value of each move for the side to move (None if unvisited)."""
    policy: list[float]
    """The search's policy target (visit distribution or Gumbel's improved policy)."""
    wdl: Tuple[float, float, float]
    """The root's win/draw/loss estimate for the side to move."""
    best: str
    simulations: int
    def policy_array(self) -> npt.NDArray[np.float32]:
        """The policy target over all POLICY_SIZE actions."""

_Evaluator = Callable[
    [npt.NDArray[np.float32], npt.NDArray[np.bool_]],
    Tuple[npt.ArrayLike, npt.ArrayLike],
]
"""f(observations B x planes x 8 x 8, action_mask B x POLICY_SIZE) ->
(policy_logits B x POLICY_SIZE, values B in [-1, 1] or B x 3 win/draw/loss)."""

def search(
    game: Game,
    evaluator: Union["Player", _Evaluator],
    simulations: int = 64,
    *,
    algorithm: str = "puct",
    c_puct: Optional[float] = None,
    inputs: str = "basic",
    batch_size: int = 8,
    seed: int = 0,
) -> SearchResult:
    """MCTS on `game` guided by a network Player or a Python callable; the
    GIL is released except while the callable runs."""

@final
class Player:
    """Any player spec: "shipped:italian" (the player shipped for a game),
    "alphabeta:depth=4", "mcts:sims=200", "random", or a network
    ("net:PATH,sims=64" or the path of a player file, a checkpoint folder
    or a run folder)."""

    def __new__(cls, spec: str, game: Optional[str] = None, seed: int = 0) -> "Player": ...
    @staticmethod
    def shipped(
        game: str = "damone", movetime: Optional[float] = None, seed: int = 0, kind: Optional[str] = None
    ) -> "Player":
        """The player shipped with damone for `game`: alpha-beta with its
        trained learned evaluation (kind "eval", the default and the
        stronger per second) or its shipped network with its tree search
        (kind "net"), `movetime` milliseconds a move (None: its own): a
        fixed baseline for research."""
    @property
    def spec(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def is_network(self) -> bool: ...
    def choose(self, game: Game) -> str:
        """The move the player chooses, as text."""
    def analyse(self, game: Game, simulations: Optional[int] = None, seed: int = 0) -> SearchResult:
        """A network player's search of `game`."""

@final
class MatchResult:
    """A match's result from the first player's side."""

    wins: int
    draws: int
    losses: int
    score: float
    interval: float
    """Half-width of the score's 95% interval."""
    pdn: list[str]

def play_match(
    a: str,
    b: str,
    games: int = 10,
    *,
    game: Optional[str] = None,
    seed: int = 1,
    opening_plies: int = 4,
    no_progress_plies: int = 80,
    max_plies: int = 400,
) -> MatchResult:
    """Play `games` games between player specs `a` and `b`, colours
    alternating, on every core."""

def shipped_players() -> list[dict]:
    """The players shipped with damone, one dict each: "game", "kind" ("eval"
    or "net"), "spec", "file", "bytes", "movetime_ms", "trained", "date",
    "commit", "rating"."""

def read_samples(path: str, game: Optional[str] = None, inputs: str = "basic") -> dict:
    """Training samples as arrays: "observations", "policy", "action_mask",
    "z", "q", "setups", "game" (and a shard's "pdn")."""


__all__ = [
    "DamoneError",
    "ENCODING_VERSION",
    "GAMES",
    "GAME_TITLES",
    "Game",
    "MatchResult",
    "Outcome",
    "POLICY_SIZE",
    "Player",
    "SearchResult",
    "VecEnv",
    "perft",
    "play_match",
    "read_samples",
    "search",
    "shipped_players",
]
