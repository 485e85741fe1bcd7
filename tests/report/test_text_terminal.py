"""The terminal report on real traces: width, colour on a TTY only (NO_COLOR respected), short
kernel names, --verbose, and the progress spinner on stderr for slow runs."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bottleneck_lab.commands.cli import main
from bottleneck_lab.report.format import short_kernel
from bottleneck_lab.report.progress import progress

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "traces" / "h100"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def real(demo: str, variant: str = "bad") -> str:
    p = TRACES / demo / f"{variant}.json.gz"
    if not p.is_file():
        pytest.skip(f"{p} not shipped")
    return str(p)


@pytest.mark.parametrize("demo", ["sync", "launch_overhead", "precision", "dataloader"])
def test_concise_and_verbose_reports_of_real_traces_fit_100_columns(demo, capsys):
    path = real(demo)
    assert main(["analyze", path]) == 0
    concise = capsys.readouterr().out
    assert main(["analyze", path, "--verbose"]) == 0
    verbose = capsys.readouterr().out
    for text in (concise, verbose):
        assert max(map(len, text.splitlines())) <= 100
        assert "\x1b[" not in text  # not a terminal: no colour
    assert len(verbose) > len(concise)
    findings = concise.split("most costly first\n")[1].split("\nSummary")[0]
    # one entry per finding: a numbered head line and its fix, no evidence keys
    heads = [
        ln for ln in findings.splitlines() if re.match(r"^\s*\d+\. (HIGH|MEDIUM|LOW|INFO) ", ln)
    ]
    assert len(heads) == findings.count("fix:") >= 1
    import bottleneck_lab

    first = bottleneck_lab.analyze(path).findings[0]
    for key in first.evidence:  # the evidence is in the verbose form only
        assert f"     {key}:" in verbose and f"     {key}:" not in concise
    assert "void at::native" not in concise  # templated kernel names are shortened
    assert "Top kernels by GPU time" in concise


def run_on_pty(args: list[str], env_extra: dict[str, str]) -> str:
    """Run the CLI with stdout on a pseudo-terminal; return what it printed there."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm", "COLUMNS": "100", **env_extra}
    env.pop("NO_COLOR", None) if "NO_COLOR" not in env_extra else None
    proc = subprocess.Popen(
        [sys.executable, "-m", "bottleneck_lab", *args],
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=REPO,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_on_a_terminal_and_never_with_no_color():
    path = real("sync")
    coloured = run_on_pty(["analyze", path], {})
    assert "\x1b[1;31mHIGH" in coloured  # severity in colour
    plain = run_on_pty(["analyze", path], {"NO_COLOR": "1"})
    assert "\x1b[" not in plain
    assert ANSI.sub("", coloured).replace("\r\n", "\n") == plain.replace("\r\n", "\n")


def test_short_kernel_names():
    assert (
        short_kernel(
            "void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, "
            "std::array<char*, 2ul> >(int, at::native::AbsFunctor<float>, std::array<char*, 2ul>)"
        )
        == "vectorized_elementwise_kernel<AbsFunctor>"
    )
    assert (
        short_kernel(
            "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, "
            "false>(int, float, float const*, float*)"
        )
        == "vectorized_layer_norm_kernel"
    )
    assert (
        short_kernel(
            "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>"
            "(cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)"
        )
        == "Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>"
    )
    assert (
        short_kernel(
            "void at::native::vectorized_elementwise_kernel<4, at::native::sqrt_kernel_cuda("
            "at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda(float)#1}, "
            "std::array<char*, 2ul> >(int, float)"
        )
        == "vectorized_elementwise_kernel<sqrt_kernel_cuda>"
    )
    # Two kernels of one family, too long for the column: the base name gives way, so the
    # argument that tells them apart stays whole.
    names = [
        short_kernel(
            f"void at::native::vectorized_elementwise_kernel<4, at::native::{f}<float, float, "
            "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, "
            "2> >(int)",
            44,
        )
        for f in ("AUnaryFunctor", "BinaryFunctor")
    ]
    assert names == [
        "vectorized_eleme…<AUnaryFunctor<MulFunctor>>",
        "vectorized_eleme…<BinaryFunctor<MulFunctor>>",
    ]
    assert short_kernel("gemm_k1") == "gemm_k1"
    long = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_kernel"
    s = short_kernel(long, 40)
    assert len(s) == 40 and "…" in s and s.startswith("sm80_xmma") and s.endswith("_kernel")


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_slow_tty_run_only():
    slow = FakeTTY()
    with progress(delay_s=0.05, stream=slow) as stage:
        with stage("reading big.json.gz"):
            time.sleep(0.5)
    assert "reading big.json.gz" in slow.getvalue()

    fast = FakeTTY()
    with progress(delay_s=5.0, stream=fast) as stage:
        with stage("reading small.json"):
            pass
    assert fast.getvalue() == ""

    piped = io.StringIO()  # not a terminal: never drawn
    with progress(delay_s=0.0, stream=piped) as stage:
        with stage("reading x"):
            time.sleep(0.2)
    assert piped.getvalue() == ""
