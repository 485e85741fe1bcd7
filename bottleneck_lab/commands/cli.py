"""`bottleneck-lab` command line. Imports stay lazy so `--help` starts fast.

Exit codes: 0 analysed; 1 a bug; 2 unusable input or arguments (one line on stderr); 3 a CI gate
failed (`analyze --fail-on`, `compare --fail-if-slower`; the report is still written).
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys

from . import UsageError

EXAMPLES = """examples:
  bottleneck-lab analyze trace.json.gz                 diagnosis as text
  bottleneck-lab analyze traces/ --format json -o d.json   a directory of per-rank traces
  bottleneck-lab analyze traces/ --jobs 8               ... 8 ranks at a time, one process each
  bottleneck-lab analyze t.json.gz --set gpu-idle.min_share_pct=1
  bottleneck-lab analyze --list-detectors
  bottleneck-lab explain sync-stall                    what a finding means and how to fix it
  bottleneck-lab compare before.json.gz after.json.gz  what a change did, side by side
  bottleneck-lab demo --list                           the bottleneck demos
  bottleneck-lab demo dataloader                       run bad and fixed, compare side by side
  bottleneck-lab analyze t.json.gz --fail-on medium    CI gate: exit 3 on a medium/high finding
  bottleneck-lab compare a.json.gz b.json.gz --fail-if-slower 5   exit 3 if b is >5% slower

exit codes:
  0  analysed (and every gate passed)
  1  a bug in bottleneck-lab (one line; BOTTLENECK_LAB_DEBUG=1 shows the traceback)
  2  unusable input or arguments (one line on stderr naming the file and the problem)
  3  a gate failed: --fail-on found a finding at or above that severity, or --fail-if-slower
     saw the after step time slower by more than that percentage (the report is still written)
