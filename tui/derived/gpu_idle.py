"""GPU-idle intervals (the table gpu_idle): every stretch on a device where no kernel, copy
or set runs on any stream, from the device's first activity to its last, with the activity
that was last to finish before it (before_id) and the one that ends it (after_id). Built
once at load; callers filter by duration.

In id order, which is (device, start_ns, end_ns) order, a gap opens where an activity
starts after everything before it on its device has ended: after the running max of the
ends so far. The activities are read a batch at a time, in the order they are stored
(id order), and each batch's running max is one NumPy pass per device, carried into the
next batch: the same rows as the window functions (gpu_idle_windows.sql), with less than
half their work (15.7M activities of a 3 GB nsys export: 2.7-3.1 s and 4 CPU-seconds
against 5.2-5.6 s and 10).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from tui.core.db import cursor, registered
from tui.core.queries import load_query
from tui.derived.nesting import rows_per_window

# What a batch of activities costs for each row read (the four columns, their NumPy copies
# and a device's run of them) and each gap found (kept until written), at most: the batches
# stay within the budget's share for arrays.
BYTES_PER_ROW = 160
NO_END = np.iinfo(np.int64).min  # "nothing has ended yet" (a NULL end counts as that)
_NONE_YET = object()  # the carry's device before the first batch


@dataclass
class _Carry:
    """What the last device of a batch carries into the next one."""

    device: object = _NONE_YET
    last_end: int = NO_END
    last_id: int = -1
    last_read_id: int = -1  # the last id read: ids must rise from batch to batch


class _OutOfOrder(Exception):
    """The activities are not stored in id order, devices ascending."""


def build_gpu_idle(con: duckdb.DuckDBPyConnection) -> None:
    """Fill gpu_idle (emptied first) from gpu_activities. Every loader stores them in id
    order, devices ascending; should they not be, the same rows come from window
    functions (gpu_idle_windows.sql), slower."""
    con.execute("DELETE FROM gpu_idle")
    try:
        _from_batches(con)
    except _OutOfOrder:  # gpu_idle_windows.sql replaces the table, batches written or not
        con.execute(load_query("gpu_idle_windows"))


def _from_batches(con: duckdb.DuckDBPyConnection) -> None:
    reader = cursor(con)  # read on one connection while this one writes
    # each write runs on a thread of its own while the next batches are read and swept
    # (DuckDB lets go of the GIL): a 3 GB nsys export's 15M gaps took 1.7 s to write
    writer = ThreadPoolExecutor(1, thread_name_prefix="tui-gpu-idle")
    writing: Future | None = None
    try:
        rows = batch_rows()
        activities = reader.sql(load_query("gpu_idle_activities")).to_arrow_reader(rows)
        carry = _Carry()
        found: list[pa.Table] = []  # gaps not written yet
        for batch in _batches_of(activities, rows):
            gaps = batch_gaps(batch, carry)
            if gaps is not None:
                found.append(gaps)
            if sum(table.num_rows for table in found) >= rows:
                if writing is not None:
                    writing.result()  # one write at a time, one batch of gaps waiting
                writing = writer.submit(_write, con, found)
                found = []
        if writing is not None:
            writing.result()
        _write(con, found)
    finally:
        writer.shutdown(wait=True)
        reader.close()


def batch_rows() -> int:
    """Activities read, and gaps written, at a time (625k at the 1GB default budget)."""
    return rows_per_window(BYTES_PER_ROW)


def _batches_of(reader: pa.RecordBatchReader, rows: int) -> Iterator[pa.RecordBatch]:
    """The reader's rows in batches of `rows` (the last fewer): DuckDB's are 122,880 rows,
    and each batch costs some NumPy calls, whatever its size."""
    pending = None
    for batch in reader:
        pending = pa.Table.from_batches([batch]) if pending is None else pa.concat_tables(
            [pending, pa.Table.from_batches([batch])])
        while pending.num_rows >= rows:
            yield _joined(pending.slice(0, rows))
            pending = pending.slice(rows)
    if pending is not None and pending.num_rows:
        yield _joined(pending)


def _joined(rows: pa.Table) -> pa.RecordBatch:
    return rows.combine_chunks().to_batches()[0]


def _write(con: duckdb.DuckDBPyConnection, found: list[pa.Table]) -> None:
    """Append gaps to gpu_idle, many rows at a time: an insert of 120k rows took twice as
    long a row as one of 1M."""
    if found:
        with registered(con, "gpu_idle_batch", pa.concat_tables(found)):
            con.execute(load_query("gpu_idle_write"))


def batch_gaps(batch: pa.RecordBatch, carry: _Carry) -> pa.Table | None:
    """The gaps that the activities of `batch` (id, device, start_ns, end_ns, in id order)
    end, after those of the batches before (`carry`, updated for the next); None if none.
    Raises _OutOfOrder when the ids do not rise or a device comes after a greater one."""
    ids = batch.column("id").to_numpy(zero_copy_only=False)
    if len(ids) == 0:
        return None
    if ids[0] <= carry.last_read_id or np.any(ids[1:] <= ids[:-1]):
        raise _OutOfOrder
    carry.last_read_id = int(ids[-1])
    devices = batch.column("device")
    start = batch.column("start_ns")
    start_valid = start.is_valid().to_numpy(zero_copy_only=False)
    start = start.fill_null(0).to_numpy(zero_copy_only=False)
    end = batch.column("end_ns").fill_null(NO_END).to_numpy(zero_copy_only=False)
    out: list[pa.Table] = []
    for first, stop in _runs(devices):
        device = devices[first].as_py()
        if carry.device is _NONE_YET or device != carry.device:
            if carry.device is not _NONE_YET and not _ascending(carry.device, device):
                raise _OutOfOrder
            carry.device, carry.last_end, carry.last_id = device, NO_END, -1
        if device is None:  # no device, no gaps (as the window functions' join by device)
            continue
        # ends[k]: the latest end among what ended before this run (the carry, first) and
        # its first k activities; reached_at[k]: where that end was reached last (ties:
        # the highest id)
        run_end = np.concatenate(([carry.last_end], end[first:stop]))
        run_ids = np.concatenate(([carry.last_id], ids[first:stop]))
        ends = np.maximum.accumulate(run_end)
        reached_at = np.maximum.accumulate(np.where(run_end == ends, np.arange(len(ends)), 0))
        before_end, before_at = ends[:-1], reached_at[:-1]
        s = start[first:stop]
        gap = (before_end != NO_END) & start_valid[first:stop] & (s > before_end)
        carry.last_end, carry.last_id = int(ends[-1]), int(run_ids[reached_at[-1]])
        if np.any(gap):
            out.append(pa.table({
                "device": pa.array(np.full(int(gap.sum()), device)).cast(devices.type),
                "start_ns": before_end[gap],
                "end_ns": s[gap],
                "duration_ns": s[gap] - before_end[gap],
                "before_id": run_ids[before_at[gap]],
                "after_id": ids[first:stop][gap],
            }))
    return pa.concat_tables(out) if out else None


def _ascending(before: object, after: object) -> bool:
    """Devices in the order ORDER BY device puts them: ascending, NULL last."""
    if before is None:
        return False
    return after is None or after > before  # type: ignore[operator]  # ints here, or None


def _runs(values: pa.Array) -> list[tuple[int, int]]:
    """[first, stop) of each run of equal values (NULLs equal to each other)."""
    nulls = values.is_null().to_numpy(zero_copy_only=False)
    keys = values.fill_null(0).to_numpy(zero_copy_only=False)
    change = np.flatnonzero((keys[1:] != keys[:-1]) | (nulls[1:] != nulls[:-1])) + 1
    bounds = [0, *change.tolist(), len(values)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))
