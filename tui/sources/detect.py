"""Which loader a file needs, decided from its first bytes rather than its name."""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path

from tui.core.errors import TraceError
from tui.core.formats import TraceFormat

SQLITE_MAGIC = b"SQLite format 3\x00"
NSYS_REP_MAGIC = b"NVIDIA Tegra Profiler Report"  # what .nsys-rep files begin with
NCU_REP_MAGIC = b"NVR\x00"
GZIP_MAGIC = b"\x1f\x8b"
# XLA's trace viewer JSON names its processes '/device:GPU:0', '/host:CPU' in metadata
# events that come first; no Kineto trace has such names.
XLA_PROCESS = re.compile(rb'"name"\s*:\s*"/(?:device|host):')
# An XSpace protobuf: field 1 (an XPlane, length-delimited) whose field 2 is its name.
XPLANE_HEAD = re.compile(
    rb"\n[\x80-\xff]{0,9}[\x00-\x7f](?:[\x08\x10\x18].{1,10})?\x12.(?:/host:|/device:)",
    re.DOTALL)


def detect_format(path: Path) -> TraceFormat:
    """One of 'kineto', 'xla', 'xplane', 'nsys-sqlite', 'nsys-rep', 'ncu-rep', 'ncu-csv'."""
    if not path.exists():
        raise TraceError(f"{path}: no such file")
    if path.is_dir():
        raise TraceError(f"{path}: is a directory; give a trace file")
    if not path.is_file():  # a pipe would block or be read only once; a device never ends
        raise TraceError(f"{path}: is not a regular file (a pipe or a device); save the "
                         "trace to a file and open that")
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise TraceError(f"{path}: cannot be read ({exc.strerror})") from None
    if not head.strip(b" \t\r\n") and len(head) < 4096:
        raise TraceError(f"{path}: the file is empty; it holds no trace")
    if head.startswith(SQLITE_MAGIC):
        return "nsys-sqlite"
    if head.startswith(NSYS_REP_MAGIC):
        return "nsys-rep"
    if head.startswith(NCU_REP_MAGIC):
        return "ncu-rep"
    if XPLANE_HEAD.match(head) or path.name.endswith(".xplane.pb"):
        return "xplane"  # a damaged one is said so by its reader
    if head.startswith(GZIP_MAGIC):
        head = _inflate_head(path)
        if not head.strip(b" \t\r\n"):
            raise TraceError(f"{path}: the .gz file inflates to nothing; it holds no trace")
        if head.startswith((SQLITE_MAGIC, NSYS_REP_MAGIC)):  # read in place, never streamed
            kind = "an Nsight Systems SQLite export" if head.startswith(SQLITE_MAGIC) \
                else "an Nsight Systems report"
            raise TraceError(f"{path}: {kind} compressed with gzip; tui reads it "
                             f"uncompressed: gunzip -k '{path}' and open "
                             f"'{path.with_suffix('')}'")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if _looks_like_json_trace(text):
        return "xla" if XLA_PROCESS.search(text) else "kineto"
    from tui.sources.ncu.load import is_ncu_input

    if is_ncu_input(path):  # ncu --csv exports, also live captures with ==PROF== lines
        return "ncu-csv"
    raise TraceError(
        f"{path}: unknown format: expected a PyTorch profiler/Kineto .json(.gz), a JAX/XLA "
        "profile (.trace.json.gz, perfetto_trace.json.gz, .xplane.pb, or its LOGDIR), an "
        "Nsight Systems .sqlite or .nsys-rep, or an Nsight Compute .ncu-rep / --csv export"
    )


def _looks_like_json_trace(text: bytes) -> bool:
    """An object that starts with a key, or an array that starts with a JSON value (an
    event, usually; a stray null or number first must not hide the events after it)."""
    if text[:1] not in (b"{", b"["):
        return False
    inner = text[1:].lstrip(b" \t\r\n")
    starts = (b'"', b"}") if text[:1] == b"{" else tuple(b'{]["-0123456789tfnNI'[i:i + 1]
                                                             for i in range(19))
    return not inner or inner[:1] in starts


def _inflate_head(path: Path) -> bytes:
    try:
        with gzip.open(path, "rb") as f:
            return f.read(4096)
    except (OSError, EOFError, zlib.error) as exc:
        raise TraceError(f"{path}: the .gz file is damaged ({exc})") from None
