"""Text for the clipboard (`y`): trace text copied literally, control characters removed,
so a pasted kernel name is the name and can never carry an escape sequence along.
Tables and results go as TSV (tab between cells, newline between rows)."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pyarrow as pa
import pyarrow.compute as pc

_CONTROL = r"[\x00-\x1f\x7f-\x9f]"  # C0, DEL and C1: what a terminal may act on
_CONTROL_RE = re.compile(_CONTROL)


def clean(text: object) -> str:
    """`text` as it is, less its control characters (tabs and newlines too)."""
    return _CONTROL_RE.sub("", str(text))


def tsv_row(values: Iterable[object]) -> str:
    return "\t".join("" if v is None else clean(v) for v in values)


def arrow_tsv(table: pa.Table) -> str:
    """A result as TSV with a header line; text columns cleaned in Arrow, not per row."""
    columns = []
    for column in table.columns:
        text = pc.cast(column, pa.string())
        columns.append(pc.fill_null(pc.replace_substring_regex(text, _CONTROL, ""), ""))
    lines = [tsv_row(table.column_names)]
    if table.num_rows:
        joined = pc.binary_join_element_wise(*columns, "\t") if len(columns) > 1 \
            else columns[0]
        lines.extend(joined.to_pylist())
    return "\n".join(lines) + "\n"
