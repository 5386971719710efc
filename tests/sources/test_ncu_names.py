"""Kernel-name spellings and ncu's units, on names and values taken from the real files."""

from __future__ import annotations

import pytest

from tui.sources.ncu.names import canonical_name, mangled_short_name, short_name
from tui.sources.ncu.units import parse_number, to_base

# One kernel (torch's direct-copy elementwise_kernel) as each tool spells it: ncu's CSV,
# the .ncu-rep's demangled name, and Kineto (sample_traces/ddp_rank0.pt.trace.json.gz).
NCU_CSV = (
    "void at::elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::direct_copy_kernel"
    "_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() "
    "(instance 7)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &"
    ", const T1 &)::[lambda(int) (instance 1)]>(int, T3)")
NCU_REP = (
    "void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_"
    "nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance"
    " 3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float) "
    "(instance 1)]>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)")
KINETO = (
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native"
    "::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{"
    "lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::"
    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda"
    "()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::"
    "gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{"
    "lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::"
    "TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda"
    "()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{"
    "lambda(int)#1})")


def test_one_kernel_three_spellings_one_key() -> None:
    assert canonical_name(NCU_CSV) == canonical_name(NCU_REP) == canonical_name(KINETO)
    assert short_name(NCU_CSV) == short_name(NCU_REP) == short_name(KINETO) == (
        "elementwise_kernel")


@pytest.mark.parametrize("a,b", [
    ("void at::native::<unnamed>::cunn_SoftMaxForwardReg<float, float, float, at::native::"
     "<unnamed>::SoftMaxForwardEpilogue, long, (int)8>(T3 *, const T1 *, T5)",
     "void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<float, float, float, "
     "at::native::(anonymous namespace)::SoftMaxForwardEpilogue, long, 8>(float*, float "
     "const*, long)"),
    ("void f<(bool)1, (unsigned int)32>(int)", "void f<true, 32u>(int)"),
])
def test_casts_suffixes_and_anonymous_namespaces_are_spelling(a: str, b: str) -> None:
    assert canonical_name(a) == canonical_name(b)


def test_template_arguments_still_tell_kernels_apart() -> None:
    add = "void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>, " \
          "std::array<char *, 3>>(int, T2, T3)"
    on_self = "void at::vectorized_elementwise_kernel<4, at::CUDAFunctorOnSelf_add<float>, " \
              "std::array<char *, 2>>(int, T2, T3)"
    assert canonical_name(add) != canonical_name(on_self)
    assert short_name(add) == short_name(on_self) == "vectorized_elementwise_kernel"


@pytest.mark.parametrize("name,short", [
    ("saxpy(int, float, const float *, float *)", "saxpy"),
    ("strided_copy", "strided_copy"),
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)",
     "Kernel2"),
    ("_Z5saxpyifPKfPf", "saxpy"),
])
def test_short_name(name: str, short: str) -> None:
    assert short_name(name) == short


@pytest.mark.parametrize("mangled,short", [
    ("_Z5saxpyifPKfPf", "saxpy"),
    ("_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE",
     "Kernel2"),
    ("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3E"
     "EEEviT0_T1_", "vectorized_elementwise_kernel"),
    ("strided_copy", None),
])
def test_mangled_short_name(mangled: str, short: str | None) -> None:
    assert mangled_short_name(mangled) == short


@pytest.mark.parametrize("value,unit,expected", [
    (61.82, "us", (61_820, "ns")), (2.96, "Tbyte/s", (2.96e12, "byte/s")),
    (1.5, "Ghz", (1.5e9, "hz")), (1.024, "Kbyte/block", (1024, "byte/block")),
    (33.94, "sector/ns", (33.94e9, "sector/s")), (2.614, "%/Kbyte", (2.614e-3, "%/byte")),
    (61_824.0, "ns", (61_824, "ns")), (7.0, "", (7.0, "")), (5.0, "warp", (5.0, "warp")),
])
def test_units_to_base(value: float, unit: str, expected: tuple[float, str]) -> None:
    got = to_base(value, unit)
    assert got[0] == pytest.approx(expected[0]) and got[1] == expected[1]


def test_numbers_as_ncu_prints_them() -> None:
    assert parse_number("65,536") == 65536
    assert parse_number("87,282.58") == pytest.approx(87282.58)
    assert parse_number("nan") is None and parse_number("PolicySpread") is None
    assert parse_number("") is None
