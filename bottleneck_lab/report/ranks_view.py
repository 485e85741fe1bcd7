"""The cross-rank view (summary.extra["ranks"], built by ranks.cross_rank_view) as text lines
and as an HTML section. No analysis here."""

from __future__ import annotations

from typing import Any

from .format import fmt_us

TABLE_ROWS = 16  # the text and HTML tables show the stragglers and the slowest ranks up to this
BARS_MAX = 512  # ranks drawn in the HTML step-time chart


def shown_rows(view: dict[str, Any], limit: int = TABLE_ROWS) -> list[dict[str, Any]]:
    """All ranks when they fit, else the stragglers and then the slowest steps, in rank order."""
    rows = view["per_rank"]
    if len(rows) <= limit:
        return rows
    slow = {s["rank"] for s in view["stragglers"]}
    order = sorted(rows, key=lambda r: (r["rank"] not in slow, -(r["step_time_us"] or 0.0)))
    return sorted(order[:limit], key=lambda r: r["rank"])


def _finding(f: dict[str, Any] | None) -> str:
    if not f:
        return "-"
    share = f" {f['share_pct']:.0f}%" if f.get("share_pct") is not None else ""
    return f"{f['kind']}{share}"


def text_lines(view: dict[str, Any], width: int = 100) -> list[str]:
    import textwrap

    slow = {s["rank"] for s in view["stragglers"]}
    head = (
        f"straggler{'s' if len(slow) > 1 else ''}: rank {', '.join(map(str, sorted(slow)))}"
        if slow
        else "no straggler"
    )
    out = [f"Ranks ({view['count']}): {head}"]
    for s in view["stragglers"]:
        out += textwrap.wrap(s["why"], width, initial_indent="  ", subsequent_indent="    ")
    out.append(
        f"    {'rank':>5}  {'step':>9}  {'NCCL/step':>9}  {'wait/step':>9}  {'idle wait':>9}  "
        f"{'transfer':>9}  {'last':>5}  own top finding"
    )
    for r in shown_rows(view):
        last = r["last_to_arrive"]
        out.append(
            (
                f"  {'*' if r['rank'] in slow else ' '} {r['rank']:>5}  {fmt_us(r['step_time_us']):>9}  "
                f"{fmt_us(r['collective_us_per_step']):>9}  "
                f"{fmt_us(r['collective_wait_us_per_step']):>9}  "
                f"{fmt_us(r.get('collective_exposed_wait_us_per_step')):>9}  "
                f"{fmt_us(r['collective_transfer_us_per_step']):>9}  "
                f"{last if last is not None else '-':>5}  {_finding(r['top_finding'])}"
            )[:width]
        )
    hidden = view["count"] - len(shown_rows(view))
    if hidden:
        out.append(f"    ... {hidden} more ranks in the JSON report (summary.ranks.per_rank)")
    if view["skew_us_median"] is not None:
        worst = max(view["skew_by_step"], key=lambda s: s["skew_us"])
        notes = [
            f"step skew across ranks (max - min step time): median "
            f"{fmt_us(view['skew_us_median'])}, max {fmt_us(view['skew_us_max'])} (step "
            f"{worst['step']}, rank {worst['slowest_rank']} slowest)"
        ]
    else:
        notes = []
    notes.append(
        "wait = a collective's time beyond its shortest duration on any rank (the transfer); "
        "idle wait = the part of it no compute kernel overlaps, which a straggler is judged by; "
        "last = collectives it was the last to join"
    )
    for n in notes:
        out += textwrap.wrap(n, width, initial_indent="  ", subsequent_indent="    ")
    return out


SECTION = """
<section id="{{ prefix }}ranks"><h{{ level }}>Ranks</h{{ level }}>
{%- if v.stragglers %}
{%- for s in v.stragglers %}<p class="worse"><strong>Straggler: rank {{ s.rank }}.</strong> {{ s.why }}.</p>{% endfor %}
{%- else %}<p>No straggler: no rank keeps the others waiting more than {{ v.straggler_min_share_pct }}% of the step.</p>{% endif %}
<p class="muted">Median step time per rank; the orange part is time spent waiting in collectives for the slowest peer.</p>
<svg class="ranks" role="img" aria-label="step time per rank" viewBox="0 0 {{ L + W + 90 }} {{ bars | length * 14 + 8 }}"
     width="100%" xmlns="http://www.w3.org/2000/svg">
{%- for r in bars %}{% set y = loop.index0 * 14 + 4 %}
  <text x="{{ L - 6 }}" y="{{ y + 10 }}" text-anchor="end">rank {{ r.rank }}</text>
  <rect x="{{ L }}" y="{{ y }}" width="{{ '%.1f' % ((r.step_time_us or 0) * xs) }}" height="11"
        fill="{{ '#d62728' if r.rank in slow else '#4c9be8' }}"><title>rank {{ r.rank }}: {{ fmt_us(r.step_time_us) }} median step</title></rect>
  {%- if r.collective_wait_us_per_step %}
  <rect x="{{ L }}" y="{{ y + 3 }}" width="{{ '%.1f' % ([r.collective_wait_us_per_step, r.step_time_us or 0] | min * xs) }}" height="5"
        fill="#f28e2b"><title>rank {{ r.rank }}: waits {{ fmt_us(r.collective_wait_us_per_step) }} per step in collectives</title></rect>
  {%- endif %}
  <text x="{{ '%.1f' % (L + (r.step_time_us or 0) * xs + 4) }}" y="{{ y + 10 }}">{{ fmt_us(r.step_time_us) }}{{ ' straggler' if r.rank in slow }}</text>
{%- endfor %}
</svg>
<table class="ranks"><tr><th class="num">rank</th><th class="num">median step</th><th class="num">NCCL / step</th>
<th class="num">wait / step</th><th class="num">idle wait / step</th><th class="num">transfer / step</th><th class="num">last to arrive</th><th>own top finding</th></tr>
{%- for r in rows %}
<tr{% if r.rank in slow %} class="worse"{% endif %}><td class="num">{{ r.rank }}</td><td class="num">{{ fmt_us(r.step_time_us) }}</td>
<td class="num">{{ fmt_us(r.collective_us_per_step) }}</td><td class="num">{{ fmt_us(r.collective_wait_us_per_step) }}</td>
<td class="num">{{ fmt_us(r.collective_exposed_wait_us_per_step) }}</td>
<td class="num">{{ fmt_us(r.collective_transfer_us_per_step) }}</td><td class="num">{{ r.last_to_arrive if r.last_to_arrive is not none else '-' }}</td>
<td>{{ finding(r.top_finding) }}</td></tr>
{%- endfor %}
</table>
{%- if rows | length < v.count %}<p class="muted">{{ v.count - rows | length }} more ranks in the JSON report.</p>{% endif %}
{%- if v.skew_us_median is not none %}
<p>Step skew across ranks (max - min step time): median {{ fmt_us(v.skew_us_median) }}, max {{ fmt_us(v.skew_us_max) }}.</p>
{%- endif %}
</section>
"""


def html_section(view: dict[str, Any], level: int = 2, prefix: str = "") -> str:
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    bars = view["per_rank"][:BARS_MAX]
    top = max((r["step_time_us"] or 0.0 for r in bars), default=0.0) or 1.0
    L, W = 70, 600
    html = env.from_string(SECTION).render(
        v=view,
        bars=bars,
        rows=shown_rows(view),
        slow={s["rank"] for s in view["stragglers"]},
        xs=W / top,
        L=L,
        W=W,
        level=level,
        prefix=prefix,
        fmt_us=fmt_us,
        finding=_finding,
    )
    return Markup(html)
