"""damone's Hub and DXP engines driven by pydraughts, a real client of both.

1. Hub: two `damone hub` processes (the shipped player, and alpha-beta at
   depth 4) play a whole Italian draughts game through pydraughts'
   HubEngine at a short clock (10 s + 0.1 s a move each); pydraughts'
   own rules check every move and say when the game is over.
2. Hub, bad lines: lines the protocol does not know, a bad position and an
   illegal move each get an `error` line, and the engine still answers.
3. DXP: `damone dxp` (the shipped player) plays a whole game against a
   Hub engine through pydraughts' DXPEngine, the game request, the moves
   and the game end in DXP's messages, damone with White and with Black.

Any warning pydraughts logs (an engine answer it did not expect) is a
protocol error and fails the check.

Usage: python scripts/pydraughts_check.py path/to/damone
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import time

import draughts
from draughts.engine import DXPEngine, HubEngine, Limit

MAX_PLIES = 300


class CountWarnings(logging.Handler):
    """Counts pydraughts' warnings: each is an answer it did not expect."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def check_legal(board: draughts.Board, move: draughts.Move, who: str) -> None:
    legal = [m.board_move for m in board.legal_moves()]
    if move is None or move.board_move not in legal:
        raise SystemExit(f"{who} played an illegal move {move and move.hub_move} in {board.fen}")


def result_text(board: draughts.Board) -> str:
    winner = board.winner()
    return {draughts.WHITE: "1-0", draughts.BLACK: "0-1", 0: "1/2-1/2"}.get(winner, "*")


def close(engine: HubEngine) -> None:
    engine.quit()
    engine.p.wait(timeout=20)
    engine.p.stdin.close()
    engine.p.stdout.close()


def hub_game(damone: str) -> str:
    white = HubEngine([damone, "hub", "--player", "shipped"])
    black = HubEngine([damone, "hub", "--player", "alphabeta:depth=4"])
    for e in (white, black):
        if "variant" not in e.options or "italian" not in e.variants:
            raise SystemExit(f"hub: no variant parameter with italian: {e.options} {e.variants}")
        e.configure({"variant": "italian"})
        e.init()
        e.ping()
    board = draughts.Board(variant="italian")
    clocks = {draughts.WHITE: 10.0, draughts.BLACK: 10.0}
    inc = 0.1
    while not board.is_over() and len(board.move_stack) < MAX_PLIES:
        engine = white if board.turn == draughts.WHITE else black
        start = time.monotonic()
        played = engine.play(board, Limit(time=clocks[board.turn] + inc, inc=inc), ponder=False)
        clocks[board.turn] += inc - (time.monotonic() - start)
        if clocks[board.turn] <= 0:
            raise SystemExit(f"hub: {'White' if board.turn == draughts.WHITE else 'Black'} lost on time")
        check_legal(board, played.move, "hub engine")
        board.push(played.move)
    for e in (white, black):
        close(e)
    return f"hub: a whole game, {len(board.move_stack)} plies, {result_text(board)}, every move legal"


def hub_bad_lines(damone: str) -> str:
    lines = [
        "hub",
        "frobnicate",
        "pos pos=Wxyz",
        'pos start moves="22-15"',
        "level time=abc",
        'set-param name=variant value=international',
        "go think",
        "ping",
        "quit",
    ]
    out = subprocess.run(
        [damone, "hub"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60
    )
    answers = out.stdout.splitlines()
    errors = [a for a in answers if a.startswith("error ")]
    if out.returncode != 0 or len(errors) != 5 or "pong" not in answers or not any(
        a.startswith("done move=") for a in answers
    ):
        raise SystemExit(f"hub: bad lines answered wrongly (exit {out.returncode}):\n{out.stdout}{out.stderr}")
    return f"hub: {len(errors)} bad lines each answered with an error line, the engine kept answering"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dxp_game(damone: str, damone_white: bool) -> str:
    port = free_port()
    server = subprocess.Popen(
        [damone, "dxp", "--port", str(port), "--connections", "1", "--player", "shipped:italian,movetime=50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert server.stdout is not None
    ready = server.stdout.readline()
    if "dxp: damone plays" not in ready:
        raise SystemExit(f"dxp: the server did not start: {ready}{server.stdout.read()}")
    dxp = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": port}, initial_time=0)
    opponent = HubEngine([damone, "hub", "--player", "alphabeta:depth=4"])
    opponent.init()
    board = draughts.Board(variant="italian")
    damone_colour = draughts.WHITE if damone_white else draughts.BLACK
    while not board.is_over() and len(board.move_stack) < MAX_PLIES:
        if board.turn == damone_colour:
            played, who = dxp.play(board), "dxp engine"
        else:
            played, who = opponent.play(board, Limit(movetime=0.05), ponder=False), "hub opponent"
        check_legal(board, played.move, who)
        board.push(played.move)
    dxp.quit()
    close(opponent)
    output = server.communicate(timeout=60)[0]
    server.stdout.close()
    if server.returncode != 0:
        raise SystemExit(f"dxp: the server exited {server.returncode}: {output}")
    colour = "White" if damone_white else "Black"
    return f"dxp: a whole game with damone as {colour}, {len(board.move_stack)} plies, {result_text(board)}, every move legal"


def main() -> None:
    damone = sys.argv[1]
    warnings = CountWarnings()
    logging.getLogger("pydraughts").addHandler(warnings)
    print(hub_game(damone))
    print(hub_bad_lines(damone))
    print(dxp_game(damone, damone_white=True))
    print(dxp_game(damone, damone_white=False))
    if warnings.messages:
        raise SystemExit("pydraughts saw protocol errors:\n" + "\n".join(warnings.messages))
    print("pydraughts: 0 protocol errors")


if __name__ == "__main__":
    main()
