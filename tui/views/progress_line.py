"""A load's progress on stderr, one line redrawn in place, when stderr is a terminal."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from tui.core import load_progress
from tui.core.safe_text import printable
from tui.loading.locations import is_remote
from tui.loading.store import TraceStore

INTERVAL_S = 0.5
FIRST_AFTER_S = 1.0  # a load quicker than this draws nothing
ETA_AFTER_SHARE = 0.1  # many traces: the time left is shown once this share of bytes is done


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
    """Traces done of all, their bytes, the rate and the time left: the line of `tui
    convert` and `tui --summary DIR` on stderr (when it is a terminal and `on_stderr`),
    the ranks app's bar. One trace alone is metered as it is read instead (when it loads
    in this process: progress_on_stderr)."""

    def __init__(self, paths: list[Path], on_stderr: bool = True,
                 label: str = "tui convert", then: str = "") -> None:
        self.label = label
        self.then = then  # what follows once every trace is ready, said then
        # a store at a URL is always ready from the cache, never loaded: not asked its size
        # (a request to the object store for each)
        self.sizes = {path: 0 if is_remote(path) else load_progress.size_of(path)
                      for path in paths}
        self.total = sum(self.sizes.values())
        self.count = 0
        self.done = 0
        self.started = time.monotonic()
        self.shown = on_stderr and sys.stderr.isatty()
        if len(paths) > 1:
            self._draw()  # at once: the first trace may take minutes

    def one_done(self, store: TraceStore) -> None:
        """A trace is ready; one from the cache counts, but not in the bytes or the rate."""
        self.count += 1
        if store.from_cache:
            self.total -= self.sizes.get(store.path, 0)
        else:
            self.done += self.sizes.get(store.path, 0)
        self._draw()

    def _draw(self) -> None:
        if self.shown:
            sys.stderr.write(f"\r\x1b[K{self.label}: {self.line()}")
            sys.stderr.flush()

    def line(self) -> str:
        """"3 of 16 traces, 1.2 GB of 6.4 GB · 95 MB/s · 55 s left" and the like."""
        line = self._figures(f"{self.count} of {len(self.sizes)} traces")
        if self.then and self.count == len(self.sizes):
            line += f" · {self.then}"
        return line

    def _figures(self, traces: str) -> str:
        if not self.done:
            if self.count and not self.total:
                return f"{traces}, from the cache"
            return f"{traces} ({load_progress.size_text(self.total)} to load)"
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0
        # the time left only once a tenth is done: the first traces ready are the small
        # ones, while the big ones, loading beside them, count for nothing yet
        left = (f" · {(self.total - self.done) / rate:.0f} s left"
                if rate and ETA_AFTER_SHARE * self.total <= self.done < self.total else "")
        return (f"{traces}, {load_progress.size_text(self.done)} of "
                f"{load_progress.size_text(self.total)} · "
                f"{load_progress.size_text(int(rate))}/s{left}")

    def close(self) -> None:
        if self.shown and (self.count or len(self.sizes) > 1):
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