"""

EXIT_OK, EXIT_BUG, EXIT_USAGE, EXIT_GATE = 0, 1, 2, 3
GATE_SEVERITIES = ("low", "medium", "high")


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr (with where to get help), exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    from .. import __version__

    p = _Parser(
        prog="bottleneck-lab",
        description="Read a PyTorch profiler (Kineto) trace and say why the training step is slow.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"bottleneck-lab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    a = sub.add_parser(
        "analyze",
        help="diagnose a trace file or a directory of rank traces",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument("path", nargs="?", help=".json, .json.gz, or a directory of per-rank traces")
    a.add_argument(
        "--format",
        choices=("text", "markdown", "json", "html"),
        default="text",
        help="text (default), markdown, json (schema bottleneck-lab/diagnosis/1), or html "
        "(one self-contained file that works offline; use with -o)",
    )
    a.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of stdout")
    a.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="text report: add each finding's evidence and every summary fact",
    )
    a.add_argument(
        "--fail-on",
        choices=GATE_SEVERITIES,
        default=None,
        metavar="SEVERITY",
        help="CI gate: exit 3 when a finding of SEVERITY (low, medium, high) or worse "
        "exists; the report is still written",
    )
    a.add_argument(
        "--annotate",
        metavar="OUT",
        default=None,
        help="also write the trace with the diagnosis added (.json or .json.gz): a "
        "'bottleneck-lab' process with idle gaps named by cause, each finding's spans, "
        "and GPU busy %% and memory counters; open it in Perfetto UI",
    )
    a.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="DETECTOR.FIELD=VALUE",
        help="override a detector threshold (repeatable)",
    )
    a.add_argument("--list-detectors", action="store_true", help="list detectors and exit")
    a.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="a directory of rank traces: analyse N ranks at a time, each in its own process "
        "(default: all cores; 1: one after another in this process)",
    )
    a.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="a directory of rank traces: analyse the ranks on a Dask cluster, tcp://host:port "
        "of a dask-scheduler (the workers must see PATH at the same path: a shared "
        "filesystem), or 'local' for a LocalCluster of --jobs workers; needs "
        "bottleneck-lab[dask]",
    )
    a.add_argument(
        "--memory-plot",
        metavar="PNG",
        default=None,
        help="also draw the memory curve (allocated/reserved, steps and phases) to PNG",
    )
    a.add_argument(
        "--with-hta",
        action="store_true",
        help="add Holistic Trace Analysis' temporal, idle-time and kernel breakdowns, "
        "labelled as HTA's (says so plainly when HTA cannot run)",
    )
    a.add_argument(
        "--peak-tflops",
        type=float,
        default=None,
        help="measure MFU against this dense peak instead of the device table",
    )
    a.add_argument(
        "--peak-dtype",
        choices=("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"),
        default=None,
        help="dtype of the peak (default: the dtype carrying most FLOPs)",
    )
    a.add_argument(
        "--peaks-file",
        nargs="?",
        const="",
        default=None,
        metavar="FILE",
        help="measure MFU against peaks saved by `bottleneck-lab peak` "
        "(default file ~/.cache/bottleneck-lab/peaks.json)",
    )

    e = sub.add_parser("explain", help="print what a detector looks for and how to fix it")
    e.add_argument("code", help="detector code, e.g. sync-stall")

    c = sub.add_parser(
        "compare",
        help="two traces of the same step side by side (before, after)",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("before", help="trace file or directory before the change")
    c.add_argument("after", help="trace file or directory after the change")
    c.add_argument("--format", choices=("text", "json", "html"), default="text")
    c.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    c.add_argument(
        "--fail-if-slower",
        type=float,
        default=None,
        metavar="PCT",
        help="CI gate: exit 3 when the after median step time is more than PCT%% slower "
        "than before; the comparison is still written",
    )

    pk = sub.add_parser(
        "peak", help="measure this GPU's peak TFLOP/s and bandwidth (needs torch, CUDA)"
    )
    pk.add_argument(
        "--out", default=None, help="where to save (default ~/.cache/bottleneck-lab/peaks.json)"
    )

    d = sub.add_parser("demo", help="run a bottleneck demo bad and fixed and compare them")
    d.add_argument("name", nargs="?", help="demo name (see --list)")
    d.add_argument("--list", action="store_true", help="list the demos")
    d.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto")
    d.add_argument("--steps", type=int, default=None, help="profiled steps per variant")
    d.add_argument("--out", default=None, help="where to write traces (default: a temp dir)")
    return p


def _write(text: str, output: str | None) -> None:
    if not output:
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"{output}: cannot write report: {exc.strerror or exc}") from None


def _analyze(args: argparse.Namespace) -> int:
    if args.path and not args.list_detectors:
        # A large trace starts decoding in a second process now, while pandas and the analysis
        # are imported (numpy and msgspec only so far). It is only a head start: arguments are
        # still checked before anything is read, and an unused one ends at exit.
        from ..trace.decode import start_early

        start_early(args.path)
    from ..detectors import REGISTRY

    if args.list_detectors:
        from ..ranks import STRAGGLER_CODE, straggler_findings

        w = max(len(c) for c in REGISTRY)
        for code, det in REGISTRY.items():
            first = det.doc.splitlines()[0]
            needs = ", ".join(sorted(det.requires))
            sys.stdout.write(f"{code:<{w}}  {det.kind:<16} {first}  [needs: {needs}]\n")
        # made by the cross-rank reduce, not by a one-trace detector
        first = (straggler_findings.__doc__ or "").splitlines()[0]
        sys.stdout.write(
            f"{STRAGGLER_CODE:<{w}}  {'communication':<16} {first}  [needs: a directory of rank "
            "traces]\n"
        )
        return EXIT_OK
    if not args.path:
        raise UsageError("analyze: give a trace PATH (or --list-detectors)")

    from ..analyze import load_and_diagnose, normalize_overrides
    from ..report import render
    from ..report.progress import progress

    try:
        overrides = normalize_overrides(args.set)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    peaks_file = args.peaks_file
    if peaks_file == "":
        from ..flops.measured import DEFAULT_PATH

        peaks_file = str(DEFAULT_PATH)
    if peaks_file is not None and not os.path.isfile(peaks_file):
        raise UsageError(
            f"{peaks_file}: no such peaks file (run `bottleneck-lab peak` on the GPU first)"
        )
    if args.peak_tflops is not None and args.peak_tflops <= 0:
        raise UsageError("--peak-tflops must be positive")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.scheduler:
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise UsageError(
                "--scheduler needs dask: pip install 'bottleneck-lab[dask]' (dask[distributed])"
            )
    # Arguments are checked before loading: a multi-GB trace should not load before a typo is found.
    with progress() as stage:
        with stage(f"reading and analysing {args.path}"):
            frames, diagnosis = _guarded(
                args.path,
                lambda: load_and_diagnose(
                    args.path,
                    overrides,
                    peak_tflops=args.peak_tflops,
                    peak_dtype=args.peak_dtype,
                    peaks_file=peaks_file,
                    with_hta=args.with_hta,
                    jobs=args.jobs,
                    scheduler=args.scheduler,
                ),
            )
        with stage("writing the report"):
            _write(
                render(
                    diagnosis,
                    args.format,
                    verbose=args.verbose,
                    color=_color(args.output) if args.format == "text" else False,
                ),
                args.output,
            )
    if args.memory_plot:
        from ..ranks import sources_memory_frame
        from ..report.memory_plot import plot_memory

        frame = sources_memory_frame(frames)
        try:
            drawn = plot_memory(frame, args.memory_plot)
        except OSError as exc:
            raise UsageError(
                f"{args.memory_plot}: cannot write plot: {exc.strerror or exc}"
            ) from None
        if drawn is None:
            sys.stderr.write(
                "bottleneck-lab: no memory plot: trace has no [memory] events "
                "(capture with profile_memory=True)\n"
            )
    if args.annotate:
        _annotate(frames, diagnosis, args.annotate)
    if args.fail_on:
        failing = diagnosis.at_or_above(args.fail_on)
        if failing:
            codes = ", ".join(f"{f.code} ({f.severity})" for f in failing)
            sys.stderr.write(
                f"bottleneck-lab: --fail-on {args.fail_on}: {len(failing)} finding(s) at or "
                f"above {args.fail_on} in {args.path}: {codes}\n"
            )
            return EXIT_GATE
    return EXIT_OK


def _annotate(frames, diagnosis, out: str) -> None:
    """The analysed rank's trace file (the slowest, which the summary describes) plus the
    diagnosis as events."""
    from ..report.annotate import annotation_events
    from ..trace import TraceError
    from ..trace.write import write_with_events

    rank = diagnosis.summary.extra.get("summary_rank")
    source = next((f.path for f in frames if rank is None or f.rank == rank), frames[0].path)
    try:
        write_with_events(source, out, annotation_events(diagnosis))
    except TraceError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{out}: cannot write annotated trace: {exc.strerror or exc}") from None


def _color(output: str | None) -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if output or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def _guarded(path: str, run):
    """Run a load: a bad trace or option is a UsageError (one line, exit 2)."""
    from ..ranks import SchedulerError
    from ..trace import TraceError

    try:
        return run()
    except (TraceError, SchedulerError) as exc:
        raise UsageError(str(exc)) from None
    except MemoryError:
        raise UsageError(f"{path}: trace too large for the available memory") from None


def _explain(args: argparse.Namespace) -> int:
    from ..analyze import diagnose
    from ..detectors import REGISTRY
    from ..ranks import STRAGGLER_CODE, straggler_findings
    from ..report.explain import render_explanation
    from ..trace.synth import load

    if args.code == STRAGGLER_CODE:  # a cross-rank finding: no one-trace detector makes it
        doc = inspect.cleandoc(straggler_findings.__doc__ or "")
        sys.stdout.write(
            f"{STRAGGLER_CODE} (communication; from a directory of rank traces)\n\n{doc}\n"
        )
        return 0
    det = REGISTRY.get(args.code)
    if det is None:
        known = ", ".join([*REGISTRY, STRAGGLER_CODE])
        raise UsageError(f"explain: unknown detector {args.code!r}; known: {known}")
    frame = load(det.example(True))  # the detector's own positive and negative examples
    negative = diagnose([load(det.example(False))])
    sys.stdout.write(render_explanation(det, frame, diagnose([frame]), negative))
    return 0


def _load(path: str):
    from ..trace import TraceError, load_trace

    try:
        return load_trace(path)
    except TraceError as exc:
        raise UsageError(str(exc)) from None


def _compare(args: argparse.Namespace) -> int:
    from ..analyze import diagnose
    from ..compare import compare
    from ..report.progress import progress

    if args.fail_if_slower is not None and args.fail_if_slower < 0:
        raise UsageError("--fail-if-slower must be a percentage >= 0")
    sides = []
    with progress() as stage:
        for path in (args.before, args.after):
            with stage(f"reading and analysing {path}"):
                frames = _load(path)
                sides.append((frames, diagnose(frames, path=path)))
        result = compare(*sides)
    if args.format == "json":
        from ..report.json_report import render_plain

        text = render_plain(result.to_dict())
    elif args.format == "html":
        from ..report.html import render_comparison_html

        text = render_comparison_html(result, sides[0][1], sides[1][1])
    else:
        from ..report.compare_text import render_comparison

        text = render_comparison(result)
    _write(text, args.output)
    if args.fail_if_slower is not None:
        before, after = (d.summary.step_time_us for _, d in sides)
        if not before or after is None:
            missing = args.before if not before else args.after
            raise UsageError(
                f"{missing}: no step time to compare (trace has no steps), "
                "so --fail-if-slower cannot be judged"
            )
        slower_pct = 100.0 * (after - before) / before
        if slower_pct > args.fail_if_slower:
            sys.stderr.write(
                f"bottleneck-lab: --fail-if-slower {args.fail_if_slower:g}: {args.after} is "
                f"{slower_pct:.1f}% slower than {args.before} (median step "
                f"{before / 1000:.3f} ms -> {after / 1000:.3f} ms)\n"
            )
            return EXIT_GATE
    return EXIT_OK


def _peak(args: argparse.Namespace) -> int:
    from .peak import run_peak_command

    return run_peak_command(args)


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo_command

    return run_demo_command(args)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {
        "analyze": _analyze,
        "explain": _explain,
        "demo": _demo,
        "peak": _peak,
        "compare": _compare,
    }
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return handlers[args.command](args)
    except UsageError as exc:
        sys.stderr.write(f"bottleneck-lab: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("bottleneck-lab: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so in one line; the traceback only when asked for
        if os.environ.get("BOTTLENECK_LAB_DEBUG"):
            raise
        sys.stderr.write(
            f"bottleneck-lab: internal error ({type(exc).__name__}: {exc}); "
            "rerun with BOTTLENECK_LAB_DEBUG=1 for the traceback and report it\n"
        )
        return EXIT_BUG


def _keep_freed_memory() -> None:
    """Ask glibc's malloc to keep memory it is given back for reuse, rather than return every
    large block to the kernel at once: a large trace's arrays come and go (decode chunks, frame
    tables), and each block returned and asked for again cost page faults. Measured on the 10x
    trace: 161k -> 131k page faults, 0.6 -> 0.35 s of system time, peak RSS +20 MB (the same as
    MALLOC_MMAP_THRESHOLD_=256MB MALLOC_TRIM_THRESHOLD_=1GB). No-op without glibc's mallopt."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, ImportError):
        return
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    mallopt(M_MMAP_THRESHOLD, 256 << 20)  # blocks up to this come from the heap, reusably
    mallopt(M_TRIM_THRESHOLD, 1 << 30)  # free heap kept up to this much before trimming


def run() -> None:
    """The console script and `python -m bottleneck_lab`: main(), then exit without tearing the
    interpreter down. Freeing a large trace's frames object by object at shutdown took ~0.1 s
    of the 10x trace's ~3 s, and the process is ending anyway: output is flushed and the exit
    handlers run first, as a normal exit would run them."""
    import atexit

    _keep_freed_memory()
    rc = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):  # e.g. piped into `head`: the report was cut short anyway
        pass
    atexit._run_exitfuncs()
    os._exit(rc)
