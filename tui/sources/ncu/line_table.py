"""Every source line the compiler's line table gives a SASS instruction, inlined code
included, read from the CUDA binaries a `.ncu-rep` embeds.

`ncu-report`'s `source_info(address)` names one file and line an instruction. The line
table (the cubin's DWARF `.debug_line`, written by `nvcc -lineinfo`) may give it more:
code inlined from a header has a row for the header's line and, where the instruction
also does the caller's work, one for the call site at the same address. Nsight Compute's
Source page counts an instruction under every row that covers it; so do we.

A row (address, file, line) covers the instructions from its address up to the next
larger address of its sequence. Only what is needed is parsed: the ELF section headers,
the symbols the line table's relocations name, and the DWARF 2-4 line program.
"""

from __future__ import annotations

import posixpath
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

ELF_MAGIC = b"\x7fELF\x02\x01"  # 64-bit little-endian, as every cubin since Fermi
_SECTION = struct.Struct("<IIQQQQIIQQ")  # name, type, flags, addr, offset, size, link, info, ...
_SYMBOL = struct.Struct("<IBBHQQ")  # name, info, other, section index, value, size
_RELA = struct.Struct("<QQq")  # offset, info (symbol << 32 | type), addend
_MAX_ELVES = 256  # embedded binaries looked at, at most: a guard on a damaged file

Rows = list[tuple[int, str, int]]  # (section offset, file, line), in program order


@dataclass
class Cubin:
    """One embedded CUDA binary: its `.text.<function>` sizes and, per section, the line
    table rows (parsed on first use)."""

    data: bytes
    sections: dict[str, tuple[int, int]] = field(default_factory=dict)  # name: (offset, size)
    _rows: dict[str, Rows] | None = None

    def text_size(self, mangled: str) -> int | None:
        found = self.sections.get(f".text.{mangled}")
        return None if found is None else found[1]

    def rows(self, mangled: str) -> Rows:
        if self._rows is None:
            try:
                self._rows = _line_rows(self)
            except (struct.error, IndexError, ValueError, UnicodeDecodeError):
                self._rows = {}  # a damaged table: no rows, the caller falls back
        return self._rows.get(f".text.{mangled}", [])


def _cstr(data: bytes, at: int) -> str:
    end = data.index(b"\0", at)
    return data[at:end].decode("utf-8", errors="replace")


def _parse_elf(blob: bytes, start: int) -> Cubin | None:
    """The ELF at `start`, cut to its section headers' end; None when not a sane ELF."""
    try:
        shoff = struct.unpack_from("<Q", blob, start + 0x28)[0]
        entsize, count, names = struct.unpack_from("<HHH", blob, start + 0x3A)
        end = start + shoff + entsize * count
        if entsize != _SECTION.size or not count or names >= count or end > len(blob):
            return None
        data = blob[start:end]
        headers = [_SECTION.unpack_from(data, shoff + i * entsize) for i in range(count)]
        strings = headers[names][4]
        cubin = Cubin(data)
        for h in headers:
            if h[4] + h[5] <= len(data) or h[1] == 8:  # NOBITS sections have no bytes
                cubin.sections[_cstr(data, strings + h[0])] = (h[4], h[5])
        return cubin
    except (struct.error, ValueError):
        return None


def embedded_cubins(blob: bytes) -> list[Cubin]:
    """Every CUDA binary found in a report's bytes (they are stored uncompressed)."""
    out: list[Cubin] = []
    at = blob.find(ELF_MAGIC)
    while at >= 0 and len(out) < _MAX_ELVES:
        cubin = _parse_elf(blob, at)
        if cubin is not None and ".debug_line" in cubin.sections:
            out.append(cubin)
        at = blob.find(ELF_MAGIC, at + 1)
    return out


def _section_bytes(cubin: Cubin, name: str) -> bytes:
    offset, size = cubin.sections[name]
    return cubin.data[offset:offset + size]


def _relocated_sections(cubin: Cubin) -> dict[int, str]:
    """Offset in `.debug_line` -> the section its DW_LNE_set_address points into."""
    if ".rela.debug_line" not in cubin.sections or ".symtab" not in cubin.sections:
        return {}
    symbols = _section_bytes(cubin, ".symtab")
    index = _section_index(cubin)
    rela = _section_bytes(cubin, ".rela.debug_line")
    out: dict[int, str] = {}
    for i in range(0, len(rela) - _RELA.size + 1, _RELA.size):
        offset, info, _ = _RELA.unpack_from(rela, i)
        symbol = info >> 32
        if (symbol + 1) * _SYMBOL.size > len(symbols):
            continue
        shndx = _SYMBOL.unpack_from(symbols, symbol * _SYMBOL.size)[3]
        if shndx in index:
            out[offset] = index[shndx]
    return out


