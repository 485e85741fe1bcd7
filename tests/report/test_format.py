"""Every owner of idle time (facts.OWNERS) has a label and a colour in the reports."""

from bottleneck_lab import facts
from bottleneck_lab.report.format import OWNER_COLOURS, OWNER_LABELS


def test_every_idle_owner_has_a_label_and_a_colour():
    assert set(facts.OWNERS) | {"busy"} <= set(OWNER_LABELS)
    assert set(OWNER_LABELS) == set(OWNER_COLOURS)
