"""How many examples a property test (hypothesis) draws."""

from __future__ import annotations

import os

# CI replays the same generated examples on every run, so a red build can be reproduced;
# a local run draws fresh ones and keeps looking for new failures (tests/conftest.py).
IN_CI = bool(os.environ.get("CI"))


def examples(local: int) -> int:
    """max_examples for a property test that loads a trace per example: a local run draws
    `local` fresh examples; CI replays a fixed eighth of that (at least 10), which keeps
    the whole suite within a few minutes on two cores."""
    return max(10, local // 8) if IN_CI else local
