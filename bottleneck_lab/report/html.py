"""HTML report: one self-contained file (no scripts, no external fonts, images or CDNs; the charts
are inline SVG drawn here), so it opens offline and can be attached to a ticket.

No analysis happens here: the verdict, findings, per-step timeline (`summary.extra["timeline"]`),
memory curve (`memory_curve`) and top kernels (`top_kernels`) all come from the Diagnosis.
Jinja2 does the templating, with autoescaping on.
"""

from __future__ import annotations

from typing import Any

from ..diagnosis import Diagnosis, Finding
from .format import (
    OWNER_COLOURS,
    OWNER_LABELS,
    SEVERITY_COLOURS,
    fmt_bytes,
    fmt_metric,
    fmt_rate,
    fmt_us,
    fmt_value,
    short_kernel,
)
from .text import _summary_rows, verdict

CSS = """
.blab { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; color: #222;
        max-width: 1100px; margin: 0 auto; padding: 8px 16px; }
.blab h1 { font-size: 22px; margin: 8px 0 4px; } .blab h2 { font-size: 17px; margin: 22px 0 8px;
        border-bottom: 1px solid #ddd; padding-bottom: 3px; }
.blab .muted { color: #666; } .blab code { font-size: 12.5px; }
.blab .verdict { background: #f6f8fa; border-left: 5px solid #c0392b; padding: 10px 14px; font-size: 15px; }
.blab .verdict.ok { border-left-color: #27ae60; }
.blab .finding { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
.blab .finding h3 { font-size: 15px; margin: 2px 0 6px; }
.blab .sev { display: inline-block; color: #fff; border-radius: 3px; padding: 0 6px; font-size: 12px;
        font-weight: 600; text-transform: uppercase; margin-right: 6px; }
.blab .meta { color: #555; font-size: 13px; } .blab .fix { margin: 6px 0 2px; }
.blab details summary { cursor: pointer; color: #2e5c8a; font-size: 13px; }
.blab table { border-collapse: collapse; font-size: 13px; margin: 4px 0; }
.blab th, .blab td { border-bottom: 1px solid #eee; padding: 3px 8px; text-align: left; vertical-align: top; }
.blab table.facts th { white-space: nowrap; }
.blab td.num, .blab th.num { text-align: right; font-variant-numeric: tabular-nums; }
.blab .legend span { display: inline-block; margin-right: 14px; font-size: 12.5px; }
.blab .legend i { display: inline-block; width: 11px; height: 11px; margin-right: 4px; vertical-align: -1px; }
.blab svg text { font: 11px system-ui, sans-serif; fill: #333; }
.blab .better { color: #1e8449; } .blab .worse { color: #c0392b; }
"""

