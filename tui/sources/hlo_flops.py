"""The FLOPs of an HLO op from its shapes: the dots it runs (a `dot`, a fusion holding
dots, a cuBLAS GEMM custom call), 2 · (elements of the result) · (the contracted size of
the left operand), as XLA's HloCostAnalysis counts a dot. Element-wise work, reductions
and convolutions are not counted (XLA's cost analysis counts the first two: see
docs/summary.md for what that does to the comparison)."""

from __future__ import annotations

import json
import math

from google.protobuf.message import Message

# cuBLAS GEMMs as XLA's GPU backend calls them; their dimension numbers are in the
# backend config (gemm_backend_config.dot_dimension_numbers)
GEMM_TARGETS = frozenset({"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8"})
# xla.PrimitiveType (xla/xla_data.proto) -> the precision a peak is named for
PRECISION = {2: "int8", 6: "int8", 10: "fp16", 11: "fp32", 12: "fp64", 16: "bf16",
             19: "fp8", 20: "fp8", 21: "fp8", 22: "fp8", 23: "fp8"}
_TUPLE = 13
MAX_DEPTH = 16  # fusions inside fusions


class ModuleShapes:
    """A module's instructions and computations by id, to look up operands' shapes."""

    def __init__(self, module: Message) -> None:
        self.computations = {c.id: c for c in module.computations}
        self.instructions = {i.id: i for c in module.computations for i in c.instructions}

    def flops(self, inst: Message, depth: int = 0) -> tuple[float, str | None] | None:
        """(FLOPs, precision of the left operand) of the dots `inst` runs; None: none."""
        if inst.opcode == "dot":
            return self._dot(inst, list(inst.dot_dimension_numbers.lhs_contracting_dimensions))
        if inst.opcode == "custom-call" and inst.custom_call_target in GEMM_TARGETS:
            return self._gemm_call(inst)
        if inst.opcode != "fusion" or depth > MAX_DEPTH:
            return None
        total, precision, found = 0.0, None, False
        for cid in inst.called_computation_ids:
            computation = self.computations.get(cid)
            for inner in computation.instructions if computation is not None else ():
                got = self.flops(inner, depth + 1)
                if got is not None:
                    total += got[0]
                    precision = precision or got[1]
                    found = True
        return (total, precision) if found else None

    def _gemm_call(self, inst: Message) -> tuple[float, str | None] | None:
        try:
            config = json.loads(inst.backend_config)
            numbers = config["gemm_backend_config"]["dot_dimension_numbers"]
            contracting = [int(d) for d in numbers.get("lhs_contracting_dimensions", [])]
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return self._dot(inst, contracting)

    def _dot(self, inst: Message, contracting: list[int]) -> tuple[float, str | None] | None:
        result = inst.shape
        if result.element_type == _TUPLE:  # a GEMM call's (result, workspace)
            if not result.tuple_shapes:
                return None
            result = result.tuple_shapes[0]
        lhs = self.instructions.get(inst.operand_ids[0]) if inst.operand_ids else None
        if lhs is None:
            return None
        dims = list(lhs.shape.dimensions)
        if any(not 0 <= d < len(dims) for d in contracting):
            return None
        flops = 2.0 * math.prod(result.dimensions) * math.prod(dims[d] for d in contracting)
        return flops, PRECISION.get(lhs.shape.element_type)
