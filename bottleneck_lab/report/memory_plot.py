"""PNG of the memory curve: Total Allocated and Total Reserved over time, step boundaries as
lines, forward / backward / optimizer phases shaded, each step's peak marked with its op.

No analysis happens here: everything drawn comes from `bottleneck_lab.memory`. matplotlib is
imported only when a plot is made (Agg backend: no display needed).
"""

from __future__ import annotations

from pathlib import Path

from .. import memory
from ..trace import TraceFrame

PHASE_COLOURS = {"forward": "#4c9be8", "backward": "#f28e2b", "optimizer": "#59a14f"}


def _scale(peak: float) -> tuple[float, str]:
    for factor, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if peak >= factor:
            return float(factor), unit
    return 1.0, "B"


def plot_memory(
    frame: TraceFrame,
    path: str | Path,
    device_type: int | None = None,
    device_id: int | None = None,
    width_in: float = 12.0,
    height_in: float = 4.5,
) -> Path | None:
    """Write the memory curve of one device (default: the analysed GPU) as a PNG at `path`.
    Returns the path, or None when the trace has no [memory] events for that device."""
    cv = memory.curve(frame, device_type, device_id)
    report = memory.analyze(frame, device_type, device_id)
    if cv is None or report is None:
        return None
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    # Memory events are stamped on the host, so steps are drawn at their CPU (ProfilerStep) spans.
    t0 = float(frame.steps["cpu_ts"].min()) if len(frame.steps) else float(cv.ts[0])
    x = (cv.ts - t0) / 1000.0  # ms from the first step, as findings give times
    factor, unit = _scale(max(float(cv.allocated.max()), float(cv.reserved.max())))
    fig, ax = plt.subplots(figsize=(width_in, height_in), dpi=100)
    try:
        for s in report.steps:
            for p in s.phases:
                ax.axvspan(
                    (p.start - t0) / 1000.0,
                    (p.end - t0) / 1000.0,
                    color=PHASE_COLOURS[p.name],
                    alpha=0.15,
                    linewidth=0,
                )
        for st in frame.steps.itertuples():
            ax.axvline((st.cpu_ts - t0) / 1000.0, color="0.4", linewidth=0.8, linestyle="--")
            ax.text(
                (st.cpu_ts - t0) / 1000.0,
                1.0,
                f" {st.name}",
                transform=ax.get_xaxis_transform(),
                fontsize=7,
                va="top",
                color="0.3",
            )
        if cv.reserved.max() > 0:
            ax.plot(
                x,
                cv.reserved / factor,
                drawstyle="steps-post",
                color="0.55",
                linewidth=1.0,
                label="Total Reserved",
            )
        ax.plot(
            x,
            cv.allocated / factor,
            drawstyle="steps-post",
            color="#d62728",
            linewidth=1.2,
            label="Total Allocated",
        )
        for s in report.steps:
            px, py = (s.peak_ts - t0) / 1000.0, s.peak_bytes / factor
            ax.plot([px], [py], marker="v", color="black", markersize=5)
            if s.peak_op:
                ax.annotate(
                    s.peak_op, (px, py), xytext=(3, 4), textcoords="offset points", fontsize=6
                )
        if report.capacity_bytes and report.capacity_bytes <= 1.3 * max(
            cv.reserved.max(), cv.allocated.max()
        ):
            ax.axhline(
                report.capacity_bytes / factor, color="black", linewidth=1.0, label="device memory"
            )
        where = f"GPU {cv.device_id}" if cv.device_type == memory.CUDA else "host"
        ax.set_title(f"Memory, {where}: peak allocated {report.peak_bytes / factor:.2f} {unit}")
        ax.set_xlabel("ms from the first step")
        ax.set_ylabel(unit)
        ax.set_ylim(bottom=0)
        handles, _ = ax.get_legend_handles_labels()
        handles += [Patch(color=c, alpha=0.3, label=n) for n, c in PHASE_COLOURS.items()]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7)
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)
    return path
