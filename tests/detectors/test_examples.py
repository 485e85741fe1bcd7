"""Every detector on the examples it carries (`example(bad)` beside each detector, as Fixit rules
carry VALID and INVALID code): the positive trace yields the detector's code, the negative does
not, and neither makes a detector fail."""

from __future__ import annotations

import pytest

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.commands.cli import main
from bottleneck_lab.detectors import REGISTRY
from bottleneck_lab.trace.synth import TraceBuilder, load


def codes(bad: bool, code: str) -> list[str]:
    example = REGISTRY[code].example(bad)
    assert isinstance(example, TraceBuilder)
    d = diagnose([load(example)])
    assert d.errors == {} and code not in d.skipped
    return [f.code for f in d.findings]


@pytest.mark.parametrize("code", REGISTRY)
def test_the_positive_example_yields_the_code(code):
    assert code in codes(True, code)


@pytest.mark.parametrize("code", REGISTRY)
def test_the_negative_example_does_not(code):
    assert code not in codes(False, code)


@pytest.mark.parametrize("code", ["sync-stall", "activation-memory"])
def test_explain_shows_the_positive_example_and_its_finding(code, capsys):
    assert main(["explain", code]) == 0
    out = capsys.readouterr().out
    det = REGISTRY[code]
    assert det.doc.splitlines()[0] in out
    assert det.example.__doc__.split()[0] in out  # what the example trace shows
    found = next(f for f in diagnose([load(det.example(True))]).findings if f.code == code)
    flat = " ".join(out.split())  # explain wraps long titles
    assert found.title in flat and found.severity in out  # the finding it yields
