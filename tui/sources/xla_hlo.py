"""The HLO programs an XLA profile carries: each op's framework path and line of code.

Every XSpace (`<host>.xplane.pb`) has a `/host:metadata` plane whose event metadata hold,
one per compiled program, a serialized `xla.HloProto` (stat `Hlo Proto`; XProf reads
them there too). From each we keep what ties GPU work to code:

- the ops that can run work on a GPU (fusions, library calls, copies, collectives …),
  each with its OpMetadata: the framework op path (`op_name`, e.g.
  `jit(step)/transpose(jvp(LM))/Dense_0/dot_general`) and its source line: the
  metadata's own `source_file`/`source_line`, else the innermost frame of the Python
  stack the metadata points into (JAX records that stack, not the line);
- the order the ops run in: the entry computation's schedule, with called computations
  (calls, async wrappers, branches) in place and a while loop's condition and body
  repeated by its known trip count. A command buffer replays its ops in this order,
  which is what ties its library kernels to their ops (tui/derived/xla_hlo_match.py).

The rows go to the schema's `hlo_ops` and `hlo_schedule` tables. The trace viewer's
JSON has no HLO: for it, the `.xplane.pb` of the same run is read (`xplanes_beside`).
"""

from __future__ import annotations

import itertools
import json
import mmap
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb
import pyarrow as pa
from google.protobuf.message import DecodeError, Message

from tui.core.db import registered
from tui.derived.stacks import LIBRARIES
from tui.sources.hlo_flops import ModuleShapes
from tui.sources.hlo_schema import HloProto
from tui.sources.xla_collectives import collective_of, device_groups, groups_text, shape_size
from tui.sources.xspace_schema import XPlane, XPlaneHead

METADATA_PLANE = "/host:metadata"
HLO_PROTO_STAT = "Hlo Proto"
PROGRAM_ID_STAT = "program_id"
GPU_PLANE = re.compile(r"/device:GPU:\d+")
# Ops that never run work on a GPU themselves (views, tuples, parameters, markers). Not
# partition-id and replica-id: XLA writes the id with a memset (`jax.lax.axis_index`
# under shard_map: sample_traces/jax_ring's `Memset` under hlo_op `axis_index.10.0`).
NO_WORK = frozenset({
    "parameter", "constant", "get-tuple-element", "tuple", "bitcast", "after-all",
    "add-dependency", "opt-barrier", "domain",
    "get-dimension-size", "set-dimension-size", "copy-done", "send-done", "recv-done",
    "all-reduce-done", "all-gather-done", "collective-permute-done", "async-done",
    "async-update", "optimization-barrier", "fusion-done",
})
# Ops whose called computations run in their place (not a fusion's fused computation).
CALLS_IN_PLACE = frozenset({"call", "async-start", "conditional"})
# A while loop repeated more often than this is laid out this many times: the matcher
# places the rest by kernel name.
MAX_UNROLL = 256
_XSPACE_PLANES = 1  # XSpace.planes
_XPLANE_NAME = 2  # XPlane.name
_PLANE_HEAD = frozenset({2, 5, 6})  # XPlane's name, stat_metadata, stats


@dataclass(frozen=True)
class HloOp:
    name: str  # 'input_reduce_fusion.29'
    opcode: str  # 'fusion', 'custom-call', ...
    category: str  # a fusion's kind or backend ('kLoop', '__triton_gemm'); a call's target
    op_name: str  # the framework op path
    source_file: str | None
    source_line: int | None
    stack: tuple[str, ...]  # 'file(line): func', outermost first
    user_code: bool  # the source line is the user's own code, not a library's
    flops: float | None = None  # of the dots it runs (tui/sources/hlo_flops.py)
    precision: str | None = None  # of their left operand: 'bf16', 'fp32', ...
    # of a collective (tui/sources/xla_collectives.py); None for other ops
    elements: int | None = None  # its result's elements
    dtype: str | None = None  # their type: 'f32'
    bytes: int | None = None  # its result's bytes
    replica_groups: str | None = None  # its groups of device ids: '[[0, 1, 2, 3]]'
    mesh_axes: str | None = None  # the mesh axes it runs over: 'data'


