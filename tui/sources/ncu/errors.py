"""The one exception the ncu loaders raise (re-exported as `tui.sources.ncu.load.NcuInputError`)."""

from __future__ import annotations

from tui.core.errors import TraceError


class NcuInputError(TraceError):
    """An input that cannot be read as Nsight Compute results.

    The message says what is wrong and what to do about it; callers print it as is. It is
    a TraceError, so the CLI reports it like any other unusable input.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
