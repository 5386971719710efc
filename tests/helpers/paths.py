"""Where the real inputs are: the repository's sample traces and the reference answers
kept under tests/data/."""

from __future__ import annotations

import functools
import hashlib
import lzma
import os
import shutil
import tempfile
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


def copied_sample(name: str, folder: Path) -> Path:
    """A copy of sample trace `name` in `folder` (made here), for a test that changes it or
    watches what is written beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(sample(name), folder / Path(name).name))


def inflated(name: str) -> Path:
    """A sample kept xz-compressed (`NAME.xz` in sample_traces/, a bare name in loops/: the
    whole-program nsys exports there are 12-35 MB as SQLite), inflated once into the
    temporary folder, shared by every test process and every later run: named by the
    compressed file's contents (a clone's files are new, their bytes not: a folder named
    by their times was left behind by every fresh clone), written under a private name and
    renamed, so a reader never sees half."""
    packed = sample(name + ".xz" if "/" in name else f"loops/{name}.xz")
    folder = Path(tempfile.gettempdir()) / f"tui-samples-{_digest(packed)}"
    path = folder / Path(name).name
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{path.name}.{os.getpid()}"
        with lzma.open(packed) as source, open(partial, "wb") as target:
            while chunk := source.read(1 << 20):
                target.write(chunk)
        os.replace(partial, path)
    return path


@functools.cache
def _digest(path: Path) -> str:
    """A short digest of a file's bytes (the largest sample, 4.8 MB: a few ms)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:20]
