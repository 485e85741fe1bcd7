"""Links resolved by the loader (GPU op -> launch -> cpu_op, cpu_op nesting, steps) and the
tables built from less common traces (ROCm, CPU-only, no steps, no device properties)."""

from __future__ import annotations

import pytest

from bottleneck_lab.trace.synth import (
    COPY_LAUNCH,
    DATALOADER_NEXT,
    KERNEL_LAUNCHES,
    SET_LAUNCH,
    TraceBuilder,
    load,
    training_trace,
)


def name_at(df, row: int) -> str | None:
    return None if row < 0 else str(df["name"].iloc[row])


def launch_and_op(f, gpu_row: int = 0) -> tuple[str | None, str | None]:
    """Names of the launch call and the cpu_op behind one GPU op."""
    g = f.gpu_ops.iloc[gpu_row]
    return name_at(f.runtime, int(g["launch"])), name_at(f.cpu_ops, int(g["op"]))


def ops_of_launches(f) -> list[str | None]:
    """Name of the cpu_op each runtime call is linked to, in time order."""
    return [name_at(f.cpu_ops, int(r)) for r in f.runtime["op"]]


def one_step() -> TraceBuilder:
    b = TraceBuilder()
    b.step(1, 0, 1000)
    return b


# --- launch APIs --------------------------------------------------------------------------------


@pytest.mark.parametrize("api", [a for a in KERNEL_LAUNCHES if a != "cudaGraphLaunch"])
def test_every_kernel_launch_api_links_kernel_to_launch_and_op(api):
    b = one_step()
    b.op_with_kernel("aten::mm", 10, 20, kernel="gemm", kernel_ts=40, kernel_dur=10, api=api)
    f = load(b)
    assert len(f.runtime) == 1 and len(f.gpu_ops) == 1
    assert launch_and_op(f) == (api, "aten::mm")
    assert f.runtime["op"].tolist() == [0]


def test_cuda_graph_launch_fans_out_to_all_its_kernels():
    b = one_step()
    ext = b.cpu_op("CUDAGraph::replay", 10, 20)
    corr = b.runtime("cudaGraphLaunch", 12, 10, external_id=ext)
    for i in range(5):
        b.kernel(f"graph_kernel_{i}", 30 + 10 * i, 8, correlation=corr, stream=7 + i % 2)
    f = load(b)
    assert len(f.runtime) == 1 and len(f.gpu_ops) == 5
    assert f.gpu_ops["launch"].tolist() == [0] * 5
    assert {launch_and_op(f, i) for i in range(5)} == {("cudaGraphLaunch", "CUDAGraph::replay")}
    assert f.gpu_ops["correlation"].tolist() == [corr] * 5


def test_memcpy_and_memset_launches_link():
    b = one_step()
    b.op_with_kernel("aten::mm", 5, 4, kernel="gemm", kernel_ts=20, kernel_dur=5)
    ext = b.cpu_op("aten::copy_", 10, 20)
    b.memcpy(40, 10, correlation=b.runtime(COPY_LAUNCH, 12, 5, external_id=ext), nbytes=1 << 20)
    ext = b.cpu_op("aten::zero_", 50, 20)
    b.memset(80, 10, correlation=b.runtime(SET_LAUNCH, 52, 5, external_id=ext), nbytes=256)
    f = load(b)
    assert f.gpu_ops["kind"].tolist() == ["kernel", "memcpy", "memset"]
    assert f.gpu_ops["bytes"].tolist()[1:] == [float(1 << 20), 256.0]
    assert launch_and_op(f, 1) == (COPY_LAUNCH, "aten::copy_")
    assert launch_and_op(f, 2) == (SET_LAUNCH, "aten::zero_")


def test_memcpy_and_memset_keep_their_kind_in_a_trace_without_kernels():
    b = one_step()
    b.memcpy(40, 10, correlation=b.runtime(COPY_LAUNCH, 12, 5))
    b.memset(60, 10, correlation=b.runtime(SET_LAUNCH, 20, 5))
    f = load(b)
    assert f.gpu_ops["kind"].tolist() == ["memcpy", "memset"]
    assert f.gpu_ops["copy_kind"].tolist() == ["HtoD", ""]


def test_memset_is_not_a_memcpy_in_a_trace_without_copies():
    b = one_step()
    b.op_with_kernel("aten::mm", 5, 4, kernel="gemm", kernel_ts=20, kernel_dur=5)
    b.memset(60, 10, correlation=b.runtime(SET_LAUNCH, 20, 5))
    assert load(b).gpu_ops["kind"].tolist() == ["kernel", "memset"]


def test_gpu_user_annotation_is_on_gpu_without_cpu_annotations():
    b = TraceBuilder()
    b.op_with_kernel("aten::mm", 5, 4, kernel="gemm", kernel_ts=20, kernel_dur=5)
    b.event("gpu_user_annotation", "forward", 20, 5, pid=0, tid=7, args={"External id": 1})
    f = load(b)
    assert f.annotations["on_gpu"].tolist() == [True]


