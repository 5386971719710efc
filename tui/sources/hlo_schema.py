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
        # a collective's groups of devices, in whichever of XLA's forms it was written:
        ("replica_groups", 49, MESSAGE, "[]", "ReplicaGroup"),  # listed (older XLA)
        ("source_target_pairs", 52, MESSAGE, "[]", "SourceTarget"),  # collective-permute
        ("collective_device_list", 87, MESSAGE, "", "CollectiveDeviceListProto"),
        ("iota_collective_device_list", 92, MESSAGE, "", "IotaReplicaGroupListProto"),
        ("mesh_axes_replica_group_list", 93, MESSAGE, "", "MeshAxesReplicaGroupListProto"),
    ],
    "ShapeProto": [
        ("element_type", 2, INT32, "", ""),  # xla.PrimitiveType (PRIMITIVE_BYTES)
        ("dimensions", 3, INT64, "[]", ""),
        ("tuple_shapes", 4, MESSAGE, "[]", "ShapeProto"),
    ],
    "ReplicaGroup": [
        ("replica_ids", 1, INT64, "[]", ""),
    ],
    "SourceTarget": [
        ("source", 1, INT64, "", ""),
        ("target", 2, INT64, "", ""),
    ],
    "CollectiveDeviceListProto": [
        ("replica_groups", 1, MESSAGE, "[]", "ReplicaGroup"),
        ("iota_replica_group_list", 2, MESSAGE, "", "IotaReplicaGroupListProto"),  # older
    ],
    "IotaReplicaGroupListProto": [  # iota(N) reshaped, transposed, cut into groups
        ("num_replica_groups", 1, INT64, "", ""),
        ("num_devices_per_group", 2, INT64, "", ""),
        ("iota_reshape_dims", 3, INT64, "[]", ""),
        ("iota_transpose_perm", 4, INT32, "[]", ""),
    ],
    "MeshAxesReplicaGroupListProto": [  # Shardy: the mesh axes a collective runs over
        ("mesh", 1, MESSAGE, "", "MeshProto"),
        ("axes", 2, MESSAGE, "[]", "AxisRefProto"),
    ],
    "MeshProto": [
        ("axes", 1, MESSAGE, "[]", "MeshAxis"),
        ("device_ids", 2, INT64, "[]", ""),  # none: iota over the mesh
        ("iota_transform", 3, MESSAGE, "", "IotaTransform"),
    ],
    "MeshAxis": [
        ("name", 1, STRING, "", ""),
        ("size", 2, INT64, "", ""),
    ],
    "IotaTransform": [
        ("reshape_dims", 1, INT64, "[]", ""),
        ("transpose_perm", 2, INT64, "[]", ""),
    ],
    "AxisRefProto": [
        ("mesh_axis_index", 1, INT64, "", ""),
        ("sub_axis_info", 2, MESSAGE, "", "SubAxis"),  # a split axis
    ],
    "SubAxis": [
        ("pre_size", 1, INT64, "", ""),
        ("size", 2, INT64, "", ""),
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


# xla.PrimitiveType: the element types a collective moves, with their bytes
PRIMITIVE_BYTES = {
    1: ("pred", 1), 2: ("s8", 1), 3: ("s16", 2), 4: ("s32", 4), 5: ("s64", 8),
    6: ("u8", 1), 7: ("u16", 2), 8: ("u32", 4), 9: ("u64", 8), 10: ("f16", 2),
    11: ("f32", 4), 12: ("f64", 8), 15: ("c64", 8), 16: ("bf16", 2), 18: ("c128", 16),
    19: ("f8e5m2", 1), 20: ("f8e4m3fn", 1), 23: ("f8e4m3b11fnuz", 1), 24: ("f8e5m2fnuz", 1),
    25: ("f8e4m3fnuz", 1), 28: ("f8e4m3", 1), 29: ("f8e3m4", 1), 33: ("f8e8m0fnu", 1),
}
TUPLE_TYPE = 13

_ALL = message_classes("tui/hlo.proto", PACKAGE, MESSAGES)
HloProto = _ALL["HloProto"]
HloModuleProto = _ALL["HloModuleProto"]
