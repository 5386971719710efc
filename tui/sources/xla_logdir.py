"""A JAX / TensorFlow profile LOGDIR: which run to open, and which file of each host.

`jax.profiler.trace(LOGDIR)` (and TensorFlow's profiler) writes one folder per run,
`LOGDIR/plugins/profile/<run>/`, named by the time it was taken (2026_11_24_13_14_53), so
the newest run is the last by name. In a run each host wrote `<host>.xplane.pb`; JAX with
create_perfetto_trace=True adds `perfetto_trace.json.gz`, an XProf/TensorBoard export
`<host>.trace.json.gz`. Several hosts are the ranks of one run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tui.core.errors import TraceError

PROFILE_DIR = Path("plugins") / "profile"
XPLANE = ".xplane.pb"
TRACE_JSON = ".trace.json.gz"
PERFETTO = "perfetto_trace.json.gz"
LOOKED_FOR = (f"{PROFILE_DIR}/<run>/ holding <host>{XPLANE}, <host>{TRACE_JSON} or "
              f"{PERFETTO}")


@dataclass
class ProfileRun:
    """The files to open for one run of a LOGDIR: one per host (several: ranks)."""

    folder: Path
    files: list[Path]
    runs: list[str]  # every run of the LOGDIR, oldest first

    def note(self) -> str:
        """What was opened, for the user: the run, and how to pick another."""
        hosts = f", {len(self.files)} hosts as ranks" if len(self.files) > 1 else ""
        newest = self.folder.name == self.runs[-1]
        others = (f" (newest of {len(self.runs)}; --run NAME opens another)"
                  if newest and len(self.runs) > 1 else "")
        names = ", ".join(f.name for f in self.files)
        return f"profile run {self.folder.name}{others}{hosts}: {names}"


def is_logdir(path: Path) -> bool:
    """A profile LOGDIR, its plugins/profile folder, or one run's folder."""
    return path.is_dir() and (
        (path / PROFILE_DIR).is_dir() or (path / "plugins").is_dir()
        or _run_files(path) != [] or any(_run_files(child) for child in _subdirs(path)))


def open_profile_run(path: Path, run: str | None = None) -> ProfileRun:
    """The run of LOGDIR `path` to open: `run` by name, else the newest. A run folder
    given itself is that run. Raises TraceError naming what it looked for."""
    runs_dir = path / PROFILE_DIR if (path / PROFILE_DIR).is_dir() else path
    runs = sorted(child.name for child in _subdirs(runs_dir) if _run_files(child))
    if not runs and _run_files(path):  # a run's own folder
        if run is not None and run != path.name:
            raise TraceError(f"{path}: is the profile run {path.name}, not {run}")
        return ProfileRun(path, _run_files(path), [path.name])
    if not runs:
        raise TraceError(f"{path}: no profile runs found: looked for {LOOKED_FOR}")
    if run is not None and run not in runs:
        raise TraceError(f"{path}: no profile run named {run!r}; its runs: "
                         + ", ".join(runs[-5:]) + (" …" if len(runs) > 5 else ""))
    chosen = runs_dir / (run or runs[-1])
    return ProfileRun(chosen, _run_files(chosen), runs)


def _is_xla(path: Path) -> bool:
    """An XLA profile by its content: a PyTorch `rank0.trace.json.gz` is not one."""
    from tui.sources.detect import detect_format

    try:
        return detect_format(path) in ("xla", "xplane")
    except TraceError:
        return path.name.endswith(XPLANE)  # a damaged one: its loader says what is wrong


def _natural(name: str) -> list[object]:
    """'host10' after 'host9'."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _subdirs(path: Path) -> list[Path]:
    try:
        return [child for child in path.iterdir() if child.is_dir()]
    except OSError:
        return []


def _run_files(folder: Path) -> list[Path]:
    """One file per host: perfetto_trace.json.gz when the run has one host, else each
    host's trace viewer JSON, else its XSpace protobuf (JSON loads through DuckDB's
    reader, the fastest path)."""
    try:
        names = {child.name for child in folder.iterdir() if child.is_file()}
    except OSError:
        return []
    hosts = sorted({name[: -len(suffix)] for name in names for suffix in (XPLANE, TRACE_JSON)
                    if name.endswith(suffix) and _is_xla(folder / name)}, key=_natural)
    if PERFETTO in names and len(hosts) <= 1:
        return [folder / PERFETTO]
    files = []
    for host in hosts:
        for suffix in (TRACE_JSON, XPLANE):
            if host + suffix in names:
                files.append(folder / (host + suffix))
                break
    return files
