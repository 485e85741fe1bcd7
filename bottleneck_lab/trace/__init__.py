"""Reading Kineto traces: the only package that knows the file format."""

from .errors import TraceError
from .frame import TraceFrame
from .load import load_frame, load_trace

__all__ = ["TraceError", "TraceFrame", "load_frame", "load_trace"]
