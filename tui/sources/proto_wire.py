"""Decode many small protobuf messages at once, with numpy: no Python loop per message.

A profile holds millions of XEvents (and their XStats), each a few dozen bytes. Reading
each through the protobuf runtime costs about a microsecond of Python per field; here all
messages advance together, one field a round, so the rounds number the fields of the
longest message, not the messages. The wire format (varint, fixed64, fixed32, length-
delimited) is the one in https://protobuf.dev/programming-guides/encoding/.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

_FIXED64 = np.arange(8, dtype=np.int64)


class WireError(ValueError):
    """Bytes that are not a well-formed protobuf message."""


@dataclass
class Fields:
    """One field of each message still being read (one round of `scan`)."""

    msg: np.ndarray  # int64: which message (index into the starts given to scan)
    number: np.ndarray  # uint64: the field number
    wire: np.ndarray  # uint64: the wire type
    value: np.ndarray  # uint64: a varint's or fixed64's value (raw bits); a length for wire 2
    start: np.ndarray  # int64: where a length-delimited value's bytes start


def varints(buf: np.ndarray, pos: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The varints starting at `pos` (each to end before `end`), and the positions after."""
    byte = buf[pos]
    value = (byte & 0x7F).astype(np.uint64)
    after = pos + 1
    going = np.flatnonzero(byte >= 0x80)  # most tags and ids end here; times go on
    for shift in range(7, 70, 7):
        if not len(going):
            break
        at = after[going]
        if (at >= end[going]).any():
            raise WireError("a varint runs past the end of its message")
        byte = buf[at]
        value[going] |= (byte & 0x7F).astype(np.uint64) << np.uint64(shift)
        after[going] = at + 1
        going = going[byte >= 0x80]
    if len(going):
        raise WireError("a varint is longer than 10 bytes")
    if (after > end).any():
        raise WireError("a varint runs past the end of its message")
    return value, after


def _fixed64(buf: np.ndarray, pos: np.ndarray) -> np.ndarray:
    raw = np.ascontiguousarray(buf[pos[:, None] + _FIXED64])
    return raw.view("<u8").reshape(-1)


def scan(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray,
         chunk: int = 1 << 17) -> Iterator[Fields]:
    """Every field of the messages buf[starts[i]:ends[i]], a round at a time, `chunk`
    messages at a time (arrays that stay in cache); within a message the fields come in
    their order on the wire. Raises WireError."""
    if len(ends) and ends.max() > len(buf):
        raise WireError("a message runs past the end of the data")
    for first in range(0, len(starts), chunk):
        yield from _scan(buf, starts[first:first + chunk], ends[first:first + chunk], first)


def _scan(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, first: int) -> Iterator[Fields]:
    msg = np.arange(first, first + len(starts), dtype=np.int64)
    pos = starts.astype(np.int64)
    end = ends.astype(np.int64)
    keep = pos < end
    msg, pos, end = msg[keep], pos[keep], end[keep]
    while len(msg):
        tag, pos = varints(buf, pos, end)
        wire = tag & np.uint64(7)
        value = np.zeros(len(msg), np.uint64)
        start = pos.copy()
        is_var = wire == 0
        value[is_var], pos[is_var] = varints(buf, pos[is_var], end[is_var])
        is_len = wire == 2
        length, start[is_len] = varints(buf, pos[is_len], end[is_len])
        if (length > np.uint64(len(buf))).any():
            raise WireError("a field is longer than the data")
        value[is_len] = length
        pos[is_len] = start[is_len] + length.astype(np.int64)
        is_64 = wire == 1
        if is_64.any():
            if (pos[is_64] + 8 > end[is_64]).any():
                raise WireError("a fixed64 runs past the end of its message")
            value[is_64] = _fixed64(buf, pos[is_64])
            pos[is_64] += 8
        is_32 = wire == 5
        pos[is_32] += 4
        if not (is_var | is_len | is_64 | is_32).all():
            raise WireError("a field has an unknown wire type")
        if (pos > end).any():
            raise WireError("a field runs past the end of its message")
        yield Fields(msg, tag >> np.uint64(3), wire, value, start)
        more = pos < end
        msg, pos, end = msg[more], pos[more], end[more]


def by_message(fields: list[tuple[np.ndarray, ...]], n: int,
               dtypes: tuple[type, ...]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Fields picked from `scan`'s rounds, each (msg, *columns of `dtypes`), regrouped by
    message (in wire order within one) among `n`: the messages, ascending, and the
    columns in that order. A counting sort: a message has at most one field a round."""
    msgs = [f[0] for f in fields]
    counts = np.bincount(np.concatenate(msgs), minlength=n) if msgs else np.zeros(n, np.int64)
    slot = np.cumsum(counts) - counts
    out: list[np.ndarray] = [np.empty(int(counts.sum()), dtype) for dtype in dtypes]
    for msg, *columns in fields:
        at = slot[msg]
        for target, column in zip(out, columns, strict=True):
            target[at] = column
        slot[msg] += 1
    return np.repeat(np.arange(n, dtype=np.int64), counts), out


def gather(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """The byte ranges buf[starts[i]:starts[i] + lengths[i]] laid end to end, and the offsets
    (n + 1 of them, int32 or int64 as Arrow wants) where each begins."""
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    idx = np.arange(total, dtype=np.int64) + np.repeat(starts - offsets[:-1], lengths)
    return buf[idx], offsets
