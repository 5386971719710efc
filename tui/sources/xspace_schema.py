"""The message types of XLA's profiler XSpace (`<host>.xplane.pb`), described in code.

An XSpace holds planes (the host, each device); a plane holds lines (threads, streams) of
timed events, and metadata tables that the events' and their stats' ids point into. This
is our description of that public wire format (proto3): the messages, and of their
fields the ones this reader uses, with their numbers, types and labels. A field left out
here still parses, kept as an unknown field. The types live in a private descriptor pool,
under our own package name, so they never clash with TensorFlow's or XProf's own.

XSpace, XPlane, XLine, XEvent, XStat, XEventMetadata and XStatMetadata are the full types;
RawXSpace is the same XSpace with `XLine.events` read as `bytes` (one element per event,
the same wire format), left for proto_wire to decode all at once.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2
from google.protobuf.message import Message

from tui.sources import proto_schema
from tui.sources.proto_schema import Fields

_F = descriptor_pb2.FieldDescriptorProto
INT64, UINT64, DOUBLE = _F.TYPE_INT64, _F.TYPE_UINT64, _F.TYPE_DOUBLE
STRING, BYTES, MESSAGE = _F.TYPE_STRING, _F.TYPE_BYTES, _F.TYPE_MESSAGE
PACKAGE = "tui.xspace"

# (name, number, type, label, message type name), as proto_schema reads them
MESSAGES: dict[str, Fields] = {
    "XSpace": [
        ("planes", 1, MESSAGE, "[]", "XPlane"),
        ("hostnames", 4, STRING, "[]", ""),
    ],
    "XPlane": [
        ("id", 1, INT64, "", ""),
        ("name", 2, STRING, "", ""),
        ("lines", 3, MESSAGE, "[]", "XLine"),
        ("event_metadata", 4, MESSAGE, "map", "XEventMetadata"),
        ("stat_metadata", 5, MESSAGE, "map", "XStatMetadata"),
        ("stats", 6, MESSAGE, "[]", "XStat"),  # the plane's own: a GPU's name, SMs, memory
    ],
    "XPlaneHead": [  # an XPlane without its lines, with its own stats (a GPU's name, SMs)
        ("name", 2, STRING, "", ""),
        ("stat_metadata", 5, MESSAGE, "map", "XStatMetadata"),
        ("stats", 6, MESSAGE, "[]", "XStat"),
    ],
    "XLine": [
        ("id", 1, INT64, "", ""),
        ("name", 2, STRING, "", ""),
        ("timestamp_ns", 3, INT64, "", ""),  # the line's start; event offsets count from it
        ("events", 4, MESSAGE, "[]", "XEvent"),
        ("display_id", 10, INT64, "", ""),
        ("display_name", 11, STRING, "", ""),
    ],
    "XEvent": [
        ("metadata_id", 1, INT64, "", ""),
        ("offset_ps", 2, INT64, "oneof:data", ""),
        ("duration_ps", 3, INT64, "", ""),
        ("stats", 4, MESSAGE, "[]", "XStat"),
        ("num_occurrences", 5, INT64, "oneof:data", ""),  # an aggregate: no offset
    ],
    "XStat": [
        ("metadata_id", 1, INT64, "", ""),
        ("double_value", 2, DOUBLE, "oneof:value", ""),
        ("uint64_value", 3, UINT64, "oneof:value", ""),
        ("int64_value", 4, INT64, "oneof:value", ""),
        ("str_value", 5, STRING, "oneof:value", ""),
        ("bytes_value", 6, BYTES, "oneof:value", ""),
        ("ref_value", 7, UINT64, "oneof:value", ""),  # the id of a stat metadata: its name
    ],
    "XEventMetadata": [
        ("id", 1, INT64, "", ""),
        ("name", 2, STRING, "", ""),
        ("display_name", 4, STRING, "", ""),
        ("stats", 5, MESSAGE, "[]", "XStat"),  # stats every event of this kind carries
    ],
    "XStatMetadata": [
        ("id", 1, INT64, "", ""),
        ("name", 2, STRING, "", ""),
    ],
}


def message_classes(events_as_bytes: bool = False) -> dict[str, type[Message]]:
    """Each message name's class, built in a descriptor pool of its own; with
    `events_as_bytes`, XLine.events is `repeated bytes`."""
    return proto_schema.message_classes("tui/xspace.proto", PACKAGE, MESSAGES,
                                        {("XLine", "events")} if events_as_bytes else ())


_FULL = message_classes()
XSpace = _FULL["XSpace"]
XPlane = _FULL["XPlane"]
XPlaneHead = _FULL["XPlaneHead"]
XLine = _FULL["XLine"]
XEvent = _FULL["XEvent"]
XStat = _FULL["XStat"]
XEventMetadata = _FULL["XEventMetadata"]
XStatMetadata = _FULL["XStatMetadata"]
RawXSpace = message_classes(events_as_bytes=True)["XSpace"]