def _section_index(cubin: Cubin) -> dict[int, str]:
    """Section number -> name, in header order (the order `sections` was filled in)."""
    shoff = struct.unpack_from("<Q", cubin.data, 0x28)[0]
    entsize, count, names = struct.unpack_from("<HHH", cubin.data, 0x3A)
    strings = _SECTION.unpack_from(cubin.data, shoff + names * entsize)[4]
    return {i: _cstr(cubin.data, strings + _SECTION.unpack_from(
        cubin.data, shoff + i * entsize)[0]) for i in range(count)}


def _uleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _sleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return (value - (1 << shift) if byte & 0x40 else value), at


def _line_rows(cubin: Cubin) -> dict[str, Rows]:
    """Section name -> its rows, from every unit of `.debug_line`."""
    offset, size = cubin.sections[".debug_line"]
    data = cubin.data[offset:offset + size]
    targets = _relocated_sections(cubin)
    out: dict[str, Rows] = {}
    at = 0
    while at + 10 <= len(data):
        length, version = struct.unpack_from("<IH", data, at)
        end = at + 4 + length
        if version < 2 or version > 4 or end > len(data):
            break
        for section, row in _program(data, at, end, version, targets):
            out.setdefault(section, []).append(row)
        at = end
    return out


def _program(data: bytes, at: int, end: int, version: int,
             targets: dict[int, str]) -> Iterator[tuple[str, tuple[int, str, int]]]:
    header_length = struct.unpack_from("<I", data, at + 6)[0]
    p = at + 10
    min_length = data[p]
    p += 2 if version >= 4 else 1  # version 4 adds maximum_operations_per_instruction
    p += 1  # default_is_stmt
    line_base = struct.unpack_from("<b", data, p)[0]
    line_range, opcode_base = data[p + 1], data[p + 2]
    lengths = list(data[p + 3:p + 2 + opcode_base])
    p += 2 + opcode_base
    dirs: list[str] = []
    while data[p]:
        dirs.append(_cstr(data, p))
        p = data.index(b"\0", p) + 1
    p += 1
    files: list[str] = []
    while data[p]:
        name = _cstr(data, p)
        p = data.index(b"\0", p) + 1
        directory, p = _uleb(data, p)
        _, p = _uleb(data, p)
        _, p = _uleb(data, p)
        if directory and directory <= len(dirs) and not name.startswith("/"):
            name = f"{dirs[directory - 1].rstrip('/')}/{name}"
        # '/usr/local/cuda/bin/../targets/...': ncu names the file without the '..'
        files.append(posixpath.normpath(name) if name.startswith("/") else name)
    p = at + 10 + header_length
    address, file, line, section = 0, 1, 1, ""

    def row() -> tuple[str, tuple[int, str, int]]:
        return section, (address, files[file - 1] if 0 < file <= len(files) else "?", line)

    while p < end:
        op = data[p]
        p += 1
        if op >= opcode_base:
            adjusted = op - opcode_base
            address += (adjusted // line_range) * min_length
            line += line_base + adjusted % line_range
            yield row()
        elif op == 0:  # extended opcode
            length, p = _uleb(data, p)
            sub = data[p]
            if sub == 1:  # end_sequence
                address, file, line = 0, 1, 1
            elif sub == 2:  # set_address, relocated against a .text section
                address = struct.unpack_from("<Q", data, p + 1)[0]
                section = targets.get(p + 1, section)
            p += length
        elif op == 1:  # copy
            yield row()
        elif op == 2:
            advance, p = _uleb(data, p)
            address += advance * min_length
        elif op == 3:
            delta, p = _sleb(data, p)
            line += delta
        elif op == 4:
            file, p = _uleb(data, p)
        elif op == 8:  # const_add_pc
            address += ((255 - opcode_base) // line_range) * min_length
        elif op == 9:  # fixed_advance_pc
            address += struct.unpack_from("<H", data, p)[0]
            p += 2
        else:  # set_column and the other standard opcodes: skip their operands
            for _ in range(lengths[op - 1] if op - 1 < len(lengths) else 0):
                _, p = _uleb(data, p)


def lines_by_offset(rows: Rows, offsets: list[int]) -> dict[int, list[tuple[str, int]]]:
    """Each instruction offset -> the (file, line) of every row covering it: the rows at
    the largest row address not above it (several when rows share an address)."""
    at: dict[int, list[tuple[str, int]]] = {}
    for address, file, line in rows:
        entry = at.setdefault(address, [])
        if (file, line) not in entry:
            entry.append((file, line))
    starts = sorted(at)
    out: dict[int, list[tuple[str, int]]] = {}
    i = -1
    for offset in sorted(offsets):
        while i + 1 < len(starts) and starts[i + 1] <= offset:
            i += 1
        if i >= 0:
            out[offset] = at[starts[i]]
    return out
