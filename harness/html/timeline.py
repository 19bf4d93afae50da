"""The sessions' steps as a timeline: a column per session, a row per step in the order the
master ran them. A step that waited for a lock shows twice: where it was sent (waiting for
the holder) and where it finally ran, right after the step that released the lock
(`ran_after_step`). Steps are listed in scenario order in report.json; the interleaving is
only readable once they are put back in execution order."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .common import clip, condition, esc

SQL_CHARS = 70

Step = Mapping[str, Any]


def _short(sql: object) -> str:
    return clip(re.sub(r"\s+", " ", str(sql)).strip(), SQL_CHARS)


def _waited(step: Step) -> bool:
    return step.get("status") == "blocked" or bool(step.get("blocked_by"))


def _ran_later(step: Step) -> bool:
    return _waited(step) and step.get("status") != "blocked" and step.get("ran_after_step") is not None


def execution_order(steps: Sequence[Step]) -> list[tuple[str, Step]]:
    """(kind, step) in the order things happened: `ran` for a step that ran when sent, `wait`
    where a step was sent and had to wait, `late` where a waiting step finally ran."""
    rows: list[tuple[tuple[int, int, int], str, Step]] = []
    for step in steps:
        index = step.get("index")
        if not isinstance(index, int):
            continue  # master_schema statements are not part of the interleaving
        rows.append(((index, 0, index), "wait" if _waited(step) else "ran", step))
        if _ran_later(step):
            rows.append(((int(step["ran_after_step"]), 1, index), "late", step))
    rows.sort(key=lambda row: row[0])
    return [(kind, step) for _, kind, step in rows]


def _cell(kind: str, step: Step) -> str:
    index, holder = esc(step.get("index")), esc(step.get("blocked_by") or "another session")
    sql = f'<code title="{esc(clip(str(step.get("sql", ""))))}">{esc(_short(step.get("sql", "")))}</code>'
    error = f' <span class="failed">error {esc(condition(step.get("error")))}</span>' if step.get("error") else ""
    if kind == "wait":
        fate = "" if _ran_later(step) else " — never ran"
        return f'<td class="wait"><strong>{index}</strong> {sql} <span class="waits">waits for {holder}{fate}</span></td>'
    if kind == "late":
        after = esc(step.get("ran_after_step"))
        return f'<td class="late"><strong>{index}</strong> {sql} <span class="waits">ran after step {after} (waited for {holder})</span>{error}</td>'
    return f"<td><strong>{index}</strong> {sql}{error}</td>"


def timeline(steps: Sequence[Step]) -> str:
    """The timeline table, or "" when the run recorded no steps."""
    order = execution_order(steps)
    if not order:
        return ""
    sessions = list(dict.fromkeys(str(step.get("session")) for _, step in order))
    head = "".join(f"<th>{esc(session)}</th>" for session in sessions)
    rows = []
    for number, (kind, step) in enumerate(order, start=1):
        column = sessions.index(str(step.get("session")))
        cells = "<td></td>" * column + _cell(kind, step) + "<td></td>" * (len(sessions) - column - 1)
        rows.append(f'<tr data-step="{esc(step.get("index"))}" data-kind="{kind}"><td class="muted">{number}</td>{cells}</tr>')
    return (
        '<p class="muted">In the order the master ran them, a column per session. A step that waited for a lock '
        "shows where it was sent (waits for …) and again where it ran, after the step that released the lock.</p>"
        f'<table class="timeline"><tr><th>#</th>{head}</tr>{"".join(rows)}</table>'
    )
