"""Arrow record batches read ahead on a thread of their own.

DuckDB pulls the batches of a registered RecordBatchReader on the thread that runs the
query, so reading an nsys export through the SQLite driver and writing its rows into
DuckDB took turns on one core. Read ahead, the driver reads the next batches (outside
the GIL, in C) while DuckDB writes the ones before.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import pyarrow as pa

_END = object()


class ReadAhead:
    """`with ReadAhead(source) as reader:` a RecordBatchReader of `source`'s batches, up to
    `depth` of them read ahead. On leaving, the reading thread is stopped and waited for,
    so the source (e.g. a driver's cursor) may be closed after it."""

    def __init__(self, source: pa.RecordBatchReader, depth: int = 4) -> None:
        self._source = source
        self._ready: queue.Queue[object] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="tui-read-ahead", daemon=True)
        self.reader = pa.RecordBatchReader.from_batches(source.schema, self._batches())

    def __enter__(self) -> pa.RecordBatchReader:
        self._thread.start()
        return self.reader

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        while self._thread.is_alive():  # unblock a reader waiting for room
            try:
                self._ready.get(timeout=0.05)
            except queue.Empty:
                pass
        self._thread.join()

    def _read(self) -> None:
        try:
            for batch in self._source:
                if not self._put(batch):
                    return
            self._put(_END)
        except BaseException as exc:  # handed to the consumer, raised there
            self._put(exc)

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _batches(self) -> Iterator[pa.RecordBatch]:
        while True:
            item = self._ready.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
