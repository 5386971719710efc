"""`.nsys-rep` reports: exported to SQLite by the `nsys` command line, then loaded."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tui.core.errors import TraceError


def export_command(report: Path, output: Path) -> list[str]:
    return ["nsys", "export", "--type", "sqlite", "--force-overwrite", "true",
            "--output", str(output), str(report)]


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
    result = subprocess.run(export_command(report, partial), capture_output=True, text=True)
    if result.returncode != 0 or not partial.is_file():
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise TraceError(f"{report}: `nsys export` failed: {detail[0][:300]}")
    partial.replace(output)
    return output
