"""The HTML report: one self-contained file, checked in a real headless Chromium (the Debian
`chromium` package; .ci/run installs it): the main elements are in the rendered DOM and the
console shows no errors. Tests that need the browser skip, saying why, when it is absent."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "detectors"))  # the detector scenarios
import scenarios as sc  # noqa: E402

from bottleneck_lab.commands.cli import main  # noqa: E402
from bottleneck_lab.report import render  # noqa: E402
from bottleneck_lab.trace.synth import TraceBuilder  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "traces" / "h100"
CHROMIUM = next(
    (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p),
    None,
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium not installed (apt-get install -y chromium; .ci/run does it)",
)


def real(demo: str, variant: str = "bad") -> str:
    p = TRACES / demo / f"{variant}.json.gz"
    if not p.is_file():
        pytest.skip(f"{p} not shipped")
    return str(p)


def chromium(page: Path, tmp_path: Path) -> tuple[str, str]:
    """Load the page headless; return (rendered DOM, browser log with console messages)."""
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=2000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def console_errors(log: str) -> list[str]:
    # Chromium logs page console output as `CONSOLE(line)] "message", source: ...` (with
    # --enable-logging); uncaught exceptions appear there too.
    return [ln for ln in log.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]


class Elements(HTMLParser):
    """Counts of tags, ids and classes in a DOM dump."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.ids: set[str] = set()
        self.classes: dict[str, int] = {}
        self.codes: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if "id" in a:
            self.ids.add(a["id"])
        for c in (a.get("class") or "").split():
            self.classes[c] = self.classes.get(c, 0) + 1
        if "data-code" in a:
            self.codes.append(a["data-code"])


def assert_self_contained(html: str) -> None:
    """Nothing is fetched: no scripts, stylesheets, images or fonts from anywhere."""
    assert (
        "<script" not in html
        and "<link" not in html
        and "<img" not in html
        and "<iframe" not in html
    )
    assert not re.search(r"""\b(src|href)\s*=""", html)
    assert "@import" not in html and "url(" not in html
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", html)


