"""XProf's hlo_stats of the recordings, the reference
tests/analysis/test_xla_hlo_reference.py checks tui's ops against: per HLO op, its
occurrences, time and source line.

XProf is no dependency of tui: this runs from a venv of its own, and its answers are
committed beside it (hlo_stats.<name>.json):

    python3 -m venv /tmp/xprof-venv && /tmp/xprof-venv/bin/pip install xprof
    /tmp/xprof-venv/bin/python tests/data/xla_hlo/make_reference.py NAME=XPLANE ...

Each NAME=XPLANE is one `<host>.xplane.pb` (copied to a scratch folder first: XProf may
write its cache beside the file).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from xprof.convert import raw_to_tool_data

HERE = Path(__file__).parent
KEPT = ("program_id", "category", "hlo_op_name", "tf_op_name", "occurrences", "total_time",
        "total_self_time", "source_info")


def hlo_stats(xplane: Path) -> list[dict]:
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / xplane.name
        shutil.copy(xplane, copy)
        data, _ = raw_to_tool_data.xspace_to_tool_data(
            [str(copy)], "hlo_stats", {"use_saved_result": False})
    table = json.loads(data)
    ids = [c["id"] for c in table["cols"]]
    rows = [dict(zip(ids, (cell.get("v") if isinstance(cell, dict) else cell
                           for cell in row["c"]), strict=True)) for row in table["rows"]]
    return [{k: r.get(k) for k in KEPT} for r in rows]


def main() -> None:
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        rows = hlo_stats(Path(path))
        out = HERE / f"hlo_stats.{name}.json"
        out.write_text(json.dumps({"xprof": version("xprof"), "xplane": Path(path).name,
                                   "rows": rows}, indent=1) + "\n")
        print(f"{out}: {len(rows)} ops")


if __name__ == "__main__":
    main()
