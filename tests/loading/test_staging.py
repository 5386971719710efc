"""What a loader stages (temp views, tables and types: its parsed events and the rows it
writes from) is dropped once the rows are written (tui.loading.trace._drop_staging): only
the schema's tables go on to the derived tables, the summary and the cache file."""

from __future__ import annotations

import duckdb
import pytest

from tests.helpers.paths import sample
from tui.core.queries import load_query
from tui.loading import trace as trace_module
from tui.loading.trace import open_trace


@pytest.mark.parametrize(("name", "staged"), [
    ("multistream.pt.trace.json.gz",
     {("VIEW", "staged_gpu"), ("VIEW", "staged_host"), ("TYPE", "kineto_event_args")}),
    ("jax_train/plugins/profile/2026_11_24_13_14_53/vm.trace.json.gz",
     {("TABLE", "staged_gpu"), ("TABLE", "staged_host"), ("TYPE", "xla_event_args")}),
])
def test_what_a_loader_staged_is_dropped(name: str, staged: set[tuple[str, str]],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    found: list[set[tuple[str, str]]] = []
    drop = trace_module._drop_staging

    def listed_around(con: duckdb.DuckDBPyConnection) -> None:
        found.append(set(con.execute(load_query("staging_objects")).fetchall()))
        drop(con)
        found.append(set(con.execute(load_query("staging_objects")).fetchall()))

    monkeypatch.setattr(trace_module, "_drop_staging", listed_around)
    with open_trace(sample(name), use_cache=False) as trace:
        (temporary,), = trace.con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal").fetchall()
    assert staged <= found[0]
    assert found[1] == set() and temporary == 0
