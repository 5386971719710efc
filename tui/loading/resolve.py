"""What the paths on a command line are, and how to open them: the one place that says.

  trace  one trace file (its format decided from its content)      -> a trace app / summary
  ncu    an Nsight Compute report or `ncu --csv` export            -> the report on its own
  store  one local store `tui convert` wrote (NAME.tui-store)      -> opens as its trace
  run    several traces or stores, a folder of them, a URL of      -> the ranks of one run
         stores, a JAX/TensorFlow LOGDIR run with several hosts, or
         several LOGDIRs (one a process; or a folder of only them)

A folder of torch.profiler cycles (tensorboard_trace_handler's files, several of one
process: tui/loading/profiler_cycles.py) opens each process's newest cycle, said in `note`.

A LOGDIR (or `--run NAME` of one) becomes the files of the chosen run, said in `note`.
Bad input raises TraceError with a one-line message, before anything is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tui.core.errors import TraceError
from tui.core.samples import default_sample
from tui.loading.locations import is_remote
from tui.loading.paths import expand_paths, natural_key
from tui.loading.profiler_cycles import newest_cycles
from tui.loading.store import is_parquet_store
from tui.sources.detect import detect_format
from tui.sources.xla_logdir import is_logdir, open_profile_run

TargetKind = Literal["trace", "ncu", "store", "run"]
NCU_FORMATS = ("ncu-rep", "ncu-csv")


@dataclass(frozen=True)
class Target:
    """What to open: its kind, its paths (one, except for a run), a single file's format,
    and what was chosen for the user (a LOGDIR's run), if anything."""

    kind: TargetKind
    paths: tuple[Path, ...]
    format: str | None = None
    note: str | None = None

    @property
    def path(self) -> Path:
        return self.paths[0]


def resolve(paths: Sequence[Path], run: str | None = None) -> Target:
    """The target `paths` name (none: the bundled sample trace); `run` picks a run of a
    JAX/TensorFlow LOGDIR given alone."""
    if len(paths) == 1 and _is_profile_logdir(paths[0], run):
        chosen = open_profile_run(paths[0], run)
        if len(chosen.files) > 1:  # several hosts: the ranks of one run
            return Target("run", tuple(chosen.files), note=chosen.note())
        return _file(chosen.files[0], note=chosen.note())
    if run is not None:
        raise TraceError("--run goes with a JAX/TensorFlow profile LOGDIR (the folder "
                         "holding plugins/profile/<run>/), given alone")
    if not paths:
        return _file(default_sample())
    logdirs = _logdirs(paths)
    if logdirs is not None:  # a LOGDIR a process (JAX's multi-process runs): their ranks
        files = [f for d in logdirs for f in open_profile_run(d).files]
        return Target("run", tuple(files),
                      note=f"{len(logdirs)} profile LOGDIRs, each its newest run: "
                           + ", ".join(str(f) for f in files))
    if len(paths) > 1 or is_remote(paths[0]):
        return Target("run", tuple(paths))
    path = paths[0]
    if is_parquet_store(path):
        return Target("store", (path,))
    if path.is_dir():
        cycles = newest_cycles(path, expand_paths([path]))
        if cycles.note is None:
            return Target("run", (path,))
        if len(cycles.files) == 1:  # one process's cycles: its newest, as a trace
            return _file(cycles.files[0], note=cycles.note)
        return Target("run", tuple(cycles.files), note=cycles.note)
    return _file(path)


def _logdirs(paths: Sequence[Path]) -> list[Path] | None:
    """The JAX/TensorFlow LOGDIRs that `paths` are, each a process's (several given, or a
    folder holding only such LOGDIRs: `rank0/`, `rank1/`, as processes that each trace
    into their own folder leave them); None where they are not that."""
    if any(is_remote(p) for p in paths):
        return None
    # one path: resolve() has opened it already if it is a LOGDIR itself
    if len(paths) == 1 and paths[0].is_dir():
        inside = sorted((p for p in paths[0].iterdir()
                         if p.is_dir() and not p.name.startswith(".")), key=natural_key)
        if len(inside) > 1 and all(is_logdir(p) for p in inside):
            return inside
        return None
    if len(paths) > 1 and all(p.is_dir() and is_logdir(p) for p in paths):
        return list(paths)
    return None


def _is_profile_logdir(path: Path, run: str | None) -> bool:
    return not is_remote(path) and (is_logdir(path) or (run is not None and path.is_dir()))


def _file(path: Path, note: str | None = None) -> Target:
    kind = detect_format(path)  # reads the file's first bytes; raises on bad input
    if kind == "nsys-sqlite" and _gpu_processes(path) > 1:  # a multi-process job: a rank each
        return Target("run", (path,), kind, note)
    if kind in ("xla", "xplane") and _mesh_devices(path, kind) > 1:  # a device each
        return Target("run", (path,), kind, note)
    return Target("ncu" if kind in NCU_FORMATS else "trace", (path,), kind, note)


def _gpu_processes(path: Path) -> int:
    """The processes with GPU work in an nsys export (its reader, which imports DuckDB, only
    imported for one: a run's summary read back imports neither)."""
    from tui.sources.nsys_sqlite import gpu_processes

    return gpu_processes(path)


def _mesh_devices(path: Path, kind: str) -> int:
    """How many GPUs one XLA process drove: the GPU planes of its XSpace (for the trace
    viewer's JSON, of the one `.xplane.pb` beside it; none beside: 0). Its reader imports
    protobuf and DuckDB, so only for an XLA trace."""
    from tui.sources.xla_hlo import gpu_planes, xplanes_beside

    if kind == "xplane":
        return gpu_planes(path)
    beside = xplanes_beside(path)
    return gpu_planes(beside[0]) if len(beside) == 1 else 0