@dataclass
class HloProgram:
    module: str  # as the GPU work's hlo_module: 'jit_step'
    program_id: int
    ops: dict[str, HloOp] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # op names in the order they run


def programs_of_plane(plane: Message) -> list[HloProgram]:
    """The HLO programs of a `/host:metadata` plane (an XPlane); an undecodable one is
    left out."""
    stat_names = {sid: meta.name for sid, meta in plane.stat_metadata.items()}
    programs = []
    for mid, meta in sorted(plane.event_metadata.items()):
        blob = b""
        program_id = mid  # the metadata's id, where no program_id stat says it
        for stat in meta.stats:
            name, kind = stat_names.get(stat.metadata_id), stat.WhichOneof("value")
            if name == HLO_PROTO_STAT and kind == "bytes_value":
                blob = stat.bytes_value
            elif name == PROGRAM_ID_STAT and kind in ("uint64_value", "int64_value"):
                program_id = int(getattr(stat, kind))
        if not blob:
            continue
        proto = HloProto()
        try:
            proto.ParseFromString(blob)
        except (DecodeError, ValueError, RuntimeError):
            continue
        programs.append(program_of(proto.hlo_module, program_id))
    return programs


def read_programs(path: Path) -> list[HloProgram]:
    """The HLO programs of the XSpace file at `path`, reading only its metadata plane;
    [] when the file cannot be read or holds none."""
    out: list[HloProgram] = []
    try:  # mapped, not read: of a large profile only the planes' heads are touched
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            with memoryview(data) as view:  # released before the map is closed
                spans = _metadata_planes(view)
            for start, end in spans:
                plane = XPlane()
                try:
                    plane.ParseFromString(data[start:end])
                except (DecodeError, ValueError, RuntimeError):
                    continue
                out += programs_of_plane(plane)
    except (OSError, ValueError):  # unreadable, or empty (nothing to map)
        return out
    return out


def xplanes_beside(json_path: Path) -> list[Path]:
    """The XSpace files of the run a trace viewer JSON belongs to: `<host>.xplane.pb`
    beside `<host>.trace.json.gz`; for `perfetto_trace.json.gz`, every one in its folder."""
    name = json_path.name
    for suffix in (".trace.json.gz", ".trace.json"):
        if name.endswith(suffix):
            own = json_path.with_name(name[: -len(suffix)] + ".xplane.pb")
            return [own] if own.is_file() else []
    try:
        return sorted(p for p in json_path.parent.glob("*.xplane.pb") if p.is_file())
    except OSError:
        return []


def stage_programs(con: duckdb.DuckDBPyConnection, programs: list[HloProgram]) -> None:
    """Write the programs into hlo_ops and hlo_schedule (a program seen twice, e.g. on
    two hosts, once)."""
    seen: set[tuple[str, int]] = set()
    ops: dict[str, list] = {k: [] for k in (
        "hlo_module", "program_id", "hlo_op", "opcode", "category", "op_name",
        "source_file", "source_line", "stack", "user_code", "flops", "precision",
        "elements", "dtype", "bytes", "replica_groups", "mesh_axes")}
    order: dict[str, list] = {k: [] for k in ("hlo_module", "program_id", "position", "hlo_op")}
    for program in programs:
        key = (program.module, program.program_id)
        if key in seen:
            continue
        seen.add(key)
        for op in program.ops.values():
            for column, value in (
                    ("hlo_module", program.module), ("program_id", program.program_id),
                    ("hlo_op", op.name), ("opcode", op.opcode), ("category", op.category),
                    ("op_name", op.op_name), ("source_file", op.source_file),
                    ("source_line", op.source_line), ("stack", list(op.stack)),
                    ("user_code", op.user_code), ("flops", op.flops),
                    ("precision", op.precision), ("elements", op.elements),
                    ("dtype", op.dtype), ("bytes", op.bytes),
                    ("replica_groups", op.replica_groups), ("mesh_axes", op.mesh_axes)):
                ops[column].append(value)
        for position, name in enumerate(program.order):
            order["hlo_module"].append(program.module)
            order["program_id"].append(program.program_id)
            order["position"].append(position)
            order["hlo_op"].append(name)
    with registered(con, "hlo_ops_arrow", pa.table(ops, schema=_OPS_SCHEMA)):
        con.execute("INSERT INTO hlo_ops SELECT * FROM hlo_ops_arrow")
    with registered(con, "hlo_schedule_arrow", pa.table(order, schema=_ORDER_SCHEMA)):
        con.execute("INSERT INTO hlo_schedule SELECT * FROM hlo_schedule_arrow")


