"""Stores at an object-store prefix: `tui convert --out URL`, then `tui --summary URL`.

fsspec's `memory://` (this process's own store) and `file://` (through fsspec, as s3fs or
gcsfs would be, so also from the pool's processes) stand in for S3 and the like: the same
code path (universal_pathlib paths, stores uploaded and fetched as whole files by fsspec),
without a bucket. Checked against the run summarised from the trace files themselves."""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tui.cli.main import main

pytest.importorskip("upath")

DDP = [sample(f"ddp_rank{rank}.pt.trace.json.gz") for rank in (0, 1)]
COMPARED = ("ranks", "straggler", "kernels", "gaps", "devices", "findings")


def _summary(capsys: pytest.CaptureFixture, *paths: str) -> dict:
    assert main(["--summary", "--json", *paths]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [None, "2"])  # in this process; in a pool of two
def test_stores_written_to_a_prefix_read_back_as_the_run(tmp_path: Path, capsys,
                                                           workers: str | None) -> None:
    if workers is None:  # the memory store is this process's: no pool
        prefix = f"memory://tui-test-{uuid.uuid4().hex}/run42"
    else:
        prefix = f"file://{tmp_path}/bucket/run42"
    args = ["convert", *map(str, DDP), "--out", prefix]
    assert main(args + (["--workers", workers] if workers else [])) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in printed] == [
        f"{prefix}/ddp_rank0.pt.trace.tui-store", f"{prefix}/ddp_rank1.pt.trace.tui-store"]
    from_prefix = _summary(capsys, prefix)
    from_traces = _summary(capsys, *map(str, DDP))
    assert from_prefix["source"]["path"] == prefix
    assert from_prefix["source"]["ranks"] == 2 and from_prefix["straggler"] == 1
    for key in COMPARED:
        assert from_prefix[key] == from_traces[key], key
    one_store = _summary(capsys, f"{prefix}/ddp_rank1.pt.trace.tui-store")
    assert one_store["source"]["ranks"] == 1


@pytest.mark.parametrize("where", ["empty", "missing", "trace"])
def test_a_url_without_stores_is_bad_input(tmp_path: Path, capsys, where: str) -> None:
    """An empty prefix, one that is not there, a trace file: at a URL only stores are read."""
    (tmp_path / "empty").mkdir()
    url = (f"file://{DDP[0]}" if where == "trace" else f"file://{tmp_path}/{where}")
    for args in (["--summary", url], [url]):  # the app fails before it starts
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"tui: error: {url}: holds no stores (folders .tui-store); at "
                              "a URL tui reads the stores `tui convert TRACES --out PREFIX` "
                              "wrote, not traces")


@pytest.mark.skipif(importlib.util.find_spec("s3fs") is not None, reason="s3fs installed")
def test_a_store_whose_fsspec_package_is_missing_says_which(capsys) -> None:
    assert main(["--summary", "s3://bucket/run42/"]) == 2
    err = capsys.readouterr().err
    assert "s3://bucket/run42/: cannot reach it (Install s3fs to access S3)" in err
    assert "pip install 'gpu-trace-tui[objectstore]'" in err


def test_stores_in_s3_through_an_s3_server(tmp_path: Path, capsys, monkeypatch) -> None:
    """The same through s3fs against moto's S3 server (the S3 API, on this machine; runs
    where moto[server] and s3fs are installed), from a pool of two processes."""
    pytest.importorskip("s3fs")
    moto_server = pytest.importorskip("moto.server")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        for key, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                           "AWS_DEFAULT_REGION": "us-east-1",
                           "FSSPEC_S3_ENDPOINT_URL": f"http://{host}:{port}"}.items():
            monkeypatch.setenv(key, value)  # the pool's processes inherit them
        import fsspec.config
        import s3fs

        fsspec.config.set_conf_env(fsspec.config.conf)  # this process: read them again
        s3fs.S3FileSystem.clear_instance_cache()
        s3fs.S3FileSystem().mkdir("tui-bucket")
        prefix = "s3://tui-bucket/run42"
        assert main(["convert", *map(str, DDP), "--out", prefix, "--workers", "2"]) == 0
        capsys.readouterr()
        from_prefix = _summary(capsys, prefix)
        from_traces = _summary(capsys, *map(str, DDP))
        assert from_prefix["source"]["path"] == prefix and from_prefix["straggler"] == 1
        for key in COMPARED:
            assert from_prefix[key] == from_traces[key], key
    finally:
        server.stop()
