"""Turn a part of a trace's events (a JSON array) into newline-delimited JSON, in place.

DuckDB's newline-delimited reader splits a file between its threads by lines, where an
array is read by one thread from start to end. A part's events are made one a line with
each byte kept in its place: every raw newline (white space in valid JSON: a string holds
none) becomes a space, the ',' of each separator between two events a newline, the
opening '[' a space and the closing ']' a newline. The separator is what parts the first
two events: '},' newline '{' in a trace written one event a line, '},' newline, two
spaces, '{' in Kineto's pretty-printed files. A trace whose separator holds no newline
(all its events on one line, as XLA writes) is left an array.

A separator of the same bytes inside an event (a list of objects in its args, printed
alike) splits that event, and one missed (two events parted otherwise) leaves two events
on a line: either way a line is then no single JSON document, and the reader refuses the
part (the loader then reads the events again as one array).

The part is read, rewritten in NumPy and written back a chunk at a time (NumPy and the
file's reads and writes let other threads run meanwhile), so the parts are rewritten side
by side, each holding a chunk's arrays.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tui.sources.event_bounds import event_boundary

_GLANCE = 1 << 20  # bytes of the first part looked at for the separator
_CHUNK = 16 << 20  # bytes rewritten at a time: a part holds a few arrays of this size
_NL, _SPACE = 0x0A, 0x20


def event_separator(part: Path) -> bytes | None:
    """The bytes between the first two events of an array part, from the '}' to the '{'
    ('},\\n  {' as Kineto writes), when they hold a newline; else None."""
    with open(part, "rb") as f:
        head = f.read(_GLANCE)
    comma = event_boundary(head, 1)
    if comma is None:
        return None
    start = head.rfind(b"}", 0, comma)
    end = head.find(b"{", comma)
    if start < 0 or end < 0:
        return None
    separator = head[start:end + 1]
    return separator if b"\n" in separator and separator.count(b",") == 1 else None


def separated_to_lines(part: Path, separator: bytes) -> None:
    """Rewrite an array part whose events are parted by `separator` (event_separator's)
    one event a line, in place (as the module says)."""
    pattern = np.frombuffer(separator, np.uint8)
    comma = separator.index(b",")
    size = part.stat().st_size
    if size < 2:
        return
    buffer = bytearray(_CHUNK + len(pattern))
    pending = np.empty(0, np.int64)  # commas past the chunk that found them, from its start
    with open(part, "r+b") as f:
        fd = f.fileno()
        for start in range(0, size, _CHUNK):
            length = min(_CHUNK, size - start)
            # the chunk and, unchanged yet, the bytes after it a separator may run into
            read = os.preadv(fd, [memoryview(buffer)[:length + len(pattern) - 1]], start)
            data = np.frombuffer(buffer, np.uint8, read)
            at = np.flatnonzero(data[:length] == pattern[0])
            at = at[at + len(pattern) <= read]
            for k in range(1, len(pattern)):
                at = at[data[at + k] == pattern[k]]
            commas = np.concatenate([pending - start, at + comma])
            chunk = data[:length]
            chunk[chunk == _NL] = _SPACE
            chunk[commas[commas < length]] = _NL
            pending = commas[commas >= length] + start
            if start == 0:
                chunk[0] = _SPACE  # '['
            if start + length == size:
                chunk[length - 1] = _NL  # ']'
            os.pwrite(fd, memoryview(buffer)[:length], start)
            del data, chunk
