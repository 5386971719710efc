"""One XLA process driving four GPUs (sample_traces/jax_dp: a JAX data-parallel MLP on a
1-D mesh, XLA's gradient all-reduce across the devices) read as a run of four ranks, one
per device: the ranks, straggler, figures, parallelism and collective bandwidth, checked
against the profile's own trace-viewer JSON (vm.trace.json.gz, read here with gzip and
json: each GPU's kernels with their HLO op) and the model that recordings/jax_dp.py
trains."""

from __future__ import annotations

import gzip
import json
import re
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tui.analysis.collective_bandwidth import collective_bandwidth
from tui.analysis.parallelism import parallelism
from tui.analysis.ranks import rank_analysis
from tui.cli.main import main
from tui.loading.resolve import resolve
from tui.runs.run import open_run
from tui.runs.summary import run_summary
from tui.sources.hlo_schema import HloProto
from tui.sources.xla_collectives import device_groups

RUN = SAMPLES / "jax_dp" / "plugins" / "profile" / "2026_11_27_05_46_00"
XPLANE = RUN / "vm.xplane.pb"
SIZES = [1024, 4096, 4096, 1024]  # recordings/jax_dp.py: the MLP's layer widths
STEPS = 5


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as env:  # a cache of its own: the ranks are its parts
        env.setenv("TUI_CACHE_DIR", str(tmp_path_factory.mktemp("mesh-cache")))
        ranks = open_run([XPLANE])
    with ranks:
        yield (ranks, rank_analysis(ranks.con), parallelism(ranks.con),
               collective_bandwidth(ranks.con))


@pytest.fixture(scope="module")
def kernels() -> dict[int, list[dict]]:
    """Each GPU's kernels from the trace viewer's JSON, by start: the device from its
    process name ('/device:GPU:N'), the HLO op from its args."""
    with gzip.open(RUN / "vm.trace.json.gz") as f:
        events = json.load(f)["traceEvents"]
    gpus = {e["pid"]: int(e["args"]["name"].rsplit(":", 1)[1]) for e in events
            if e.get("ph") == "M" and e.get("name") == "process_name"
            and e["args"]["name"].startswith("/device:GPU:")}
    out: dict[int, list[dict]] = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e["pid"] in gpus and "correlation_id" in e.get("args", {}):
            start = round(e["ts"] * 1000)
            out[gpus[e["pid"]]].append({"name": e["name"], "op": e["args"].get("hlo_op"),
                                        "start": start, "end": start + round(e["dur"] * 1000)})
    return {d: sorted(k, key=lambda k: k["start"]) for d, k in out.items()}


def _instances(kernels: dict[int, list[dict]]) -> dict[tuple[str, int], dict[int, dict]]:
    """Each all-reduce's k-th run, on every device: XLA runs one program on all of them,
    so the k-th kernel of an HLO op on one device is the k-th on the others."""
    out: dict[tuple[str, int], dict[int, dict]] = defaultdict(dict)
    for device, ks in kernels.items():
        seen: dict[str, int] = defaultdict(int)
        for k in ks:
            if "nccl" in k["name"].lower():
                out[(k["op"], seen[k["op"]])][device] = k
                seen[k["op"]] += 1
    return out


def test_an_xla_profile_of_several_gpus_is_a_run() -> None:
    for path in (XPLANE, RUN / "vm.trace.json.gz", SAMPLES / "jax_dp"):
        assert resolve([path]).kind == "run"
    one_gpu = next((SAMPLES / "jax_train").rglob("*.xplane.pb"))
    assert resolve([one_gpu]).kind == "trace"


def test_each_device_is_a_rank_with_its_own_kernels(run, kernels) -> None:
    ranks, analysis, _groups, _bandwidth = run
    assert ranks.ranks == sorted(kernels) == [0, 1, 2, 3]
    for row in analysis["ranks"]:
        own = kernels[row["rank"]]
        nccl = [k["end"] - k["start"] for k in own if "nccl" in k["name"].lower()]
        other = [k["end"] - k["start"] for k in own if "nccl" not in k["name"].lower()
                 and not k["name"].startswith(("Memcpy", "Memset"))]  # kernels only
        assert row["comm_kernels"] == len(nccl) == 15  # 3 all-reduces a step, 5 steps
        assert row["comm_ns"] == pytest.approx(sum(nccl), abs=len(nccl))
        assert row["compute_ns"] == pytest.approx(sum(other), abs=len(other))
        assert row["steps"] == STEPS  # the host's step ranges: every device's


