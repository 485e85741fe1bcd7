"""Reading Kineto traces: the only package that knows the file format."""

from .errors import TraceError

__all__ = ["TraceError", "TraceFrame", "load_frame", "load_trace"]


def __getattr__(name: str):
    # Lazy, so `trace.decode` can be imported (and start decoding, decode.start_early) before
    # the frame's pandas is.
    if name == "TraceFrame":
        from .frame import TraceFrame

        return TraceFrame
    if name in ("load_frame", "load_trace"):
        from . import load

        return getattr(load, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
