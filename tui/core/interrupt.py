"""Ctrl-C, however it surfaces: Python's KeyboardInterrupt, or DuckDB stopping a query.

DuckDB takes SIGINT while a query runs in the main thread: the query stops and raises
(a RuntimeError "Query interrupted", or an InterruptException), not KeyboardInterrupt.
"""

from __future__ import annotations

import duckdb

EXIT_CODE = 130  # 128 + SIGINT, as shells report a program stopped by Ctrl-C


def is_interrupt(exc: BaseException) -> bool:
    return (isinstance(exc, (KeyboardInterrupt, duckdb.InterruptException))
            or (isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()))
