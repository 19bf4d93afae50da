"""report.html: the report document as one self-contained page for people.

Counts per verdict, a heatmap of verdicts (scenarios × binlog format and row image), the
findings with their shrunk scenarios, and the detail of the runs worth reading: every run
that is not consistent or failed an expectation, up to a bound, and a few consistent ones.
A fuzz report has thousands of runs; the page stays a few megabytes because consistent
scenarios collapse into one counts row and details are bounded. report.json has it all.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from scenarios.writer import write_atomically
from server_sim.binlog.file import BinlogCorruptError, read_binlog
from server_sim.binlog.show import show


Run = Mapping[str, Any]

# Display order, least to most severe; a verdict this list lacks is shown after them.
VERDICTS = ("consistent", "divergent", "slave_stopped", "finding", "error")
FORMATS = ("STATEMENT", "MIXED", "ROW")

DETAILED_RUNS = 200
DETAILED_CONSISTENT_RUNS = 5
HEATMAP_CONSISTENT_ROWS = 30
BINLOG_EXCERPT_LINES = 60
TEXT_CHARS = 4000

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em;margin:0 0 .3em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;vertical-align:top;text-align:left}
.counts{display:flex;flex-wrap:wrap;gap:.6em;list-style:none;padding:0}
.counts li{padding:.3em .8em;border-radius:4px;color:#fff}.count{font-size:1.4em;font-weight:bold}
.v-consistent{background:#2e9e5b}.v-divergent{background:#e89a1c}.v-slave_stopped{background:#8e44ad}
.v-finding{background:#d81b60}.v-error{background:#444}.v-other{background:#999}
.heatmap td.cell{white-space:nowrap}.heatmap th.scenario{font-weight:normal}
.r{display:inline-block;width:14px;height:14px;margin:1px;border-radius:2px}.r.unmet{outline:2px solid #000}
.only-notable tr.quiet{display:none}
.badge{color:#fff;padding:0 .4em;border-radius:3px}
details.run{border:1px solid #ddd;margin:.4em 0;padding:.3em .6em}details.run>summary{cursor:pointer}
.finding{border-left:4px solid #d81b60;padding-left:.8em;margin:1em 0}
.failed{color:#b00020}.muted{color:#777}
"""

_SCRIPT = """
(function () {
  var total = 0;
  document.querySelectorAll(".count[data-verdict]").forEach(function (element) {
    total += parseInt(element.textContent, 10);
  });
  document.getElementById("total-runs").textContent = total + " runs";
  function openTarget() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  var only = document.getElementById("only-notable");
  only.addEventListener("change", function () {
    document.body.classList.toggle("only-notable", only.checked);
  });
})();
"""

# The browser itself refuses anything but the page's own style and script: no fetch, no
# other script, even if some text escaped escaping.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{}'".format(
    base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
)


def _e(value: object) -> str:
    return html.escape(str(value))


