"""Rules parity with the Rust tests: the perft fixtures, legal moves
against the damone binary on random playouts, notation, outcomes, and bad
input raising DamoneError."""

from __future__ import annotations

import random

import pytest

import damone
from conftest import REPO, run


def test_the_installed_package_is_tested():
    # Not the source folder python/damone (which has no native module).
    assert "site-packages" in damone.__file__, damone.__file__


def fixture_lines(name: str) -> list[list[str]]:
    rows = []
    for line in (REPO / "tests" / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append([part.strip() for part in line.split(";")])
    return rows


def test_damone_perft_fixture():
    checked = 0
    for variant, setup, depth, nodes in fixture_lines("perft.fixture"):
        if int(nodes) > 3_000_000:
            continue
        assert damone.perft(int(depth), setup=setup, variant=variant) == int(nodes), (variant, setup, depth)
        checked += 1
    assert checked > 30


def test_italian_perft_fixture():
    checked = 0
    for setup, depth, nodes in fixture_lines("perft-italian.fixture"):
        if int(nodes) > 3_000_000:
            continue
        got = damone.perft(int(depth), game="italian", setup=setup, paths=True)
        assert got == int(nodes), (setup, depth)
        checked += 1
    assert checked > 10
    # Game.perft counts the same tree.
    assert damone.Game("italian").perft(4) == 1469


def test_dameo_start_and_perft():
    # The start's 52 moves and the counts AbstractPlay's engine gives
    # (docs/rules-dameo.md).
    g = damone.Game("dameo")
    assert len(g.legal_moves()) == 52 and "c1-c4" in g.legal_moves()
    assert [g.perft(d) for d in (1, 2, 3)] == [52, 2704, 135930]
    g.play("b1-b3")
    assert g.setup == "B:Wa1,c1-h1,b2-g2,b3-f3:Bc6-f6,b7-g7,a8-h8"


def test_dameo_moves_sharing_an_action_are_listed_once():
    # Black's king on g1 has captures that end on the same cell over
    # different pieces (examples/collide.rs found it): they share one
    # action, listed once; the action plays the first of them.
    g = damone.Game("dameo", setup="B:We1,c2,d2,a3,d3,d4,f5,e6,c7,Kd5:BKg1")
    actions = g.legal_actions()
    assert len(actions) == len(set(actions)) < len(g.legal_moves())
    assert g.action_mask().sum() == len(actions)
    first = g.action_to_move(actions[0])
    g.play_action(actions[0])
    assert g.moves == [first]


@pytest.mark.parametrize("game", damone.GAMES)
def test_legal_moves_equal_the_binary_on_random_playouts(binary, game):
    """Random playouts' positions: the package's legal moves are the
    `damone moves` command's, move for move."""
    rng = random.Random(3)
    compared = 0
    for _ in range(6):
        g = damone.Game(game)
        while not g.is_over() and g.ply < 60:
            if g.ply % 7 == 3:
                out = run(binary, "moves", "--game", game, "--fen", g.setup)
                assert sorted(g.legal_moves()) == sorted(binary_moves(out)), g.setup
                compared += 1
            g.play(rng.choice(g.legal_moves()))
    assert compared > 20


def binary_moves(out: str) -> list[str]:
    """The move texts `damone moves` prints, one per line before the FEN."""
    moves = []
    for line in out.splitlines():
        first = line.split()[0] if line.split() else ""
        if first and ("-" in first or "x" in first) and ":" not in first:
            moves.append(first)
    return moves


def test_start_positions_and_notation():
    g = damone.Game()
    assert len(g.legal_moves()) == 8 and g.side_to_move == "white" and g.current_player == 0
    it = damone.Game("italian")
    assert len(it.legal_moves()) == 7 and it.setup.startswith("W:")
    for game in (g, it):
        for text, action in zip(game.legal_moves(), game.legal_actions()):
            assert game.move_to_action(text) == action
            assert game.action_to_move(action) == text
        mask = game.action_mask()
        assert mask.shape == (damone.POLICY_SIZE,) and mask.sum() == len(game.legal_moves())
    first = g.legal_moves()[0]
    g.play(first)
    assert g.moves == [first] and g.side_to_move == "black" and g.ply == 1
    assert g.undo() and g.ply == 0 and g.setup == damone.Game().setup


def test_a_game_played_to_its_end_has_an_outcome():
    rng = random.Random(5)
    for game in damone.GAMES:
        g = damone.Game(game, max_plies=200)
        while not g.is_over():
            g.play_action(rng.choice(g.legal_actions()))
        o = g.outcome()
        assert o.result in ("1-0", "0-1", "1/2-1/2")
        white, black = g.returns()
        assert white == -black
        assert (o.winner is None) == (white == 0)
        with pytest.raises(damone.DamoneError, match="over"):
            g.play_action(0)


def test_a_capture_of_the_last_piece_wins():
    # White's Pedina on d3 takes Black's last piece, on e4.
    g = damone.Game(setup="W:Wd3:Be4")
    assert g.legal_moves() == ["d3xf5"]
    g.play("d3xf5")
    assert g.outcome().winner == "white" and g.outcome().reason == "no_moves"


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: damone.Game("chess"), "chess"),
        (lambda: damone.Game(setup="W:Wzz"), "zz"),
        (lambda: damone.Game(variant="nope"), "nope"),
        (lambda: damone.Game(max_plies=0), "max_plies"),
        (lambda: damone.Game().play("a1-a2"), "a1-a2"),
        (lambda: damone.Game().play("hello"), "hello"),
        (lambda: damone.Game().play_action(5000), "5000"),
        (lambda: damone.Game().action_to_move(-1), "-1"),
        (lambda: damone.Game().observation("colour"), "colour"),
        (lambda: damone.Game().observation(player=2), "player 2"),
        (lambda: damone.perft(2, paths=True), "italian"),
    ],
)
def test_bad_input_raises_a_one_line_error(make, message):
    with pytest.raises(damone.DamoneError) as e:
        make()
    assert message in str(e.value) and "\n" not in str(e.value)


def test_observations_are_the_networks_planes():
    g = damone.Game()
    obs = g.observation()
    assert obs.shape == (9, 8, 8) and obs.dtype.name == "float32"
    assert obs[:3].sum() == 8 and obs[3:6].sum() == 8  # each side's pieces
    assert obs[8].sum() == 32  # the playing squares
    assert g.observation("draughts").shape == (19, 8, 8)
    # Black sees the board turned: at the start both views are equal.
    assert (g.observation(player=1) == obs).all()
    assert damone.Game("italian").observation()[:3].sum() == 12
