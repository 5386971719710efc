"""JSON text a piece at a time, for summaries too big to encode whole.

`iter_json(value)` yields the text `json.dumps(value)` would return (same separators, same
escapes), in pieces: a RowSet (tui.analysis.row_sets) is written a chunk of rows at a time,
so neither its dicts nor the text of a 0.3 GB summary are ever held at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from tui.analysis.row_sets import RowSet


def iter_json(value: Any, texts: RepeatedTexts | None = None) -> Iterator[str]:
    """The JSON text of `value`, in pieces."""
    texts = texts if texts is not None else RepeatedTexts(value)
    if isinstance(value, RowSet):
        yield "["
        yield from texts.rows_json(value)
        yield "]"
    elif (isinstance(value, Mapping) and all(isinstance(k, str) for k in value)
          and any(_nested(v) for v in value.values())):
        yield "{"
        yield from iter_json_members(value, texts)
        yield "}"
    elif isinstance(value, list | tuple) and any(_nested(v) for v in value):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ", "
            yield from iter_json(item, texts)
        yield "]"
    else:  # a scalar, or a flat list or object: encoded at once
        yield json.dumps(value, default=_rows_as_list)


def iter_json_members(mapping: Mapping[str, Any],
                      texts: RepeatedTexts | None = None) -> Iterator[str]:
    """The members of a JSON object (`"key": value, ...`) without its braces."""
    texts = texts if texts is not None else RepeatedTexts(mapping)
    for i, (key, item) in enumerate(mapping.items()):
        yield (", " if i else "") + json.dumps(key) + ": "
        yield from iter_json(item, texts)


class RepeatedTexts:
    """The text of each RowSet that is more than once in the value being written, kept from
    its first writing for the others: a summary's gaps are its `gaps` and the gpu_gaps
    finding's rows, one RowSet (200k gaps of a 3 GB nsys export: 0.65 s to encode, 100 MB
    of text, held while the trace is closed and DuckDB's memory given back)."""

    def __init__(self, value: Any) -> None:
        seen: set[int] = set()
        self._repeated: set[int] = set()
        for rows in _row_sets(value):
            (self._repeated if id(rows) in seen else seen).add(id(rows))
        self._texts: dict[int, list[str]] = {}

    def rows_json(self, rows: RowSet) -> Iterator[str]:
        """The rows' JSON without brackets, in pieces."""
        kept = self._texts.get(id(rows))
        if kept is not None:
            yield from kept
            return
        keep: list[str] | None = [] if id(rows) in self._repeated else None
        for i, text in enumerate(rows.json_chunks()):
            piece = text if i == 0 else ", " + text
            if keep is not None:
                keep.append(piece)
            yield piece
        if keep is not None:
            self._texts[id(rows)] = keep


def _row_sets(value: Any) -> Iterator[RowSet]:
    if isinstance(value, RowSet):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _row_sets(item)
    elif isinstance(value, list | tuple):
        for item in value:
            if _nested(item):
                yield from _row_sets(item)


def write_json(out: TextIO, value: Any) -> None:
    for piece in iter_json(value):
        out.write(piece)


def _nested(value: Any) -> bool:
    return isinstance(value, RowSet | Mapping | list | tuple)


def _rows_as_list(value: Any) -> Any:
    """json.dumps' fallback: a RowSet where it was not expected (under a non-str key)."""
    if isinstance(value, RowSet):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
