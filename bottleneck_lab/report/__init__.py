"""Renderers: Diagnosis -> text. No analysis happens here."""

from __future__ import annotations

from ..diagnosis import Diagnosis


def render(diagnosis: Diagnosis, fmt: str) -> str:
    if fmt == "json":
        from .json_report import render_json

        return render_json(diagnosis)
    from .text import render_markdown, render_text

    return render_markdown(diagnosis) if fmt == "markdown" else render_text(diagnosis)
