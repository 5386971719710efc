"""The GPUs an XSpace describes: each `/device:GPU:N` plane's own stats name its model
(`gpu_device_name`: 'NVIDIA H200'), its SMs (`core_count`), memory (`memory_size`) and
compute capability, as XProf reads them. Only those fields of a device plane are parsed,
not its events (nearly all of the file)."""

from __future__ import annotations

import mmap
import re
from pathlib import Path

from google.protobuf.message import DecodeError

from tui.sources.xla_hlo import wire_fields
from tui.sources.xspace_schema import XPlane

GPU_PLANE = re.compile(r"^/device:GPU:(\d+)$")
_XSPACE_PLANES, _XPLANE_NAME = 1, 2
_PLANE_HEAD = (2, 5, 6)  # XPlane name, stat_metadata, stats: not its lines of events

Device = tuple[int, str | None, int | None, int | None, str | None]


def xspace_devices(path: Path) -> list[Device]:
    """(device, name, SMs, memory bytes, compute capability) of each GPU plane of the
    XSpace file at `path`; [] when it cannot be read."""
    out: list[Device] = []
    try:
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            with memoryview(data) as view:
                heads = _gpu_plane_heads(view)
    except (OSError, ValueError):
        return out
    for device, head in heads:
        plane = XPlane()
        try:
            plane.ParseFromString(head)
        except (DecodeError, ValueError, RuntimeError):
            continue
        names = {sid: meta.name for sid, meta in plane.stat_metadata.items()}
        stats = {}
        for stat in plane.stats:
            kind = stat.WhichOneof("value")
            if kind is not None:
                stats[names.get(stat.metadata_id)] = getattr(stat, kind)
        major, minor = stats.get("compute_cap_major"), stats.get("compute_cap_minor")
        out.append((device, _text(stats.get("gpu_device_name")), _int(stats.get("core_count")),
                    _int(stats.get("memory_size")),
                    f"{major}.{minor}" if major is not None and minor is not None else None))
    return out


def _gpu_plane_heads(buf: memoryview) -> list[tuple[int, bytes]]:
    """Each GPU plane's device number and the bytes of its name and stats fields."""
    out = []
    try:
        for number, wire, start, end in wire_fields(buf, 0, len(buf)):
            if number != _XSPACE_PLANES or wire != 2:
                continue
            kept, device = bytearray(), None
            for inner, _wire, value_start, value_end in wire_fields(buf, start, end):
                if inner == _XPLANE_NAME:
                    found = GPU_PLANE.match(bytes(buf[value_start:value_end]).decode(
                        "utf-8", "replace"))
                    if found is None:
                        break
                    device = int(found.group(1))
                if inner in _PLANE_HEAD:
                    kept += _field_bytes(buf, inner, value_start, value_end)
            if device is not None:
                out.append((device, bytes(kept)))
    except ValueError:  # a damaged file: the planes found so far
        pass
    return out


def _field_bytes(buf: memoryview, number: int, start: int, end: int) -> bytes:
    """A length-delimited field written back: its tag, length and value."""
    return _varint_bytes(number << 3 | 2) + _varint_bytes(end - start) + bytes(buf[start:end])


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int) and value > 0 else None
