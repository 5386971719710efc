"""Protobuf message types described as tables of fields, built in a private descriptor pool.

How tui reads public wire formats (XLA's XSpace in xspace_schema, its HloProto in
hlo_schema) without their generated code: each schema module lists, per message, the
fields it reads, as (name, number, type, label, message type name). The label is "[]"
(repeated), "map" (map<int64, message>), "oneof:NAME" or "" (singular); the last element
names the message type of a message field or a map's value. Fields left out still parse,
kept as unknown fields. The pool is private, under the schema's own package name, so the
types never clash with TensorFlow's or XProf's own.
"""

from __future__ import annotations

from collections.abc import Collection

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

_F = descriptor_pb2.FieldDescriptorProto
Fields = list[tuple[str, int, int, str, str]]


def file_descriptor(file_name: str, package: str, messages: dict[str, Fields],
                    as_bytes: Collection[tuple[str, str]] = ()
                    ) -> descriptor_pb2.FileDescriptorProto:
    """`messages` as a proto3 file; each (message, field) in `as_bytes` is read as `bytes`
    instead (the same wire format, left undecoded)."""
    file = descriptor_pb2.FileDescriptorProto(name=file_name, package=package, syntax="proto3")
    for message_name, fields in messages.items():
        message = file.message_type.add(name=message_name)
        oneofs: list[str] = []
        for name, number, kind, label, type_name in fields:
            field = message.field.add(name=name, number=number, type=kind,
                                      label=_F.LABEL_OPTIONAL)
            if type_name:
                field.type_name = f".{package}.{type_name}"
            if label == "[]":
                field.label = _F.LABEL_REPEATED
            elif label == "map":  # repeated entries of a nested message {key, value}
                entry = message.nested_type.add(
                    name="".join(w.capitalize() for w in name.split("_")) + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, type=_F.TYPE_INT64,
                                label=_F.LABEL_OPTIONAL)
                entry.field.add(name="value", number=2, type=_F.TYPE_MESSAGE,
                                label=_F.LABEL_OPTIONAL, type_name=field.type_name)
                field.label = _F.LABEL_REPEATED
                field.type_name = f".{package}.{message_name}.{entry.name}"
            elif label.startswith("oneof:"):
                oneof = label.removeprefix("oneof:")
                if oneof not in oneofs:
                    oneofs.append(oneof)
                    message.oneof_decl.add(name=oneof)
                field.oneof_index = oneofs.index(oneof)
            if (message_name, name) in as_bytes:
                field.type = _F.TYPE_BYTES
                field.ClearField("type_name")
    return file


def message_classes(file_name: str, package: str, messages: dict[str, Fields],
                    as_bytes: Collection[tuple[str, str]] = ()) -> dict[str, type[Message]]:
    """Each message name's class, built in a descriptor pool of its own."""
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_descriptor(file_name, package, messages, as_bytes))
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(
        f"{package}.{name}")) for name in messages}
