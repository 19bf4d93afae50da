"""One run's detail: what a replication engineer needs to act on it. Settings, why the
verdict, the expectations and error checks and how they fared, the simulator's traceback,
the sessions' timeline and steps, the rows that differ and the end of the binlog."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from server_sim.binlog.file import BinlogCorruptError, read_binlog
from server_sim.binlog.show import show

from .common import Run, anchor, clip, condition, esc, held, items, notable, severity, verdict_class
from .timeline import timeline

DETAILED_RUNS = 200
DETAILED_CONSISTENT_RUNS = 5
BINLOG_EXCERPT_LINES = 80


def detailed(runs: Sequence[Run]) -> tuple[list[Run], int]:
    """The runs to detail, most severe first, and how many notable ones the bound left out."""
    worth = sorted((run for run in runs if notable(run)), key=lambda run: -severity(str(run.get("verdict"))))
    consistent = [run for run in runs if not notable(run)][:DETAILED_CONSISTENT_RUNS]
    return worth[:DETAILED_RUNS] + consistent, max(0, len(worth) - DETAILED_RUNS)


def expectation_text(expectation: Mapping[str, Any]) -> str:
    """`when binlog_format=ROW: verdict consistent, step 2 notes [LIMIT]: held`, the checks and their outcome."""
    when = ", ".join(f"{k}={'|'.join(map(str, v))}" for k, v in (expectation.get("when") or {}).items())
    checks = [f"{key} {expectation[key]}" for key in ("verdict", "slave_error") if expectation.get(key) is not None]
    if expectation.get("step") is not None:
        step = [f"{key} {expectation[key]}" for key in ("notes", "error", "events") if expectation.get(key) is not None]
        checks.append(f"step {expectation['step']} " + ", ".join(step))
    return f"{'when ' + when if when else 'always'}: {', '.join(checks)}: {expectation.get('message', '')}"


def _codes(codes: Iterable[object]) -> str:
    """Declared error codes: `0` reads as success."""
    names = ["success" if code == 0 else str(code) for code in codes]
    return " or ".join(names) if names else "none declared"


def error_checks(checks: Sequence[Mapping[str, Any]]) -> str:
    """Each statement's declared errors against what it returned; failed ones first."""
    if not checks:
        return ""
    ordered = sorted(checks, key=lambda check: bool(check.get("held", True)))
    rows = "".join(
        f'<tr class="{"" if check.get("held", True) else "failed"}"><td>{esc(check.get("where"))}</td>'
        f"<td><code>{esc(clip(str(check.get('sql', '')), 500))}</code></td><td>{esc(_codes(check.get('expected') or []))}</td>"
        f"<td>{esc(condition(check.get('actual')) or 'success')}</td><td>{'held' if check.get('held', True) else 'failed'}: {esc(check.get('message'))}</td></tr>"
        for check in ordered
    )
    return (
        '<table class="error-checks"><tr><th>where</th><th>SQL</th><th>expected</th><th>actual</th><th>outcome</th></tr>'
        f"{rows}</table>"
    )


def _steps(steps: Sequence[Mapping[str, Any]]) -> str:
    declared = any(step.get("expected_error") for step in steps)
    rows = []
    for step in steps:
        status = str(step.get("status"))
        if step.get("error"):
            status += f" {condition(step['error'])}"
        if step.get("blocked_by"):
            after = f", ran after step {step['ran_after_step']}" if step.get("ran_after_step") else ""
            status += f" (waited for {step['blocked_by']}{after})"
        notes = "<br>".join(esc(clip(f"{n.get('level')} {n.get('code')}: {n.get('message')}", 300)) for n in step.get("notes") or [])
        codes = step.get("expected_error") or []
        expected = f"<td>{esc(_codes(codes)) if codes else ''}</td>" if declared else ""
        rows.append(
            f"<tr><td>{esc(step.get('index'))}</td><td>{esc(step.get('session'))}</td><td><code>{esc(clip(str(step.get('sql', ''))))}</code></td>"
            f"<td>{esc(status)}</td>{expected}<td>{esc(step.get('logged_as'))}</td><td>{esc(', '.join(step.get('unsafe') or []))}</td><td>{notes}</td></tr>"
        )
    head = "<th>expected error</th>" if declared else ""
    return (
        f"<table><tr><th>step</th><th>session</th><th>SQL</th><th>status</th>{head}<th>logged as</th><th>unsafe</th><th>notes</th></tr>"
        f"{''.join(rows)}</table>"
    )


