"""Renderers: Diagnosis -> text, markdown, json or html. No analysis happens here."""

from __future__ import annotations

from ..diagnosis import Diagnosis

FORMATS = ("text", "markdown", "json", "html")


def render(diagnosis: Diagnosis, fmt: str, *, verbose: bool = False, color: bool = False) -> str:
    """The report in `fmt`. `verbose` and `color` apply to the text report only."""
    if fmt == "json":
        from .json_report import render_json

        return render_json(diagnosis)
    if fmt == "html":
        from .html import render_html

        return render_html(diagnosis)
    from .text import render_markdown, render_text

    if fmt == "markdown":
        return render_markdown(diagnosis)
    return render_text(diagnosis, verbose=verbose, color=color)
