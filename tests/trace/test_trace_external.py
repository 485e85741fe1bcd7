"""Every real trace in ../shared/external-traces (each directory, and each file in one) loads, or
gets the clear one-line error. Skipped when the folder is absent."""

from __future__ import annotations

import pytest
from conftest import EXTERNAL_TRACES

from bottleneck_lab.trace import TraceError, load_trace


def test_external_trace_loads_or_gets_a_clear_error(external_trace):
    path = external_trace.path
    try:
        frames = load_trace(path)
    except TraceError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(path))
        assert not external_trace.is_trace, f"a real trace was refused: {exc}"
        return
    assert external_trace.is_trace, "a file that is not a Kineto trace was read"
    assert frames and [f.rank for f in frames] == sorted(f.rank for f in frames)
    for f in frames:
        assert f.events > 0 and len(f.steps) >= 1
        assert (f.steps["end"] >= f.steps["cpu_end"]).all()
        if f.has_gpu:
            assert (f.gpu_ops["dur"] >= 0).all()
            assert f.gpu_ops["kind"].notna().all()


@pytest.mark.skipif(
    not (EXTERNAL_TRACES / "a100_cuda_event_sync_multi_stream").is_dir(),
    reason="external traces absent",
)
def test_real_trace_memsets_are_memsets():
    (f,) = load_trace(EXTERNAL_TRACES / "a100_cuda_event_sync_multi_stream")
    names = f.gpu_ops["name"].astype(str)
    assert (f.gpu_ops["kind"] == "memset").sum() == names.str.startswith("Memset").sum() == 3
