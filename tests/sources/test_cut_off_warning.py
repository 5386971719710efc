"""A trace file that ends early says so: how far it got, and what the cut took where that
is known (no GPU events at all), not a count of the bytes of its last, broken event."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, sample


def test_a_gz_cut_before_its_gpu_events_says_the_file_ends_early_and_they_are_missing(
        tmp_path: Path) -> None:
    data = sample("gappy_training.pt.trace.json.gz").read_bytes()
    cut = tmp_path / "cut.pt.trace.json.gz"
    cut.write_bytes(data[: len(data) * 3 // 10])
    inflated = gzip.GzipFile(cut)
    text = b""
    try:
        while chunk := inflated.read(1 << 16):
            text += chunk
    except EOFError:  # what a cut .gz inflates to before it ends
        pass
    events = text[text.index(b"[", text.index(b'"traceEvents"')) + 1:]
    done = subprocess.run([sys.executable, "-m", "tui.cli.main", "--summary", "--json",
                           "--no-cache", str(cut)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    first, second = summary["warnings"][:2]
    assert first.startswith(f"the file ends early: the .gz is cut off after "
                            f"{len(cut.read_bytes()) / 1024:.1f} KiB, which inflate to ")
    # the events' text read, as the inflated prefix holds it (within a chunk's rounding)
    read_mib = float(first.split("inflate to ")[1].split(" MiB")[0])
    assert abs(read_mib - len(events) / 2**20) < 0.06, (read_mib, len(events) / 2**20)
    assert second.startswith("no GPU events at all")
    assert summary["kernels"] == []
    assert not any("bytes (" in w for w in summary["warnings"])
