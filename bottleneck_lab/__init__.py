"""bottleneck-lab: read a PyTorch profiler trace and say why the training step is slow."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "load_trace", "load_frame", "TraceError"]


def __getattr__(name: str):
    # Lazy, so `bottleneck-lab --help` and `import bottleneck_lab` stay fast (no pandas import).
    if name in ("load_trace", "load_frame", "TraceError", "TraceFrame"):
        from . import trace

        return getattr(trace, name)
    raise AttributeError(name)
