"""Where, near a given byte, one event of a trace's JSON array ends and the next begins.

A big trace is cut into parts that DuckDB parses side by side (chrome_json.py), each cut
on the ',' between two events. Finding one must not mean reading the file from its start,
so the scan starts anywhere, and is exact about strings from there on:

- Whether a byte lies inside a string is told locally. In valid JSON a quote that closes a
  string is followed by white space, ',', ':', '}' or ']'; so an unescaped quote followed
  by anything else opens one, and the byte before it is outside every string. From that
  anchor the scan walks string by string (escapes included), so braces, commas and quotes
  inside names and args are never taken for structure.
- Outside strings, a '}' then ',' then '{' (white space between) is a candidate, taken
  when the object that begins there parses whole and has "ph", as every trace event has.

How deep a candidate lies (between two events, or between two objects inside an event's
args) cannot be told locally. A wrong one cannot go unnoticed: the part before it then
ends inside an event, which is not valid JSON, so DuckDB refuses that part and the loader
parses the events as one array instead (kineto.py).
"""

from __future__ import annotations

import json
import re

# after a closing quote: white space, ',', ':', '}' or ']' (and nothing else)
_AFTER_CLOSING = frozenset(b" \t\r\n,:}]")
_STRING_OR_BRACE = re.compile(rb'["}]')
_BETWEEN = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")
_DECODER = json.JSONDecoder()
# the object after a candidate is parsed from at most this many bytes (an event larger
# than this is not recognised as one, and the scan moves on)
PROBE_OBJECT_BYTES = 256 << 10


def event_boundary(data: bytes | bytearray, start: int = 0) -> int | None:
    """Offset in `data` of the ',' between two events, the first at or after `start`
    found as the module says; None when `data` holds none (or no anchor)."""
    at = _anchor(data, start)
    while at is not None:
        found = _STRING_OR_BRACE.search(data, at)
        if found is None:
            return None
        at = found.start()
        if data[at] == 0x22:  # '"': skip the whole string
            at = _string_end(data, at)
            continue
        between = _BETWEEN.match(data, at)
        if between is not None and _starts_event(data, between.end() - 1):
            return data.index(b",", at)
        at += 1
    return None


def outside_strings(data: bytes | bytearray, at: int) -> bool:
    """Is byte `at` outside every string? Told from the nearest anchor before it (walking
    strings from there); True where `data` holds no anchor before it (nothing says
    otherwise). The anchor is looked for in the 4 KB before it first (strings walked from
    further back tell the same: ~20 ms for 64 KB of a Kineto trace's strings)."""
    reach = 4 << 10
    while True:
        start = max(0, at - reach)
        anchor = _anchor(data, start)
        if anchor is not None and anchor < at:
            break
        if start == 0:
            return True
        reach *= 4
    pos = anchor
    while pos is not None and pos <= at:
        quote = data.find(b'"', pos, at + 1)
        if quote == -1:
            return True
        end = _string_end(data, quote)
        if end is None or end > at:
            return False  # `at` falls inside this string
        pos = end
    return True


def _anchor(data: bytes | bytearray, start: int) -> int | None:
    """An offset at or after `start` that is outside every string: an unescaped quote
    that can only open a string (or the start, where it is one)."""
    at = start
    while True:
        quote = data.find(b'"', at)
        if quote == -1 or quote + 1 >= len(data):
            return None
        run = _backslashes_before(data, quote, start)
        if run is not None and run % 2 == 0 and data[quote + 1] not in _AFTER_CLOSING:
            return quote
        at = quote + 1


def _backslashes_before(data: bytes | bytearray, at: int, start: int) -> int | None:
    """How many backslashes come right before `at`; None when the run reaches `start`
    (it may go on before it)."""
    run = 0
    while at - run - 1 >= start and data[at - run - 1] == 0x5C:
        run += 1
    return None if at - run - 1 < start and run else run


def _string_end(data: bytes | bytearray, quote: int) -> int | None:
    """Offset just past the string that opens at `quote`; None if it does not end in
    `data`."""
    at = quote + 1
    while True:
        close = data.find(b'"', at)
        if close == -1:
            return None
        run = 0
        while data[close - 1 - run] == 0x5C:
            run += 1
        if run % 2 == 0:
            return close + 1
        at = close + 1


def _starts_event(data: bytes | bytearray, brace: int) -> bool:
    """Does a whole JSON object with a "ph" key begin at `brace`?"""
    text = bytes(data[brace : brace + PROBE_OBJECT_BYTES]).decode("utf-8", "replace")
    try:
        value, _ = _DECODER.raw_decode(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "ph" in value
