"""A `.nsys-rep` is exported by the `nsys` on PATH: with --include-json (the Python
backtraces' frames) where that nsys takes the option. The stand-in `nsys` here is a shell
script, not NVIDIA's tool: its export copies a real export (bound_sync.sqlite) to the
output asked for and keeps the arguments it was given."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tui.sources.nsys_rep import export_to_sqlite


def _stand_in(folder: Path, help_text: str) -> Path:
    """An `nsys` whose `export --help` prints `help_text` and whose export copies the
    sample to its --output; its arguments are written to folder/args."""
    nsys = folder / "nsys"
    nsys.write_text(
        "#!/bin/sh\n"
        f'if [ "$2" = "--help" ]; then echo "{help_text}"; exit 0; fi\n'
        f'echo "$@" > "{folder}/args"\n'
        'while [ $# -gt 1 ]; do [ "$1" = "--output" ] && out="$2"; shift; done\n'
        f'cp "{sample("bound_sync.sqlite")}" "$out"\n')
    nsys.chmod(0o755)
    return folder / "args"


@pytest.mark.parametrize(("help_text", "asked"), [
    ("  --include-json [true|false]", True),
    ("  --type sqlite", False),  # an older nsys: no such option
])
def test_the_export_keeps_json_where_nsys_can(help_text: str, asked: bool, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    args = _stand_in(fake_bin, help_text)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    report = tmp_path / "run.nsys-rep"
    report.write_bytes(b"a stand-in report: only the stand-in nsys reads it")
    exported = export_to_sqlite(report, tmp_path / "cache")
    assert exported.read_bytes() == sample("bound_sync.sqlite").read_bytes()
    given = args.read_text().split()
    assert given[:3] == ["export", "--type", "sqlite"]
    assert (given[3:5] == ["--include-json", "true"]) is asked
    assert given[-1] == str(report)
