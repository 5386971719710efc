"""How far a load has got: bytes of the trace read, the rate, and the time left.

A caller that shows progress (`--summary` on a terminal, the app's progress bar) watches a
path; `tui.loading.trace` reports its stages for that path ("reading", then "building tables").
While reading, the bytes read come from what the process itself says: the file offset of
each descriptor it holds open on the trace (a .json.gz is inflated front to back), or the
share DuckDB reports of a query scanning it (a plain JSON file, parsed by DuckDB in
parts). Loading nothing else reads the trace, so neither overcounts. Tables are then built
from what was read, with no byte count: that stage shows its time only.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

READING = "reading"
BUILDING = "building tables"
STOP_TRIES_S = 60  # how long a stopped load's queries are interrupted, at most


class LoadStopped(Exception):
    """The load was stopped from another thread (the app quit while it ran)."""


@dataclass
class LoadMeter:
    path: Path
    total: int
    started: float = field(default_factory=time.monotonic)
    stage: str = "opening"
    stage_started: float = field(default_factory=time.monotonic)
    done: int = 0  # bytes read so far (never goes back)
    con: duckdb.DuckDBPyConnection | None = None
    by_query: bool = False  # a plain file: DuckDB's progress of its scan counts the bytes
    stopping: bool = False  # stop() was called: the load ends at its next query or stage
    ended: bool = False  # no longer watched (stop_watching)

    def stop(self) -> None:
        """Stop the load from another thread: its running query is interrupted, and every
        query it starts after (an interrupt lands only on a running query), until it has
        ended; its next stage raises LoadStopped. The load cleans up as after Ctrl-C."""
        self.stopping = True
        threading.Thread(target=self._interrupt_until_ended, name="tui-stop-load",
                         daemon=True).start()

    def _interrupt_until_ended(self) -> None:
        deadline = time.monotonic() + STOP_TRIES_S
        while not self.ended and time.monotonic() < deadline:
            con = self.con
            if con is not None:
                with contextlib.suppress(duckdb.Error):  # closed: the load has ended
                    con.interrupt()
            time.sleep(0.02)

    def set_stage(self, stage: str, con: duckdb.DuckDBPyConnection | None) -> None:
        if self.stopping:
            raise LoadStopped(f"{self.path}: loading stopped")
        if stage == BUILDING:
            self.done = self.total
        self.stage, self.stage_started, self.con = stage, time.monotonic(), con
        if con is not None and stage == READING:
            with contextlib.suppress(duckdb.Error):  # the share of a scan, never printed
                con.execute("SET enable_progress_bar = true")
                con.execute("SET enable_progress_bar_print = false")
                self.by_query = not _is_gzip(self.path)

    def poll(self) -> Snapshot:
        if self.stage == READING:
            self.done = max(self.done, min(self.total, self._read_now()))
        now = time.monotonic()
        reading = now - self.stage_started if self.stage == READING else 0.0
        rate = self.done / reading if reading > 0.5 and self.done else None
        eta = (self.total - self.done) / rate if rate else None
        return Snapshot(self.stage, self.done, self.total, now - self.started, rate, eta)

    def _read_now(self) -> int:
        read = _offset_of(self.path)
        if self.by_query and self.con is not None:
            with contextlib.suppress(duckdb.Error, RuntimeError):
                share = self.con.query_progress()
                if share > 0:
                    read = max(read, int(self.total * share / 100))
        return read


@dataclass(frozen=True)
class Snapshot:
    stage: str
    done: int
    total: int
    elapsed: float
    rate: float | None  # bytes a second while reading
    eta: float | None  # seconds left of the reading

    @property
    def fraction(self) -> float | None:
        """How far through the reading, 0..1; None while tables are built (no count)."""
        if self.stage == BUILDING or not self.total:
            return None
        return self.done / self.total

    def line(self) -> str:
        """"reading 412 MB of 2.5 GB (16%) · 95 MB/s · 22 s left" and the like."""
        if self.stage == BUILDING:
            return f"{BUILDING} (read {size_text(self.total)}) · {self.elapsed:.0f} s"
        parts = [f"{self.stage} {size_text(self.done)} of {size_text(self.total)} "
                 f"({100 * self.done / max(self.total, 1):.0f}%)"]
        if self.rate:
            parts.append(f"{size_text(int(self.rate))}/s")
        if self.eta is not None:
            parts.append(f"{self.eta:.0f} s left")
        else:
            parts.append(f"{self.elapsed:.0f} s")
        return " · ".join(parts)


_meters: dict[Path, LoadMeter] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def watch(path: Path) -> Iterator[LoadMeter]:
    """Meter the loads of `path` while in the block (one watcher a path at a time)."""
    meter = start_watching(path)
    try:
        yield meter
    finally:
        stop_watching(meter)


def start_watching(path: Path) -> LoadMeter:
    meter = LoadMeter(path, size_of(path))
    with _lock:
        _meters[_key(path)] = meter
    return meter


def stop_watching(meter: LoadMeter) -> None:
    meter.ended = True
    with _lock:
        if _meters.get(_key(meter.path)) is meter:
            del _meters[_key(meter.path)]


def stage(path: Path, name: str, con: duckdb.DuckDBPyConnection | None = None) -> None:
    """The load of `path` is at stage `name`: a no-op unless someone watches it."""
    with _lock:
        meter = _meters.get(_key(path))
    if meter is not None:
        meter.set_stage(name, con)


def _key(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def size_of(path: Path) -> int:
    """The file's size in bytes; 0 where it cannot be read."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _is_gzip(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def _offset_of(path: Path) -> int:
    """The furthest file offset of this process's descriptors open on `path` (Linux's
    /proc; 0 where there is none)."""
    target = str(_key(path))
    furthest = 0
    with contextlib.suppress(OSError):
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError, ValueError):
                if os.readlink(f"/proc/self/fd/{fd}") != target:
                    continue
                with open(f"/proc/self/fdinfo/{fd}") as info:
                    for line in info:
                        if line.startswith("pos:"):
                            furthest = max(furthest, int(line.split()[1]))
    return furthest


def size_text(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
