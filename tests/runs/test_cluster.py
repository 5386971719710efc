"""`tui convert --scheduler`: each trace a task of a Dask cluster (here a local one of two
worker processes), giving the same stores as the serial path."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.helpers.paths import SAMPLES, sample
from tui.cli.main import main
from tui.loading.store import STORE_SUFFIX, STORE_TABLES

# Three formats: the two real DDP ranks (Kineto), an nsys export, an XLA .xplane.pb.
TRACES = ("ddp_rank0.pt.trace.json.gz", "ddp_rank1.pt.trace.json.gz", "sync_habits.sqlite")


def _traces() -> list[Path]:
    xplane = next((SAMPLES / "jax_train").rglob("*.xplane.pb"))
    return [sample(name) for name in TRACES] + [xplane]


def _store_rows(folder: Path) -> dict[str, dict[str, list[tuple]]]:
    """Every table of every store in `folder`, as sorted rows (trace_meta without the keys
    that say when and from where the store was written)."""
    con = duckdb.connect()
    out = {}
    for store in sorted(folder.glob(f"*{STORE_SUFFIX}")):
        tables = {}
        for table in STORE_TABLES:
            source = str(store / f"{table}.parquet").replace("'", "''")
            rows = con.execute(f"FROM read_parquet('{source}')").fetchall()
            if table == "trace_meta":
                rows = [r for r in rows if r[0] not in ("source_mtime_ns",)]
            tables[table] = sorted(rows, key=repr)
        out[store.name] = tables
    return out


@pytest.mark.slow
def test_a_local_dask_cluster_writes_the_stores_the_serial_path_writes(
        tmp_path: Path, capsys) -> None:
    traces = [str(p) for p in _traces()]
    assert main(["convert", *traces, "--out", str(tmp_path / "serial"), "--workers", "1",
                 "--no-cache"]) == 0
    capsys.readouterr()
    # the cluster's --out as a URL (fsspec's file://, as s3:// would be): the same stores
    assert main(["convert", *traces, "--out", f"file://{tmp_path}/dask", "--scheduler",
                 "local", "--workers", "2", "--no-cache"]) == 0
    printed = capsys.readouterr().out
    assert printed.count(STORE_SUFFIX) == 4 and "rank 1" in printed
    serial, dask = _store_rows(tmp_path / "serial"), _store_rows(tmp_path / "dask")
    assert list(serial) == list(dask) and len(serial) == 4
    for store, tables in serial.items():
        for table, rows in tables.items():
            assert dask[store][table] == rows, (store, table)
    kernels = {store: sum(1 for r in tables["gpu_activities"] if "kernel" in map(str, r))
               for store, tables in dask.items()}
    assert all(count > 0 for count in kernels.values()), kernels
    # The run read back from the cluster's stores: the straggler of the two DDP ranks.
    run = tmp_path / "ddp"
    run.mkdir()
    for name in TRACES[:2]:
        stem = name.removesuffix(".json.gz")
        (tmp_path / "dask" / f"{stem}{STORE_SUFFIX}").rename(run / f"{stem}{STORE_SUFFIX}")
    assert main(["--summary", "--json", str(run)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["straggler"] == 1 and [r["rank"] for r in summary["ranks"]] == [0, 1]


@pytest.mark.slow
def test_a_bad_trace_on_the_cluster_is_one_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "rank9.pt.trace.json"
    bad.write_text('{"traceEvents": [')
    rc = main(["convert", str(sample(TRACES[0])), str(bad), "--out", str(tmp_path / "out"),
               "--scheduler", "local", "--workers", "1", "--no-cache"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert "rank9.pt.trace.json" in err and "Traceback" not in err


def test_an_unreachable_scheduler_is_one_line(tmp_path: Path, capsys,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tui.runs.cluster.CONNECT_TIMEOUT_S", 1)
    rc = main(["convert", str(sample(TRACES[0])), "--out", str(tmp_path / "out"),
               "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert "cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'" in err
    assert "--scheduler local" in err
