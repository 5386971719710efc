"""XLA traces: each GPU activity tied to its HLO op, line of code and op path, command
buffers included, on the real JAX recordings (sample_traces/jax_*)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.paths import SAMPLES
from tests.helpers.pilot import SIZE, settle, sync, tab_key
from tests.helpers.tables import all_rows, ready
from tui.analysis.code import code_source, code_tree, frame_times, unattributed
from tui.analysis.summary import trace_summary
from tui.analysis.xla_ops import command_buffer_stats, op_of_activity, xla_op_stats
from tui.apps.trace_app import TraceApp
from tui.cli.main import main
from tui.derived.xla_hlo_order import Op, kernel_name, place, stem
from tui.loading.trace import Trace, open_trace
from tui.sources.xla_hlo import read_programs, xplanes_beside
from tui.widgets.details import describe
from tui.widgets.tables.code import CodePanel, CodeTree

MS = 1_000_000


def run_folder(workload: str) -> Path:
    (folder,) = (SAMPLES / workload / "plugins" / "profile").iterdir()
    return folder


TRAIN = run_folder("jax_train")
STREAMS = run_folder("jax_streams")


@pytest.fixture(scope="module")
def train() -> Trace:
    with open_trace(TRAIN / "perfetto_trace.json.gz") as trace:
        yield trace


def test_the_hlo_programs_of_the_metadata_plane() -> None:
    programs = read_programs(TRAIN / "vm.xplane.pb")
    assert len(programs) == 15  # every program the run compiled, the step among them
    (step,) = [p for p in programs if p.module == "jit_step"]
    assert step.program_id == 9284  # as the metadata names it: jit_step(9284)
    # the schedule: three forward GEMMs, each with its bias-and-gelu fusion, ...
    assert step.order[:6] == ["cublas-lt-matmul.2", "loop_multiply_fusion",
                              "cublas-lt-matmul.1", "loop_multiply_fusion.1",
                              "cublas-lt-matmul.0", "loop_multiply_fusion.2"]
    assert len(step.order) == 34 and step.order[-1] == "wrapped_subtract.2"
    gemm = step.ops["cublas-lt-matmul.2"]
    assert (gemm.opcode, gemm.category, gemm.op_name) == (
        "custom-call", "__cublas$lt$matmul", "jit(step)/jvp()/dot_general")
    # JAX records the Python stack, not the line: the line is its innermost frame
    assert (gemm.source_file, gemm.source_line) == ("/work/main/recordings/gen_jax.py", 33)
    assert gemm.stack[-1] == "/work/main/recordings/gen_jax.py(33): loss_fn"
    assert gemm.stack[0] == "/work/main/recordings/gen_jax.py(141): <module>"
    assert gemm.user_code


def test_every_kernel_of_the_command_buffer_is_tied_to_an_op(train: Trace) -> None:
    con = train.con
    assert con.execute("SELECT DISTINCT hlo_op FROM gpu_activities WHERE hlo_module IS NOT NULL"
                       ).fetchall() == [("command_buffer_1",)]
    (buffer,) = command_buffer_stats(con)
    # 8 replays of 36 activities (34 kernels, 2 sets), each op of the schedule tied
    assert buffer == {"hlo_module": "jit_step", "command_buffer": "command_buffer_1",
                      "replays": 8, "activities": 288, "per_replay": 36, "ops": 34,
                      "program_ops": 34, "name": 120, "reuse": 64, "order": 104, "guess": 0,
                      "untied": 0, "total_ns": buffer["total_ns"]}
    rows = con.execute(
        "SELECT g.name, g.kind, k.hlo_op, k.matched FROM gpu_hlo_ops AS k"
        " JOIN gpu_activities AS g ON g.id = k.gpu_id").fetchall()
    assert len(rows) == 288
    for name, kind, op, matched in rows:
        if matched == "name":  # XLA's kernel is named after its op
            assert name == kernel_name(op)
        elif matched == "reuse":  # the kernel of an identical fusion of the same stem
            assert stem(name) == stem(kernel_name(op)) and name != kernel_name(op)
        else:  # cuBLAS kernels and its sets go to the cuBLAS calls
            assert matched == "order" and op.startswith(("cublas-lt-matmul", "custom-call"))
            assert kind == "memset" or name.startswith("sm90_xmma_gemm")
    # every replay ties each of the 34 ops, the same way
    per_op = con.execute("SELECT hlo_op, count(*) FROM gpu_hlo_ops GROUP BY ALL").fetchall()
    assert {n for _, n in per_op} == {8, 16}  # once a replay, twice for a GEMM and its set
    assert dict(per_op)["custom-call.1"] == 16


def test_xla_ops_name_the_real_op_its_line_and_path(train: Trace) -> None:
    ops = {o["hlo_op"]: o for o in xla_op_stats(train.con)}
    assert "command_buffer_1" not in ops and len(ops) == 34
    gemm = ops["cublas-lt-matmul.2"]
    assert gemm["source"] == "/work/main/recordings/gen_jax.py:33"
    assert gemm["op_name"] == "jit(step)/jvp()/dot_general"
    assert (gemm["command_buffer"], gemm["matched"], gemm["count"]) == (
        "command_buffer_1", "order", 8)
    assert gemm["tf_op"] == "XlaModule:"  # what the trace says of the buffer's work
    # the op times add up to the module's
    total = train.con.execute("SELECT sum(duration_ns) FROM gpu_activities"
                              " WHERE hlo_module IS NOT NULL").fetchone()[0]
    assert sum(o["total_ns"] for o in ops.values()) == total


def test_the_json_with_its_xplane_beside_equals_the_xplane(train: Trace) -> None:
    assert xplanes_beside(TRAIN / "perfetto_trace.json.gz") == [TRAIN / "vm.xplane.pb"]
    assert xplanes_beside(STREAMS / "vm.trace.json.gz") == [STREAMS / "vm.xplane.pb"]
    with open_trace(TRAIN / "vm.xplane.pb") as xplane:
        assert _op_totals(xplane) == _op_totals(train)


def _op_totals(trace: Trace) -> dict:
    return {(o["hlo_op"], o["source"], o["op_name"]): (o["count"], o["total_ns"])
            for o in xla_op_stats(trace.con)}


def test_a_json_away_from_its_xplane_says_where_the_hlo_is(tmp_path: Path) -> None:
    shutil.copy(TRAIN / "perfetto_trace.json.gz", tmp_path)
    with open_trace(tmp_path / "perfetto_trace.json.gz", use_cache=False) as trace:
        assert trace.warnings == [
            "288 GPU activities ran in XLA command buffers (command_buffer_1), named by no "
            "op, line or op path: this JSON has no HLO; the run's <host>.xplane.pb has it: "
            "keep it beside the JSON"]
        assert {o["hlo_op"] for o in xla_op_stats(trace.con)} == {"command_buffer_1"}
    # each host's JSON reads its own host's .xplane.pb: several hosts, each its rank
    for host in ("host0", "host1"):
        shutil.copy(TRAIN / "vm.xplane.pb", tmp_path / f"{host}.xplane.pb")
    assert xplanes_beside(tmp_path / "host1.trace.json.gz") == [tmp_path / "host1.xplane.pb"]
    assert xplanes_beside(tmp_path / "perfetto_trace.json.gz") == [
        tmp_path / "host0.xplane.pb", tmp_path / "host1.xplane.pb"]


def test_the_code_view_is_the_ops_lines_and_paths(train: Trace) -> None:
    con = train.con
    assert code_source(con) == "hlo"
    frames = {f.frame: f for f in frame_times(con)}
    loss = frames["/work/main/recordings/gen_jax.py(33): loss_fn"]
    # line 33 (the forward MLP) holds the GEMMs and fusions the ops there made
    expected = con.execute(
        "SELECT sum(g.duration_ns), count(*) FROM gpu_hlo_ops AS k"
        " JOIN gpu_activities AS g ON g.id = k.gpu_id JOIN hlo_ops AS o"
        " ON o.hlo_op = k.hlo_op AND o.program_id = k.program_id"
        " WHERE o.source_line = 33").fetchone()
    assert (loss.self_gpu_ns, loss.self_launches) == expected
    assert loss.user_code
    top = frames["/work/main/recordings/gen_jax.py(141): <module>"]
    rest = unattributed(con)
    # the rest: fusion.78 and .76 (ops fused from two record no line) and the copies of
    # the input, which ran for no op
    assert top.gpu_ns + rest.gpu_ns == con.execute(
        "SELECT sum(duration_ns) FROM gpu_activities").fetchone()[0]
    assert (rest.launches, rest.linked) == (16 + 16, 288)
    tree = code_tree(con)
    roots = [n for n in tree if n.parent is None]
    assert [(n.frame, n.gpu_ns) for n in roots] == [
        ("jit(step)", sum(o["total_ns"] for o in xla_op_stats(con)))]
    children = [n.frame for n in tree if n.parent == roots[0].node]
    assert children == ["transpose(jvp())", "jvp()", "sub"]
    dot = [n for n in tree if n.path == "jit(step)/jvp()/dot_general"]
    assert len(dot) == 1 and dot[0].self_gpu_ns == dot[0].gpu_ns > 0


def test_a_kernels_details_name_its_op_line_and_path(train: Trace) -> None:
    con = train.con
    gemm_id, set_id = con.execute(
        "SELECT min(id) FILTER (WHERE kind = 'kernel'), min(id) FILTER (WHERE kind = 'memset')"
        " FROM gpu_activities").fetchone()
    op = op_of_activity(con, gemm_id)
    assert op is not None and (op.hlo_op, op.command_buffer, op.matched) == (
        "cublas-lt-matmul.2", "command_buffer_1", "order")
    from tui.views.timeline.lookup import kernel_info

    text = describe(kernel_info(con, gemm_id), 0).plain
    assert ("op      cublas-lt-matmul.2 (__cublas$lt$matmul) · in command_buffer_1 · "
            "placed by the command buffer's order") in text
    assert "line    /work/main/recordings/gen_jax.py:33" in text
    assert "op path jit(step)/jvp()/dot_general" in text
    assert "stack   /work/main/recordings/gen_jax.py(33): loss_fn" in text
    assert op_of_activity(con, set_id).hlo_op in ("custom-call.1", "custom-call.0")


def test_the_summary_json_fields(train: Trace) -> None:
    summary = trace_summary(train, MS)
    assert summary["source"]["hlo_source"] == "vm.xplane.pb"
    assert summary["code_source"] == "hlo"
    assert summary["xla_command_buffers"][0]["untied"] == 0
    op = summary["xla_ops"][0]
    assert {"source", "op_name", "command_buffer", "matched", "category", "program_id",
            "user_code"} <= set(op)
    paths = summary["code_paths"]  # depth first: each scope, then the scopes under it
    assert [p["path"] for p in paths[:3]] == [
        "jit(step)", "jit(step)/transpose(jvp())", "jit(step)/transpose(jvp())/transpose"]
    assert paths[0]["gpu_ns"] == sum(p["self_gpu_ns"] for p in paths)


def test_export_op_paths(tmp_path: Path) -> None:
    out = tmp_path / "paths.csv"
    assert main(["export", str(TRAIN / "perfetto_trace.json.gz"), "op_paths",
                 "--output", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == '"path","depth","gpu_ns","self_gpu_ns","launches"'
    assert lines[1].startswith('"jit(step)",0,') and len(lines) == 14


# -- placing by order: a generator of edge cases, not a recording ----------------------

def _ops(*specs: str) -> list[Op]:
    """'name:opcode' -> Op, e.g. 'fusion.1:fusion', 'custom-call.2:custom-call'."""
    out = []
    for spec in specs:
        name, opcode = spec.split(":")
        out.append(Op(name, opcode, "__cublas$gemm" if opcode == "custom-call" else "kLoop"))
    return out


def test_library_kernels_between_named_ones_go_to_the_one_op_there() -> None:
    order = _ops("fusion:fusion", "custom-call.1:custom-call", "fusion.1:fusion")
    names = ["fusion", "Memset 0", "gemm_kernel", "fusion_1"]
    kinds = ["kernel", "memset", "kernel", "kernel"]
    _, placed = place(names, kinds, order, {o.name: o for o in order})
    assert [(p.op, p.matched) for p in placed] == [
        ("fusion", "name"), ("custom-call.1", "order"), ("custom-call.1", "order"),
        ("fusion.1", "name")]


def test_more_library_kernels_than_calls_is_a_guess() -> None:
    order = _ops("fusion:fusion", "custom-call.1:custom-call", "custom-call.2:custom-call",
                 "fusion.1:fusion")
    names = ["fusion", "gemm_a", "gemm_b", "splitk_reduce", "fusion_1"]
    kinds = ["kernel"] * 5
    _, placed = place(names, kinds, order, {o.name: o for o in order})
    assert [p.matched for p in placed] == ["name", "guess", "guess", "guess", "name"]
    assert {p.op for p in placed[1:4]} == {"custom-call.1", "custom-call.2"}
    # still in order: the first library kernel goes to the first call
    assert placed[1].op == "custom-call.1" and placed[3].op == "custom-call.2"


def test_a_reused_kernel_goes_to_the_fusions_without_their_own() -> None:
    order = _ops("loop_add_fusion:fusion", "custom-call:custom-call",
                 "loop_add_fusion.1:fusion", "loop_add_fusion.2:fusion")
    names = ["loop_add_fusion", "gemm", "loop_add_fusion", "loop_add_fusion_2"]
    _, placed = place(names, ["kernel"] * 4, order, {o.name: o for o in order})
    assert [(p.op, p.matched) for p in placed] == [
        ("loop_add_fusion", "name"), ("custom-call", "order"),
        ("loop_add_fusion.1", "reuse"), ("loop_add_fusion.2", "name")]


@pytest.mark.slow
@sync
async def test_the_code_tab_of_an_xla_trace() -> None:
    app = TraceApp(TRAIN / "perfetto_trace.json.gz")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(tab_key(app, CodePanel))
        table = await ready(pilot, "code-frames")
        rows = {r["frame"]: r for r in all_rows(table)}
        loss = rows["/work/main/recordings/gen_jax.py(33): loss_fn"]
        assert loss["user_code"] and loss["self_gpu_ns"] > 0
        caption = str(app.query_one(CodePanel).caption.render())
        assert caption.startswith("GPU time by line of code (XLA's HLO op metadata)")
        # v: the op paths; K on the root lists every kernel the step's ops ran
        await pilot.press("v")
        await pilot.pause()
        tree = app.query_one(CodeTree)
        assert [str(r.label).split("  ")[-1] for r in tree.root.children] == ["jit(step)"]
        tree.cursor_line = 0
        await pilot.press("K")
        kernels = await ready(pilot, "code-kernels")
        listed = all_rows(kernels)
        assert sum(k["total_ns"] for k in listed) == tree.root.children[0].data.gpu_ns
        assert sum(k["count"] for k in listed) == 288


def test_a_fusion_that_ran_no_kernel_leaves_the_library_call_sure() -> None:
    # the GEMM kernel can only be the custom call's: a fusion's kernel carries its name
    order = _ops("fusion:fusion", "fusion.3:fusion", "custom-call.1:custom-call",
                 "fusion.1:fusion")
    names = ["fusion", "gemm_kernel", "fusion_1"]
    _, placed = place(names, ["kernel"] * 3, order, {o.name: o for o in order})
    assert (placed[1].op, placed[1].matched) == ("custom-call.1", "order")


def test_before_the_first_named_kernel_the_nearest_call_is_taken() -> None:
    # the buffer starts somewhere before fusion.1: its GEMM is the call next to it, and
    # an op the trace shows launched alone ran in no buffer
    order = _ops("custom-call.0:custom-call", "custom-call.1:custom-call",
                 "custom-call.2:custom-call", "fusion.1:fusion")
    ops = {o.name: o for o in order}
    _, placed = place(["gemm", "fusion_1"], ["kernel"] * 2, order, ops)
    assert (placed[0].op, placed[0].matched) == ("custom-call.2", "order")
    _, placed = place(["gemm", "gemm", "fusion_1"], ["kernel"] * 3, order, ops,
                      frozenset({"custom-call.2"}))
    assert [(p.op, p.matched) for p in placed[:2]] == [
        ("custom-call.0", "order"), ("custom-call.1", "order")]
