"""XLA ops of profiles taken with command buffers (XLA's default), checked against XProf's
hlo_stats of the same programs profiled without them (tests/data/xla_hlo/, made by its
make_reference.py): a Flax LM training step, cuBLAS/cuDNN GEMMs with reductions, and a
lax.scan (recordings/jax_hlo/)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers.paths import DATA, SAMPLES
from tui.analysis.code import code_tree, frame_times
from tui.analysis.xla_ops import command_buffer_stats, xla_op_stats
from tui.loading.trace import open_trace

REFERENCE = DATA / "xla_hlo"
WORKLOADS = ("jax_lm", "jax_gemm_reduce", "jax_scan")


def run_folder(workload: str) -> Path:
    (folder,) = (SAMPLES / workload / "plugins" / "profile").iterdir()
    return folder


def xprof_ops(name: str) -> dict[str, tuple[int, str | None, str]]:
    """XProf's hlo_stats: op -> (occurrences, source line, framework op path)."""
    rows = json.loads((REFERENCE / f"hlo_stats.{name}.json").read_text())["rows"]
    out = {}
    for row in rows:
        # the cell shows the innermost frame; its title the whole stack
        shown = re.search(r">([^<]*)</div>", row["source_info"] or "")
        out[row["hlo_op_name"]] = (int(row["occurrences"]), shown.group(1) if shown else None,
                                   (row["tf_op_name"] or "").removesuffix(":"))
    return out


@pytest.fixture(scope="module")
def ops() -> dict[str, dict]:
    """tui's XLA ops of each profile taken with command buffers: jax_lm from its trace
    viewer JSON (the .xplane.pb beside it gives the HLO), the others from the .xplane.pb."""
    out = {}
    for workload in WORKLOADS:
        folder = run_folder(workload)
        path = folder / ("perfetto_trace.json.gz" if workload == "jax_lm" else "vm.xplane.pb")
        with open_trace(path) as trace:
            assert trace.warnings == []
            out[workload] = {
                "ops": xla_op_stats(trace.con), "buffers": command_buffer_stats(trace.con),
                "frames": frame_times(trace.con), "tree": code_tree(trace.con)}
    return out


@pytest.mark.slow
@pytest.mark.parametrize("workload", WORKLOADS)
def test_command_buffer_work_counts_for_the_ops_xprof_names_without_them(
        workload: str, ops: dict[str, dict]) -> None:
    reference = xprof_ops(f"{workload}_no_cb")
    ours = {o["hlo_op"]: (o["count"], o["source"], o["op_name"])
            for o in ops[workload]["ops"] if o["hlo_module"] == "jit_step"}
    common = reference.keys() & ours.keys()
    # op for op: as often, the same line, the same op path
    assert {op: ours[op] for op in common} == {op: reference[op] for op in common}
    # the LM's two compilations chose two GEMMs differently (cutlass custom calls without
    # command buffers, Triton fusions with): the same ops by line and path
    if workload == "jax_lm":
        assert sorted(reference.keys() - ours.keys()) == ["custom-call.0", "custom-call.1"]
        assert sorted(ours.keys() - reference.keys()) == [
            "gemm_fusion_dot.86", "gemm_fusion_dot.91"]
    else:
        assert reference.keys() == ours.keys()
    assert _by_line(ours.values()) == _by_line(reference.values())


def _by_line(ops) -> Counter:
    """Activities per (source line, op path)."""
    out: Counter = Counter()
    for count, source, path in ops:
        out[(source, path)] += count
    return out


@pytest.mark.parametrize(("workload", "figures"), [
    # 4 steps; the LM's 154 kernels a step, one command buffer, all XLA's (Triton GEMMs)
    ("jax_lm", [("command_buffer_1", 4, 616, 154, {"name": 308, "reuse": 308})]),
    # cuBLAS GEMMs placed by order; the cuDNN convolution runs alone, between two buffers
    ("jax_gemm_reduce", [("command_buffer_1", 4, 56, 14, {"name": 48, "order": 8}),
                         ("command_buffer_16", 4, 28, 7, {"name": 24, "reuse": 4})]),
    # each iteration of the scan a replay of its own; the loop's slices as driver copies
    ("jax_scan", [("command_buffer_8", 24, 240, 10, {"name": 144, "order": 96}),
                  ("command_buffer_34", 24, 192, 8, {"name": 96, "order": 72, "reuse": 24}),
                  ("command_buffer_1", 4, 20, 5, {"name": 8, "order": 12})]),
])
def test_each_command_buffer_checked_against_its_counts(
        workload: str, figures: list, ops: dict[str, dict]) -> None:
    buffers = ops[workload]["buffers"]
    assert sorted((b["command_buffer"], b["replays"], b["activities"], b["per_replay"],
                   {k: b[k] for k in ("name", "reuse", "order", "guess") if b[k]})
                  for b in buffers) == sorted(figures)
    assert all(b["untied"] == 0 for b in buffers)


def test_xprof_names_only_the_work_launched_alone(ops: dict[str, dict]) -> None:
    # with command buffers XProf's hlo_stats has nothing on the LM and only the ops run
    # alone elsewhere: the ops tui finds named by the trace itself
    for workload in WORKLOADS:
        alone = {o["hlo_op"]: o["count"] for o in ops[workload]["ops"] if o["matched"] == "op"}
        assert alone == {op: n for op, (n, _, _) in xprof_ops(workload).items()}
    assert xprof_ops("jax_lm") == {}


def test_the_lms_lines_and_op_paths(ops: dict[str, dict]) -> None:
    frames = {f.frame: f for f in ops["jax_lm"]["frames"]}
    # the line of the step's loss and its Dense layer's matmul (flax, not the user's)
    user = [f for f in frames.values() if f.user_code]
    assert user and all("gen_jax_hlo.py" in f.frame for f in user)
    dense = [f for name, f in frames.items() if "flax/linen/linear.py(" in name]
    assert dense and not any(f.user_code for f in dense)
    assert all(f.self_gpu_ns > 0 for f in dense)
    tree = ops["jax_lm"]["tree"]
    path = [n.path for n in tree]
    assert "jit(step)/transpose(jvp(LM))/Block_0/Dense_0/dot_general" in path
    root = next(n for n in tree if n.parent is None and n.frame == "jit(step)")
    scopes = {n.frame for n in tree if n.parent == root.node}
    assert {"jvp(LM)", "transpose(jvp(LM))"} <= scopes