def test_gpu_op_without_a_matching_launch_is_unlinked():
    b = one_step()
    b.runtime("cudaLaunchKernel", 10, 5)  # launches nothing we see
    b.kernel("orphan", 40, 10, correlation=999_999)
    b.kernel("no_correlation", 60, 10, correlation=None)
    f = load(b)
    assert f.gpu_ops["launch"].tolist() == [-1, -1] and f.gpu_ops["op"].tolist() == [-1, -1]


def test_a_call_that_began_after_the_gpu_op_ended_did_not_launch_it():
    # a real DDP trace (convnext_ddp_healthy rank 1): an NCCL kernel launched before the profiler
    # started shares its correlation id with a runtime call 230 ms after the kernel's end
    b = one_step()
    b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 40, 10, correlation=1001)
    b.runtime("cudaThreadExchangeStreamCaptureMode", 900, 2, correlation=1001)
    b.runtime("cudaLaunchKernel", 100, 5, correlation=1002)
    b.kernel("gemm", 110, 10, correlation=1002)
    f = load(b)
    assert [name_at(f.runtime, int(r)) for r in f.gpu_ops["launch"]] == [None, "cudaLaunchKernel"]


def test_gpu_ops_when_no_runtime_call_has_a_correlation():
    b = one_step()
    b.cpu_op("aten::mm", 5, 10)
    b.runtime("cudaLaunchKernel", 6, 2, correlation=None)
    b.kernel("gemm", 40, 10, correlation=1001)
    f = load(b)
    assert f.gpu_ops["launch"].tolist() == [-1] and f.gpu_ops["op"].tolist() == [-1]


def test_gpu_ops_without_any_runtime_calls():
    b = one_step()
    b.kernel("orphan", 40, 10, correlation=1)
    f = load(b)
    assert f.gpu_ops["launch"].tolist() == [-1] and f.gpu_ops["op"].tolist() == [-1]


# --- launch -> cpu_op ---------------------------------------------------------------------------


def nested_ops(b: TraceBuilder, tid: int | None = None) -> dict[str, int]:
    """linear(0..100) > addmm(10..60) > mm_inner(20..40), on one thread."""
    return {
        n: b.cpu_op(n, ts, dur, tid=tid)
        for n, ts, dur in (
            ("aten::linear", 0, 100),
            ("aten::addmm", 10, 50),
            ("aten::mm_inner", 20, 20),
        )
    }


def test_launch_links_to_op_by_external_id():
    b = TraceBuilder()
    ids = nested_ops(b)
    # In time the launch sits inside mm_inner, but its External id names addmm: the id wins.
    b.runtime("cudaLaunchKernel", 25, 5, external_id=ids["aten::addmm"])
    assert ops_of_launches(load(b)) == ["aten::addmm"]


def test_launch_without_external_id_links_to_innermost_enclosing_op():
    b = TraceBuilder()
    nested_ops(b)
    b.runtime("cudaLaunchKernel", 25, 5, external_id=None)  # inside mm_inner
    b.runtime("cudaLaunchKernel", 50, 5, external_id=None)  # inside addmm only
    b.runtime("cudaLaunchKernel", 80, 5, external_id=None)  # inside linear only
    b.runtime("cudaLaunchKernel", 150, 5, external_id=None)  # outside every op
    assert ops_of_launches(load(b)) == ["aten::mm_inner", "aten::addmm", "aten::linear", None]


def test_time_nesting_only_looks_at_the_launching_thread():
    b = TraceBuilder()
    nested_ops(b, tid=1)
    b.cpu_op("autograd::backward_op", 0, 100, tid=2)
    b.runtime("cudaLaunchKernel", 25, 5, tid=2, external_id=None)
    b.runtime("cudaLaunchKernel", 26, 5, tid=3, external_id=None)
    assert ops_of_launches(load(b)) == ["autograd::backward_op", None]


def test_external_id_that_contradicts_time_falls_back_to_nesting():
    b = TraceBuilder()
    nested_ops(b)
    late = b.cpu_op("aten::later", 500, 10)
    b.runtime("cudaLaunchKernel", 25, 5, external_id=late)
    assert ops_of_launches(load(b)) == ["aten::mm_inner"]


def test_ops_without_any_external_id_link_by_nesting():
    b = TraceBuilder()
    b.cpu_op("aten::addmm", 10, 50, external_id=None)
    b.cpu_op("aten::mm_inner", 20, 20, external_id=None)
    b.runtime("cudaLaunchKernel", 25, 5, external_id=None)
    assert ops_of_launches(load(b)) == ["aten::mm_inner"]


