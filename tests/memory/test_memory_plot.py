"""The PNG of the memory curve: written for a trace with [memory] events, skipped without."""

import pytest

from bottleneck_lab.trace.synth import load
from bottleneck_lab.trace.synth_memory import MemTrace

pytest.importorskip("matplotlib")

from bottleneck_lab.report.memory_plot import plot_memory  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def test_plot_writes_a_png(tmp_path):
    frame = load(MemTrace(steps=2, checkpoint=True).b)
    out = plot_memory(frame, tmp_path / "memory.png")
    assert out == tmp_path / "memory.png"
    assert out.read_bytes()[:8] == PNG
    assert out.stat().st_size > 10_000


def test_plot_of_host_memory(tmp_path):
    t = MemTrace(steps=1)
    t.b.memory(50.0, 4 << 20, total_allocated=4 << 20, total_reserved=0, device=-1, device_type=0)
    out = plot_memory(load(t.b), tmp_path / "host.png", device_type=0, device_id=-1)
    assert out.read_bytes()[:8] == PNG


def test_no_plot_without_memory_events(tmp_path):
    frame = load(MemTrace(memory_events=False).b)
    assert plot_memory(frame, tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()