TEMPLATE = r"""
{%- macro timeline_svg(tl) -%}
{%- set W = 1000 -%}{%- set L = 70 -%}{%- set ROW = 26 -%}
{%- set steps = tl.steps -%}
{%- set longest = steps | map(attribute="dur_us") | max -%}
<svg class="timeline" role="img" aria-label="GPU busy and idle per step, idle coloured by cause"
     viewBox="0 0 {{ W + L + 10 }} {{ steps | length * ROW * 2 + 28 }}" width="100%"
     xmlns="http://www.w3.org/2000/svg">
{%- for st in steps %}
  {%- set y = loop.index0 * ROW * 2 + 4 -%}
  {%- set scale = W / longest -%}
  <text x="0" y="{{ y + 14 }}">step {{ st.step }}</text>
  <text x="0" y="{{ y + 14 + ROW }}" class="muted">{{ fmt_us(st.dur_us) }}</text>
  <rect x="{{ L }}" y="{{ y }}" width="{{ '%.2f' % (st.dur_us * scale) }}" height="18" fill="{{ colours.busy }}">
    <title>step {{ st.step }}: GPU busy {{ fmt_us(st.busy_us) }} of {{ fmt_us(st.dur_us) }}</title></rect>
  {%- for g in st.gaps %}
  <rect x="{{ '%.2f' % (L + g[0] * scale) }}" y="{{ y }}" width="{{ '%.2f' % ([g[1] * scale, 0.6] | max) }}"
        height="18" fill="{{ colours[tl.owners[g[2]]] }}"><title>{{ labels[tl.owners[g[2]]] }}: {{ fmt_us(g[1]) }} idle at {{ '%.2f' % (g[0] / 1000) }} ms</title></rect>
  {%- endfor %}
  {#- the same step as one stacked bar: busy, then idle by cause (small gaps add up here) #}
  {%- set ns = namespace(x=L) %}
  <rect x="{{ L }}" y="{{ y + ROW }}" width="{{ '%.2f' % (st.busy_us * scale) }}" height="10" fill="{{ colours.busy }}" class="stack">
    <title>GPU busy {{ fmt_us(st.busy_us) }}</title></rect>
  {%- set ns.x = L + st.busy_us * scale %}
  {%- for owner, us in st.idle_us_by_owner | dictsort(by="value", reverse=true) %}
  <rect x="{{ '%.2f' % ns.x }}" y="{{ y + ROW }}" width="{{ '%.2f' % (us * scale) }}" height="10" fill="{{ colours[owner] }}" class="stack">
    <title>{{ labels[owner] }}: {{ fmt_us(us) }} idle in this step</title></rect>
  {%- set ns.x = ns.x + us * scale %}
  {%- endfor %}
{%- endfor %}
  <text x="{{ L }}" y="{{ steps | length * ROW * 2 + 20 }}">0</text>
  <text x="{{ L + W }}" y="{{ steps | length * ROW * 2 + 20 }}" text-anchor="end">{{ fmt_us(longest) }} from each step's start</text>
</svg>
<div class="legend">
  {%- for key in ["busy"] + present_owners(tl) %}
  <span><i style="background: {{ colours[key] }}"></i>{{ labels[key] }}</span>
  {%- endfor %}
</div>
{%- if steps | sum(attribute="gaps_omitted") %}
<p class="muted">{{ steps | sum(attribute="gaps_omitted") }} of the smallest gaps are not drawn one by one
(the stacked bars still count them).</p>
{%- endif %}
{%- endmacro -%}

{%- macro memory_svg(mc) -%}
{%- set W = 1000 -%}{%- set H = 220 -%}{%- set L = 60 -%}
{%- set pts = mc.points -%}
{%- set t0 = [pts[0][0], (mc.steps | map(attribute="start_ms") | list + [pts[0][0]]) | min] | min -%}
{%- set t1 = [pts[-1][0], (mc.steps | map(attribute="end_ms") | list + [pts[-1][0]]) | max] | max -%}
{%- set span = [t1 - t0, 1e-9] | max -%}
{%- set top = [(pts | map(attribute=2) | max), (pts | map(attribute=1) | max), 1] | max -%}
{%- set xs = W / span -%}{%- set ys = H / top -%}
<svg class="memory" role="img" aria-label="memory curve" viewBox="0 0 {{ W + L + 10 }} {{ H + 40 }}"
     width="100%" xmlns="http://www.w3.org/2000/svg">
  {%- for st in mc.steps %}{% for p in st.phases %}
  <rect x="{{ '%.2f' % (L + (p.start_ms - t0) * xs) }}" y="10" width="{{ '%.2f' % ([(p.end_ms - p.start_ms) * xs, 0.5] | max) }}"
        height="{{ H }}" fill="{{ phase_colours[p.name] }}" opacity="0.15"><title>step {{ st.step }} {{ p.name }}</title></rect>
  {%- endfor %}
  <line x1="{{ '%.2f' % (L + (st.start_ms - t0) * xs) }}" x2="{{ '%.2f' % (L + (st.start_ms - t0) * xs) }}" y1="10" y2="{{ H + 10 }}" stroke="#888" stroke-dasharray="4 3"/>
  <text x="{{ '%.2f' % (L + (st.start_ms - t0) * xs + 3) }}" y="22">step {{ st.step }}</text>
  {%- endfor %}
  <polyline fill="none" stroke="#999" stroke-width="1" points="
    {%- for p in pts %}{{ '%.2f,%.2f ' % (L + (p[0] - t0) * xs, 10 + H - p[2] * ys) }}{% endfor %}"><title>Total Reserved</title></polyline>
  <polyline fill="none" stroke="#d62728" stroke-width="1.4" points="
    {%- for p in pts %}{{ '%.2f,%.2f ' % (L + (p[0] - t0) * xs, 10 + H - p[1] * ys) }}{% endfor %}"><title>Total Allocated</title></polyline>
  {%- for st in mc.steps %}
  <circle cx="{{ '%.2f' % (L + (st.peak_ms - t0) * xs) }}" cy="{{ '%.2f' % (10 + H - st.peak_bytes * ys) }}" r="3" fill="#000">
    <title>step {{ st.step }} peak {{ fmt_bytes(st.peak_bytes) }}{% if st.peak_op %} in {{ st.peak_op }}{% endif %}{% if st.peak_phase %} ({{ st.peak_phase }}){% endif %}</title></circle>
  {%- endfor %}
  <text x="0" y="16">{{ fmt_bytes(top) }}</text><text x="0" y="{{ H + 10 }}">0</text>
  <text x="{{ L }}" y="{{ H + 30 }}">{{ '%.1f' % t0 }} ms</text>
  <text x="{{ L + W }}" y="{{ H + 30 }}" text-anchor="end">{{ '%.1f' % t1 }} ms from the first step</text>
</svg>
<div class="legend"><span><i style="background:#d62728"></i>Total Allocated</span><span><i style="background:#999"></i>Total Reserved</span>
  {%- for name, c in phase_colours.items() %}<span><i style="background: {{ c }}; opacity: .4"></i>{{ name }}</span>{% endfor %}
  <span>● step peak</span></div>
<p class="muted">{{ mc.device }}: peak allocated {{ fmt_bytes(mc.peak_bytes) }}{% if mc.capacity_bytes %} of {{ fmt_bytes(mc.capacity_bytes) }} device memory{% endif %};
{{ mc.events }} [memory] events{% if mc.points | length < mc.events %}, drawn as {{ mc.points | length }} points (each bucket's lowest and highest){% endif %}.</p>
{%- endmacro -%}

{%- macro roofline_svg(rf) -%}
<svg class="roofline" role="img" aria-label="roofline of the top ops: arithmetic intensity against achieved TFLOP/s"
     viewBox="0 0 {{ rf.width }} {{ rf.height }}" width="100%" style="max-width: 900px"
     xmlns="http://www.w3.org/2000/svg">
  <rect x="{{ rf.x0 }}" y="{{ rf.y0 }}" width="{{ rf.x1 - rf.x0 }}" height="{{ rf.y1 - rf.y0 }}" fill="none" stroke="#ccc"/>
  {%- for x, label in rf.xticks %}
  <line x1="{{ x }}" x2="{{ x }}" y1="{{ rf.y0 }}" y2="{{ rf.y1 }}" stroke="#eee"/>
  <text x="{{ x }}" y="{{ rf.y1 + 15 }}" text-anchor="middle">{{ label }}</text>
  {%- endfor %}
  {%- for y, label in rf.yticks %}
  <line x1="{{ rf.x0 }}" x2="{{ rf.x1 }}" y1="{{ y }}" y2="{{ y }}" stroke="#eee"/>
  <text x="{{ rf.x0 - 5 }}" y="{{ y + 4 }}" text-anchor="end">{{ label }}</text>
  {%- endfor %}
  <text x="{{ (rf.x0 + rf.x1) / 2 }}" y="{{ rf.y1 + 33 }}" text-anchor="middle">arithmetic intensity (FLOP per byte moved, log scale)</text>
  <text x="14" y="{{ (rf.y0 + rf.y1) / 2 }}" text-anchor="middle" transform="rotate(-90 14 {{ (rf.y0 + rf.y1) / 2 }})">achieved TFLOP/s (log scale)</text>
  {%- set m = rf.memory_roof %}
  <line class="roof" x1="{{ m.x1 }}" y1="{{ m.y1 }}" x2="{{ m.x2 }}" y2="{{ m.y2 }}" stroke="#555" stroke-width="2">
    <title>memory roof: {{ m.label }}</title></line>
  <text x="{{ m.lx }}" y="{{ m.ly }}" fill="#555" text-anchor="middle" transform="rotate({{ m.angle }} {{ m.lx }} {{ m.ly }})">memory roof {{ m.label }}</text>
  {%- for r in rf.compute_roofs %}
  <line class="roof" x1="{{ r.x1 }}" y1="{{ r.y }}" x2="{{ r.x2 }}" y2="{{ r.y }}" stroke="{{ r.colour }}" stroke-width="2">
    <title>{{ r.label }} compute roof; ridge point {{ r.ridge }} FLOP/byte</title></line>
  <line x1="{{ r.x1 }}" x2="{{ r.x1 }}" y1="{{ r.y }}" y2="{{ rf.y1 }}" stroke="{{ r.colour }}" stroke-dasharray="3 3"/>
  <text x="{{ r.x2 - 4 }}" y="{{ r.y - 5 }}" text-anchor="end" fill="{{ r.colour }}">{{ r.label }}</text>
  <text x="{{ r.x1 + 3 }}" y="{{ rf.y1 - 5 }}" fill="{{ r.colour }}">ridge {{ r.ridge }}</text>
  {%- endfor %}
  {%- for pt in rf.points %}
  <g class="op-point">{% if pt.clipped %}<polygon points="{{ pt.x - 5 }},{{ pt.y - 4 }} {{ pt.x + 5 }},{{ pt.y - 4 }} {{ pt.x }},{{ pt.y + 5 }}" fill="{{ pt.colour }}"/>
    {%- else %}<circle cx="{{ pt.x }}" cy="{{ pt.y }}" r="5" fill="{{ pt.colour }}" stroke="#fff"/>{% endif %}
    <text x="{{ pt.lx }}" y="{{ pt.ly }}" font-weight="600">{{ pt.n }}</text><title>{{ pt.title }}</title></g>
  {%- endfor %}
</svg>
{%- endmacro -%}

{%- macro kernels_table(top) -%}
<table class="kernels">
<tr><th>kernel</th><th class="num">calls/step</th><th class="num">time/step</th><th class="num">% of kernel time</th><th class="num" title="median thread blocks a launch">blocks</th><th>dtype</th><th class="num">TFLOP/s</th><th class="num">% of peak</th></tr>
{%- set ns = namespace(sms=none) %}
{%- for k in top %}
{%- set blocks, sms = k.get('median_grid_blocks'), k.get('sm_count') %}
{%- set under = k.get('underfills_sms') %}
{%- if under %}{% set ns.sms = sms %}{% endif %}
<tr><td title="{{ k.kernel }}"><code>{{ short_kernel(k.kernel, 70) }}</code></td><td class="num">{{ '%.1f' % k.calls_per_step }}</td>
<td class="num">{{ fmt_us(k.us_per_step) }}</td><td class="num">{{ k.pct_of_kernel_time if k.pct_of_kernel_time is not none else '-' }}</td>
<td class="num{{ ' worse' if under }}"{% if under %} title="{{ blocks }} blocks for the GPU's {{ sms }} SMs: while it runs alone, the SMs without a block have nothing to do"{% endif %}>{{ '-' if blocks is none else '{:,}'.format(blocks) }}</td>
<td>{{ k.dtype or '-' }}</td><td class="num">{{ rate(k.tflops) }}</td>
<td class="num">{{ '-' if k.pct_of_peak is none else '<1%' if k.pct_of_peak < 1 else '%.0f%%' % k.pct_of_peak }}</td></tr>
{%- endfor %}
</table>
{%- if ns.sms %}<p class="muted">Blocks in red: a launch (median) gives a tenth or more of the GPU's {{ ns.sms }} SMs no thread block; while such a kernel runs alone, those SMs have nothing to do.</p>{% endif %}
{%- endmacro -%}

{%- macro evidence(ev) -%}
<table class="evidence">
{%- for key, v in ev.items() %}
<tr><th>{{ key }}</th><td>
  {%- if v is mapping -%}{{ fmt_ev(v) }}
  {%- elif v is sequence and v is not string and v and v[0] is mapping -%}
  {%- set cols = columns(v) %}
  <table><tr>{% for c in cols %}<th>{{ c }}</th>{% endfor %}</tr>
  {%- for row in v[:10] %}<tr>{% for c in cols %}<td{% if row[c] is string and row[c] | length > 70 %} title="{{ row[c] }}"{% endif %}>{{ fmt_ev(row[c]) if c in row else '' }}</td>{% endfor %}</tr>{% endfor %}
  </table>{% if v | length > 10 %}<span class="muted">{{ v | length - 10 }} more in the JSON report</span>{% endif %}
  {%- else -%}{{ fmt_ev(v) }}{%- endif -%}
</td></tr>
{%- endfor %}
</table>
{%- endmacro -%}

{%- macro diagnosis_body(x, level=2, prefix="") -%}{%- set d = x.d -%}
<div class="verdict{% if d.verdict is none %} ok{% endif %}" id="{{ prefix }}verdict">{{ x.verdict_text }}</div>
<section id="{{ prefix }}findings"><h{{ level }}>Findings, most costly first</h{{ level }}>
{%- if not d.findings %}<p>None.</p>{% endif %}
{%- for f in d.findings %}
<article class="finding" id="{{ prefix }}finding-{{ f.code }}" data-code="{{ f.code }}" data-severity="{{ f.severity }}">
  <h3><span class="sev" style="background: {{ sev_colours[f.severity] }}">{{ f.severity }}</span>{{ loop.index }}. {{ f.title }}</h3>
  <div class="meta"><code>{{ f.kind }}</code> · <code>{{ f.code }}</code> ·
    {% if f.time_lost_us_per_step is not none %}lost {{ fmt_us(f.time_lost_us_per_step) }} per step{% if f.share_pct is not none %} ({{ '%.1f' % f.share_pct }}% of the step){% endif %}{% else %}no time estimate{% endif %}
    {#- both MFUs over the step without the profiler's share, where the diagnosis gives it #}
    {%- if f.efficiency and f.efficiency.mfu_pct_if_recovered is not none %} · MFU {{ f.efficiency.mfu_pct_without_profiler_est if f.efficiency.mfu_pct_without_profiler_est is not none else f.efficiency.mfu_pct }}% → {{ f.efficiency.mfu_pct_if_recovered }}% if recovered{% endif %}</div>
  <p class="fix"><strong>Fix:</strong> {{ f.fix }}</p>
  {%- if f.evidence %}
  <details><summary>Evidence</summary>{{ evidence(f.evidence) }}</details>
  {%- endif %}
</article>
{%- endfor %}
</section>
{%- if x.timeline and x.timeline.steps %}
<section id="{{ prefix }}timeline"><h{{ level }}>GPU busy and idle, step by step</h{{ level }}>
<p class="muted">Each step drawn to scale on GPU {{ x.timeline.device }}: blue is busy, every idle gap coloured by the cause
it is attributed to (the finding that reports it). The thin bar below adds the step up: busy, then idle by cause.</p>
{{ timeline_svg(x.timeline) }}
</section>
{%- endif %}
{%- if x.ranks %}{{ ranks_section(x.ranks, level, prefix) }}{% endif %}
{%- if x.memory %}
<section id="{{ prefix }}memory"><h{{ level }}>Memory</h{{ level }}>
{{ memory_svg(x.memory) }}
</section>
{%- endif %}
{%- if x.roofline %}{% set rf = x.roofline %}
<section id="{{ prefix }}roofline"><h{{ level }}>Roofline of the top ops</h{{ level }}>
{%- if rf.unavailable %}
<p class="muted">No roofline: {{ rf.unavailable }}.</p>
{%- else %}
<p class="muted">Each numbered point is one of the ops with the most GPU time: across, the FLOPs it does per byte it
moves; up, the FLOP rate its kernels reached. The slanted line is what {{ rf.device }}'s memory bandwidth
({{ rf.bandwidth }}) allows at that intensity; the flat lines are the compute peaks; they meet at the ridge point.
A point left of its ridge is memory-bound: only moving fewer bytes (fusing ops, lower precision) makes it faster.
Right of it, it is compute-bound: faster math (BF16 tensor cores) helps. The distance below the roof is what the op leaves unused.</p>
{{ roofline_svg(rf) }}
<table class="roofline-ops">
<tr><th class="num">#</th><th>op</th><th>dtype</th><th class="num">GPU time/step</th><th class="num">FLOP/byte</th><th class="num">TFLOP/s</th><th class="num">GB/s</th><th>bound</th><th class="num">% of roof</th></tr>
{%- for r in rf.rows %}
<tr><td class="num">{{ r.n or '' }}</td><td><code>{{ r.op }}</code></td><td>{{ r.dtype }}</td><td class="num">{{ fmt_us(r.gpu_us_per_step) }}</td>
<td class="num">{{ num(r.flop_per_byte) }}</td><td class="num">{{ num(r.tflops) }}</td><td class="num">{{ num(r.gb_per_s) }}</td>
<td>{{ r.bound or '-' }}</td><td class="num">{{ ('<1%' if r.pct_of_roof < 1 else '%.0f%%' % r.pct_of_roof) if r.pct_of_roof is not none else ('not drawn: ' ~ r.why) }}</td></tr>
{%- endfor %}
</table>
{%- if rf.points | selectattr("clipped") | list %}
<p class="muted">▼ marks an op far below every roof (its kernels do next to no math per call: a scalar op, or launch-bound
work), drawn on the plot's edge; hover it for its numbers.</p>
{%- endif %}
{%- if rf.above_compute %}
<p class="muted">Above the compute roof ({{ rf.above_compute | join(", ") }}): faster than its dtype's peak allows, so its
kernels did not run (all) in that precision; for FP32 that is TF32 tensor cores the kernel names did not reveal.</p>
{%- endif %}
{%- if rf.above_memory %}
<p class="muted">Above the memory roof ({{ rf.above_memory | join(", ") }}): it moved its modelled bytes faster than device
memory can, so part of them came from the L2 cache (small tensors, or one read shared by several kernels).</p>
{%- endif %}
<p class="muted">Bytes are the op's modelled traffic (inputs read and outputs written once); peaks: {{ rf.source }}.</p>
{%- endif %}
</section>
{%- endif %}
{%- if x.top_kernels %}
<section id="{{ prefix }}kernels"><h{{ level }}>Top kernels by GPU time</h{{ level }}>
{{ kernels_table(x.top_kernels) }}
</section>
{%- endif %}
<section id="{{ prefix }}summary"><h{{ level }}>Summary</h{{ level }}>
<table class="facts">
{%- for k, v in x.summary_rows %}<tr><th>{{ k }}</th><td>{{ v }}</td></tr>{% endfor %}
</table>
{%- for title, items in x.summary_tables %}
<h4>{{ title }}</h4>{{ evidence({title: items}) }}
{%- endfor %}
{%- if d.skipped %}<p class="muted">Detectors skipped:{% for why, codes in skipped_by_reason(d.skipped).items() %} {{ why }} ({% for c in codes %}<code>{{ c }}</code>{{ ", " if not loop.last }}{% endfor %}){{ ";" if not loop.last else "." }}{% endfor %}</p>{% endif %}
{%- if d.errors %}<p class="worse">Detector errors (the rest stands): {% for c, m in d.errors.items() %}<code>{{ c }}</code>: {{ m }}{{ "; " if not loop.last }}{% endfor %}</p>{% endif %}
{%- for w in d.trace.warnings %}<p class="muted">Warning: {{ w }}</p>{% endfor %}
</section>
{%- endmacro -%}

{%- if kind == "diagnosis" -%}
<div class="blab"><style>{{ css }}</style>
<h1>bottleneck-lab diagnosis</h1>
<p class="muted"><code>{{ d.trace.path }}</code>{% if d.trace.device %} · {{ d.trace.device.name }}{% endif %} · {{ "{:,}".format(d.trace.events) }} events</p>
{{ diagnosis_body(x) }}
</div>
{%- else -%}
<div class="blab"><style>{{ css }}</style>
<h1>bottleneck-lab comparison</h1>
<p class="muted">before <code>{{ c.before }}</code> · after <code>{{ c.after }}</code></p>
<section id="comparison"><h2>What changed</h2>
<table class="metrics"><tr><th></th><th class="num">before</th><th class="num">after</th><th class="num">after / before</th></tr>
{%- for r in c.rows %}
<tr><th>{{ r.label }}</th><td class="num">{{ metric(r.field, r.before) }}</td><td class="num">{{ metric(r.field, r.after) }}</td>
<td class="num {{ judge(r) }}">{{ ('%.2fx' % r.ratio) if r.ratio is not none else '' }}</td></tr>
{%- endfor %}
</table>
<p><strong>Findings (medium/high) gone after:</strong> {% if not c.gone %}none{% endif %}</p>
<ul>{% for g in c.gone %}<li class="better"><code>{{ g.code }}</code>: {{ g.title }}</li>{% endfor %}</ul>
<p><strong>New after:</strong> {% if not c.new %}none{% endif %}</p>
<ul>{% for g in c.new %}<li class="worse"><code>{{ g.code }}</code>: {{ g.title }}</li>{% endfor %}</ul>
{%- if c.checkpointing %}{% set k = c.checkpointing %}
<p>Activation checkpointing ({{ k.checkpointed }}) saved {{ fmt_bytes(k.saved_bytes) }} of peak memory ({{ '%.0f' % k.saved_pct }}%)
{%- if k.recompute_us_per_step is not none %} for {{ fmt_us(k.recompute_us_per_step) }} of recompute per step{% endif %}.</p>
{%- endif %}
</section>
{%- for label, side in sides %}
<section class="side" id="{{ label }}"><h2>{{ label | capitalize }}: <code>{{ side.d.trace.path }}</code></h2>
{{ diagnosis_body(side, 3, label ~ "-") }}
</section>
{%- endfor %}
</div>
{%- endif -%}
"""

