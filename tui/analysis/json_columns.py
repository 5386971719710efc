"""JSON text of Arrow rows, built column by column with Arrow's compute functions: the
text json.dumps writes for the rows as dicts (same separators, same escapes), where every
column is of a kind whose text is plain to make: integers, booleans and text. Text is
written as json.dumps writes it (ensure_ascii): printable ASCII as it is, but for quotes
and backslashes; every other character, few in a trace's names and a gap's cause (µ, ›),
replaced by its escape."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc

# printable ASCII but '"' and '\\': what json.dumps(ensure_ascii=True) leaves as it is
_PLAIN = r"[ !#-\[\]-~]"


def rows_json(table: pa.Table, origin: int | None) -> str | None:
    """The rows of `table` as json.dumps writes their list of dicts, without the brackets
    (each row also given offset_ns = start_ns - origin, when `origin` is not None and the
    table has start_ns); None when a column's values are not all plainly written."""
    if table.num_rows == 0:
        return ""
    parts: list[pa.Array | str] = []
    columns = list(zip(table.column_names, table.columns, strict=True))
    if origin is not None and "start_ns" in table.column_names:
        start = table.column("start_ns")
        if start.null_count or not pa.types.is_integer(start.type):
            return None  # a row without a start has no offset: json.dumps writes the dicts
        columns.append(("offset_ns", pc.subtract(start, pa.scalar(origin, start.type))))
    for i, (name, column) in enumerate(columns):
        text = _values_json(column)
        if text is None:
            return None
        parts += [("{" if i == 0 else ", ") + json.dumps(name) + ": ", text]
    parts.append("}")
    rows = pc.binary_join_element_wise(*parts, "").combine_chunks()
    return pc.binary_join(pa.ListArray.from_arrays([0, len(rows)], rows), ", ")[0].as_py()


def _values_json(column: pa.ChunkedArray) -> pa.ChunkedArray | None:
    kind = column.type
    if pa.types.is_integer(kind):
        text = pc.cast(column, pa.string())
    elif pa.types.is_boolean(kind):
        text = pc.if_else(column, "true", "false")
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        text = pc.binary_join_element_wise('"', _escaped(column), '"', "")
    else:
        return None
    return text.fill_null("null")


def _escaped(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """The text as json.dumps writes it between its quotes."""
    valid = column.drop_null()
    if not len(valid) or pc.all(pc.match_substring_regex(valid, f"^{_PLAIN}*$")).as_py():
        return column
    # the characters to escape: what is left of each value without its plain ones
    rest = pc.unique(pc.replace_substring_regex(valid, f"{_PLAIN}+", "")).to_pylist()
    special = set("".join(rest))
    if "\\" in special:  # first, so that no escape written below is escaped again
        column = pc.replace_substring(column, "\\", "\\\\")
    for char in sorted(special - {"\\"}):
        column = pc.replace_substring(column, char, json.dumps(char)[1:-1])
    return column
