"""Cut the event array out of a Chrome-trace JSON file so DuckDB can parse it.

Kineto writes `{"schemaVersion": 1, ..., "traceEvents": [ ... ], "traceName": ...}`;
other writers emit a bare `[ ... ]`. DuckDB's `read_json(format='array')` parses a top-level
array quickly and in C++, so we stream the bytes of `traceEvents` (inflating `.gz` on the
way) into a scratch file, then fix its end: a complete trace is cut at the array's closing
bracket, a truncated one at its last complete event. Only the small head and tail are
looked at in Python; the events themselves are never parsed here.

DuckDB parses one JSON array with one thread. So a big trace is written as several
arrays (parts), split between two events, which DuckDB reads in parallel, one file a
thread, in order. A split is placed by event_bounds.py: exact about strings (a brace or
quote inside a name is never taken for one between events), a guess about depth (two
objects inside an event's `args` look alike), but a wrong guess cannot go unnoticed: a
part that does not end where an event ends is not valid JSON, so the parse fails and the
loader extracts the events again as one array.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from tui.core.errors import TraceError
from tui.sources.event_bounds import event_boundary, outside_strings
from tui.sources.limits import max_inflated_bytes, size_text
from tui.sources.parts_in_place import PartRanges

# Either module: their `decompressobj` and `error` are used alike (isal's stub types `error`
# as an instance, so the module's own types are not followed here).
inflating: ModuleType
try:  # Intel's ISA-L inflates 2.6x faster than zlib (0.32 against 0.82 CPU-s for 700 MB)
    from isal import isal_zlib
    inflating = isal_zlib
except ImportError:  # a platform without its wheels
    import zlib
    inflating = zlib

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 8 << 20
_GZ_INPUT = 256 << 10  # compressed bytes fed to the inflater at a time (see _Stream.chunks)
_HEAD_LIMIT = 64 << 20  # metadata before the events is small; give up beyond this
_TAIL_KEEP = 4 << 20  # bytes of the end kept in memory to find where the events stop
_SCAN_CHUNK = 1 << 20  # the truncation scan holds a few int64 arrays of this length
_WS = b" \t\r\n"
_PROBE = 1 << 20  # bytes searched for a split point near where a part should end


def is_gzip(path: Path) -> bool:
    """Does `path` start as a gzip file does? (False when it cannot be read.)"""
    try:
        with open(path, "rb") as f:
            return f.read(2) == GZIP_MAGIC
    except OSError:
        return False


@dataclass
class EventsFile:
    """A JSON array of trace events on disk, plus what was learnt on the way."""

    paths: list[Path]  # one or more JSON arrays whose events, in this order, are the trace's
    metadata: dict = field(default_factory=dict)
    truncated: bool = False
    bytes_total: int = 0  # bytes of event text the source held
    bytes_dropped: int = 0  # bytes of a cut-off final event that could not be used
    in_place: PartRanges | None = None  # the parts as ranges of the source (no `paths`)


class _Stream:
    """The file's bytes in chunks, inflated when gzip-compressed.

    The inflater is driven directly (not the gzip module) so that a cut-off or damaged
    .gz yields everything that inflated before the damage; `broken` then says so.
    """

    def __init__(self, path: Path, limit: tuple[int, str] | None = None) -> None:
        self.path = path
        self.broken = False
        self.limit = limit  # (bytes, why): inflating past it raises (see sources/limits.py)
        self.inflated = 0
        self.consumed = 0  # compressed bytes read so far
        self.size = path.stat().st_size
        self.compressed = is_gzip(path)

    def progress(self) -> float:
        """How far through the file the reading is, 0..1."""
        return self.consumed / max(self.size, 1)

    def chunks(self) -> Iterator[bytes]:
        with open(self.path, "rb") as f:
            raw = f.read(_CHUNK)
            if not raw.startswith(GZIP_MAGIC):
                while raw:
                    yield raw
                    raw = f.read(_CHUNK)
                return
            # Compressed input goes in small pieces: when the inflater meets damage it raises and
            # drops that call's output, so this keeps all but the last piece's worth.
            f.seek(0)
            raw = f.read(_GZ_INPUT)
            inflater = inflating.decompressobj(wbits=31)
            while raw:
                self.consumed = f.tell()
                try:
                    out = inflater.decompress(raw, _CHUNK)
                    while out:
                        self._count(len(out))
                        yield out
                        out = inflater.decompress(inflater.unconsumed_tail, _CHUNK)
                except inflating.error:
                    self.broken = True
                    return
                if inflater.eof:  # a second gzip member may follow
                    raw = inflater.unused_data or f.read(_GZ_INPUT)
                    if not raw:
                        return
                    inflater = inflating.decompressobj(wbits=31)
                    continue
                raw = f.read(_GZ_INPUT)
            if not inflater.eof:
                self.broken = True

    def _count(self, n: int) -> None:
        self.inflated += n
        if self.limit is not None and self.inflated > self.limit[0]:
            raise TraceError(
                f"{self.path}: inflates to more than {size_text(self.limit[0])} "
                f"({self.limit[1]}): a damaged or hostile .gz, not read further"
            )


def extract_events(source: Path, scratch: Path, parts: int = 1,
                   on_part: Callable[[Path], None] | None = None,
                   in_place: bool = False) -> EventsFile:
    """Write the trace's events as JSON arrays: `scratch`, then for each further part of
    the `parts` asked for, a file beside it (fewer when no split point is found).
    on_part(path) is called as each part but the last is complete, so that a reader can
    begin while the rest is still being inflated; the last is complete on return.

    in_place: a complete plain file's parts are not copied but described, as byte ranges
    of it (EventsFile.in_place, read through parts_in_place.py), where it has several."""
    stream = _Stream(source, max_inflated_bytes(source, scratch.parent))
    chunks = stream.chunks()
    try:
        head, array_start, metadata = _read_head(chunks, source)
    except TraceError:
        if stream.broken:  # the damage came before the events: say that, not "empty"
            raise TraceError(f"{source}: the .gz file is damaged before its events begin; "
                             "nothing can be loaded (copy or export it again)") from None
        raise
    if in_place and parts > 1 and not stream.compressed:
        events = _parts_in_place(source, array_start + 1, parts, metadata)
        if events is not None:
            return events
    files = _PartFiles(scratch, on_part)
    events = EventsFile(paths=files.paths, metadata=metadata)
    try:
        if stream.compressed:
            tail = _copy_inflated(head[array_start + 1 :], chunks, files, stream, parts)
        else:
            tail = _copy_plain(source, array_start + 1, files, parts)
        _finish(files.out, tail, events, None if stream.broken else metadata, source)
    finally:
        files.out.close()
    return events


def _finish(out, tail: bytearray, events: EventsFile, metadata: dict | None,
            source: Path) -> None:
    """End the last part: at the array's closing bracket, or, when the trace is cut off
    (or `metadata` is None: a broken .gz), after its last complete event."""
    # an earlier part is '[' + its events + ']', and the ',' after them was dropped
    earlier = sum(path.stat().st_size - 1 for path in events.paths[:-1])
    events.bytes_total = earlier + out.tell() - 1 + len(tail)
    end = None if metadata is None else _complete_end(tail, metadata)
    if end is not None:
        out.write(tail[:end])
    else:
        # Cut off: keep every event up to the last one that closes.
        events.truncated = True
        out.write(tail)
        out.flush()
        part_bytes = out.tell()
        out.seek(0)
        last = _last_event_end(out)
        if last is None and len(events.paths) == 1:
            raise TraceError(
                f"{source}: the trace is cut off before its first complete event; "
                "nothing can be loaded (re-export or re-record the trace)"
            )
        last = last or 1  # an earlier part holds complete events: this one ends empty
        events.bytes_dropped = part_bytes - last
        out.truncate(last)
        out.seek(last)
    out.write(b"]")


class _PartFiles:
    """The scratch arrays being written: each opened with '[' and closed with ']'."""

    def __init__(self, first: Path, on_part: Callable[[Path], None] | None = None) -> None:
        self.paths = [first]
        self.out = open(first, "w+b")  # noqa: SIM115 (closed by next_part / the caller)
        self.out.write(b"[")
        self._earlier: list[tuple] = []  # open parts before the current one, and their paths
        self._on_part = on_part

    def next_part(self) -> None:
        self.out.write(b"]")
        self.out.close()
        self._completed(self.paths[-1])
        self.out = self._open_next()

    def open_parts(self, count: int) -> list:
        """Open `count` further parts beside the current one, to be filled at once;
        returns every open part, the current one first. The last becomes the current
        part; close_earlier() ends the others."""
        earlier = [self.out] + [self._open_next() for _ in range(count - 1)]
        self.out = self._open_next() if count else earlier.pop()
        self._earlier = list(zip(earlier, self.paths[-1 - len(earlier):-1], strict=True))
        return [*earlier, self.out]

    def close_earlier(self) -> None:
        for out, path in self._earlier:
            out.write(b"]")
            out.close()
            self._completed(path)
        self._earlier = []

    def _completed(self, path: Path) -> None:
        if self._on_part is not None:
            self._on_part(path)

    def _open_next(self):
        first = self.paths[0]
        path = first.with_name(f"{first.stem}-{len(self.paths)}{first.suffix}")
        self.paths.append(path)
        out = open(path, "w+b")  # noqa: SIM115 (closed by the caller)
        out.write(b"[")
        return out


def _copy_inflated(start: bytes, chunks: Iterator[bytes], files: _PartFiles,
                   stream: _Stream, parts: int) -> bytearray:
    """Copy inflated chunks to the parts, holding back the last bytes (returned). A new
    part starts at a split point once the compressed input read passes 1/parts more."""
    tail = bytearray(start)
    marks = [k / parts for k in range(1, parts)]
    for chunk in chunks:
        tail += chunk
        if marks and stream.progress() >= marks[0]:
            cut = event_boundary(tail)
            if cut is not None:
                files.out.write(memoryview(tail)[:cut])
                files.next_part()
                del tail[: cut + 1]
                marks.pop(0)
        if len(tail) > 2 * _TAIL_KEEP:
            flush = len(tail) - _TAIL_KEEP
            files.out.write(memoryview(tail)[:flush])
            del tail[:flush]
    return tail


def _copy_plain(source: Path, body_start: int, files: _PartFiles, parts: int) -> bytearray:
    """Copy an uncompressed file's events to the parts in the kernel (copy_file_range),
    all but the tail (returned)."""
    ranges, tail = _plain_parts(source, body_start, parts)
    outs = files.open_parts(len(ranges) - 1)
    try:
        if len(ranges) == 1:
            _copy_range(source, outs[0], *ranges[0])
        else:  # a thread a part: the copies run in the kernel, side by side
            with ThreadPoolExecutor(len(ranges)) as pool:
                list(pool.map(_copy_range, [source] * len(ranges), outs,
                              *zip(*ranges, strict=True)))
    finally:
        files.close_earlier()
    return tail


def _parts_in_place(source: Path, body_start: int, parts: int,
                    metadata: dict) -> EventsFile | None:
    """A complete plain file's parts as byte ranges of it; None when it has one part, or
    is cut off (its last part then ends where its last event does: a scan of a copy)."""
    ranges, tail = _plain_parts(source, body_start, parts)
    end = _complete_end(tail, metadata) if len(ranges) > 1 else None
    if end is None:
        return None
    return EventsFile(paths=[], metadata=metadata,
                      bytes_total=source.stat().st_size - body_start,
                      in_place=PartRanges(source, ranges, bytes(tail[:end])))


def _plain_parts(source: Path, body_start: int,
                 parts: int) -> tuple[list[tuple[int, int]], bytearray]:
    """The byte ranges of an uncompressed file's parts, up to its tail, and the tail (the
    last _TAIL_KEEP bytes, where the events end). The ',' between two parts' events is
    in neither."""
    tail_start = max(body_start, source.stat().st_size - _TAIL_KEEP)
    with open(source, "rb") as src:
        cuts = _plain_split_points(src, body_start, tail_start, parts)
        src.seek(tail_start)
        tail = bytearray(src.read())
    starts = [body_start] + [cut + 1 for cut in cuts]
    return list(zip(starts, [*cuts, tail_start], strict=True)), tail


def _plain_split_points(src, start: int, end: int, parts: int) -> list[int]:
    """Offsets of the ',' where each further part begins, about evenly spaced."""
    cuts: list[int] = []
    for k in range(1, parts):
        at = max(start + (end - start) * k // parts, cuts[-1] + 1 if cuts else start)
        src.seek(at)
        found = event_boundary(src.read(max(0, min(_PROBE, end - at))))
        if found is not None:
            cuts.append(at + found)
    return cuts


def _copy_range(source: Path, out, offset: int, end: int) -> None:
    """Append source[offset:end] to `out`, in the kernel where it can."""
    out.flush()
    position = out.tell()
    with open(source, "rb") as src:
        try:
            while offset < end:
                copied = os.copy_file_range(src.fileno(), out.fileno(), end - offset,
                                            offset_src=offset, offset_dst=position)
                if copied == 0:
                    break
                offset += copied
                position += copied
        except (AttributeError, OSError):  # no copy_file_range here: copy through Python
            src.seek(offset)
            out.seek(position)
            while offset < end:
                block = src.read(min(_CHUNK, end - offset))
                if not block:
                    break
                out.write(block)
                offset += len(block)
                position += len(block)
    out.seek(position)


def _read_head(chunks: Iterator[bytes], source: Path) -> tuple[bytes, int, dict]:
    """Read until the start of the events array; return (bytes read, index of '[', metadata)."""
    head = b""
    while len(head) < _HEAD_LIMIT:
        chunk = next(chunks, b"")
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
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip(_WS)  # a UTF-8 BOM is allowed
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
    try:
        key = _scan_top_level_keys(text)
    except TraceError as exc:
        raise TraceError(f"{source}: {exc}") from None
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


# a ']' right after the end of an event ('}') or the array's own start (white space
# between). Two patterns, each led by a literal or anchored: one `(?:\A|\})...` made the
# regex engine try every offset of the tail (37 ms for 5 MB of a DDP rank, against 2.6 ms).
_EMPTY = re.compile(rb"[ \t\r\n]*(\])")
_CLOSE = re.compile(rb"\}[ \t\r\n]*(\])")


def _complete_end(tail: bytearray, metadata: dict) -> int | None:
    """Offset of the events array's closing ']' in `tail` when the file is complete.

    The right ']' is the earliest one outside strings after which the rest of the file is
    a valid end of the enclosing object (or nothing, for a bare array), and before which
    comes the end of an event ('}') or the array's own start. (A file cut off just after
    a '}]' inside a name is not complete.)
    """
    best = None
    data = bytes(tail)
    empty = _EMPTY.match(data)  # the array's own start: before any event's end
    for match in itertools.chain([empty] if empty else [], _CLOSE.finditer(data)):
        pos = match.start(1)
        if not outside_strings(data, pos):
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


def _last_event_end(scratch) -> int | None:
    """Offset just past the last complete top-level event in the scratch array file.

    A linear scan in NumPy, chunk by chunk, carrying the JSON state across chunks:
    which quotes are escaped, whether we are inside a string, and the nesting depth.
    A '}' outside strings that brings the depth back to 1 (the events array) ends an event.
    """
    import numpy as np  # only cut-off traces come here: a complete trace loads without it

    last = None
    offset = 0
    depth = 0
    in_string = False
    backslashes = 0  # run of backslashes ending the previous chunk
    while True:
        chunk = scratch.read(_SCAN_CHUNK)
        if not chunk:
            return last
        b = np.frombuffer(chunk, dtype=np.uint8)
        idx = np.arange(len(b))
        is_bs = b == 0x5C
        # length of the backslash run right before each byte (carrying the last chunk's)
        last_other = np.maximum.accumulate(np.where(is_bs, -1, idx))
        run_before = np.empty(len(b), dtype=np.int64)
        run_before[0] = backslashes
        prev_other = last_other[:-1]
        run_before[1:] = np.where(prev_other >= 0, idx[:-1] - prev_other,
                                  idx[1:] + backslashes)
        quotes = (b == 0x22) & (run_before % 2 == 0)
        # parity of unescaped quotes up to and including each byte
        parity = (np.cumsum(quotes) + in_string) % 2 == 1
        outside = ~parity & ~quotes
        opens = outside & ((b == 0x7B) | (b == 0x5B))
        closes = outside & ((b == 0x7D) | (b == 0x5D))
        level = depth + np.cumsum(opens.astype(np.int64) - closes.astype(np.int64))
        ends = np.flatnonzero(closes & (b == 0x7D) & (level == 1))
        if len(ends):
            last = offset + int(ends[-1]) + 1
        depth = int(level[-1])
        in_string = bool(parity[-1])
        backslashes = int(len(b) - 1 - last_other[-1]) if last_other[-1] >= 0 else (
            backslashes + len(b)
        )
        offset += len(b)