@needs_chromium
def test_html_report_of_a_real_trace_in_chromium(tmp_path):
    path = real("sync")
    out = tmp_path / "report.html"
    assert main(["analyze", path, "--format", "html", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert_self_contained(html)
    dom, log = chromium(out, tmp_path)
    assert console_errors(log) == []
    el = Elements(dom)
    import bottleneck_lab

    d = bottleneck_lab.analyze(path)
    assert {"verdict", "findings", "timeline", "memory", "kernels", "summary"} <= el.ids
    assert el.codes == [f.code for f in d.findings]  # ranked findings, each with its code
    assert el.classes["finding"] == len(d.findings) and el.tags["details"] == len(d.findings)
    assert "Host-device syncs drain the GPU" in dom and "Fix:" in dom
    # The timeline: one busy bar and one stacked bar per step, one rect per idle gap drawn.
    tl = d.summary.extra["timeline"]
    gaps = sum(len(s["gaps"]) for s in tl["steps"])
    stacked = sum(1 + len(s["idle_us_by_owner"]) for s in tl["steps"])
    assert el.classes["stack"] == stacked
    assert el.tags["rect"] >= gaps + len(tl["steps"]) + stacked
    assert "host-device sync" in dom  # the legend names the causes
    # ... only those with idle in this trace: no compile spans or DataLoader in the sync demo
    drawn = {k for st in tl["steps"] for k, v in st["idle_us_by_owner"].items() if v > 0}
    assert "recompilation" not in drawn and "data_loading" not in drawn
    assert "torch.compile compiling" not in dom and "data loading" not in dom
    # skipped detectors are grouped under their reason, each reason said once
    for why in set(d.skipped.values()):
        assert dom.count(why.removeprefix("skipped: ")) == 1
    assert el.tags["polyline"] == 2  # memory: allocated and reserved
    assert el.tags["tr"] >= len(d.summary.extra["top_kernels"]) + 1


@needs_chromium
def test_html_roofline_in_chromium(tmp_path):
    # A ResNet-50 in FP32: its convolutions ran as TF32, so two compute roofs (FP32 and TF32)
    # over one memory roof, and one numbered point per top op that has FLOPs and a roof.
    path = REPO / "traces" / "zoo" / "resnet50_precision" / "bad.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} not shipped")
    out = tmp_path / "report.html"
    assert main(["analyze", str(path), "--format", "html", "-o", str(out)]) == 0
    assert_self_contained(out.read_text(encoding="utf-8"))
    dom, log = chromium(out, tmp_path)
    assert console_errors(log) == []
    el = Elements(dom)
    import bottleneck_lab

    s = bottleneck_lab.analyze(str(path)).summary.extra
    drawn = [r for r in s["roofline"] if r["roof_tflops"]]
    assert "roofline" in el.ids and el.classes["roofline"] == 1  # the svg
    assert el.classes["op-point"] == len(drawn) >= 5
    assert el.classes["roof"] == 1 + len(s["roofline_roofs"]["compute_tflops"]) == 3
    assert el.tags["circle"] >= len(drawn)
    assert "memory-bound" in dom and "TF32 494.5 TFLOP/s" in dom
    # every top op is in the table below the plot, drawn or not
    assert el.tags["tr"] >= len(s["roofline"]) + 1
    # the hover title of each point names its op and how far below the roof it is
    first = drawn[0]
    assert f"1. {first['op']} ({first['dtype']})" in dom and "of the" in dom
    # a point above its roof is explained by the roof it beats (FP32 convs that ran as TF32)
    over = {r["bound"] for r in drawn if r["pct_of_roof"] > 100}
    assert "compute" in over
    assert ("Above the compute roof" in dom, "Above the memory roof" in dom) == (
        "compute" in over,
        "memory" in over,
    )


@needs_chromium
def test_html_comparison_in_chromium(tmp_path):
    out = tmp_path / "compare.html"
    assert (
        main(
            [
                "compare",
                real("sync", "bad"),
                real("sync", "fixed"),
                "--format",
                "html",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    html = out.read_text(encoding="utf-8")
    assert_self_contained(html)
    dom, log = chromium(out, tmp_path)
    assert console_errors(log) == []
    el = Elements(dom)
    assert {
        "comparison",
        "before",
        "after",
        "before-verdict",
        "after-verdict",
        "before-timeline",
        "after-timeline",
    } <= el.ids
    assert "sync-stall" in dom.split("gone after")[1].split("New after")[0]
    assert el.classes.get("better", 0) >= 1  # the faster step is marked better


@needs_chromium
def test_html_of_tiny_traces_in_chromium(tmp_path):
    # A hand-written trace (no memory events, no shapes) and a CPU-only one: sections that have
    # no data are left out, and the page still loads cleanly.
    d = sc.diagnose_trace(sc.mixed(n_steps=2), path="mixed.json")
    b = TraceBuilder(gpus=[])
    b.step(1, 0, 100)
    b.cpu_op("aten::add", 10, 20)
    cpu = b.write(tmp_path / "cpu.json")
    cpu_out = tmp_path / "cpu.html"
    assert main(["analyze", str(cpu), "--format", "html", "-o", str(cpu_out)]) == 0
    for name, html in (("mixed", render(d, "html")), ("cpu", cpu_out.read_text(encoding="utf-8"))):
        page = tmp_path / f"{name}.html"
        page.write_text(html, encoding="utf-8")
        assert_self_contained(html)
        dom, log = chromium(page, tmp_path)
        assert console_errors(log) == []
        el = Elements(dom)
        assert {"verdict", "findings", "summary"} <= el.ids and "memory" not in el.ids
        if name == "mixed":
            assert "timeline" in el.ids and el.codes == [f.code for f in d.findings]
            # no shapes recorded: the roofline section says why there is no plot
            assert "roofline" in el.ids and "No roofline:" in dom and "record_shapes" in dom
            assert "op-point" not in el.classes
        else:
            assert "timeline" not in el.ids and "no GPU activity" in dom


@pytest.mark.parametrize("run", ["zoo/resnet50_precision", "h100/checkpointing"])
def test_memory_curve_steps_are_on_the_host_clock(run):
    # [memory] events and phases are host times; the step lines drawn over them must be too
    # (the GPU side of a step starts later, which once put "step 3" in step 2's backward).
    path = REPO / "traces" / run / "bad.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} not shipped")
    import bottleneck_lab

    mc = bottleneck_lab.analyze(str(path)).summary.extra["memory_curve"]
    assert len(mc["steps"]) >= 2
    for st in mc["steps"]:
        assert st["start_ms"] <= st["peak_ms"] <= st["end_ms"]
        for ph in st["phases"]:
            assert st["start_ms"] - 0.01 <= ph["start_ms"] <= ph["end_ms"] <= st["end_ms"] + 0.01


def test_html_escapes_what_the_trace_says(tmp_path):
    # Names come from the trace: they must be text, never markup.
    b = TraceBuilder()
    b.step(1, 0, 1000)
    b.op_with_kernel(
        "aten::mm",
        10,
        8,
        kernel="<script>alert(1)</script>",
        kernel_ts=20,
        kernel_dur=100,
        grid=(216, 1, 1),
    )
    b.op_with_kernel(
        "aten::mm", 20, 8, kernel="gemm", kernel_ts=700, kernel_dur=290, grid=(216, 1, 1)
    )
    out = tmp_path / "r.html"
    assert (
        main(["analyze", str(b.write(tmp_path / "t.json")), "--format", "html", "-o", str(out)])
        == 0
    )
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;script&gt;" in html


@needs_chromium
def test_the_console_check_sees_errors(tmp_path):
    # Guard against a vacuous check: a page that logs an error and throws is caught.
    page = tmp_path / "bad.html"
    page.write_text(
        '<html><body><script>console.error("boom"); undefinedFn();</script></body></html>'
    )
    _, log = chromium(page, tmp_path)
    errors = console_errors(log)
    assert any("boom" in e for e in errors) and any("Uncaught ReferenceError" in e for e in errors)
