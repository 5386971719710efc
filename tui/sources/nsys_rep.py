"""`.nsys-rep` reports: exported to SQLite by the `nsys` command line, then loaded."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tui.core.errors import TraceError


def export_command(report: Path, output: Path, include_json: bool = False) -> list[str]:
    """The export; `include_json` keeps the JSON blocks, where the frames of Python
    backtraces and samples are (`--python-backtrace`, `--python-sampling`)."""
    keep_json = ["--include-json", "true"] if include_json else []
    return ["nsys", "export", "--type", "sqlite", *keep_json, "--force-overwrite", "true",
            "--output", str(output), str(report)]


def _keeps_json_on_request() -> bool:
    """Whether this nsys's export takes --include-json (older ones do not)."""
    try:
        shown = subprocess.run(["nsys", "export", "--help"], capture_output=True, text=True,
                               timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--include-json" in shown.stdout + shown.stderr


def export_to_sqlite(report: Path, cache_dir: Path) -> Path:
    """The SQLite export of `report`: an existing one beside it, else one made in the cache."""
    beside = report.with_suffix(".sqlite")
    if beside.is_file() and beside.stat().st_mtime >= report.stat().st_mtime:
        return beside
    output = cache_dir / f"{report.stem}-{report.stat().st_size}-{report.stat().st_mtime_ns}.sqlite"
    if output.is_file():
        return output
    if shutil.which("nsys") is None:
        command = " ".join(export_command(report, beside))
        raise TraceError(
            f"{report}: reading a .nsys-rep needs Nsight Systems' `nsys`, which is not on "
            f"PATH; export it where nsys is installed: {command}, then open the .sqlite"
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = output.with_suffix(".partial.sqlite")
    result = subprocess.run(export_command(report, partial, _keeps_json_on_request()),
                            capture_output=True, text=True)
    if result.returncode != 0 or not partial.is_file():
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise TraceError(f"{report}: `nsys export` failed: {detail[0][:300]}")
    partial.replace(output)
    return output
