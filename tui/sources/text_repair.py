"""A second chance for Chrome-trace text that DuckDB's JSON reader refuses.

Some writers put bytes that are not UTF-8 (a Latin-1 file name, a cut multi-byte
character), raw control characters (a NUL, an ESC from a coloured log line) or half a
UTF-16 surrogate pair (`\\udcff`: Python's json writes undecodable bytes so) into event
names. DuckDB then refuses the whole file. Only on that error, the scratch copy of the
events is rewritten once: invalid UTF-8 and lone surrogates become U+FFFD, and a raw
control character becomes its `\\u00XX` escape, so a name still shows what it held (the
views print it as `\\xNN`, never as a live control code).
"""

from __future__ import annotations

import codecs
import os
import re
from pathlib import Path

_CHUNK = 8 << 20
# Raw control bytes other than the JSON whitespace \t \n \r (those are kept: outside
# strings they are layout, and they cannot be told apart without parsing).
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# A \\uD800-\\uDFFF escape that is not half of a pair (and not itself escaped: even
# backslashes before it).
_LONE_SURROGATE = re.compile(
    rb"(?<!\\)((?:\\\\)*)(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<![uU][dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)
# Any \\uD800-\\uDFFF escape at all: a block without one (nearly every block) skips
# _LONE_SURROGATE, whose lookbehinds make it try every byte (2 s for a 36 MB block, against
# 0.01 s for this one, which scans for its literal start).
_ANY_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_REFUSALS = ("invalid UTF-8", "control character", "surrogate")


def can_repair(error: Exception) -> bool:
    """Is `error` DuckDB refusing bytes that `repair_text` replaces?"""
    return any(marker in str(error) for marker in _REFUSALS)


def repair_text(path: Path) -> int:
    """Rewrite `path` in place with the replacements above; how many were made."""
    bad = 0

    def replace(error: UnicodeError) -> tuple[str | bytes, int]:
        nonlocal bad
        bad += 1
        assert isinstance(error, UnicodeDecodeError)  # registered for a decoder only
        return "\ufffd", error.end

    def escape(match: re.Match[bytes]) -> bytes:
        return b"\\u%04x" % match[0][0]

    name = f"tui-repair-{os.getpid()}"
    codecs.register_error(name, replace)
    decoder = codecs.getincrementaldecoder("utf-8")(errors=name)
    fixed = path.with_name(path.name + ".repaired")
    carry = b""  # the end of a block, so that an escape pair is never split
    with open(path, "rb") as src, open(fixed, "wb") as out:
        while True:
            block = src.read(_CHUNK)
            data = carry + decoder.decode(block, final=not block).encode("utf-8")
            keep = min(len(data), 16) if block else 0
            data, carry = data[: len(data) - keep], data[len(data) - keep :]
            bad += len(_CONTROL.findall(data))
            data = _CONTROL.sub(escape, data)
            if _ANY_SURROGATE.search(data):
                data, lone = _LONE_SURROGATE.subn(rb"\1\\ufffd", data)
                bad += lone
            out.write(data)
            if not block:
                break
    os.replace(fixed, path)
    return bad
