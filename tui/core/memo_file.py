"""A memo file written a piece at a time, as a summary is printed: a first line of JSON
(what the memo was made from, and its length), then the rest. The rest's length is filled
in once all of it is written, so a memo cut short is never read; the file is written
under a temporary name and renamed. Writing never raises: a memo that cannot be kept
only costs the next open time."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, TextIO

# the rest's length in the first line until it is known
_UNKNOWN_LENGTH = "0" * 15


class MemoFile:
    """Writes the memo `target` (None: none is kept): its first line `stamp` (small: what
    it was made from), the rest's length, then `head` (its other members), as one JSON
    object; then the pieces given to write()."""

    def __init__(self, target: Path | None, stamp: Mapping[str, Any],
                 head: Mapping[str, Any]) -> None:
        self._out: IO[bytes] | None = None
        if target is None:
            return
        self._target = target
        self._partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
        try:
            # the length before the bulky members: its placeholder is found first
            line = json.dumps({**stamp, "rest_bytes": _UNKNOWN_LENGTH, **head}).encode()
            self._length_at = line.index(f'"{_UNKNOWN_LENGTH}"'.encode()) + 1
            self._out = open(self._partial, "wb")  # noqa: SIM115
            self._out.write(line + b"\n")
            self._rest_bytes = 0
        except (OSError, TypeError, ValueError):
            self.discard()

    @property
    def keeping(self) -> bool:
        """Whether the memo is being written (its pieces are wanted)."""
        return self._out is not None

    def write(self, piece: str) -> None:
        if self._out is not None:
            try:
                data = piece.encode()
                self._out.write(data)
                self._rest_bytes += len(data)
            except OSError:
                self.discard()

    def finish(self) -> None:
        """All of the rest is written: fill in its length and store the memo."""
        if self._out is None:
            return
        try:
            self._out.seek(self._length_at)
            self._out.write(f"{self._rest_bytes:0{len(_UNKNOWN_LENGTH)}d}".encode())
            self._out.close()
            self._out = None
            os.replace(self._partial, self._target)
        except OSError:
            pass
        self.discard()  # what is left of it where it could not be stored

    def discard(self) -> None:
        """Drop what was written (nothing once stored)."""
        if self._out is not None:
            with contextlib.suppress(OSError):
                self._out.close()
            self._out = None
        if hasattr(self, "_partial"):
            with contextlib.suppress(OSError):
                self._partial.unlink(missing_ok=True)


def read_first_line(memo: TextIO) -> dict | None:
    """The memo's first line, where the rest is there whole; the file is left at the rest.
    None for a memo cut short, or not one."""
    try:
        line = memo.readline()
        stored = json.loads(line)
        whole = (os.fstat(memo.fileno()).st_size
                 == len(line.encode()) + int(stored["rest_bytes"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return stored if whole and isinstance(stored, dict) else None