def test_the_waits_and_the_straggler_are_the_kernels_own(run, kernels) -> None:
    """A device's wait in an all-reduce is how much longer its kernel ran than the
    shortest of the four (the last to arrive); no device holds the others up more than it
    waits for them, so none is named."""
    _ranks, analysis, _groups, _bandwidth = run
    instances = _instances(kernels)
    assert len(instances) == 3 * STEPS and all(len(i) == 4 for i in instances.values())
    waits: dict[int, int] = defaultdict(int)
    caused: dict[int, int] = defaultdict(int)
    for per_device in instances.values():
        times = {d: k["end"] - k["start"] for d, k in per_device.items()}
        last = min(times, key=times.get)
        for d, t in times.items():
            waits[d] += t - times[last]
            caused[last] += t - times[last]
    rows = {r["rank"]: r for r in analysis["ranks"]}
    for device in range(4):
        assert rows[device]["wait_ns"] == pytest.approx(waits[device], abs=15)
    net = {d: caused[d] / 3 / STEPS - waits[d] / STEPS for d in range(4)}
    assert max(net.values()) <= 0
    assert analysis["straggler"] is None
    assert analysis["balance"]["rank"] == max(net, key=net.get)


def test_the_gradient_all_reduce_is_data_parallelism_over_the_mesh(run) -> None:
    _ranks, _analysis, groups, _bandwidth = run
    assert [(g["process_group"], g["ranks"], g["kind"]) for g in groups] == [
        ("axis_0", [0, 1, 2, 3], "data")]
    assert "XLA" in groups[0]["why"] and "latency-hiding" in groups[0]["advice"]


def test_collective_bandwidth_equals_the_kernels_times(run, kernels) -> None:
    """Per all-reduce: transfer = the last end minus the latest start of its four kernels;
    algbw = bytes / transfer, busbw = algbw * 2(n-1)/n (nccl-tests), medians over the five
    steps, within 2%. The sizes are the gradients of the MLP: its largest weight
    (4096 x 4096 f32) alone, the rest in two combined all-reduces, with the loss."""
    _ranks, _analysis, _groups, bandwidth = run
    params = sum(a * b + b for a, b in zip(SIZES[:-1], SIZES[1:], strict=True))
    assert sorted(b["bytes"] for b in bandwidth)[-1] == 4096 * 4096 * 4
    assert sum(b["bytes"] for b in bandwidth) == 4 * (params + 1)  # + the loss, a scalar
    by_op: dict[str, list[int]] = defaultdict(list)
    for (op, _k), per_device in _instances(kernels).items():
        by_op[op].append(max(k["end"] for k in per_device.values())
                         - max(k["start"] for k in per_device.values()))
    medians = sorted(statistics.median(t) for t in by_op.values())
    assert len(bandwidth) == 3
    for row in bandwidth:
        assert (row["name"], row["group_size"], row["instances"]) == ("all_reduce", 4, 5)
        transfer = min(medians, key=lambda m: abs(m - row["transfer_ns_median"]))
        assert row["transfer_ns_median"] == pytest.approx(transfer, rel=0.02)
        assert row["algbw_gbps_median"] == pytest.approx(row["bytes"] / transfer, rel=0.02)
        assert row["busbw_gbps_median"] == pytest.approx(
            row["bytes"] / transfer * 2 * 3 / 4, rel=0.02)


def test_each_rank_is_its_gpu_as_the_profiler_named_it(run) -> None:
    """The GPU planes' own stats name the device (the JSON does not): the name is in the
    XSpace's raw bytes once per GPU plane; an H100 SXM's NVLink gives each direction
    450 GB/s (docs/multirank.md's table)."""
    ranks, _analysis, _groups, bandwidth = run
    raw = XPLANE.read_bytes()
    names = set(re.findall(rb"NVIDIA [ -~]+?HBM3", raw))
    assert len(names) == 1 and raw.count(next(iter(names))) == 4
    devices = ranks.con.execute("SELECT rank, device, name, compute_capability FROM devices "
                                "ORDER BY rank").fetchall()
    assert devices == [(d, d, next(iter(names)).decode(), "9.0") for d in range(4)]
    assert {row["link_peak_gbps"] for row in bandwidth} == {450.0}


