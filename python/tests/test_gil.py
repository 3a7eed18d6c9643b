"""Long calls release the GIL: another Python thread keeps running while
perft and an alpha-beta search run (both on one core, so that the other
core is free for the loop that measures)."""

from __future__ import annotations

import threading
import time

import damone


def longest_pause_during(call) -> tuple[float, float]:
    """(the call's duration, the longest pause of a Python loop running in
    the main thread meanwhile)."""
    started, done = threading.Event(), threading.Event()
    span = {}

    def work():
        started.set()
        t = time.perf_counter()
        call()
        span["call"] = time.perf_counter() - t
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    last, longest = time.perf_counter(), 0.0
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    return span["call"], longest


def test_perft_and_a_search_release_the_gil():
    duration, pause = longest_pause_during(lambda: damone.perft(8))
    assert duration > 0.1, "perft(8) too quick to tell"
    assert pause < duration / 3, (duration, pause)
    player, game = damone.Player("alphabeta:depth=10"), damone.Game()
    duration, pause = longest_pause_during(lambda: player.choose(game))
    assert duration > 0.1, "the search too quick to tell"
    assert pause < duration / 3, (duration, pause)
