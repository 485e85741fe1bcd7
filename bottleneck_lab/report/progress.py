"""A progress indicator on stderr for slow runs: a rich spinner with the current stage and the
elapsed time, shown only when stderr is a terminal and only once the run has taken more than
`delay_s` (a small trace finishes without ever drawing it). Transient: it leaves no trace in the
terminal or in redirected output. Without rich installed it does nothing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Stages:
    """`with stages("reading x.json.gz"): ...` blocks, each a line of the progress display."""

    def __init__(self, progress=None) -> None:
        self._progress = progress
        self._task = None

    @contextmanager
    def __call__(self, label: str) -> Iterator[None]:
        if self._progress is not None:
            if self._task is None:
                self._task = self._progress.add_task(label, total=None)
            else:
                self._progress.update(self._task, description=label)
        yield


@contextmanager
def progress(enabled: bool | None = None, delay_s: float = 1.0, stream=None) -> Iterator[Stages]:
    stream = stream or sys.stderr
    if enabled is None:
        enabled = stream.isatty()
    if not enabled:
        yield Stages()
        return
    try:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    except ImportError:  # rich is a dependency; a stripped install just runs without the spinner
        yield Stages()
        return
    bar = Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        TimeElapsedColumn(),
        console=Console(file=stream),
        transient=True,
    )
    lock = threading.Lock()
    state = {"started": False, "done": False}

    def start() -> None:
        with lock:
            if not state["done"]:
                bar.start()
                state["started"] = True

    timer = threading.Timer(delay_s, start)
    timer.daemon = True
    timer.start()
    try:
        yield Stages(bar)
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["started"]:
                bar.stop()