def diff(tables: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for table in tables:
        missing = f", missing on the {table['missing_on']}" if table.get("missing_on") else ""
        parts.append(
            f"<h4>Table {esc(table.get('table'))}: rows only on the master {esc(table.get('only_on_master'))}, "
            f"only on the slave {esc(table.get('only_on_slave'))}{esc(missing)}</h4>"
        )
        columns = [str(column) for column in table.get("columns") or []]
        samples = [("master", row) for row in table.get("master_samples") or []] + [("slave", row) for row in table.get("slave_samples") or []]
        if samples:
            head = "".join(f"<th>{esc(column)}</th>" for column in columns)
            body = "".join(
                f"<tr><th>{side}</th>{''.join(f'<td>{esc(clip(str(row.get(c)), 200))}</td>' for c in columns)}</tr>" for side, row in samples
            )
            parts.append(f'<table class="diff"><tr><th>only on</th>{head}</tr>{body}</table>')
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
    return clip(prefix + "\n".join(lines[first : first + BINLOG_EXCERPT_LINES]) + problem)


def run_detail(run: Run, flavor: object = None) -> str:
    """The collapsed detail of one run, its id the anchor the squares and findings link to."""
    verdict = str(run.get("verdict"))
    settings = ", ".join(f"{k}={v}" for k, v in (run.get("settings") or {}).items())
    passed = {True: " · passed", False: " · did not pass"}.get(run.get("passed"), "")
    parts = [
        f'<details class="run" id="{esc(anchor(run))}" data-verdict="{esc(verdict)}">',
        f'<summary><span class="badge {verdict_class(verdict)}">{esc(verdict)}</span> {esc(run.get("scenario"))} · {esc(run.get("variant"))}{passed}</summary>',
        f"<p>File <code>{esc(run.get('file'))}</code> · flavor {esc(run.get('flavor') or flavor)} · settings <code>{esc(settings)}</code>"
        f" · seed {esc(run.get('seed'))} · binlog <code>{esc(run.get('binlog'))}</code></p>",
        items(run.get("explanation") or []),
    ]
    if run.get("passed") is False and run.get("covered") is False and verdict in ("divergent", "slave_stopped"):
        parts.append(f'<p class="failed">No expect entry asserts the verdict {esc(verdict)}: this run is not covered.</p>')
    expectations = run.get("expectations") or []
    if expectations:
        parts.append("<h4>Expectations</h4><ul>")
        parts.append("".join(f'<li class="{"" if e.get("held", True) else "failed"}">{esc(expectation_text(e))}</li>' for e in expectations))
        parts.append("</ul>" if held(run) else '</ul><p class="failed">An expectation failed.</p>')
    if run.get("error_checks"):
        parts.append("<h4>Error checks</h4>" + error_checks(run["error_checks"]))
    if run.get("error"):
        parts.append(f"<h4>Simulator error</h4><pre>{esc(clip(str(run['error'])))}</pre>")
    slave_schema = run.get("slave_schema") or []
    if slave_schema:
        parts.append("<h4>Slave schema</h4>" + items(f"{s.get('sql')}" + (f" → error {condition(s['error'])}" if s.get("error") else "") for s in slave_schema))
    steps = run.get("steps") or []
    if steps:
        parts.append("<h4>Timeline</h4>" + timeline(steps) + "<h4>Steps</h4>" + _steps(steps))
    elif run.get("detail") is False:
        parts.append('<p class="muted">Steps not recorded for this run (fuzz keeps them for runs that are not consistent); its seed regenerates it.</p>')
    if run.get("diff"):
        parts.append("<h4>Diff</h4>" + diff(run["diff"]))
    slave = run.get("slave") or {}
    excerpt = binlog_excerpt(run.get("binlog"), slave.get("error_position"))
    if excerpt is not None:
        parts.append(f"<h4>Binlog</h4><pre>{esc(excerpt)}</pre>")
    parts.append("</details>")
    return "".join(parts)
