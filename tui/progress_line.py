"""A load's progress on stderr, one line redrawn in place, when stderr is a terminal."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from tui import load_progress
from tui.safe_text import printable

INTERVAL_S = 0.5
FIRST_AFTER_S = 1.0  # a load quicker than this draws nothing


@contextlib.contextmanager
def progress_on_stderr(path: Path) -> Iterator[None]:
    """Show the load of `path` in the block on stderr; nothing when it is not a terminal."""
    if not sys.stderr.isatty():
        yield
        return
    stop = threading.Event()
    drawn = threading.Event()
    name = printable(path.name)

    def draw() -> None:
        if stop.wait(FIRST_AFTER_S):
            return
        while True:
            sys.stderr.write(f"\r\x1b[Ktui: {name}: {meter.poll().line()}")
            sys.stderr.flush()
            drawn.set()
            if stop.wait(INTERVAL_S):
                return

    with load_progress.watch(path) as meter:
        ticker = threading.Thread(target=draw, name="tui-progress", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()
            if drawn.is_set():  # leave the terminal as it was: the line erased
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()


class TracesProgress:
    """`tui convert`'s line: traces done of all, their bytes, the rate and the time left.
    One trace alone is metered as it is read (when it loads in this process)."""

    def __init__(self, paths: list[Path]) -> None:
        self.sizes = {path: _size_of(path) for path in paths}
        self.total = sum(self.sizes.values())
        self.count = 0
        self.done = 0
        self.started = time.monotonic()
        self.shown = sys.stderr.isatty()

    def one_done(self, path: Path) -> None:
        self.count += 1
        self.done += self.sizes.get(path, 0)
        if not self.shown:
            return
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0
        left = f" · {(self.total - self.done) / rate:.0f} s left" if rate else ""
        sys.stderr.write(f"\r\x1b[Ktui convert: {self.count} of {len(self.sizes)} traces, "
                         f"{load_progress.size_text(self.done)} of "
                         f"{load_progress.size_text(self.total)} · "
                         f"{load_progress.size_text(int(rate))}/s{left}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown and self.count:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
