"""A test's own cache dir that starts as a user's does after a first open: each trace's
cache file copied from the run's shared cache (loaded there once a run), so a test about
what is kept beside the cache files does not load every trace cold again."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from tui.loading.cache import cache_file
from tui.loading.trace import open_trace


def copy_cache_files(traces: Iterable[Path], shared: Path, into: Path) -> list[Path]:
    """Each trace's cache file in `shared` (built there if it is not yet) copied into
    `into`: the cache files alone, none of the summaries kept beside them."""
    before = os.environ.get("TUI_CACHE_DIR")
    os.environ["TUI_CACHE_DIR"] = str(shared)
    try:
        built = []
        for trace in traces:
            with open_trace(trace):  # from the shared cache, or built into it
                pass
            built.append(cache_file(trace))
    finally:
        if before is None:
            os.environ.pop("TUI_CACHE_DIR", None)
        else:
            os.environ["TUI_CACHE_DIR"] = before
    into.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copyfile(source, into / source.name)) for source in built]