def _clip(text: str, limit: int = TEXT_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _verdict_class(verdict: str) -> str:
    return f"v-{verdict}" if verdict in VERDICTS else "v-other"


def _severity(verdict: str) -> float:
    """Higher is worse; an unknown verdict ranks just above consistent."""
    return VERDICTS.index(verdict) if verdict in VERDICTS else 0.5


def _held(run: Run) -> bool:
    return all(e["held"] for e in run.get("expectations") or [])


def _notable(run: Run) -> bool:
    """A run worth reading: not consistent, or an expectation failed."""
    return run["verdict"] != "consistent" or not _held(run)


def _anchor(run: Run) -> str:
    return f"run-{run['run_id']}"


def _link(run: Run, text: str) -> str:
    return f'<a href="#{_e(quote(_anchor(run)))}">{text}</a>'


def _column(run: Run) -> tuple[str, str]:
    """The heatmap column: binlog format, and row image ("" when the run does not set one)."""
    settings = run.get("settings") or {}
    return str(settings.get("binlog_format", "?")), str(settings.get("binlog_row_image", ""))


def _column_order(column: tuple[str, str]) -> tuple[int, str, str]:
    return (FORMATS.index(column[0]) if column[0] in FORMATS else len(FORMATS), *column)


def _column_label(column: tuple[str, str]) -> str:
    return " · ".join(part for part in column if part)


def _counts(runs: Iterable[Run]) -> Counter[str]:
    return Counter(str(run["verdict"]) for run in runs)


def _summary(report: Mapping[str, Any], counts: Counter[str]) -> str:
    summary = report.get("summary") or {}
    verdicts = [*VERDICTS, *sorted(set(counts) - set(VERDICTS))]
    items = "".join(
        f'<li class="{_verdict_class(v)}"><span class="count" data-verdict="{_e(v)}" id="count-{_e(v)}">{counts[v]}</span> {_e(v)}</li>'
        for v in verdicts
    )
    facts = [
        f"flavor {_e(report.get('flavor'))}",
        f"format version {_e(report.get('format_version'))}",
        f"exit code {_e(summary.get('exit_code'))}",
        f"{_e(summary.get('expectations_failed', 0))} runs failed an expectation",
        f"{_e(summary.get('input_errors', 0))} input errors",
    ]
    return f'<p><strong id="total-runs"></strong> · {" · ".join(facts)}</p><ul class="counts">{items}</ul>'


def _exploration(report: Mapping[str, Any]) -> str:
    exploration = report.get("exploration")
    if not exploration:
        return ""
    rows = "".join(f"<tr><th>{_e(key.replace('_', ' '))}</th><td>{_e(value)}</td></tr>" for key, value in exploration.items())
    return f"<h2>Exploration</h2><table>{rows}</table>"


def _input_errors(report: Mapping[str, Any]) -> str:
    errors = report.get("input_errors") or []
    if not errors:
        return ""
    items = "".join(f"<li><code>{_e(e['file'])}</code> {_e(e['key'])}: {_e(e['message'])}</li>" for e in errors)
    return f'<h2>Input errors</h2><ul class="failed">{items}</ul>'


def _mark(run: Run, detailed: set[str]) -> str:
    explanation = run.get("explanation") or []
    title = f"{run['variant']}: {run['verdict']}" + (f" — {_clip(str(explanation[-1]), 200)}" if explanation else "")
    classes = f"r {_verdict_class(run['verdict'])}" + ("" if _held(run) else " unmet")
    if run["run_id"] in detailed:
        return f'<a class="{classes}" href="#{_e(quote(_anchor(run)))}" title="{_e(title)}"></a>'
    return f'<span class="{classes}" title="{_e(title)}"></span>'


def _heatmap(runs: list[Run], detailed: set[str]) -> str:
    columns = sorted({_column(run) for run in runs}, key=_column_order)
    scenarios: dict[str, list[Run]] = {}
    for run in runs:
        scenarios.setdefault(str(run["scenario"]), []).append(run)
    quiet = [name for name, group in scenarios.items() if not any(map(_notable, group))]
    hidden = set(quiet[HEATMAP_CONSISTENT_ROWS:])
    head = "".join(f"<th>{_e(_column_label(column))}</th>" for column in columns)
    rows = []
    for name, group in scenarios.items():
        if name in hidden:
            continue
        cells = "".join(f'<td class="cell">{"".join(_mark(r, detailed) for r in group if _column(r) == c)}</td>' for c in columns)
        css = ' class="quiet"' if name in quiet else ""
        rows.append(f'<tr{css}><th class="scenario">{_e(name)}</th>{cells}</tr>')
    if hidden:
        per_column = Counter(_column(run) for name in hidden for run in scenarios[name])
        cells = "".join(f"<td>{per_column[c] or ''}</td>" for c in columns)
        rows.append(f'<tr class="quiet" id="more-consistent"><th>{len(hidden)} more scenarios, every run consistent (runs per column)</th>{cells}</tr>')
    return (
        "<h2>Verdicts</h2>"
        '<p class="muted">Rows: scenarios. Columns: binlog_format · binlog_row_image (when the run sets it). '
        "One square per run, outlined when an expectation failed; a linked square has its detail below.</p>"
        '<label><input type="checkbox" id="only-notable"> hide scenarios whose runs are all consistent and met their expectations</label>'
        f'<table class="heatmap"><tr><th>scenario</th>{head}</tr>{"".join(rows)}</table>'
    )


def _findings(findings: list[Mapping[str, Any]], runs: Mapping[str, Run]) -> str:
    if not findings:
        return ""
    parts = [f"<h2>Findings ({len(findings)})</h2>"]
    for finding in findings[:DETAILED_RUNS]:
        run = runs.get(finding["run_id"])
        where = f"{_e(finding['scenario'])} · {_e(finding['variant'])}"
        parts.append(f'<article class="finding"><h3>{_e(finding["kind"])}</h3><p>{_link(run, where) if run else where}</p>')
        parts.append(_list(finding.get("explanation") or []))
        statement = finding.get("statement")
        if statement:
            parts.append(f"<p>Caused by step {_e(statement['step'])} ({_e(statement['session'])}): <code>{_e(_clip(str(statement['sql'])))}</code></p>")
        shrunk = finding.get("shrunk")
        if shrunk:
            sql = ";\n".join(map(str, shrunk.get("sql") or []))
            parts.append(
                f"<p>Shrunk to {_e(shrunk['steps'])} steps: scenario <code>{_e(shrunk['yaml'])}</code>, test <code>{_e(shrunk['test'])}</code></p>"
                f"<pre>{_e(_clip(sql))}</pre>"
            )
        parts.append("</article>")
    if len(findings) > DETAILED_RUNS:
        parts.append(f'<p class="muted">{len(findings) - DETAILED_RUNS} more findings in report.json.</p>')
    return "".join(parts)


def _list(lines: Iterable[object]) -> str:
    items = "".join(f"<li>{_e(_clip(str(line)))}</li>" for line in lines)
    return f"<ul>{items}</ul>" if items else ""


def _condition(condition: Mapping[str, Any] | None) -> str:
    return f"{condition['code']} {condition['name']}: {condition['message']}" if condition else ""


def _expectation(expectation: Mapping[str, Any]) -> str:
    """`when binlog_format=ROW: verdict consistent, step 2 notes [LIMIT]: held`, the checks and their outcome."""
    when = ", ".join(f"{k}={'|'.join(map(str, v))}" for k, v in (expectation.get("when") or {}).items())
    checks = [f"{key} {expectation[key]}" for key in ("verdict", "slave_error") if expectation.get(key) is not None]
    if expectation.get("step") is not None:
        step = [f"{key} {expectation[key]}" for key in ("notes", "error", "events") if expectation.get(key) is not None]
        checks.append(f"step {expectation['step']} " + ", ".join(step))
    return f"{'when ' + when if when else 'always'}: {', '.join(checks)}: {expectation['message']}"


def _steps(steps: list[Mapping[str, Any]]) -> str:
    if not steps:
        return ""
    rows = []
    for step in steps:
        status = str(step["status"])
        if step.get("error"):
            status += f" {_condition(step['error'])}"
        if step.get("blocked_by"):
            status += f" (waited for {step['blocked_by']}" + (f", ran after step {step['ran_after_step']})" if step.get("ran_after_step") else ")")
        notes = "<br>".join(_e(_clip(f"{n['level']} {n['code']}: {n['message']}", 300)) for n in step.get("notes") or [])
        rows.append(
            f"<tr><td>{_e(step['index'])}</td><td>{_e(step['session'])}</td><td><code>{_e(_clip(str(step['sql'])))}</code></td>"
            f"<td>{_e(status)}</td><td>{_e(step.get('logged_as'))}</td><td>{_e(', '.join(step.get('unsafe') or []))}</td><td>{notes}</td></tr>"
        )
    return (
        "<table><tr><th>step</th><th>session</th><th>SQL</th><th>status</th><th>logged as</th><th>unsafe</th><th>notes</th></tr>"
        f"{''.join(rows)}</table>"
    )


def _diff(tables: list[Mapping[str, Any]]) -> str:
    parts = []
    for table in tables:
        missing = f", missing on the {table['missing_on']}" if table.get("missing_on") else ""
        parts.append(f"<h4>Table {_e(table['table'])}: rows only on the master {_e(table['only_on_master'])}, only on the slave {_e(table['only_on_slave'])}{_e(missing)}</h4>")
        columns = list(table.get("columns") or [])
        samples = [("master", row) for row in table.get("master_samples") or []] + [("slave", row) for row in table.get("slave_samples") or []]
        if samples:
            head = "".join(f"<th>{_e(column)}</th>" for column in columns)
            body = "".join(f"<tr><th>{side}</th>{''.join(f'<td>{_e(_clip(str(row.get(c)), 200))}</td>' for c in columns)}</tr>" for side, row in samples)
            parts.append(f"<table><tr><th>only on</th>{head}</tr>{body}</table>")
    return "".join(parts)


def binlog_excerpt(path: str | None, stop_position: int | None = None) -> str | None:
    """The last events of a run's binlog as `rplharness binlog show` prints them, up to the
    event the slave stopped at (or the end), at most BINLOG_EXCERPT_LINES lines; None when the
    file is gone."""
    if not path or not Path(path).is_file():
        return None
    events, problem = [], ""
    try:
        for event in read_binlog(Path(path)):
            events.append(event)
            if event.position == stop_position:
                break
    except BinlogCorruptError as error:
        problem = f"\n{error}"
    lines = show(events).splitlines() if events else []
    starts = [i for i, line in enumerate(lines) if line.startswith("# at ")] or [0]
    first = next((i for i in starts if len(lines) - i <= BINLOG_EXCERPT_LINES), starts[-1])
    earlier = sum(i < first for i in starts)
    prefix = f"# … {earlier} earlier events: rplharness binlog show {path}\n" if earlier else ""
    return _clip(prefix + "\n".join(lines[first : first + BINLOG_EXCERPT_LINES]) + problem)


def _run_detail(run: Run) -> str:
    verdict = str(run["verdict"])
    settings = ", ".join(f"{k}={v}" for k, v in (run.get("settings") or {}).items())
    parts = [
        f'<details class="run" id="{_e(_anchor(run))}" data-verdict="{_e(verdict)}">',
        f'<summary><span class="badge {_verdict_class(verdict)}">{_e(verdict)}</span> {_e(run["scenario"])} · {_e(run["variant"])}</summary>',
        f"<p>File <code>{_e(run.get('file'))}</code> · settings <code>{_e(settings)}</code> · seed {_e(run.get('seed'))} · binlog <code>{_e(run.get('binlog'))}</code></p>",
        _list(run.get("explanation") or []),
    ]
    expectations = run.get("expectations") or []
    if expectations:
        parts.append("<h4>Expectations</h4>")
        parts.append("<ul>" + "".join(f'<li class="{"" if e["held"] else "failed"}">{_e(_expectation(e))}</li>' for e in expectations) + "</ul>")
    if run.get("error"):
        parts.append(f"<h4>Simulator error</h4><pre>{_e(_clip(str(run['error'])))}</pre>")
    slave_schema = run.get("slave_schema") or []
    if slave_schema:
        parts.append("<h4>Slave schema</h4>" + _list(f"{s['sql']}" + (f" → error {_condition(s['error'])}" if s.get("error") else "") for s in slave_schema))
    if run.get("steps"):
        parts.append("<h4>Steps</h4>" + _steps(run["steps"]))
    if run.get("diff"):
        parts.append("<h4>Diff</h4>" + _diff(run["diff"]))
    slave = run.get("slave") or {}
    excerpt = binlog_excerpt(run.get("binlog"), slave.get("error_position"))
    if excerpt is not None:
        parts.append(f"<h4>Binlog</h4><pre>{_e(excerpt)}</pre>")
    parts.append("</details>")
    return "".join(parts)


def _detailed(runs: list[Run]) -> tuple[list[Run], int]:
    """The runs to detail, most severe first, and how many notable ones the bound left out."""
    notable = sorted((run for run in runs if _notable(run)), key=lambda run: -_severity(str(run["verdict"])))
    consistent = [run for run in runs if not _notable(run)][:DETAILED_CONSISTENT_RUNS]
    return notable[:DETAILED_RUNS] + consistent, max(0, len(notable) - DETAILED_RUNS)


def html_page(report: Mapping[str, Any]) -> str:
    """The whole page: no external resource, everything escaped."""
    runs: list[Run] = list(report.get("runs") or [])
    detailed, left_out = _detailed(runs)
    detailed_ids = {str(run["run_id"]) for run in detailed}
    title = f"rplharness report — {report.get('flavor')}"
    details = "".join(_run_detail(run) for run in detailed)
    more = f'<p class="muted">{left_out} more runs that are not consistent have no detail here; report.json has them.</p>' if left_out else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
        f"{_summary(report, _counts(runs))}{_exploration(report)}{_input_errors(report)}"
        f"{_heatmap(runs, detailed_ids)}"
        f"{_findings(list(report.get('findings') or []), {str(run['run_id']): run for run in runs})}"
        f"<h2>Runs</h2>{details}{more}"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_html(report: Mapping[str, Any], path: Path) -> Path:
    """Write the report document as one HTML page to `path`, atomically."""
    return write_atomically(path, html_page(report))
