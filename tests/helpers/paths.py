"""Where the real inputs are: the repository's sample traces and the reference answers
kept under tests/data/."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
DATA = ROOT / "tests" / "data"
NSYS_REFERENCE = DATA / "nsys_reference"
NSYS_TRACES = ("gappy_training", "multistream", "gappy_then_tuned")


def sample(name: str) -> Path:
    path = SAMPLES / name
    assert path.is_file(), f"missing sample trace {path}"
    return path
