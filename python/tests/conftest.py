"""Shared fixtures: the repository's paths, and a tiny trained run made by
the damone binary (for the network-player and training-data tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def require_or_skip(reason: str) -> None:
    """Skip, saying why; with DAMONE_REQUIRE_TOOLS=1 (CI) fail instead."""
    if os.environ.get("DAMONE_REQUIRE_TOOLS") == "1":
        pytest.fail(f"{reason} (DAMONE_REQUIRE_TOOLS=1)")
    pytest.skip(reason)


def damone_bin() -> Path:
    candidates = [os.environ.get("DAMONE_BIN")]
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    candidates.append(str(Path(target) / "release" / "damone"))
    for c in candidates:
        if c and Path(c).is_file():
            return Path(c)
    require_or_skip("the damone binary was not found: run `cargo build --release` or set DAMONE_BIN")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def binary() -> Path:
    return damone_bin()


def run(binary: Path, *args: str) -> str:
    out = subprocess.run([str(binary), *args], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="session")
def trained(binary: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One iteration of configs/tiny.toml, its checkpoint and its player file."""
    root = tmp_path_factory.mktemp("run")
    run(binary, "train", "--config", "configs/tiny.toml", "--quiet",
        "--set", f"checkpoint_dir={root}", "--set", "iterations=1", "--set", "eval.interval=0")
    checkpoint = root / "tiny" / "iter_0001"
    player = root / "tiny.dmp"
    run(binary, "export", "--checkpoint", str(checkpoint), "--out", str(player))
    yield {"run": root / "tiny", "checkpoint": checkpoint, "player": player}
    shutil.rmtree(root, ignore_errors=True)
