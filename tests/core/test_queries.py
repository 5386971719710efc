"""The queries under queries/: each in the folder of the lowest layer that runs it, each
loaded somewhere, names unique, and each file's header (`Params:`, `Needs:`) true to its
body (queries/README.md)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tui.analysis.idle_causes import CAUSES
from tui.analysis.nsys_rules import LACKING, RULES, Rule
from tui.core.db import connect
from tui.core.queries import (
    Sql,
    fill,
    load_query,
    parameters,
    queries_dir,
    query_paths,
    slots,
)

# Lowest first, as the import contract in pyproject.toml orders them
LAYERS = ("core", "derived", "sources", "loading", "analysis", "runs", "views", "widgets",
          "apps", "cli")
NEEDS_KINDS = ("temp table", "temp macro", "table", "arrow", "sqlite", "cte")

# Strings and comments out, quoted names kept (they may be columns)
_NOISE = re.compile(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.DOTALL)
_NAME = r'(?:\{\w+\}|"[^"]+"|\w+)(?:\.\w+)?'
_CTE = re.compile(rf"(?i)(?:\bWITH\s+(?:RECURSIVE\s+)?|,\s*)({_NAME})\s*(?:\([^)]*\)\s*)?"
                  r"AS\s*(?:NOT\s+)?(?:MATERIALIZED\s+)?\(")
_MADE = re.compile(rf"(?i)\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\s+|TEMPORARY\s+)?"
                   rf"(?:TABLE|VIEW|MACRO)\s+(?:IF\s+NOT\s+EXISTS\s+)?({_NAME})")
_WHOLE = r"(?![\w.(])(?!\s*\()"  # the whole name, not a function's
_READ = re.compile(rf"(?i)(?<!DISTINCT\s)\b(?:FROM|JOIN)\s+({_NAME}){_WHOLE}")
_COMMA_READ = re.compile(rf"(?i)\bFROM\s+{_NAME}(?:\s+(?:AS\s+)?\w+)?\s*,\s*({_NAME}){_WHOLE}")
_WRITE = re.compile(rf"(?i)\b(?:INSERT\s+(?:OR\s+REPLACE\s+)?INTO|UPDATE|COMMENT\s+ON\s+TABLE"
                    rf"|DROP\s+(?:TABLE|VIEW)(?!\s+IF\s+EXISTS))\s+({_NAME})"
                    rf"|\bCOMMENT\s+ON\s+COLUMN\s+(\w+)")
_KEYWORDS = {"select", "values", "lateral"}


def _body(sql: str) -> str:
    return _NOISE.sub(lambda m: "''" if m.group(0).startswith("'") else " ", sql)


@cache
def schema_tables() -> frozenset[str]:
    return frozenset(_MADE.findall(_body(load_query("schema"))))


@cache
def macros() -> dict[str, str]:
    """Every temp macro a query makes, and the query that makes it."""
    made = re.compile(r"(?i)\bCREATE\s+(?:OR\s+REPLACE\s+)?TEMP\s+MACRO\s+(\w+)")
    return {m: name for name in query_paths() for m in made.findall(_body(load_query(name)))}


def used(sql: str) -> set[str]:
    """What the query reads or writes that it does not make itself: tables, relations
    registered by the caller and temp macros, by name."""
    body = _body(sql)
    own = {n.lower() for n in _CTE.findall(body) + _MADE.findall(body)}
    written = {t for pair in _WRITE.findall(body) for t in pair if t}
    tables = set(_READ.findall(body) + _COMMA_READ.findall(body)) | written
    calls = {m for m in macros() if re.search(rf"\b{m}\s*\(", body, re.IGNORECASE)}
    return {t for t in tables | calls if t.lower() not in own | _KEYWORDS}


def needs_line(sql: str) -> str:
    """What the Needs line must name: what the query uses beyond the schema, else
    `schema` where it uses the schema's tables, else `none`."""
    beyond = used(sql) - schema_tables()
    if beyond:
        return ", ".join(sorted(beyond, key=str.lower))
    return "schema" if used(sql) else "none"


def header(name: str) -> tuple[str, str]:
    """A query's first two lines, `-- Params: ...` and `-- Needs: ...`, without labels."""
    lines = load_query(name).splitlines()[:2] + ["", ""]
    params = re.fullmatch(r"-- Params: (.+)", lines[0])
    needs = re.fullmatch(r"-- Needs: (.+)", lines[1])
    assert params and needs, f"{name}: the first lines are not -- Params: / -- Needs:"
    return params.group(1), needs.group(1)


def _items(text: str) -> list[str]:
    return [] if text == "none" else [i.strip() for i in text.split(",")]


