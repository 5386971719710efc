"""Turn a part of events written one event a line into newline-delimited JSON, in place.

A scaled or re-exported trace often holds one event a line (`{...},` then a newline):
DuckDB's newline-delimited reader splits such a file between its threads by lines, where
an array is read by one thread from start to end. The part's array becomes
newline-delimited by blanking three kinds of bytes, each kept in its place: the opening
'[', the closing ']' and the ',' that ends each line. Only the bytes just before and after
each newline are looked at, in NumPy, which lets other threads run meanwhile, so the parts
are rewritten side by side.

A part of another shape (pretty-printed as Kineto writes, events over several lines; white
space after the ',') is left as it is and reported: the loader reads it as an array. A
part whose lines are not each one whole event (two events on a line) can pass the check,
but not unnoticed: such a line is no single JSON document, and the reader refuses the part
(the loader then reads the events again as one array).
"""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np

_GLANCE = 1 << 20  # bytes of the first part looked at before a whole part is
_CHUNK = 64 << 20  # bytes looked at a time: the comparisons' arrays stay this small
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
