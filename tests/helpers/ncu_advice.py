"""The recorded kernels of recordings/ncu_advice/ (sample_traces/advice_*.ncu-rep.gz): their
reports inflated once, and NVIDIA's details page of each loaded."""

from __future__ import annotations

import atexit
import gzip
import shutil
import tempfile
from functools import cache
from pathlib import Path

import duckdb

from tests.helpers.paths import DATA, sample
from tui.sources.ncu.load import load_ncu

KERNELS = ["tiled_gemm", "register_tiled_gemm", "local_array", "spill", "barrier_heavy",
           "atomic_hist", "divergent_loop", "texture_read", "register_heavy"]


@cache
def report(which: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="tui-ncu-advice-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    out = folder / f"advice_{which}.ncu-rep"
    with gzip.open(sample(f"advice_{which}.ncu-rep.gz"), "rb") as packed, open(out, "wb") as f:
        shutil.copyfileobj(packed, f)
    return out


@cache
def nvidia_rules(which: str) -> duckdb.DuckDBPyConnection:
    """NVIDIA's details page of the same report, as ncu printed it."""
    folder = Path(tempfile.mkdtemp(prefix="tui-ncu-advice-csv-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    out = folder / f"advice_{which}.details.csv"
    packed_csv = DATA / "ncu_advice" / f"advice_{which}.details.csv.gz"
    with gzip.open(packed_csv, "rb") as packed, open(out, "wb") as f:
        shutil.copyfileobj(packed, f)
    con = duckdb.connect()
    load_ncu(out, con)
    return con