_OPS_SCHEMA = pa.schema([
    ("hlo_module", pa.string()), ("program_id", pa.int64()), ("hlo_op", pa.string()),
    ("opcode", pa.string()), ("category", pa.string()), ("op_name", pa.string()),
    ("source_file", pa.string()), ("source_line", pa.int32()),
    ("stack", pa.list_(pa.string())), ("user_code", pa.bool_()), ("flops", pa.float64()),
    ("precision", pa.string()), ("elements", pa.int64()), ("dtype", pa.string()),
    ("bytes", pa.int64()), ("replica_groups", pa.string()), ("mesh_axes", pa.string())])
_ORDER_SCHEMA = pa.schema([
    ("hlo_module", pa.string()), ("program_id", pa.int64()), ("position", pa.int32()),
    ("hlo_op", pa.string())])


# -- one program ------------------------------------------------------------------------

def program_of(module: Message, program_id: int) -> HloProgram:
    """An HloModuleProto's ops that can run GPU work, and the order they run in."""
    program = HloProgram(module.name, program_id)
    frames = _Frames(module.stack_frame_index)
    computations = {c.id: c for c in module.computations}
    fused = {c.id for c in module.computations if c.is_fusion_computation}
    shapes = ModuleShapes(module)
    instructions = {}
    for computation in module.computations:
        if computation.id in fused:
            continue
        for inst in computation.instructions:
            instructions[inst.id] = inst
            if inst.opcode not in NO_WORK:
                op = _op_of(inst, frames)
                found = shapes.flops(inst)
                if found is not None:
                    op = replace(op, flops=found[0], precision=found[1])
                program.ops[inst.name] = op
    sequences = {cid: list(seq.instruction_ids) for cid, seq in module.schedule.sequences.items()}

    def run(cid: int, depth: int) -> None:
        computation = computations.get(cid)
        if computation is None or depth > 64:
            return
        for iid in sequences.get(cid) or [i.id for i in computation.instructions]:
            inst = instructions.get(iid)
            if inst is None or inst.opcode in NO_WORK:
                continue
            if inst.opcode == "while":
                condition, body = _while_parts(inst)
                for _ in range(_trip_count(inst)):
                    run(condition, depth + 1)
                    run(body, depth + 1)
                run(condition, depth + 1)
            elif inst.opcode in CALLS_IN_PLACE:
                for called in inst.called_computation_ids:
                    run(called, depth + 1)
            else:
                program.order.append(inst.name)

    run(module.entry_computation_id or _entry_id(module), 0)
    return program


def _entry_id(module: Message) -> int:
    for computation in module.computations:
        if computation.name == module.entry_computation_name:
            return computation.id
    return module.computations[-1].id if module.computations else -1


def _while_parts(inst: Message) -> tuple[int, int]:
    """(condition, body) of a while: XLA lists its body first (HloInstruction's
    kBodyComputationIndex 0, kConditionComputationIndex 1)."""
    called = list(inst.called_computation_ids) + [-1, -1]
    return called[1], called[0]


def _trip_count(inst: Message) -> int:
    """A while loop's known trip count (its GPU backend config), at most MAX_UNROLL;
    1 when XLA did not work it out."""
    config = _backend_config(inst)
    try:
        count = int(config.get("known_trip_count", {}).get("n", 1))
    except (AttributeError, TypeError, ValueError):
        return 1
    return max(1, min(count, MAX_UNROLL))


def _backend_config(inst: Message) -> dict:
    raw = inst.backend_config
    if not raw or not raw.lstrip().startswith(b"{"):
        return {}
    try:
        config = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return {}
    return config if isinstance(config, dict) else {}


