"""bottleneck-lab: read a PyTorch profiler trace and say why the training step is slow."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "analyze", "Diagnosis", "load_trace", "load_frame", "TraceError"]


def _html_fragment(diagnosis) -> str:
    from .report.html import render_html

    return render_html(diagnosis, standalone=False)


def _hand_down_the_html_renderer() -> None:
    # The package root is the top layer: it may import the report renderers, the Diagnosis value
    # type in the layer below them may not. So the root gives Diagnosis its notebook renderer.
    # diagnosis.py imports only the standard library, so this keeps `import bottleneck_lab` light.
    from . import diagnosis

    diagnosis.HTML_RENDERER = _html_fragment


_hand_down_the_html_renderer()


def __getattr__(name: str):
    # Lazy, so `bottleneck-lab --help` and `import bottleneck_lab` stay fast (no pandas import).
    if name in ("load_trace", "load_frame", "TraceError", "TraceFrame"):
        from . import trace

        return getattr(trace, name)
    if name == "analyze":
        # `bottleneck_lab.analyze(path, **options) -> Diagnosis`. The name is also the submodule
        # bottleneck_lab/analyze.py (whose `diagnose` older code imports); that module is callable,
        # so both spellings work whichever was imported first.
        import importlib

        return importlib.import_module(".analyze", __name__)
    if name == "Diagnosis":
        from .diagnosis import Diagnosis

        return Diagnosis
    raise AttributeError(name)
