"""Let DuckDB read a plain trace's parts where they lie in the file, not from copies.

A part of a plain (uncompressed) trace's events is a byte range of the file, read as the
JSON array '[' + range + ending + ']' (the last part's ending is the end of the events,
which chrome_json.py has read already). Copying the ranges into scratch files first cost
a 10 GB trace 15-18 s on 2 cores (25 CPU-s, most of it the kernel making room in the
page cache for the copy) before its parse could begin, and as much free disk.

DuckDB's Python client opens files through a filesystem registered on the connection
(fsspec's interface): here each part is a name under a protocol of this connection's
own, and reading it reads the file. A read returns at most _READ_BYTES: DuckDB reads
again for the rest, and a part's bytes pass through Python a piece at a time, one
thread at a time: on many cores the copies, made in the kernel on all of them, cost less
(kineto.IN_PLACE_MAX_PARTS).

Named pipes fed from the file were measured first and do not do: DuckDB's JSON reader
keeps every byte it reads from a pipe (to read it again after sampling), so the parts
stayed in memory as they were read and the 10 GB parse ran out of its budget in 3 s.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import TracebackType

import duckdb

# The most one read returns. DuckDB asks for 64 MB at a time; each read is held twice
# while it is handed over (Python's bytes and DuckDB's copy), on every parse thread: the
# 10 GB parse on 2 cores peaked at 353 MiB reading 64 MB at a time, 240 MiB reading 4 MB,
# and took 22.5 s against 15.9 s (benchmarks/HISTORY.md, "Parts read in place").
_READ_BYTES = 4 << 20
_PROTOCOLS = itertools.count()  # a protocol name each: one database, many loads


@dataclass(frozen=True)
class PartRanges:
    """Where a plain trace's parts lie: part k is '[' + source[start:end] + its ending +
    ']', the last part's ending `last_ending`, the others' empty."""

    source: Path
    ranges: list[tuple[int, int]]
    last_ending: bytes


def can_read_in_place() -> bool:
    """Is fsspec there to name the parts to DuckDB? (A core dependency: False only in an
    environment missing it, where the parts are copies.)"""
    try:
        import fsspec  # noqa: F401
    except ImportError:
        return False
    return True


class PartsInPlace:
    """Registers, on first use, a filesystem on `con` holding the parts it is given, and
    removes it on exit: after the queries that read them are done."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._parts = _Parts()
        self._protocol: str | None = None  # once registered

    def names(self, parts: PartRanges) -> list[str]:
        """The names under which DuckDB reads the parts of `parts`."""
        if self._protocol is None:
            protocol = f"tuiparts{next(_PROTOCOLS)}"
            self._con.register_filesystem(_filesystem_class()(protocol, self._parts))
            self._protocol = protocol
        return [f"{self._protocol}://{name}" for name in self._parts.add(parts)]

    def __enter__(self) -> PartsInPlace:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        try:
            if self._protocol is not None:
                # an error here (a connection closed under Ctrl-C) must not hide the one
                # that ended the block
                with contextlib.suppress(duckdb.Error):
                    self._con.unregister_filesystem(self._protocol)
                self._protocol = None
        finally:
            self._parts.close()


def _pieces(parts: PartRanges, k: int) -> list[tuple[int, int, bytes | None]]:
    """Part k as (offset in the source, length, or the bytes themselves) pieces."""
    start, end = parts.ranges[k]
    ending = parts.last_ending if k == len(parts.ranges) - 1 else b""
    return [(0, 1, b"["), (start, end - start, None), (0, len(ending) + 1, ending + b"]")]


class _Part(io.RawIOBase):
    """One part, read from the source's descriptor (shared, read by position)."""

    def __init__(self, fd: int, pieces: list[tuple[int, int, bytes | None]]) -> None:
        self._fd = fd
        self._pieces = pieces
        self._size = sum(length for _, length, _ in pieces)
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._position, os.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def read(self, size: int = -1) -> bytes:
        left = self._size - self._position if size < 0 else size
        left = min(left, _READ_BYTES, max(0, self._size - self._position))
        read: list[bytes] = []
        at = 0  # where the current piece begins in the part
        for offset, length, text in self._pieces:
            inside = self._position - at
            if left and 0 <= inside < length:
                take = min(left, length - inside)
                got = (text[inside:inside + take] if text is not None
                       else os.pread(self._fd, take, offset + inside))
                read.append(got)
                self._position += len(got)
                left -= len(got)
                if len(got) < take:  # the file is shorter than it was: the part ends here
                    break
            at += length
        return read[0] if len(read) == 1 else b"".join(read)


class _Parts:
    """The parts of one connection's traces, by name, and the files they are read from."""

    def __init__(self) -> None:
        self._parts: dict[str, tuple[int, list[tuple[int, int, bytes | None]]]] = {}
        self._descriptors: list[int] = []

    def add(self, parts: PartRanges) -> list[str]:
        fd = os.open(parts.source, os.O_RDONLY)
        self._descriptors.append(fd)
        first = len(self._parts)
        names = [f"part-{first + k}.json" for k in range(len(parts.ranges))]
        for k, name in enumerate(names):
            self._parts[name] = (fd, _pieces(parts, k))
        return names

    def close(self) -> None:
        for fd in self._descriptors:
            os.close(fd)
        self._descriptors.clear()
        self._parts.clear()

    def open(self, path: str) -> _Part:
        return _Part(*self._get(path))

    def size(self, path: str) -> int:
        return sum(length for _, length, _ in self._get(path)[1])

    def _get(self, path: str) -> tuple[int, list[tuple[int, int, bytes | None]]]:
        name = str(path).split("://", 1)[-1].lstrip("/")
        try:
            return self._parts[name]
        except KeyError:
            raise FileNotFoundError(path) from None


@cache
def _filesystem_class() -> type:
    """fsspec's filesystem over _Parts, made on first use (importing fsspec takes 0.1 s,
    which a small trace does without)."""
    from fsspec.spec import AbstractFileSystem

    class PartsFileSystem(AbstractFileSystem):
        def __init__(self, protocol: str, parts: _Parts) -> None:
            super().__init__(skip_instance_cache=True)
            self.protocol = protocol  # DuckDB's name for it, and the names' prefix
            self.parts = parts

        def _open(self, path: str, mode: str = "rb", **_: object) -> _Part:
            return self.parts.open(path)

        def info(self, path: str, **_: object) -> dict:
            return {"name": path, "size": self.parts.size(path), "type": "file"}

        def ls(self, path: str, detail: bool = True, **_: object) -> list:
            return [self.info(path)] if detail else [path]

    return PartsFileSystem
