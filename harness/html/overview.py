"""The top of report.html: counts per verdict, what the verdicts and marks mean, the inputs
that could not be used, and for `run` reports the heatmap of scenarios × binlog settings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from .common import FORMATS, Document, Run, anchor, clip, esc, items, link, notable, unchecked, unmet, verdict_class, verdict_order

HEATMAP_CONSISTENT_ROWS = 30
FINDINGS_SHOWN = 200

# What each verdict means, in the words of the judge (harness/judge.py).
VERDICT_MEANINGS = {
    "consistent": "master and slave tables are equal.",
    "divergent": "the tables differ for a reason the server itself gives: an unsafe statement was logged as a "
    "statement, or the scenario made the slave's tables differ (slave_schema).",
    "slave_stopped": "the slave's applier stopped with an error.",
    "finding": "a divergence or a slave stop that no such reason explains: what the harness hunts, a gap in "
    "unsafe-statement detection or a replication bug.",
    "unsupported": "the simulator refused a statement (1235) or could not parse it (1064), and no step declared that error.",
    "error": "the simulator itself failed (a traceback); the run says nothing about replication.",
}


def counts(runs: Iterable[Run]) -> Counter[str]:
    return Counter(str(run.get("verdict")) for run in runs)


def summary(report: Document, verdicts: Counter[str]) -> str:
    """The counts per verdict (all of them, 0 included) and the document's facts."""
    facts_of = report.get("summary") or {}
    boxes = "".join(
        f'<li class="{verdict_class(v)}"><span class="count" data-verdict="{esc(v)}" id="count-{esc(v)}">{verdicts[v]}</span> {esc(v)}</li>'
        for v in verdict_order(verdicts)
    )
    facts = [
        f"command {esc(report.get('command', 'run'))}",
        f"flavor {esc(report.get('flavor'))}",
        f"format version {esc(report.get('format_version'))}",
        f"exit code {esc(facts_of.get('exit_code'))}",
    ]
    labels = (
        ("runs_with_expectations", "runs with expectations"),
        ("expectations_met", "met them all"),
        ("expectations_failed", "runs failed an expectation"),
        ("runs_without_expectations", "runs without expectations"),
        ("not_passed", "runs did not pass"),
        ("input_errors", "input errors"),
    )
    facts += [f"{esc(facts_of[key])} {label}" for key, label in labels if key in facts_of]
    if "expectations_failed" not in facts_of:
        facts.append("0 runs failed an expectation")
    return f'<p><strong id="total-runs"></strong> · {" · ".join(facts)}</p><ul class="counts">{boxes}</ul>'


def legend(squares: bool = True) -> str:
    """What the colours and marks mean, so nobody has to guess; the marks only where the
    page draws squares (not in a fuzz report's aggregates)."""
    verdicts = "".join(
        f'<dt><span class="badge {verdict_class(v)}">{esc(v)}</span></dt><dd>{esc(meaning)}</dd>' for v, meaning in VERDICT_MEANINGS.items()
    )
    marks = (
        '<dt><span class="r v-divergent"></span></dt><dd>a square is one run, coloured by its verdict; hover it for the variant and why.</dd>'
        '<dt><span class="r v-divergent unmet"></span></dt><dd>outlined: an expectation (expect entry) or an error check of the run failed.</dd>'
        '<dt><span class="r v-divergent unchecked"></span></dt><dd>dashed: the run did not pass because no expect entry asserts its verdict.</dd>'
        '<dt><a class="r v-divergent" href="#legend"></a></dt><dd>a linked square has its run detail further down; a plain one is only in report.json.</dd>'
    )
    return f'<section id="legend"><h2>Legend</h2><dl class="legend">{verdicts}{marks if squares else ""}</dl></section>'


def exploration(report: Document) -> str:
    explored = report.get("exploration")
    if not explored:
        return ""
    rows = "".join(f"<tr><th>{esc(str(key).replace('_', ' '))}</th><td>{esc(value)}</td></tr>" for key, value in explored.items())
    return f"<h2>Exploration</h2><table>{rows}</table>"


def input_errors(report: Document) -> str:
    errors = report.get("input_errors") or []
    if not errors:
        return ""
    rows = "".join(f"<li><code>{esc(e.get('file'))}</code> {esc(e.get('key'))}: {esc(e.get('message'))}</li>" for e in errors)
    return f'<h2>Input errors</h2><ul class="failed">{rows}</ul>'


def _column(run: Run) -> tuple[str, str]:
    """The heatmap column: binlog format, and row image ("" when the run does not set one)."""
    settings = run.get("settings") or {}
    return str(settings.get("binlog_format", "?")), str(settings.get("binlog_row_image", ""))