PHASE_COLOURS = {"forward": "#4c9be8", "backward": "#f28e2b", "optimizer": "#59a14f"}
_env = None


def _environment():
    from .ranks_view import html_section

    global _env
    if _env is None:
        import jinja2

        _env = jinja2.Environment(
            autoescape=True,
            trim_blocks=False,
            lstrip_blocks=False,
            undefined=jinja2.StrictUndefined,
        )
        _env.globals.update(
            fmt_us=fmt_us,
            fmt_bytes=fmt_bytes,
            fmt_ev=_fmt_ev,
            short_kernel=short_kernel,
            metric=fmt_metric,
            judge=_judge,
            columns=_columns,
            present_owners=_present_owners,
            skipped_by_reason=_skipped_by_reason,
            num=_num,
            rate=fmt_rate,
            colours=OWNER_COLOURS,
            labels=OWNER_LABELS,
            sev_colours=SEVERITY_COLOURS,
            phase_colours=PHASE_COLOURS,
            css=CSS,
            ranks_section=html_section,
        )
    return _env.from_string(TEMPLATE)


def _fmt_ev(v: Any) -> str:
    if isinstance(v, str) and len(v) > 70 and ("<" in v or "(" in v):
        return short_kernel(v, 70)
    if isinstance(v, list) and v and isinstance(v[0], dict):
        return "; ".join(_fmt_ev(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt_ev(x)}" for k, x in v.items())
    return fmt_value(v)


def _present_owners(tl: dict) -> list[str]:
    """The idle causes this timeline draws, in the timeline's order: the legend names only those."""
    seen = {k for st in tl["steps"] for k, v in st["idle_us_by_owner"].items() if v > 0}
    seen |= {tl["owners"][g[2]] for st in tl["steps"] for g in st["gaps"]}
    return [o for o in tl["owners"] if o in seen]


def _skipped_by_reason(skipped: dict[str, str]) -> dict[str, list[str]]:
    """Skipped detectors grouped by their reason, said once ("trace has no GPU kernels": ...)."""
    out: dict[str, list[str]] = {}
    for code, why in skipped.items():
        out.setdefault(why.removeprefix("skipped: "), []).append(code)
    return out


def _columns(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(k for r in rows for k in r))


def _judge(row: dict) -> str:
    """CSS class for a metric ratio: better or worse by the row's own `better` direction."""
    r, better = row.get("ratio"), row.get("better")
    if r is None or better not in ("lower", "higher") or abs(r - 1.0) < 0.02:
        return ""
    return "better" if (r < 1.0) == (better == "lower") else "worse"


# How many decades below the highest roof (and left of the lowest ridge) the roofline shows.
DECADES = 5
# Compute roofs and their points share a colour per dtype.
DTYPE_COLOURS = {"bf16": "#2e86c1", "fp16": "#17a589", "tf32": "#8e44ad", "fp32": "#d35400"}


def _num(v: float | None) -> str:
    """A rate or intensity spanning decades: 3 significant digits, no exponent for the usual range."""
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _roofline(rows: list[dict], roofs: dict | None) -> dict | None:
    """Layout of the roofline SVG (log-log), from the Diagnosis' `roofline` rows and
    `roofline_roofs`; only positions and labels are worked out here, every value is the
    analysis'. None when the summary has no roofline facts (no GPU)."""
    import math

    if roofs is None:
        return None
    if roofs.get("unavailable"):
        return {"unavailable": roofs["unavailable"]}
    peaks, bw = roofs["compute_tflops"], roofs["mem_bw_gbps"]
    drawn = [r for r in rows if r["tflops"] and r["flop_per_byte"] and r["roof_tflops"]]
    ridges = list(roofs["ridge_flop_per_byte"].values())
    ais = [r["flop_per_byte"] for r in drawn] + ridges
    rates = [r["tflops"] for r in drawn] + list(peaks.values())
    # Whole decades around the points and roofs, a little room on each side, at most DECADES
    # below the roofs: an op that does next to nothing (a scalar add) must not squash the rest;
    # it is drawn on the bottom or left edge as a triangle, its numbers in its hover title.
    xhi = math.ceil(math.log10(max(ais) * 1.5))
    xlo = max(math.floor(math.log10(min(ais) / 2)), math.floor(math.log10(min(ridges))) - DECADES)
    yhi = math.ceil(math.log10(max(rates) * 2))
    ylo = max(
        math.floor(math.log10(min(rates) / 2)),
        math.floor(math.log10(max(peaks.values()))) - DECADES,
    )
    x0, x1, y0, y1 = 70.0, 880.0, 10.0, 400.0

    def px(ai: float) -> float:
        return round(x0 + (math.log10(ai) - xlo) / (xhi - xlo) * (x1 - x0), 1)

    def py(tflops: float) -> float:
        return round(y1 - (math.log10(tflops) - ylo) / (yhi - ylo) * (y1 - y0), 1)

    top = max(peaks.values())
    ridge_top = top * 1e3 / bw
    start = max(10.0**xlo, 10.0**ylo * 1e3 / bw)  # where the slanted roof enters the plot
    memory_roof = {
        "x1": px(start),
        "y1": py(start * bw / 1e3),
        "x2": px(ridge_top),
        "y2": py(top),
        "label": f"{_num(bw)} GB/s",
    }
    # Its label sits above the line's middle, turned to follow it.
    dx, dy = memory_roof["x2"] - memory_roof["x1"], memory_roof["y2"] - memory_roof["y1"]
    memory_roof.update(
        lx=round(memory_roof["x1"] + dx / 2 + 6 * dy / math.hypot(dx, dy), 1),
        ly=round(memory_roof["y1"] + dy / 2 - 6 * dx / math.hypot(dx, dy), 1),
        angle=round(math.degrees(math.atan2(dy, dx)), 1),
    )
    # One roof per distinct peak: dtypes with the same figure (A100: FP32 and FP64) share it.
    same: dict[float, list[str]] = {}
    for d, t in sorted(peaks.items(), key=lambda kv: -kv[1]):
        same.setdefault(t, []).append(d)
    compute_roofs, colour_of = [], {}
    for t, dts in same.items():
        colour = next((DTYPE_COLOURS[d] for d in dts if d in DTYPE_COLOURS), "#555")
        colour_of.update(dict.fromkeys(dts, colour))
        compute_roofs.append(
            {
                "x1": px(roofs["ridge_flop_per_byte"][dts[0]]),
                "x2": x1,
                "y": py(t),
                "colour": colour,
                "label": f"{'/'.join(d.upper() for d in dts)} {t:g} TFLOP/s",
                "ridge": _num(roofs["ridge_flop_per_byte"][dts[0]]),
            }
        )
    points, table, taken = [], [], []
    for r in rows:
        row = dict(r, n=None, why=None)
        if r in drawn:
            row["n"] = len(points) + 1
            x, y = px(r["flop_per_byte"]), py(r["tflops"])
            clipped = x < x0 or y > y1
            x, y = max(x, x0 + 5), min(y, y1 - 5)
            lx, ly = x + 7, y + 4
            while any(abs(lx - a) < 16 and abs(ly - b) < 12 for a, b in taken):
                ly += 12  # labels of points that sit together stack downwards
            taken.append((lx, ly))
            points.append(
                {
                    "n": row["n"],
                    "x": x,
                    "y": y,
                    "lx": lx,
                    "ly": ly,
                    "colour": colour_of[r["dtype"]],
                    "clipped": clipped,
                    "title": f"{row['n']}. {r['op']} ({r['dtype']}): {_num(r['flop_per_byte'])} "
                    f"FLOP/byte, {_num(r['tflops'])} TFLOP/s, {r['pct_of_roof']:.0f}% of the "
                    f"{_num(r['roof_tflops'])} TFLOP/s roof above it; {r['bound']}-bound; "
                    f"{fmt_us(r['gpu_us_per_step'])} of GPU time per step",
                }
            )
        else:
            row["why"] = (
                "no FLOPs"
                if not r["tflops"] or not r["flop_per_byte"]
                else "dtype not recorded"
                if r["dtype"] == "unknown"
                else f"no {r['dtype']} peak known"
            )
        table.append(row)
    return {
        "width": 900,
        "height": 445,
        "x0": x0,
        "x1": x1,
        "y0": y0,
        "y1": y1,
        "xticks": [(px(10.0**e), f"{10.0**e:g}") for e in range(xlo, xhi + 1)],
        "yticks": [(py(10.0**e), f"{10.0**e:g}") for e in range(ylo, yhi + 1)],
        "memory_roof": memory_roof,
        "compute_roofs": compute_roofs,
        "points": points,
        "rows": table,
        "device": roofs["device"],
        "bandwidth": f"{_num(bw)} GB/s",
        "source": roofs["source"],
        "unavailable": None,
        # points above their roof, by the roof they beat (two different explanations)
        "above_compute": [
            p["n"]
            for p, r in zip(points, drawn)
            if r["pct_of_roof"] > 100 and r["bound"] == "compute"
        ],
        "above_memory": [
            p["n"]
            for p, r in zip(points, drawn)
            if r["pct_of_roof"] > 100 and r["bound"] == "memory"
        ],
    }


def _context(d: Diagnosis) -> dict[str, Any]:
    rows, tables = _summary_rows(d, verbose=False)
    x = d.summary.extra
    return {
        "d": d,
        "verdict_text": verdict(d, with_fix=False),
        "timeline": x.get("timeline"),
        "memory": x.get("memory_curve") if (x.get("memory_curve") or {}).get("points") else None,
        "top_kernels": x.get("top_kernels"),
        "roofline": _roofline(x.get("roofline") or [], x.get("roofline_roofs")),
        "ranks": x.get("ranks"),
        "summary_rows": rows,
        "summary_tables": tables,
    }


def _page(body: str, title: str) -> str:
    from html import escape

    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title></head>\n<body>\n{body}\n</body></html>\n"
    )


def render_html(d: Diagnosis, standalone: bool = True) -> str:
    """The report as HTML: a whole page, or (standalone=False) one <div> for a notebook."""
    ctx = _context(d)
    body = _environment().render(kind="diagnosis", x=ctx, d=d)
    return _page(body, f"bottleneck-lab: {d.trace.path}") if standalone else body


def render_comparison_html(c, before: Diagnosis, after: Diagnosis, standalone: bool = True) -> str:
    """A Comparison (compare.py) with both diagnoses below it."""
    sides = [("before", _context(before)), ("after", _context(after))]
    body = _environment().render(kind="comparison", c=c, sides=sides)
    return _page(body, f"bottleneck-lab: {c.before} vs {c.after}") if standalone else body


__all__ = ["render_html", "render_comparison_html", "Finding"]
