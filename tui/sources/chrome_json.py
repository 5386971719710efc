"""Cut the event array out of a Chrome-trace JSON file so DuckDB can parse it.

Kineto writes `{"schemaVersion": 1, ..., "traceEvents": [ ... ], "traceName": ...}`;
other writers emit a bare `[ ... ]`. DuckDB's `read_json(format='array')` parses a top-level
array quickly and in C++, so we stream the bytes of `traceEvents` (inflating `.gz` on the
way) into a scratch file, then fix its end: a complete trace is cut at the array's closing
bracket, a truncated one at its last complete event. Only the small head and tail are
looked at in Python; the events themselves are never parsed here.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tui.errors import TraceError

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 8 << 20
_HEAD_LIMIT = 64 << 20  # metadata before the events is small; give up beyond this
_TAIL_KEEP = 4 << 20  # bytes of the end kept in memory to find where the events stop
_WS = b" \t\r\n"


@dataclass
class EventsFile:
    """A JSON array of trace events on disk, plus what was learnt on the way."""

    path: Path
    metadata: dict = field(default_factory=dict)
    truncated: bool = False
    bytes_total: int = 0  # bytes of event text the source held
    bytes_dropped: int = 0  # bytes of a cut-off final event that could not be used


def open_maybe_gzip(path: Path) -> IO[bytes]:
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == GZIP_MAGIC:
        return gzip.open(path, "rb")
    return open(path, "rb")


def extract_events(source: Path, scratch: Path) -> EventsFile:
    """Write the trace's events as one JSON array to `scratch`."""
    with open_maybe_gzip(source) as stream:
        head, array_start, metadata = _read_head(stream, source)
        with open(scratch, "wb") as out:
            out.write(b"[")
            tail = bytearray(head[array_start + 1 :])
            written = 0
            stream_broken = False
            while True:
                try:
                    chunk = stream.read(_CHUNK)
                except (EOFError, zlib.error, OSError):
                    stream_broken = True  # a cut-off or damaged .gz: keep what inflated
                    break
                if not chunk:
                    break
                tail += chunk
                if len(tail) > 2 * _TAIL_KEEP:
                    flush = len(tail) - _TAIL_KEEP
                    out.write(tail[:flush])
                    written += flush
                    del tail[:flush]
            events = EventsFile(path=scratch, metadata=metadata)
            events.bytes_total = written + len(tail)
            end = _complete_end(tail, metadata)
            if end is None:
                end = _last_complete_event_end(tail)
                events.truncated = True
                if end is None and written == 0:
                    raise TraceError(
                        f"{source}: the trace is cut off before its first complete event; "
                        "nothing can be loaded (re-export or re-record the trace)"
                    )
                if end is None:
                    raise TraceError(
                        f"{source}: cannot find where the last complete event ends "
                        "(the file is damaged near its end)"
                    )
                events.bytes_dropped = len(tail) - end
            elif stream_broken:
                events.truncated = True
            out.write(tail[:end])
            out.write(b"]")
    return events


def _read_head(stream: IO[bytes], source: Path) -> tuple[bytes, int, dict]:
    """Read until the start of the events array; return (bytes read, index of '[', metadata)."""
    head = b""
    while len(head) < _HEAD_LIMIT:
        try:
            chunk = stream.read(1 << 20)
        except (EOFError, zlib.error, OSError) as exc:
            raise TraceError(f"{source}: the compressed file is damaged ({exc})") from None
        head += chunk
        found = _find_array_start(head, at_eof=not chunk, source=source)
        if found is not None:
            return head, found[0], found[1]
        if not chunk:
            break
    raise TraceError(
        f"{source}: no \"traceEvents\" array found: this is not a Chrome/Kineto trace "
        "(expected {\"traceEvents\": [...]} or a bare [...] of events)"
    )


