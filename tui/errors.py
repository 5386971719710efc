"""The one exception type that reaches the user as a one-line message."""

from __future__ import annotations


class TraceError(Exception):
    """Input that cannot be used: the message says what is wrong and what to do."""