@pytest.mark.parametrize("name", sorted(query_paths()))
def test_params_line_is_the_parameters_and_slots_of_the_body(name: str) -> None:
    params, _ = header(name)
    items = _items(params)
    assert items == sorted(items, key=lambda i: (i.startswith("{"), i)), \
        f"{name}: $parameters, then {{slots}}, each in name order"
    sql = load_query(name)
    assert {i for i in items if i.startswith("$")} == {f"${p}" for p in parameters(sql)}
    assert {i for i in items if i.startswith("{")} == {f"{{{s}}}" for s in slots(sql)}
    assert len(set(items)) == len(items)
    assert all(re.fullmatch(r"\$\w+|\{\w+\}", i) for i in items), items
    assert not any(line.startswith("-- Params:") for line in sql.splitlines()[1:])


@pytest.mark.parametrize("name", sorted(query_paths()))
def test_needs_line_is_what_the_body_uses_beyond_the_schema(name: str) -> None:
    _, needs = header(name)
    if needs in ("schema", "none"):
        assert needs == needs_line(load_query(name)), name
        return
    kinds = "|".join(NEEDS_KINDS)
    parsed = [re.fullmatch(rf"({kinds}) (\S+)", i.strip()) for i in needs.split(",")]
    assert all(parsed), f"{name}: each need is '<{kinds}> <name>': {needs}"
    assert ", ".join(m.group(2) for m in parsed if m) == needs_line(load_query(name)), name
    for m in parsed:
        assert m and (m.group(1) == "temp macro") == (m.group(2) in macros()), \
            f"{name}: {m and m.group(0)} (temp macros: those a query makes)"
        # only the queries run inside the nsys export read its tables
        assert (m.group(1) == "sqlite") == name.startswith("nsys_sqlite_"), m.group(0)


def _layer(path: Path) -> str:
    return path.relative_to(ROOT / "tui").parts[0]


@cache
def loaded_by() -> dict[str, set[str]]:
    """{query: the layers of the modules that name it}: a string constant equal to a
    query's name counts as loading it."""
    names = set(query_paths())
    found: dict[str, set[str]] = {name: set() for name in names}
    for module in (ROOT / "tui").rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                found[node.value].add(_layer(module))
    return found


def test_names_are_unique_across_folders() -> None:
    paths = list(queries_dir().rglob("*.sql"))
    assert len({p.stem for p in paths}) == len(paths) == len(query_paths())


def test_every_query_is_in_a_layer_folder() -> None:
    assert {p.parent.name for p in query_paths().values()} <= set(LAYERS)
    assert all(p.parent.parent == queries_dir() for p in query_paths().values())


@pytest.mark.parametrize("name", sorted(query_paths()))
def test_a_query_lives_in_the_lowest_layer_that_loads_it(name: str) -> None:
    layers = loaded_by()[name]
    assert layers, f"{name}.sql is loaded by no module of tui/"
    folder = query_paths()[name].parent.name
    assert min(layers, key=LAYERS.index) == folder, \
        f"{name}.sql is in queries/{folder}/, loaded from {sorted(layers)}"


@pytest.mark.parametrize("rule", sorted(RULES.values(), key=lambda r: r.name),
                         ids=lambda r: r.name)
def test_a_rule_record_agrees_with_its_query(rule: Rule) -> None:
    assert set(rule.needs) <= set(LACKING)
    assert rule.cause is None or rule.cause in CAUSES
    if rule.query is None:
        return
    sql = load_query(rule.query)
    assert query_paths()[rule.query].parent.name == "analysis"
    assert set(rule.tables) == used(sql), "its tables are those its query reads"
    assert set(rule.params) == parameters(sql)
    if rule.gpu_rows:
        con = connect(":memory:")
        con.execute(load_query("schema"))
        columns = [d[0] for d in con.execute(load_query("rule_inputs")).description]
        assert rule.gpu_rows in columns


def test_fill_takes_names_or_sql_for_every_slot_and_nothing_else() -> None:
    page = fill("table_page", columns='"name", "a ""quoted"" one"', view="tui_table_0_view")
    assert 'SELECT "name", "a ""quoted"" one"\nFROM tui_table_0_view\n' in page
    assert "-- Needs: temp table {view}" in page  # comments keep their slots
    with pytest.raises(ValueError, match="columns"):
        fill("table_page", columns="name; DROP TABLE gpu_activities", view="v")
    with pytest.raises(KeyError):
        fill("table_page", columns="name")
    with pytest.raises(KeyError):
        fill("table_page", columns="name", view="v", extra="x")
    # DuckDB's struct literal is no slot; the text fills its slot as it is
    bins = fill("timeline_lod_build", bins_query=Sql("SELECT 1"))
    assert "{'id': top_id" in bins and "FROM (SELECT 1)" in bins