def _op_of(inst: Message, frames: _Frames) -> HloOp:
    meta = inst.metadata
    category = inst.custom_call_target
    if inst.opcode == "fusion":
        kind = _backend_config(inst).get("fusion_backend_config", {})
        category = (kind.get("kind") if isinstance(kind, dict) else None) or inst.fusion_kind
    stack = frames.stack(meta.stack_frame_id)
    source_file: str | None = meta.source_file or None
    source_line: int | None = meta.source_line or None
    if source_file is None and stack:
        source_file, source_line = frames.location(meta.stack_frame_id)
    op = HloOp(name=inst.name, opcode=inst.opcode, category=category or "",
               op_name=meta.op_name, source_file=source_file, source_line=source_line,
               stack=tuple(stack),
               user_code=source_file is not None and is_user_file(source_file))
    if collective_of(inst.opcode) is None:
        return op
    elements, dtype, size = shape_size(inst.shape)
    groups, axes = device_groups(inst)
    return replace(op, elements=elements, dtype=dtype, bytes=size,
                   replica_groups=groups_text(groups), mesh_axes=axes)


class _Frames:
    """A module's StackFrameIndexProto: frame ids (1-based) to 'file(line): func' chains."""

    def __init__(self, index: Message) -> None:
        self.files = list(index.file_names)
        self.functions = list(index.function_names)
        self.locations = [(loc.file_name_id, loc.function_name_id, loc.line)
                          for loc in index.file_locations]
        self.frames = [(f.file_location_id, f.parent_frame_id) for f in index.stack_frames]
        self._stacks: dict[int, tuple[str, ...]] = {}

    def location(self, frame_id: int) -> tuple[str | None, int | None]:
        if not 0 < frame_id <= len(self.frames):
            return None, None
        loc = self.frames[frame_id - 1][0]
        if not 0 < loc <= len(self.locations):
            return None, None
        file_id, _, line = self.locations[loc - 1]
        return (self.files[file_id - 1] if 0 < file_id <= len(self.files) else None), line

    def _name(self, frame_id: int) -> str:
        loc = self.frames[frame_id - 1][0]
        if not 0 < loc <= len(self.locations):
            return "?"
        file_id, function_id, line = self.locations[loc - 1]
        file = self.files[file_id - 1] if 0 < file_id <= len(self.files) else "?"
        func = self.functions[function_id - 1] if 0 < function_id <= len(self.functions) else "?"
        return f"{file}({line}): {func}"

    def stack(self, frame_id: int) -> tuple[str, ...]:
        """The frames from the outermost to `frame_id`; () for none."""
        if frame_id in self._stacks:
            return self._stacks[frame_id]
        chain: list[str] = []
        at, seen = frame_id, set()
        while 0 < at <= len(self.frames) and at not in seen:
            seen.add(at)
            chain.append(self._name(at))
            at = self.frames[at - 1][1]
        stack = tuple(reversed(chain))
        self._stacks[frame_id] = stack
        return stack


def is_user_file(path: str) -> bool:
    """The user's own code, as for Python frames (tui/sources/stacks_python_frames.sql):
    not under site-/dist-packages or the Python library, not a library's package."""
    file = path.replace("\\", "/")
    if file.startswith("<"):
        return False
    if file.startswith("/") or (len(file) > 2 and file[1] == ":"):
        return not ("/site-packages/" in file or "/dist-packages/" in file
                    or _in_python_lib(file))
    top = file.split("/", 1)[0].removesuffix(".py")
    return top not in LIBRARIES and top not in sys.stdlib_module_names


def _in_python_lib(file: str) -> bool:
    parts = file.split("/")
    return any(a == "lib" and b.startswith("python") for a, b in itertools.pairwise(parts))


# -- finding the metadata plane without parsing the rest ---------------------------------

def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def wire_fields(buf: memoryview, start: int, end: int):
    """(number, wire type, value start, value end) of each field in buf[start:end]."""
    pos = start
    while pos < end:
        tag, pos = _varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, after = _varint(buf, pos)
        elif wire == 1:
            after = pos + 8
        elif wire == 5:
            after = pos + 4
        elif wire == 2:
            length, pos = _varint(buf, pos)
            after = pos + length
        else:
            raise ValueError(f"wire type {wire}")
        if after > end:
            raise ValueError("truncated")
        yield number, wire, pos, after
        pos = after


