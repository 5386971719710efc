"""The messages of XLA's HloProto (`xla/service/hlo.proto`, `xla/xla_data.proto`) that
tie a kernel to its HLO instruction and that instruction to a line of code.

An XSpace's `/host:metadata` plane carries, per compiled program, an event metadata
whose `Hlo Proto` stat is a serialized `xla.HloProto`: its module (computations of
instructions, each with OpMetadata: the framework op path and the source file and line),
the module's schedule (the order each computation's instructions run in) and the stack
frames the metadata points into. This is our description of that public wire format
(proto3): of each message, the fields read here, with XLA's numbers and types; the rest
parse as unknown fields. As for the XSpace (xspace_schema), the types live in a private
descriptor pool under our own package name. Nested messages (InstructionSequence,
FileLocation, StackFrame) are declared flat: only the wire format has to match.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2

from tui.sources.proto_schema import Fields, message_classes

_F = descriptor_pb2.FieldDescriptorProto
INT32, INT64, BOOL = _F.TYPE_INT32, _F.TYPE_INT64, _F.TYPE_BOOL
STRING, BYTES, MESSAGE = _F.TYPE_STRING, _F.TYPE_BYTES, _F.TYPE_MESSAGE
PACKAGE = "tui.hlo"

# (name, number, type, label, message type name), as proto_schema reads them
MESSAGES: dict[str, Fields] = {
    "HloProto": [
        ("hlo_module", 1, MESSAGE, "", "HloModuleProto"),
    ],
    "HloModuleProto": [
        ("name", 1, STRING, "", ""),
        ("entry_computation_name", 2, STRING, "", ""),
        ("computations", 3, MESSAGE, "[]", "HloComputationProto"),
        ("id", 5, INT64, "", ""),
        ("entry_computation_id", 6, INT64, "", ""),
        ("schedule", 7, MESSAGE, "", "HloScheduleProto"),
        ("stack_frame_index", 17, MESSAGE, "", "StackFrameIndexProto"),
    ],
    "HloComputationProto": [
        ("name", 1, STRING, "", ""),
        ("instructions", 2, MESSAGE, "[]", "HloInstructionProto"),
        ("id", 5, INT64, "", ""),
        ("root_id", 6, INT64, "", ""),
        ("is_fusion_computation", 7, BOOL, "", ""),
    ],
    "HloInstructionProto": [
        ("name", 1, STRING, "", ""),
        ("opcode", 2, STRING, "", ""),
        ("shape", 3, MESSAGE, "", "ShapeProto"),  # its result's
        ("metadata", 7, MESSAGE, "", "OpMetadata"),
        ("fusion_kind", 11, STRING, "", ""),
        ("custom_call_target", 28, STRING, "", ""),
        ("dot_dimension_numbers", 30, MESSAGE, "", "DotDimensionNumbers"),
        ("id", 35, INT64, "", ""),
        ("operand_ids", 36, INT64, "[]", ""),
        ("called_computation_ids", 38, INT64, "[]", ""),
        ("backend_config", 43, BYTES, "", ""),  # on GPUs, JSON (GpuBackendConfig)
    ],
    "ShapeProto": [
        ("element_type", 2, INT32, "", ""),  # xla.PrimitiveType: BF16 16, F16 10, F32 11, ...
        ("dimensions", 3, INT64, "[]", ""),
        ("tuple_shapes", 4, MESSAGE, "[]", "ShapeProto"),
    ],
    "DotDimensionNumbers": [
        ("lhs_contracting_dimensions", 1, INT64, "[]", ""),
        ("rhs_contracting_dimensions", 2, INT64, "[]", ""),
        ("lhs_batch_dimensions", 3, INT64, "[]", ""),
        ("rhs_batch_dimensions", 4, INT64, "[]", ""),
    ],
    "OpMetadata": [
        ("op_type", 1, STRING, "", ""),
        ("op_name", 2, STRING, "", ""),
        ("source_file", 3, STRING, "", ""),
        ("source_line", 4, INT32, "", ""),
        ("deduplicated_name", 12, STRING, "", ""),
        ("stack_frame_id", 15, INT32, "", ""),  # 1-based, into stack_frame_index.stack_frames
        ("scheduling_name", 16, STRING, "", ""),
    ],
    "HloScheduleProto": [
        ("sequences", 1, MESSAGE, "map", "InstructionSequence"),  # by computation id
    ],
    "InstructionSequence": [
        ("instruction_ids", 1, INT64, "[]", ""),
    ],
    "StackFrameIndexProto": [
        ("file_names", 1, STRING, "[]", ""),
        ("function_names", 2, STRING, "[]", ""),
        ("file_locations", 3, MESSAGE, "[]", "FileLocation"),
        ("stack_frames", 4, MESSAGE, "[]", "StackFrame"),
    ],
    "FileLocation": [  # ids are 1-based
        ("file_name_id", 1, INT32, "", ""),
        ("function_name_id", 2, INT32, "", ""),
        ("line", 3, INT32, "", ""),
        ("column", 4, INT32, "", ""),
    ],
    "StackFrame": [  # ids are 1-based; 0: none (the outermost frame has no parent)
        ("file_location_id", 1, INT32, "", ""),
        ("parent_frame_id", 2, INT32, "", ""),
    ],
}


_ALL = message_classes("tui/hlo.proto", PACKAGE, MESSAGES)
HloProto = _ALL["HloProto"]
HloModuleProto = _ALL["HloModuleProto"]