@pytest.mark.slow
def test_the_summary_reads_the_mesh_as_ranks(capsys) -> None:
    assert main(["--summary", str(XPLANE), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [r["rank"] for r in summary["ranks"]] == [0, 1, 2, 3]
    assert summary["straggler"] is None and summary["source"]["ranks"] == 4
    assert summary["parallelism"][0]["kind"] == "data"
    assert len(summary["collective_bandwidth"]) == 3
    assert main(["--summary", str(XPLANE)]) == 0
    text = capsys.readouterr().out
    assert "no straggler" in text.lower() or "balanced" in text.lower()


# -- the kinds from XLA's opcodes -------------------------------------------------------

@pytest.mark.parametrize(("opcodes", "kind"), [
    (["all-to-all"], "expert"),
    (["all-gather", "reduce-scatter", "all-reduce"], "fsdp"),
])
def test_each_xla_collective_names_its_kind(run, opcodes: list[str], kind: str) -> None:
    """jax_dp's own collectives, their opcodes renamed in turn, the all-to-alls called in
    the forward: no trace recorded here runs an all-to-all in the forward (a mixture of
    experts'); jax_fsdp and jax_ring below are recorded ones."""
    ranks = run[0]
    ranks.con.execute(
        "CREATE TEMP TABLE collectives AS SELECT * REPLACE ($names[1 + (row_number() OVER "
        "(ORDER BY start_ns, rank) - 1) % len($names)] AS collective, "
        "backward AND NOT list_contains($names, 'all-to-all') AS backward) "
        "FROM main.collectives",
        {"names": opcodes})
    try:
        assert [g["kind"] for g in parallelism(ranks.con)] == [kind]
    finally:
        ranks.con.execute("DROP TABLE temp.collectives")


def test_forward_all_reduces_are_tensor_parallelism(run) -> None:
    """All-reduces outside a transposed op ('transpose(jvp(...))': the gradient's) reduce
    activations in the forward: as many as in the backward is tensor parallelism."""
    ranks = run[0]
    ranks.con.execute("CREATE TEMP TABLE collectives AS SELECT * REPLACE (row_number() "
                      "OVER (ORDER BY start_ns, rank) % 2 = 0 AS backward) "
                      "FROM main.collectives")
    try:
        assert [g["kind"] for g in parallelism(ranks.con)] == ["tensor"]
    finally:
        ranks.con.execute("DROP TABLE temp.collectives")


def test_device_groups_in_each_of_xlas_forms() -> None:
    """Constructed instructions (not a trace): listed groups, an iota list, a Shardy
    mesh over one of two axes, a collective-permute's pairs."""
    inst = HloProto().hlo_module.computations.add().instructions.add()
    listed = type(inst)()
    for ids in ([0, 2], [1, 3]):
        listed.collective_device_list.replica_groups.add().replica_ids.extend(ids)
    assert device_groups(listed) == ([[0, 2], [1, 3]], None)
    iota = type(inst)()
    spec = iota.iota_collective_device_list
    spec.num_replica_groups, spec.num_devices_per_group = 2, 4
    spec.iota_reshape_dims.extend([4, 2])
    spec.iota_transpose_perm.extend([1, 0])
    assert device_groups(iota) == ([[0, 2, 4, 6], [1, 3, 5, 7]], None)
    mesh = type(inst)()
    m = mesh.mesh_axes_replica_group_list
    for name, size in (("data", 2), ("model", 2)):
        axis = m.mesh.axes.add()
        axis.name, axis.size = name, size
    m.axes.add().mesh_axis_index = 1
    assert device_groups(mesh) == ([[0, 1], [2, 3]], "model")
    m.axes[0].mesh_axis_index = 0
    assert device_groups(mesh) == ([[0, 2], [1, 3]], "data")
    permute = type(inst)()
    for s, t in ((0, 1), (1, 2)):
        pair = permute.source_target_pairs.add()
        pair.source, pair.target = s, t
    assert device_groups(permute) == ([[0, 1], [1, 2]], None)


def test_a_tensor_parallel_jax_program_reads_as_tensor_parallel(tmp_path: Path) -> None:
    """sample_traces/jax_tp: recordings/gen_unannotated.py's jax_tp, a jitted MLP of four
    8192x8192 bf16 layers, each weight split by columns then by rows over two H200s
    (Megatron's pattern), steps 20-24 under jax.profiler. Each step the row-split layers
    (the second and fourth) all-reduce their outputs in the forward and the third layer's
    input gradient is all-reduced in the backward (the first layer's input, the batch,
    needs none): 2 forward and 1 backward all-reduces of [2048, 8192] f32 a step, as many
    as the trace viewer's JSON has NCCL kernels of three HLO all-reduces on each GPU."""
    run_dir = SAMPLES / "jax_tp" / "plugins" / "profile" / "2026_11_30_11_32_34"
    with gzip.open(run_dir / "vm.trace.json.gz") as f:
        events = json.load(f)["traceEvents"]
    ops = Counter((e["pid"], e["args"]["hlo_op"]) for e in events
                  if e.get("ph") == "X" and "nccl" in e["name"].lower()
                  and e.get("args", {}).get("hlo_op"))
    assert sorted(ops.values()) == [STEPS] * 6  # three all-reduces on each of two GPUs
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TUI_CACHE_DIR", str(tmp_path))
        with open_run([run_dir / "vm.xplane.pb"]) as ranks:
            calls = Counter(ranks.con.execute(
                "SELECT rank, backward FROM collectives WHERE collective = 'all-reduce'"
            ).fetchall())
            groups = parallelism(ranks.con)
            bandwidth = collective_bandwidth(ranks.con)
    assert calls == {(0, False): 2 * STEPS, (0, True): STEPS,
                     (1, False): 2 * STEPS, (1, True): STEPS}
    assert [(g["ranks"], g["kind"]) for g in groups] == [([0, 1], "tensor")]
    assert "inside the forward" in groups[0]["why"] and "XLA" in groups[0]["why"]
    assert [(b["name"], b["bytes"], b["group_size"], b["instances"]) for b in bandwidth] == [
        ("all_reduce", 2048 * 8192 * 4, 2, 3 * STEPS)]


def _nccl_ops(run_dir: Path) -> Counter:
    """The trace viewer JSON's NCCL kernels, counted by GPU and by their HLO op's name
    (numbers cut: 'all-gather.3' is 'all-gather')."""
    with gzip.open(run_dir / "vm.trace.json.gz") as f:
        events = json.load(f)["traceEvents"]
    return Counter((e["pid"], re.sub(r"[.\d]+$", "", e["args"]["hlo_op"])) for e in events
                   if e.get("ph") == "X" and "nccl" in e["name"].lower()
                   and e.get("args", {}).get("hlo_op"))


def test_xlas_fully_sharded_steps_are_fsdp_though_they_reshard_by_all_to_all(
        tmp_path: Path) -> None:
    """sample_traces/jax_fsdp: gen_unannotated.py's jax_fsdp, a jitted MLP of four
    8192x8192 bf16 weights split by rows over two H200s, as is each batch, steps 20-24
    under jax.profiler. XLA all-gathers each weight in the forward and again in the
    backward, reduce-scatters the gradients (one combined op a step), and reshards
    gradients by all-to-all in the backward alone: FSDP, not experts (whose tokens are
    sent in the forward). The calls per rank are the trace viewer's NCCL kernels per GPU."""
    run_dir = SAMPLES / "jax_fsdp" / "plugins" / "profile" / "2026_11_30_13_12_39"
    kernels = _nccl_ops(run_dir)
    assert set(kernels.values()) == {8 * STEPS, 15 * STEPS, STEPS}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TUI_CACHE_DIR", str(tmp_path))
        with open_run([run_dir / "vm.xplane.pb"]) as ranks:
            calls = Counter(ranks.con.execute(
                "SELECT rank, collective, backward FROM collectives").fetchall())
            groups = parallelism(ranks.con)
    for rank, gpu in ((0, 1), (1, 2)):
        assert calls[(rank, "all-gather", False)] == calls[(rank, "all-gather", True)]
        assert calls[(rank, "all-gather", False)] * 2 == kernels[(gpu, "all-gather")]
        assert calls[(rank, "reduce-scatter", True)] == kernels[(gpu, "reduce-scatter")]
        assert calls[(rank, "all-to-all", True)] == kernels[(gpu, "all-to-all")]
        assert calls[(rank, "all-to-all", False)] == 0
    assert [(g["ranks"], g["kind"]) for g in groups if g["kind"]] == [([0, 1], "fsdp")]


def test_xlas_collective_permutes_are_a_ring_not_said_to_be_a_pipeline(
        tmp_path: Path) -> None:
    """sample_traces/jax_ring: gen_unannotated.py's jax_ring, a ring matmul under
    shard_map over two H200s, each device passing its block of the second operand to its
    neighbour (`lax.ppermute`, one collective-permute a step: the trace viewer's one
    SendRecv kernel a step on each GPU) while it multiplies the block it holds. The HLO
    does not say whether blocks go round a ring or through a pipeline's stages: the kind
    is `ring`, whose advice speaks of both, and no pipeline's bubble is claimed. The
    memsets of `lax.axis_index` (a partition-id op) are that op's work."""
    from tui.analysis.parallelism import ADVICE

    run_dir = SAMPLES / "jax_ring" / "plugins" / "profile" / "2026_11_30_13_12_49"
    assert _nccl_ops(run_dir) == {(1, "ppermute"): STEPS, (2, "ppermute"): STEPS}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TUI_CACHE_DIR", str(tmp_path))
        with open_run([run_dir / "vm.xplane.pb"], min_gap_ns=1_000_000) as ranks:
            calls = Counter(ranks.con.execute(
                "SELECT rank, collective, peer FROM collectives").fetchall())
            groups = parallelism(ranks.con)
            summary = run_summary(ranks, 1_000_000, "jax_ring")
            # `lax.axis_index`'s partition-id: XLA writes the id with a memset, its op's work
            (memsets,) = ranks.con.execute(
                "SELECT count(*) FROM gpu_activities "
                "WHERE kind = 'memset' AND hlo_op = 'axis_index.10.0'").fetchone()
    assert memsets == 2 * STEPS  # one a step on each device
    assert not [w for w in summary["warnings"] if "could not be tied" in w]
    assert calls == {(0, "collective-permute", 1): STEPS,
                     (1, "collective-permute", 0): STEPS}
    assert [(g["ranks"], g["kind"]) for g in groups] == [([0, 1], "ring")]
    text = summary["diagnosis"]["text"]
    assert ADVICE["ring"] in text and "bubble: more micro-batches" not in text
    assert summary.get("pipeline") is None


def test_a_logdir_a_process_is_a_run_of_ranks(tmp_path: Path) -> None:
    """sample_traces/jax_mp: gen_unannotated.py's jax_mp, two processes (one GPU each, as
    multi-host JAX runs) training an MLP data-parallel, each tracing steps 20-24 into its
    own LOGDIR (rank0/, rank1/). The folder of both, or both given, is a run of two ranks
    in that order; each rank's gradient all-reduces (four [4096, 4096] bf16 a step) are
    its trace viewer JSON's NCCL kernels, and the communication-bound rank is given XLA's
    advice, not DDP's bucketing."""
    from tui.analysis.parallelism import XLA_ADVICE
    from tui.loading.resolve import resolve

    folder = SAMPLES / "jax_mp"
    target = resolve([folder])
    assert target.kind == "run" and resolve([folder / "rank0", folder / "rank1"]) == target
    assert [p.relative_to(folder).parts[0] for p in target.paths] == ["rank0", "rank1"]
    kernels = [sum(_nccl_ops(p.parent).values()) for p in target.paths]
    assert kernels == [4 * STEPS, 4 * STEPS]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TUI_CACHE_DIR", str(tmp_path))
        with open_run(list(target.paths), min_gap_ns=1_000_000) as ranks:
            calls = Counter(ranks.con.execute(
                "SELECT rank, collective, in_nelems FROM collectives").fetchall())
            groups = parallelism(ranks.con)
            summary = run_summary(ranks, 1_000_000, "jax_mp")
    assert calls == {(0, "all-reduce", 4096 * 4096): 4 * STEPS,
                     (1, "all-reduce", 4096 * 4096): 4 * STEPS}
    assert [(g["ranks"], g["kind"]) for g in groups] == [([0, 1], "data")]
    talking = [r["diagnosis"] for r in summary["ranks"]
               if r["diagnosis"]["bound"] == "communication"]
    assert talking and all(d["text"].endswith(XLA_ADVICE["data"] + ".") for d in talking)