def test_cpu_op_depth_and_parent():
    b = TraceBuilder()
    nested_ops(b, tid=1)
    b.cpu_op("aten::sibling", 70, 20, tid=1)  # after addmm, inside linear
    b.cpu_op("aten::same_start", 0, 5, tid=1)  # starts with linear: the longer one is outer
    b.cpu_op("aten::other_thread", 20, 20, tid=2)  # overlaps in time, other thread: a root
    f = load(b)
    ops = f.cpu_ops
    got = {
        str(n): (int(d), name_at(ops, int(p)))
        for n, d, p in zip(ops["name"], ops["depth"], ops["parent"])
    }
    assert got == {
        "aten::linear": (0, None),
        "aten::same_start": (1, "aten::linear"),
        "aten::addmm": (1, "aten::linear"),
        "aten::mm_inner": (2, "aten::addmm"),
        "aten::sibling": (1, "aten::linear"),
        "aten::other_thread": (0, None),
    }


# --- steps --------------------------------------------------------------------------------------


def test_step_extends_to_the_end_of_the_gpu_work_it_launched():
    b = TraceBuilder()
    b.step(1, 0, 100)
    b.step(2, 100, 100)
    b.op_with_kernel("aten::mm", 50, 20, kernel="slow", kernel_ts=150, kernel_dur=250)  # ends 400
    b.op_with_kernel("aten::mm", 120, 20, kernel="quick", kernel_ts=410, kernel_dur=10)
    f = load(b)
    assert f.steps["step"].tolist() == [1, 2]
    assert f.steps["cpu_end"].tolist() == [100.0, 200.0]
    assert f.steps["end"].tolist() == [400.0, 420.0]
    # windows are back to back: step 2 starts where step 1's GPU work ended, so step time
    # is throughput (the CPU ran ahead; the GPU set the pace)
    assert f.steps["ts"].tolist() == [0.0, 400.0]
    assert f.steps["dur"].tolist() == [400.0, 20.0]
    # the kernel belongs to the step that launched it, though it runs during the next one
    by_name = dict(zip(f.gpu_ops["name"].astype(str), f.gpu_ops["step"]))
    assert by_name == {"slow": 0, "quick": 1}


def test_trace_without_profiler_step_is_one_whole_trace_step():
    b = TraceBuilder()
    b.op_with_kernel("aten::mm", 10, 20, kernel="gemm", kernel_ts=40, kernel_dur=100)  # ends 140
    b.cpu_op("aten::add", 5, 2)
    f = load(b)
    assert not f.has_steps
    assert len(f.steps) == 1
    s = f.steps.iloc[0]
    assert (s["ts"], s["end"], bool(s["marked"])) == (5.0, 140.0, False)
    assert (f.gpu_ops["step"] == 0).all() and (f.cpu_ops["step"] == 0).all()


def test_dataloader_and_user_annotations():
    b = training_trace(steps=2)
    b.annotation("Optimizer.step#SGD.step", 600, 50)
    f = load(b)
    names = f.annotations["name"].astype(str)
    assert (names == DATALOADER_NEXT).sum() == 2
    assert (names == "Optimizer.step#SGD.step").sum() == 1
    assert not f.annotations["on_gpu"].any()


# --- other kinds of trace -----------------------------------------------------------------------


def test_memory_events_table():
    b = one_step()
    b.memory(10, 4096, total_allocated=4096, total_reserved=2 << 20, addr=0x1000)
    b.memory(20, -4096, total_allocated=0, total_reserved=2 << 20, addr=0x1000)
    b.memory(
        30, 512, total_allocated=512, total_reserved=512, addr=0x2000, device=-1, device_type=0
    )  # a CPU allocation
    b.event("cpu_instant_event", "not memory", 40, None, ph="i")
    f = load(b)
    m = f.memory
    assert len(m) == 3 and (m["name"] == "[memory]").all()
    assert m["alloc_bytes"].tolist() == [4096.0, -4096.0, 512.0]
    assert m["total_allocated"].tolist() == [4096.0, 0.0, 512.0]
    assert m["total_reserved"].tolist() == [float(2 << 20)] * 2 + [512.0]
    assert m["device_type"].tolist() == [1.0, 1.0, 0.0]
    assert m["device_id"].tolist() == [0.0, 0.0, -1.0]
    assert m["addr"].tolist() == [4096.0, 4096.0, 8192.0]


