"""Named SQL queries: one `.sql` file a query, under `queries/<layer>/`, loaded by name.

A query's folder is the layer of the modules that run it; its name is unique across the
folders, so callers name it alone. Values are DuckDB's named parameters (`$name`, passed
as a dict). What a parameter cannot be (a table or column name, or a piece of SQL that
code put together) is a `{slot}`, filled by `fill`, the one template of the queries.
The conventions, and each file's `Params:`/`Needs:` header: queries/README.md.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).parent.parent  # tui/

# A string, a quoted name, a comment, a {slot} or a $parameter: the last two count only
# outside the first three
_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/"
                     r"|\{([a-z_][a-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", re.DOTALL)
_NAME = r'(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"]|"")+")'
# A name, maybe qualified (db.table, t.column), or a list of them
_IDENTIFIERS = re.compile(rf"{_NAME}(?:\.{_NAME})?(?:\s*,\s*{_NAME}(?:\.{_NAME})?)*")


class Sql(str):
    """SQL that code put together from its own text (a query's, a clause over known
    column names with `$parameters` for the values), never from a trace or the user:
    `fill` puts it in a slot as it is."""


def queries_dir() -> Path:
    """The installed copy (wheel) or the source tree's `queries/` (editable install)."""
    installed = _PACKAGE_DIR / "_queries"
    return installed if installed.is_dir() else _PACKAGE_DIR.parent / "queries"


@cache
def query_paths() -> dict[str, Path]:
    """Every query's file by name, from every folder under `queries/`."""
    paths: dict[str, Path] = {}
    for path in sorted(queries_dir().rglob("*.sql")):
        if path.stem in paths:
            raise RuntimeError(f"two queries named {path.stem!r}: {paths[path.stem]} and {path}")
        paths[path.stem] = path
    return paths


@cache
def load_query(name: str) -> str:
    """The text of the query `name` (`queries/<layer>/<name>.sql`)."""
    path = query_paths().get(name)
    if path is None:
        raise KeyError(f"no query named {name!r} in {queries_dir()}")
    return path.read_text(encoding="utf-8")


def slots(sql: str) -> set[str]:
    """The `{slot}` names of a query's text (outside its comments and strings)."""
    return {m.group(1) for m in _TOKENS.finditer(sql) if m.group(1)}


def parameters(sql: str) -> set[str]:
    """The `$parameter` names of a query's text (outside its comments and strings)."""
    return {m.group(2) for m in _TOKENS.finditer(sql) if m.group(2)}


def fill(name: str, /, **values: str) -> str:
    """The query `name` with each `{slot}` replaced by its value: a name or a list of
    names (checked to be nothing else), or `Sql`. Every slot takes a value, and only
    slots do."""
    text = load_query(name)
    wanted = slots(text)
    if wanted != set(values):
        raise KeyError(f"query {name!r} has the slots {sorted(wanted)}, given {sorted(values)}")
    for slot, value in values.items():
        if not isinstance(value, Sql) and not _IDENTIFIERS.fullmatch(value):
            raise ValueError(f"slot {{{slot}}} of query {name!r} takes names or Sql, "
                             f"not {value!r}")
    return _TOKENS.sub(lambda m: values[m.group(1)] if m.group(1) else m.group(0), text)


def fragment(name: str) -> Sql:
    """The query `name` as a piece of another query's text, for a `{slot}` that `fill`
    fills: without its trailing blanks and last `;` (the query that holds it ends the
    statement where it needs to)."""
    return Sql(load_query(name).rstrip().removesuffix(";").rstrip())
