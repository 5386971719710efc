"""Turn a part of a trace's events (a JSON array) into newline-delimited JSON, in place.

A scaled or re-exported trace often holds one event a line (`{...},` then a newline):
DuckDB's newline-delimited reader splits such a file between its threads by lines, where
an array is read by one thread from start to end. The part's array becomes
newline-delimited by blanking three kinds of bytes, each kept in its place: the opening
'[', the closing ']' and the ',' that ends each line. Only the bytes just before and after
each newline are looked at, in NumPy, which lets other threads run meanwhile, so the parts
are rewritten side by side.

part_to_lines() leaves a part of another shape (events over several lines; white space
after the ',') as it is and says so. A part whose lines are not each one whole event (two
events on a line) can pass its check, but not unnoticed: such a line is no single JSON
document, and the reader refuses the part (the loader then reads the events again as one
array).

A pretty-printed part (Kineto's shape: each event over several lines, two events parted by
the same bytes, e.g. '},' newline, two spaces, '{') is rewritten by separated_to_lines():
every raw newline (white space in valid JSON: a string holds none) becomes a space, and the
',' of each separator as the first two events have it a newline. A separator of that shape
inside an event (a list of objects in its args, printed alike) would split the event: that
line is then no whole JSON document, and the reader refuses the part, as above.
"""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np

from tui.sources.event_bounds import event_boundary

_GLANCE = 1 << 20  # bytes of the first part looked at before a whole part is
_CHUNK = 16 << 20  # bytes looked at a time: the comparisons' arrays stay this small (a
# few times this per part; the parts are rewritten side by side, before DuckDB's parse)
_NL, _COMMA, _OPEN, _CLOSE, _SPACE = 0x0A, 0x2C, 0x7B, 0x7D, 0x20


def looks_one_event_a_line(part: Path) -> bool:
    """Do the first lines of the array part look like one event each? A glance, before a
    pass over every part: a pretty-printed trace fails it at its first event."""
    with open(part, "rb") as f:
        head = f.read(_GLANCE)
    lines = head.split(b"\n")[1:-1]  # the first ('[') and a last cut short are not looked at
    return bool(lines) and all(line[:1] == b"{" and line[-2:] in (b"},", b"}]")
                               for line in lines)


def lines_to_part(part: Path) -> None:
    """Undo part_to_lines: the part is an array again (each line's ',' back; '[' and ']')."""
    with open(part, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        data = np.ndarray(len(m), np.uint8, buffer=m)
        try:
            newlines = np.flatnonzero(data == _NL)
            inner = newlines[(newlines > 1) & (newlines < len(data) - 1)]
            data[inner[data[inner - 1] == _SPACE] - 1] = _COMMA
            data[0] = ord("[")
            data[len(data) - 1] = ord("]")
        finally:
            del data


def part_to_lines(part: Path) -> bool:
    """Rewrite one array part (as chrome_json writes it: '[' events ']') one event a line,
    in place. False, with the file untouched, when its events are not one a line."""
    with open(part, "r+b") as f:
        size = f.seek(0, 2)
        if size < 3:
            return False
        with mmap.mmap(f.fileno(), 0) as m:
            data = np.ndarray(size, np.uint8, buffer=m)
            try:
                commas = _line_commas(data)
                if commas is None:
                    return False
                data[commas] = _SPACE
                data[0] = _SPACE  # '['
                data[size - 1] = _NL  # ']'
            finally:
                del data  # the map cannot close while an array holds it
    return True


def _line_commas(data: np.ndarray) -> np.ndarray | None:
    """Offsets of the ',' ending each line but the last, when the array `data` ('['
    ... ']') looks written one event a line: every newline (but one right after '[' or
    right before ']') between '},' and '{'. Two events on a line pass; the reader then
    refuses that line."""
    size = len(data)
    if data[0] != ord("[") or data[size - 1] != ord("]"):
        return None
    found = []
    for start in range(0, size, _CHUNK):
        chunk = data[start:start + _CHUNK]
        found.append(np.flatnonzero(chunk == _NL) + start)
    newlines = np.concatenate(found)
    if len(newlines) == 0:  # one event alone: an array reads it as fast
        return None
    # a newline right after '[' or right before ']' (as scale_trace.py writes): kept
    first_event = 2 if newlines[0] == 1 else 1
    last_event = size - 3 if newlines[-1] == size - 2 else size - 2
    newlines = newlines[(newlines > 1) & (newlines < size - 2)]
    if data[first_event] != _OPEN or data[last_event] != _CLOSE:
        return None
    # every other newline ends an event ('},') and the next begins ('{')
    if len(newlines) and (np.any(data[newlines + 1] != _OPEN)
                          or np.any(data[newlines - 1] != _COMMA)
                          or np.any(data[newlines - 2] != _CLOSE)):
        return None
    return newlines - 1


def event_separator(part: Path) -> bytes | None:
    """The bytes between the first two events of an array part, from the '}' to the '{'
    ('},\n  {' as Kineto writes), when they hold a newline; else None."""
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
    one event a line, in place: every newline a space, the ',' of each separator a
    newline, the '[' a space and the ']' a newline."""
    pattern = np.frombuffer(separator, np.uint8)
    comma = separator.index(b",")
    with open(part, "r+b") as f:
        size = f.seek(0, 2)
        if size < 2:
            return
        with mmap.mmap(f.fileno(), 0) as m:
            data = np.ndarray(size, np.uint8, buffer=m)
            try:
                commas = _separator_commas(data, pattern, comma)
                for start in range(0, size, _CHUNK):  # then every newline a space
                    chunk = data[start:start + _CHUNK]
                    chunk[chunk == _NL] = _SPACE
                    del chunk
                data[commas] = _NL
                data[0] = _SPACE  # '['
                data[size - 1] = _NL  # ']'
            finally:
                del data  # the map cannot close while an array holds it


def _separator_commas(data: np.ndarray, pattern: np.ndarray, comma: int) -> np.ndarray:
    """Offsets of the ',' of every occurrence of `pattern` in `data`, a chunk at a time
    (each chunk's occurrences may run past its end)."""
    found = []
    for start in range(0, len(data), _CHUNK):
        end = min(start + _CHUNK, len(data))
        window = data[start:min(end + len(pattern), len(data))]
        at = np.flatnonzero(window[:end - start] == pattern[0])
        at = at[at + len(pattern) <= len(window)]
        for k in range(1, len(pattern)):
            at = at[window[at + k] == pattern[k]]
        found.append(at + start + comma)
    return np.concatenate(found) if found else np.empty(0, np.int64)