def gpu_planes(path: Path) -> int:
    """How many GPU planes (`/device:GPU:N`) the XSpace file at `path` holds, reading only
    the planes' names (0 where it cannot be read): several make one process's mesh a run
    of ranks, one per device."""
    try:
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            with memoryview(data) as view:
                return sum(1 for name in _plane_names(view) if GPU_PLANE.fullmatch(name))
    except (OSError, ValueError):
        return 0


GpuDescription = tuple[int, str | None, int | None, int | None, str | None]


def gpu_descriptions(path: Path) -> list[GpuDescription]:
    """Each GPU plane's device as the profiler described it: (device id, name, SMs,
    memory bytes, compute capability 'major.minor'), from the plane's own stats
    (gpu_device_name, core_count, memory_size, compute_cap_major/minor); only the planes'
    heads are read, not their events. [] where the file cannot be read."""
    out: list[GpuDescription] = []
    try:
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            with memoryview(data) as view:
                heads = _gpu_plane_heads(view)
    except (OSError, ValueError):
        return out
    for device, head in heads:
        plane = XPlaneHead()
        try:
            plane.ParseFromString(head)
        except (DecodeError, ValueError, RuntimeError):
            continue
        names = {sid: meta.name for sid, meta in plane.stat_metadata.items()}
        stats = {names.get(st.metadata_id): getattr(st, st.WhichOneof("value") or "ref_value")
                 for st in plane.stats}
        major, minor = stats.get("compute_cap_major"), stats.get("compute_cap_minor")
        out.append((device, _text(stats.get("gpu_device_name")), _number(stats.get("core_count")),
                    _number(stats.get("memory_size")),
                    f"{major}.{minor or 0}" if isinstance(major, int) else None))
    return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _gpu_plane_heads(buf: memoryview) -> list[tuple[int, bytes]]:
    """(device id, the plane's name, stat metadata and stats as an XPlaneHead's bytes) of
    each GPU plane; its lines (the events) are left out."""
    out = []
    try:
        for number, wire, start, end in wire_fields(buf, 0, len(buf)):
            if number != _XSPACE_PLANES or wire != 2:
                continue
            head, name = bytearray(), ""
            pos = start
            for inner, inner_wire, value_start, value_end in wire_fields(buf, start, end):
                if inner == _XPLANE_NAME and inner_wire == 2:
                    name = bytes(buf[value_start:value_end]).decode("utf-8", "replace")
                if inner in _PLANE_HEAD:
                    head += buf[pos:value_end]  # the field's tag, length and value
                pos = value_end
            if GPU_PLANE.fullmatch(name):
                out.append((int(name.rsplit(":", 1)[1]), bytes(head)))
    except ValueError:  # a damaged file: the planes found so far
        pass
    return out


def _planes(buf: memoryview) -> list[tuple[str, int, int]]:
    """(name, start, end) of each plane of an XSpace, in order: only the planes' names are
    read, the rest (the events, nearly all of the file) is skipped."""
    out = []
    try:
        for number, wire, start, end in wire_fields(buf, 0, len(buf)):
            if number != _XSPACE_PLANES or wire != 2:
                continue
            for inner, inner_wire, name_start, name_end in wire_fields(buf, start, end):
                if inner == _XPLANE_NAME and inner_wire == 2:
                    name = bytes(buf[name_start:name_end]).decode("utf-8", "replace")
                    out.append((name, start, end))
                    break
    except ValueError:  # a damaged file: the planes found so far
        pass
    return out


def _plane_names(buf: memoryview) -> list[str]:
    """The name of each plane of an XSpace, in order."""
    return [name for name, _start, _end in _planes(buf)]


def _metadata_planes(buf: memoryview) -> list[tuple[int, int]]:
    """Where each `/host:metadata` plane of an XSpace lies."""
    return [(start, end) for name, start, end in _planes(buf) if name == METADATA_PLANE]
