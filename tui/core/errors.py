"""The one exception type that reaches the user as a one-line message."""

from __future__ import annotations


class TraceError(Exception):
    """Input that cannot be used: the message says what is wrong and what to do."""


def first_line(exc: BaseException, limit: int = 200) -> str:
    """An error's message cut to its first line (at most `limit` characters), for a
    one-line message of our own; its type's name where it has no message."""
    text = str(exc).strip()
    return text.splitlines()[0][:limit] if text else type(exc).__name__