def _column_order(column: tuple[str, str]) -> tuple[int, str, str]:
    return (FORMATS.index(column[0]) if column[0] in FORMATS else len(FORMATS), *column)


def _column_label(column: tuple[str, str]) -> str:
    return " · ".join(part for part in column if part)


def mark(run: Run, detailed: set[str]) -> str:
    """One run's square: its verdict's colour, outlined when something it declared failed."""
    explanation = run.get("explanation") or []
    title = f"{run.get('variant')}: {run.get('verdict')}" + (f" — {clip(str(explanation[-1]), 200)}" if explanation else "")
    classes = f"r {verdict_class(str(run.get('verdict')))}" + (" unmet" if unmet(run) else " unchecked" if unchecked(run) else "")
    if str(run.get("run_id")) in detailed:
        return f'<a class="{classes}" href="#{esc(quote(anchor(run)))}" title="{esc(title)}"></a>'
    return f'<span class="{classes}" title="{esc(title)}"></span>'


def heatmap(runs: Sequence[Run], detailed: set[str]) -> str:
    columns = sorted({_column(run) for run in runs}, key=_column_order)
    scenarios: dict[str, list[Run]] = {}
    for run in runs:
        scenarios.setdefault(str(run.get("scenario")), []).append(run)
    quiet = [name for name, group in scenarios.items() if not any(map(notable, group))]
    hidden = set(quiet[HEATMAP_CONSISTENT_ROWS:])
    head = "".join(f"<th>{esc(_column_label(column))}</th>" for column in columns)
    rows = []
    for name, group in scenarios.items():
        if name in hidden:
            continue
        cells = "".join(f'<td class="cell">{"".join(mark(r, detailed) for r in group if _column(r) == c)}</td>' for c in columns)
        css = ' class="quiet"' if name in quiet else ""
        rows.append(f'<tr{css}><th class="scenario">{esc(name)}</th>{cells}</tr>')
    if hidden:
        per_column = Counter(_column(run) for name in hidden for run in scenarios[name])
        cells = "".join(f"<td>{per_column[c] or ''}</td>" for c in columns)
        rows.append(f'<tr class="quiet" id="more-consistent"><th>{len(hidden)} more scenarios, every run consistent (runs per column)</th>{cells}</tr>')
    return (
        "<h2>Verdicts</h2>"
        '<p class="muted">Rows: scenarios. Columns: binlog_format · binlog_row_image (when the run sets it). '
        "One square per run; the legend above says what the colours, outlines and links mean.</p>"
        '<label><input type="checkbox" id="only-notable"> hide scenarios whose runs are all consistent and passed</label>'
        f'<table class="heatmap"><tr><th>scenario</th>{head}</tr>{"".join(rows)}</table>'
    )


def finding(found: Mapping[str, Any], run: Run | None, heading: str = "h3") -> str:
    """One finding: its kind, run, explanation, the statement that caused it, the shrunk files."""
    where = f"{esc(found.get('scenario'))} · {esc(found.get('variant'))}"
    parts = [f'<article class="finding"><{heading}>{esc(found.get("kind"))}</{heading}><p>{link(run, where)}</p>', items(found.get("explanation") or [])]
    statement = found.get("statement")
    if statement:
        parts.append(f"<p>Caused by step {esc(statement.get('step'))} ({esc(statement.get('session'))}): <code>{esc(clip(str(statement.get('sql'))))}</code></p>")
    shrunk = found.get("shrunk")
    if shrunk:
        parts.append(
            f"<p>Shrunk to {esc(shrunk.get('steps'))} steps: scenario <code>{esc(shrunk.get('yaml'))}</code>, test <code>{esc(shrunk.get('test'))}</code></p>"
        )
        scenario = shrunk.get("scenario_yaml")
        if scenario is not None:  # the whole file: it is what a person copies to reproduce
            parts.append(f'<pre class="scenario">{esc(scenario)}</pre>')
        else:
            sql = ";\n".join(map(str, shrunk.get("sql") or []))
            parts.append(f"<pre>{esc(clip(sql))}</pre>")
    parts.append("</article>")
    return "".join(parts)


def findings(found: Sequence[Mapping[str, Any]], runs: Mapping[str, Run]) -> str:
    if not found:
        return ""
    parts = [f"<h2>Findings ({len(found)})</h2>"]
    parts.extend(finding(f, runs.get(str(f.get("run_id")))) for f in found[:FINDINGS_SHOWN])
    if len(found) > FINDINGS_SHOWN:
        parts.append(f'<p class="muted">{len(found) - FINDINGS_SHOWN} more findings in report.json.</p>')
    return "".join(parts)