def _find_array_start(head: bytes, at_eof: bool, source: Path) -> tuple[int, dict] | None:
    """Locate the events array in the first bytes of the file, or None if more is needed."""
    text = head.lstrip(_WS)
    offset = len(head) - len(text)
    if not text:
        if at_eof:
            raise TraceError(f"{source}: the file is empty; it holds no trace")
        return None
    if text[:1] == b"[":
        return offset, {}
    if text[:1] != b"{":
        raise TraceError(
            f"{source}: not a JSON trace (it starts with {text[:16]!r}); "
            "expected a PyTorch profiler / Kineto .json(.gz) or an Nsight Systems .sqlite/.nsys-rep"
        )
    key = _scan_top_level_keys(text)
    if key is None:
        return None
    key_start, bracket = key
    metadata = _parse_partial_object(text[:key_start])
    return offset + bracket, metadata


def _scan_top_level_keys(text: bytes) -> tuple[int, int] | None:
    """Walk the top-level object up to the "traceEvents" key; (key offset, '[' offset)."""
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == 0x22:  # '"'
            j = i + 1
            while j < n and text[j] != 0x22:
                j += 2 if text[j] == 0x5C else 1
            if j >= n:
                return None
            if depth == 1 and text[i + 1 : j] == b"traceEvents":
                k = j + 1
                while k < n and text[k] in b" \t\r\n:":
                    k += 1
                if k >= n:
                    return None
                if text[k] != 0x5B:
                    raise TraceError("\"traceEvents\" is not an array; this trace is malformed")
                return i, k
            i = j + 1
            continue
        if c in b"{[":
            depth += 1
        elif c in b"}]":
            depth -= 1
        i += 1
    return None


def _parse_partial_object(text: bytes) -> dict:
    """Parse `{"a": 1, "b": 2, ` (an object cut before a key) into a dict; {} if odd."""
    body = text.rstrip(_WS).rstrip(b",")
    try:
        value = json.loads(body + b"}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


_CLOSE = re.compile(rb"\]")


def _complete_end(tail: bytearray, metadata: dict) -> int | None:
    """Offset of the events array's closing ']' in `tail` when the file is complete.

    The right ']' is the earliest one after which the rest of the file is a valid
    end of the enclosing object (or nothing, for a bare array), and before which comes
    the end of an event ('}') or the array's own start.
    """
    best = None
    data = bytes(tail)
    for match in _CLOSE.finditer(data):
        pos = match.start()
        if _char_before(data, pos) not in (b"}", b""):
            continue
        rest = data[pos + 1 :].strip(_WS)
        trailer = _parse_trailer(rest)
        if trailer is None:
            continue
        metadata.update(trailer)
        best = pos
        break
    return best


def _parse_trailer(rest: bytes) -> dict | None:
    """The keys after the events array, or None if `rest` cannot be a valid ending."""
    if rest in (b"", b"}"):
        return {}
    if not rest.startswith(b",") or not rest.endswith(b"}"):
        return None
    try:
        value = json.loads(b"{" + rest[1:])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


_EVENT_END = re.compile(rb"\}[ \t\r\n]*(?=,|\]|$)")


def _last_complete_event_end(tail: bytearray) -> int | None:
    """End offset (exclusive) of the last event that is complete JSON, for a cut-off file."""
    data = bytes(tail)
    ends = [m.start() + 1 for m in _EVENT_END.finditer(data)]
    for end in reversed(ends[-64:]):
        if _is_whole_event(data, end):
            return end
    return None


def _is_whole_event(data: bytes, end: int) -> bool:
    """Does a top-level event object end at `end`? Try each '{' that follows ',' or '['."""
    start = end
    window_start = max(0, end - _TAIL_KEEP)
    while True:
        start = data.rfind(b"{", window_start, start)
        if start < 0:
            return False
        if _char_before(data, start) in (b",", b"[", b""):
            try:
                value = json.loads(data[start:end])
            except ValueError:
                continue
            return isinstance(value, dict)


def _char_before(data: bytes, pos: int) -> bytes:
    """The last non-whitespace byte before `pos` (b"" at the start)."""
    i = pos - 1
    while i >= 0 and data[i] in _WS:
        i -= 1
    return data[i : i + 1] if i >= 0 else b""
