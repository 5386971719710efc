"""Unit tests of the tables' parts: name shortening, categories, the SQL paging model."""

from __future__ import annotations

import time

import duckdb
import pytest

from tui.core.categories import OTHER, categorize, names, rules
from tui.views.table_model import Query, TableModel, like_pattern
from tui.widgets.tables.names import shorten


@pytest.mark.parametrize(("full", "short"), [
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
     "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
     "vectorized_elementwise_kernel<4, FillFunctor<…>, array<…>>"),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, "
     "false>(int, float, float const*, float const*, float const*, float*, float*, float*)",
     "vectorized_layer_norm_kernel<float, float, false>"),
    ("void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, "
     "at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4>>(T3)",
     "reduce_kernel<512, 1, ReduceOp<…>>"),
    ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float>(int)",
     "gemvx::kernel<int, int, float>"),
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(T1::Params)",
     "cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>"),
    ("fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
     "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
     "fmha_cutlassF_f32_aligned_64x64_rf_sm80"),
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
    ("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT", "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT"),
])
def test_shorten_keeps_the_function_and_first_template_level(full: str, short: str) -> None:
    assert shorten(full) == short


def test_shorten_never_loses_an_unparsable_or_hostile_name() -> None:
    assert shorten("void foo<a->b>(int)") == "void foo<a->b>(int)"  # unbalanced: whole
    assert shorten("[bold]evil\x1b[31m kernel") == "[bold]evil\\x1b[31m kernel"
    assert shorten("") == ""


@pytest.mark.parametrize(("name", "category"), [
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "communication"),
    ("fmha_cutlassB_f32_aligned_64x64_k64_sm80(PyTorchMemEffAttention::Params)", "attention"),
    ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7", "attention"),
    ("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8_stage3", "gemm"),
    ("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT", "gemm"),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
     "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>>(int)", "copy"),
    ("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float>>(T3)", "reduction"),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>(int)",
     "reduction"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
     "elementwise"),
    ("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<"
     "float, 4, normal_and_transform<float>>(long)", "elementwise"),  # "normal" is no norm
    ("divergent_math", OTHER),
])
def test_categories_from_the_data_file(name: str, category: str) -> None:
    assert categorize(name) == category


def test_the_rules_file_lists_the_issue_categories() -> None:
    assert set(names()) == {"gemm", "attention", "elementwise", "reduction", "copy",
                            "communication", OTHER}
    assert [c.name for c in rules()][0] == "communication"  # NCCL before everything


def test_like_pattern_escapes_wildcards() -> None:
    assert like_pattern("a_b%c\\") == "%a\\_b\\%c\\\\%"


@pytest.fixture
def big_model() -> TableModel:
    """A 250,000-row table: numbers with a name, some with SQL wildcards in it."""
    con = duckdb.connect()
    model = TableModel(con, ("n", "name", "half"), search=("name",))
    model.build("SELECT i AS n, CASE WHEN i % 1000 = 0 THEN 'x_%' || i ELSE 'k' || i END "
                "AS name, i % 2 AS half FROM range(250000) AS t(i)")
    return model


def test_pages_are_ranges_of_the_sorted_filtered_rows(big_model: TableModel) -> None:
    query = Query("n", descending=True)
    assert big_model.count(query) == 250_000
    assert [r[0] for r in big_model.page(query, 249_990, 100)] == list(range(9, -1, -1))
    by_half = Query("half", descending=False)  # ties keep the build order
    assert [r[0] for r in big_model.page(by_half, 124_999, 3)] == [249_998, 1, 3]
    literal = Query("n", text="_%")  # wildcards taken literally: only the 'x_%' names
    assert big_model.count(literal) == 250
    assert big_model.page(literal, 0, 2) == [(0, "x_%0", 0), (1000, "x_%1000", 0)]
    assert big_model.count(Query("n", exact=(("half", 1),))) == 125_000


def test_a_deep_page_is_as_fast_as_the_first(big_model: TableModel) -> None:
    query = Query("name")
    big_model.count(query)  # sorts once
    t = time.perf_counter()
    for offset in range(0, 250_000, 25_000):
        assert len(big_model.page(query, offset, 100)) == 100
    assert time.perf_counter() - t < 1.0  # ten pages; a few ms each in practice


def test_export_writes_the_rows_as_shown(big_model: TableModel) -> None:
    table = big_model.arrow(Query("n", descending=True, text="x_%"))
    assert table.column_names == ["n", "name", "half"] and table.num_rows == 250
    assert table.column("n").to_pylist()[:2] == [249_000, 248_000]