@pytest.mark.parametrize(
    ("direction", "src", "dst", "pageable"),
    [
        ("HtoD", "Pageable", "Device", True),
        ("HtoD", "Pinned", "Device", False),
        ("DtoH", "Device", "Pageable", True),
        ("DtoH", "Device", "Pinned", False),
        ("DtoD", "Device", "Device", False),
        ("HtoD", "Host", "Device", False),  # ROCm does not say
    ],
)
def test_memcpy_direction_and_pageable_flag(direction, src, dst, pageable):
    b = one_step()
    corr = b.runtime(COPY_LAUNCH, 10, 5)
    b.memcpy(20, 10, correlation=corr, direction=direction, src=src, dst=dst)
    b.op_with_kernel("aten::mm", 40, 10, kernel="gemm", kernel_ts=60, kernel_dur=5)
    f = load(b)
    assert f.gpu_ops["copy_kind"].tolist() == [direction, ""]
    assert f.gpu_ops["pageable"].tolist() == [pageable, False]


def test_rocm_trace_with_string_args():
    b = TraceBuilder(rocm=True)
    b.step(1, 0, 200)
    b.op_with_kernel("aten::add", 10, 20, kernel="elementwise_kernel", kernel_ts=40, kernel_dur=5)
    b.op_with_kernel(
        "aten::mm",
        50,
        20,
        kernel="Cijk_Alik_Bljk",
        kernel_ts=80,
        kernel_dur=5,
        api="hipExtModuleLaunchKernel",
    )
    ext = b.cpu_op("aten::copy_", 100, 20)
    b.runtime(
        "hipMemcpyWithStream",
        105,
        10,
        external_id=ext,
        correlation=2002,
        args={"size": "2560", "kind": "1"},
    )
    # numbers written as strings, hex included
    b.event(
        "gpu_memcpy",
        "Memcpy HtoD (Host -> Device)",
        120,
        5,
        pid=0,
        tid=0,
        args={"device": "0", "stream": "0x3", "correlation": "2002", "bytes": "2560"},
    )
    raw = b.to_dict()["traceEvents"]
    assert any(e.get("args", {}).get("stream") == "0x0" for e in raw)
    f = load(b)
    assert launch_and_op(f, 0) == ("hipLaunchKernel", "aten::add")
    assert launch_and_op(f, 1) == ("hipExtModuleLaunchKernel", "aten::mm")
    copy = f.gpu_ops.iloc[2]
    assert (copy["kind"], copy["stream"], copy["device"], copy["bytes"]) == ("memcpy", 3, 0, 2560.0)
    assert launch_and_op(f, 2) == ("hipMemcpyWithStream", "aten::copy_")
    assert f.device_properties[0]["name"] == "AMD Instinct MI250X"


def test_cpu_only_trace():
    b = TraceBuilder(gpus=[])
    b.step(1, 0, 100)
    b.cpu_op("aten::add", 10, 20)
    b.cpu_op("aten::mul", 40, 20)
    f = load(b)
    assert not f.has_gpu and f.devices == []
    assert len(f.gpu_ops) == 0 and "launch" in f.gpu_ops.columns
    assert len(f.cpu_ops) == 2 and len(f.steps) == 1 and f.has_steps
    assert f.device_properties == []


def test_trace_without_device_properties():
    f = load(training_trace(gpus=[]))
    assert f.device_properties == [] and f.has_gpu and f.devices == [0]
    assert f.device_props(0) is None


def test_device_properties_and_metadata_are_kept():
    b = training_trace(rank=3, world_size=8)
    f = load(b)
    assert f.device_props(0)["numSms"] == 108
    assert f.distributed_info == {"backend": "nccl", "rank": 3, "world_size": 8}
    assert f.rank == 3
    assert f.metadata["displayTimeUnit"] == "ms"


def test_rocm_ext_module_launch_grid_is_work_items_divided_by_block():
    """hipExtModuleLaunchKernel takes the global size in work-items (Kineto writes it as grid);
    hipLaunchKernel takes blocks. Both become blocks in gpu_ops.grid."""
    b = TraceBuilder(rocm=True)
    b.step(1, 0, 100)
    for name, grid in (("hipExtModuleLaunchKernel", [512, 1, 1]), ("hipLaunchKernel", [3, 1, 1])):
        corr = b.runtime(name, 10, 5, args={"grid": grid, "block": [256, 1, 1]})
        b.kernel(f"k_{name}", 20, 5, correlation=corr)
    f = load(b)
    grids = dict(zip(f.gpu_ops["name"].astype(str), f.gpu_ops["grid"]))
    assert grids == {"k_hipExtModuleLaunchKernel": 2.0, "k_hipLaunchKernel": 3.0}


def test_nearest_ancestor_walks_up_to_the_first_target():
    import numpy as np

    from bottleneck_lab.trace.frame import nearest_ancestor

    parent = np.array([-1, 0, 1, 2, -1])  # 0 <- 1 <- 2 <- 3, and 4 alone
    target = np.array([True, False, True, False, False])
    assert nearest_ancestor(parent, np.array([3, 1, 4, -1, 0]), target).tolist() == [
        2,
        0,
        -1,
        -1,
        0,
    ]
    assert nearest_ancestor(parent, np.arange(5), parent < 0).tolist() == [0, 0, 0, 0, 4]
