"""SASS as Nsight Compute prints it: registers written and read, branches, and the walk
back to the load a scoreboard stall waits for. The instructions are quoted from the real
reports in sample_traces/ (`sass_by_pc`)."""

from __future__ import annotations

import pytest

from tui.sources.ncu.sass import ControlFlow, parse, producer_kind, waits_on


@pytest.mark.parametrize(("text", "writes", "reads"), [
    ("@!P0  LDG.E R2, desc[UR6][R2.64]", {"R2"}, {"R2", "R3", "UR6"}),
    ("STG.E desc[UR6][R2.64], R5", set(), {"R2", "R3", "R5", "UR6"}),
    ("@!P0  STS [R5], R2", set(), {"R5", "R2"}),
    ("ISETP.GE.OR P1, PT, R4, UR8, P1", set(), {"R4", "UR8"}),
    ("@!P0  ATOMG.E.ADD PT, R3, [R6], R3", {"R3"}, {"R6", "R3"}),
    ("SHFL.IDX PT, R7, R7, RZ, 0x1f", {"R7"}, {"R7"}),
    ("IMAD.WIDE R2, R5, 0x4, R2", {"R2", "R3"}, {"R5", "R2"}),
    ("LDC.64 R2, c[0x0][0x218]", {"R2", "R3"}, set()),
    ("LDS.128 R4, [R0+0x10]", {"R4", "R5", "R6", "R7"}, {"R0"}),
    ("F2F.F64.F32 R2, R4", {"R2", "R3"}, {"R4"}),
    ("F2I.FTZ.U32.TRUNC.NTZ R7, R6", {"R7"}, {"R6"}),
    ("FFMA R0, -R2.reuse, |R4|, R0", {"R0"}, {"R0", "R2", "R4"}),
    ("S2UR UR4, SR_CgaCtaId", {"UR4"}, set()),
    ("CS2R R30, SRZ", {"R30"}, set()),
    ("LEA.HI.X R7, R4, UR5, R5, 0x2, P0", {"R7"}, {"R4", "UR5", "R5"}),
])
def test_registers(text: str, writes: set[str], reads: set[str]) -> None:
    ins = parse(text)
    assert ins.writes == writes and ins.reads == reads


def test_branches() -> None:
    assert parse("@!P0  BRA 0x7fd1257a3450").target == 0x7fd1257a3450
    assert parse("@!P0  BRA 0x7fd1257a3450").predicated
    assert parse("BRA !P0, 0x7f90897bb330").predicated  # a predicate operand: conditional
    plain = parse("BRA `(.L_x_0) 0x7fd1257a5260")
    assert plain.target == 0x7fd1257a5260 and not plain.predicated
    assert parse("EXIT").opcode == "EXIT" and not parse("EXIT").writes


def _flow(code: list[str]) -> ControlFlow:
    return ControlFlow([0x100 + 16 * i for i in range(len(code))], [parse(c) for c in code])


def test_a_consumer_waits_on_the_load_that_wrote_its_register() -> None:
    # transpose_bank_conflicts' tail (small_kernels.ncu-rep): the store waits on the
    # shared load of R5, not on the constant load of R2 that IMAD.WIDE overwrote.
    flow = _flow(["LDC.64 R2, c[0x0][0x220]", "IMAD.WIDE R2, R7, 0x4, R2",
                  "LEA R0, R8, R0, 0x2", "LDS R5, [R0]", "STG.E desc[UR6][R2.64], R5"])
    assert waits_on(flow, 4, "short_scoreboard") == [3]
    assert producer_kind(flow.instructions[3]) == "shared load"
    assert waits_on(flow, 4, "long_scoreboard") == []  # no global load feeds it
    assert waits_on(flow, 4, "wait") == []  # not a scoreboard dependency


def test_the_walk_follows_branches_and_loops() -> None:
    # a loop whose body reads what the previous iteration loaded: the producer comes
    # after the consumer in address order, reached through the back edge
    flow = _flow(["LDG.E R4, desc[UR6][R2.64]",  # 0x100 first load
                  "FADD R6, R6, R4",  # 0x110 consumer, in the loop
                  "LDG.E R4, desc[UR6][R2.64+0x4]",  # 0x120 the next iteration's load
                  "@P0 BRA 0x110",  # 0x130 back edge
                  "EXIT"])
    assert waits_on(flow, 1, "long_scoreboard") == [0, 2]
    # a predicated write may not happen: the one before it is a producer too
    flow = _flow(["LDG.E R4, desc[UR6][R2.64]", "@P1 LDG.E R4, desc[UR6][R8.64]",
                  "FADD R6, R6, R4"])
    assert waits_on(flow, 2, "long_scoreboard") == [0, 1]
