"""The type stubs (damone/_damone.pyi) agree with the native module:
mypy's stubtest compares every name, signature and default."""

from __future__ import annotations

import subprocess
import sys

from conftest import require_or_skip


def test_stubs_match_the_module():
    try:
        import mypy  # noqa: F401
    except ImportError:
        require_or_skip("mypy is not installed (pip install mypy)")
    # PyO3's classes are disjoint bases (PEP 800), which older type checkers
    # cannot express; every other check applies.
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--ignore-disjoint-bases", "damone._damone"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
