"""XLA profiles (JAX): the trace viewer's JSON, .xplane.pb and LOGDIRs, checked against an
independent reading of the real recordings' events (tests/helpers/xla_oracle.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.helpers import xla_oracle
from tests.helpers.depth_oracle import depth_mismatches
from tests.helpers.paths import SAMPLES
from tests.helpers.xla_samples import SAMPLE_FILES, run_folder
from tui.analysis.summary import trace_summary
from tui.cli.main import main
from tui.loading.trace import open_trace
from tui.sources.detect import detect_format

MS = 1_000_000


TRAIN = run_folder("jax_train")


@pytest.fixture(scope="module")
def summaries() -> dict[str, dict]:
    out = {}
    for name, path in SAMPLE_FILES.items():
        with open_trace(path) as trace:
            out[name] = trace_summary(trace, MS)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("workload", list(SAMPLE_FILES))
def test_kernels_devices_and_gaps_equal_an_independent_reading(
        workload: str, summaries: dict[str, dict]) -> None:
    events = xla_oracle.read_events(SAMPLE_FILES[workload])
    summary = summaries[workload]
    assert summary["source"]["format"] == "xla"
    assert summary["warnings"] == []
    expected = xla_oracle.kernels_by_name(events)
    assert {k["name"]: (k["count"], k["total_ns"]) for k in summary["kernels"]} == expected
    assert [d["id"] for d in summary["devices"]] == [0]
    gaps = {(g["device"], g["start_ns"], g["duration_ns"]) for g in summary["gaps"]}
    assert gaps == xla_oracle.gaps(events, MS)
    assert gaps  # each of these recordings idles the GPU somewhere


def test_the_figures_of_the_recordings(summaries: dict[str, dict]) -> None:
    """What the recordings hold (also said in docs/recording.md): kernel launches, gaps > 1 ms."""
    launches = {name: sum(k["count"] for k in s["kernels"]) for name, s in summaries.items()}
    assert launches == {"jax_train": 272, "jax_eager": 800, "jax_streams": 222}
    assert {name: len(s["gaps"]) for name, s in summaries.items()} == {
        "jax_train": 14, "jax_eager": 3, "jax_streams": 11}


def test_gaps_are_explained_from_the_host_side(summaries: dict[str, dict]) -> None:
    # jax_train prepares each batch on the host (gen_jax.py's host_batch, inside the
    # TraceAnnotation "dataloader") while the GPU waits: the seven longest gaps name the
    # innermost frame running through them, and the range around it
    train = summaries["jax_train"]["gaps"]
    assert [g["kind"] for g in train[:7]] == ["host-wait"] * 7
    assert all("host busy in gen_jax.py:50 host_batch (" in g["cause"]
               and g["cause"].endswith(" inside dataloader") for g in train[:7])
    # jax_streams compiles its step inside the profile: XLA's compile pass is the cause
    assert "host busy in CompileModuleToLlvmIr (backend_compile_and_load)" in \
        summaries["jax_streams"]["gaps"][0]["cause"]


@pytest.mark.slow
def test_xla_ops_and_modules_sum_the_gpu_time_of_each_op(summaries: dict[str, dict]) -> None:
    events = xla_oracle.read_events(SAMPLE_FILES["jax_eager"])
    totals: dict[tuple[str, str], int] = {}
    for e in events:
        args = e.get("args", {})
        if e.get("ph") == "X" and e.get("pid") == 1 and "hlo_op" in args:
            key = (args["hlo_module"], args["hlo_op"])
            totals[key] = totals.get(key, 0) + xla_oracle.ns(e["dur"])
    ops = summaries["jax_eager"]["xla_ops"]
    assert {(o["hlo_module"], o["hlo_op"]): o["total_ns"] for o in ops} == totals
    assert len(ops) == 4 and all(o["count"] == 200 for o in ops)
    modules = summaries["jax_eager"]["xla_modules"]
    assert sorted(m["hlo_module"] for m in modules) == [
        "jit_add", "jit_multiply", "jit_subtract", "jit_tanh"]
    assert "xla_ops" not in trace_summary_of(SAMPLES / "gappy_training.pt.trace.json.gz")


def test_export_writes_the_xla_op_table(tmp_path: Path, summaries: dict[str, dict]) -> None:
    out = tmp_path / "ops.json"
    assert main(["export", str(SAMPLE_FILES["jax_eager"]), "xla_ops", "--output", str(out)]) == 0
    rows = json.loads(out.read_text()) if out.read_text().startswith("[") else [
        json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["hlo_op"], r["total_ns"]) for r in rows] == [
        (o["hlo_op"], o["total_ns"]) for o in summaries["jax_eager"]["xla_ops"]]


def trace_summary_of(path: Path) -> dict:
    with open_trace(path) as trace:
        return trace_summary(trace, MS)


def test_launch_configuration_copies_and_the_host_side() -> None:
    with open_trace(SAMPLE_FILES["jax_train"]) as trace:
        con = trace.con
        # 'regs:168 static_shared:0 dynamic_shared:231424 grid:128,1,1 block:384,1,1'
        row = con.execute(
            "SELECT grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread,"
            " shared_memory_bytes, hlo_module, hlo_op, tf_op FROM gpu_activities"
            " WHERE kind = 'kernel' AND start_ns = 56504654").fetchone()
        assert row == (128, 1, 1, 384, 1, 1, 168, 231424, "jit_step", "command_buffer_1",
                       "XlaModule:")
        copies = con.execute(
            "SELECT copy_kind, src_kind, dst_kind, bytes, stream, count(*) FROM gpu_activities"
            " WHERE kind = 'memcpy' GROUP BY ALL").fetchall()
        assert copies == [("HtoD", "Pinned", "Device", 2097152, 15, 16)]
        assert con.execute("SELECT count(*), sum(bytes) FROM gpu_activities"
                           " WHERE kind = 'memset'").fetchone() == (16, 64)
        kinds = dict(con.execute("SELECT name, any_value(kind) FROM host_activities"
                                 " WHERE name IN ('train step 3', 'dataloader', 'cuGraphLaunch "
                                 "(CudaGraph:24)', 'command_buffer_1', 'time sleep')"
                                 " GROUP BY name").fetchall())
        assert kinds == {"train step 3": "annotation", "dataloader": "annotation",
                         "cuGraphLaunch (CudaGraph:24)": "runtime",
                         "command_buffer_1": "cpu_op", "time sleep": "python"}
        # the host's MemcpyH2D calls are runtime calls tied to the GPU copies, not copies
        tied = con.execute(
            "SELECT count(*) FROM gpu_activities AS g JOIN host_activities AS h"
            " ON h.kind = 'runtime' AND h.correlation = g.correlation"
            " WHERE g.kind = 'memcpy'").fetchone()
        assert tied == (16,)
        # the host thread XLA names 'python3' is a lane of that name
        from tui.views.timeline.lanes import discover_lanes

        assert "python3" in [lane.label for lane in discover_lanes(con)[0]]
        # a cuGraphLaunch launches a whole step: 36 GPU activities share its correlation
        assert con.execute(
            "SELECT count(*) FROM gpu_activities WHERE correlation = (SELECT correlation"
            " FROM host_activities WHERE name = 'cuGraphLaunch (CudaGraph:24)' LIMIT 1)"
        ).fetchone() == (36,)


@pytest.mark.slow
def test_every_form_of_one_run_gives_the_same_kernels_and_gaps() -> None:
    forms = [TRAIN / "perfetto_trace.json.gz", TRAIN / "vm.trace.json.gz",
             TRAIN / "vm.xplane.pb"]
    assert [detect_format(p) for p in forms] == ["xla", "xla", "xplane"]
    results = []
    for path in forms:
        summary = trace_summary_of(path)
        results.append((summary["kernels"], summary["gaps"], summary["xla_ops"],
                        summary["devices"]))
    assert results[0] == results[1] == results[2]


def test_a_logdir_opens_its_newest_run_and_says_which(capsys: pytest.CaptureFixture) -> None:
    assert main(["--summary", "--json", str(SAMPLES / "jax_train")]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["source"]["path"] == str(TRAIN / "perfetto_trace.json.gz")
    assert err == f"tui: profile run {TRAIN.name}: perfetto_trace.json.gz\n"


@pytest.mark.slow
def test_run_picks_a_run_and_several_hosts_are_ranks(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    # a LOGDIR put together from real files: two runs, the newer with two hosts
    older = tmp_path / "plugins" / "profile" / "2026_01_01_00_00_00"
    newer = tmp_path / "plugins" / "profile" / "2026_02_01_00_00_00"
    older.mkdir(parents=True)
    newer.mkdir()
    (older / "perfetto_trace.json.gz").write_bytes(SAMPLE_FILES["jax_eager"].read_bytes())
    (newer / "a.trace.json.gz").write_bytes((TRAIN / "vm.trace.json.gz").read_bytes())
    (newer / "b.xplane.pb").write_bytes((TRAIN / "vm.xplane.pb").read_bytes())
    assert main(["--summary", "--json", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "2026_02_01_00_00_00 (newest of 2; --run NAME opens another), 2 hosts" in err
    ranks = json.loads(out)
    assert sum(k["count"] for k in ranks["kernels"]) == 2 * 272
    assert main(["--summary", "--json", str(tmp_path), "--run", older.name]) == 0
    out, _ = capsys.readouterr()
    assert sum(k["count"] for k in json.loads(out)["kernels"]) == 800


@pytest.mark.parametrize("args, message", [
    (["{empty}"], "no profile runs found: looked for plugins/profile/<run>/ holding "
                  "<host>.xplane.pb, <host>.trace.json.gz or perfetto_trace.json.gz"),
    (["{logdir}", "--run", "nope"], "no profile run named 'nope'; its runs: 2026_11_24_13_14_53"),
    (["{sample}", "--run", "x"], "--run goes with a JAX/TensorFlow profile LOGDIR"),
])
def test_bad_logdirs_say_what_was_looked_for(tmp_path: Path, capsys: pytest.CaptureFixture,
                                             args: list[str], message: str) -> None:
    (tmp_path / "plugins" / "profile" / "empty_run").mkdir(parents=True)
    paths = {"empty": str(tmp_path), "logdir": str(SAMPLES / "jax_train"),
             "sample": str(SAMPLE_FILES["jax_eager"])}
    assert main(["--summary", *(a.format(**paths) for a in args)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_device_events_without_kernel_details_load_with_a_warning(tmp_path: Path) -> None:
    # jax_train's events with every kernel_details taken out (a generator, not a recording)
    doc = json.loads(gzip.decompress(SAMPLE_FILES["jax_train"].read_bytes()))
    for e in doc["traceEvents"]:
        e.get("args", {}).pop("kernel_details", None)
    stripped = tmp_path / "no_details.trace.json"
    stripped.write_text(json.dumps(doc))
    summary = trace_summary_of(stripped)
    assert summary["warnings"] == [
        "272 of 272 GPU kernels carry no kernel_details: their launch configuration (grid, "
        "block, registers, shared memory) is unknown, so --ncu cannot match them by it",
        # copied away from its run's .xplane.pb, the JSON has no HLO for its command buffer
        "288 GPU activities ran in XLA command buffers (command_buffer_1), named by no op, "
        "line or op path: this JSON has no HLO; the run's <host>.xplane.pb has it: keep it "
        "beside the JSON"]
    assert sum(k["count"] for k in summary["kernels"]) == 272


def test_a_host_only_profile_loads_with_a_warning(tmp_path: Path) -> None:
    doc = json.loads(gzip.decompress(SAMPLE_FILES["jax_train"].read_bytes()))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("pid") != 1]
    host_only = tmp_path / "host_only.trace.json"
    host_only.write_text(json.dumps(doc))
    summary = trace_summary_of(host_only)
    assert summary["kernels"] == [] and len(summary["warnings"]) == 1
    assert summary["warnings"][0].startswith("no /device:GPU:<N> activity in this profile")


def test_a_cut_off_xplane_is_one_line_and_exit_2(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    cut = tmp_path / "vm.xplane.pb"
    cut.write_bytes((TRAIN / "vm.xplane.pb").read_bytes()[:100_000])
    assert main(["--summary", str(cut)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tui: error: ") and err.count("\n") == 1


@pytest.mark.slow
def test_diff_of_a_jax_before_and_after(capsys: pytest.CaptureFixture) -> None:
    tuned = run_folder("jax_train_tuned") / "perfetto_trace.json.gz"
    assert main(["diff", "--json", str(SAMPLE_FILES["jax_train"]), str(tuned)]) == 0
    diff = json.loads(capsys.readouterr().out)
    totals = {t["metric"]: (t["before"], t["after"]) for t in diff["totals"]}
    assert totals["kernels"] == (272, 288) and totals["gaps"] == (14, 11)


@pytest.mark.slow
@pytest.mark.parametrize("path", [SAMPLE_FILES["jax_eager"], TRAIN / "vm.xplane.pb"])
def test_host_depths_from_file_order_equal_the_sorted_points(path: Path) -> None:
    """xla_depth.py against the definition (every start and end point sorted)."""
    with open_trace(path, use_cache=False) as trace:
        mismatched = depth_mismatches(trace.con)
    rows, wrong, deepest = mismatched
    assert rows > 50_000 if path.suffix == ".gz" else rows > 3_000
    assert wrong == 0 and deepest >= 5


@pytest.mark.slow
def test_the_app_draws_a_jax_profile_and_explains_its_largest_gap() -> None:
    import asyncio

    from tests.helpers.pilot import SIZE, details_text, settle
    from tui.apps.trace_app import TraceApp

    async def run() -> None:
        app = TraceApp(SAMPLE_FILES["jax_train"])
        async with app.run_test(size=SIZE) as pilot:
            timeline = await settle(pilot)
            assert timeline.data is not None
            labels = [lane.label for lane in timeline.data.lanes]
            assert labels[:2] == ["GPU0 s14", "GPU0 s15"] and "python3" in labels
            await pilot.press("b")  # the largest gap: the host was in its data step
            await settle(pilot)
            assert "GPU 0 idle for 32.3 ms" in details_text(pilot)
            assert "dataloader" in details_text(pilot)

    asyncio.run(run())


@pytest.mark.slow
def test_a_folder_of_pytorch_traces_is_no_logdir(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    for rank in (0, 1):  # named like XProf's files, but Kineto traces: the multi-rank view
        (tmp_path / f"rank{rank}.trace.json.gz").write_bytes(
            (SAMPLES / f"ddp_rank{rank}.pt.trace.json.gz").read_bytes())
    assert main(["--summary", "--json", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "profile run" not in err and json.loads(out)["source"]["format"] == "kineto"
