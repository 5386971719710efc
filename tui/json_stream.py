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


def iter_json(value: Any) -> Iterator[str]:
    """The JSON text of `value`, in pieces."""
    if isinstance(value, RowSet):
        yield "["
        for i, text in enumerate(value.json_chunks()):
            yield text if i == 0 else ", " + text
        yield "]"
    elif (isinstance(value, Mapping) and all(isinstance(k, str) for k in value)
          and any(_nested(v) for v in value.values())):
        yield "{"
        yield from iter_json_members(value)
        yield "}"
    elif isinstance(value, list | tuple) and any(_nested(v) for v in value):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ", "
            yield from iter_json(item)
        yield "]"
    else:  # a scalar, or a flat list or object: encoded at once
        yield json.dumps(value, default=_rows_as_list)


def iter_json_members(mapping: Mapping[str, Any]) -> Iterator[str]:
    """The members of a JSON object (`"key": value, ...`) without its braces."""
    for i, (key, item) in enumerate(mapping.items()):
        yield (", " if i else "") + json.dumps(key) + ": "
        yield from iter_json(item)


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
