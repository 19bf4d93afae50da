"""The sessions' steps as a timeline: a column per session, a row per step in the order the
master ran them. report.json lists steps in scenario order; the interleaving is only
readable once they are put back in execution order.

A step that waited for a lock shows twice: where it was sent (waiting for the holder) and
where it finally ran, right after the step that released the lock (`ran_after_step`). A
session runs its statements in order (master_sim's session queue), so the steps it was sent
while one of its statements waited queue behind that one: they too show where they were
sent, and again where they ran, right after it. report.json marks only the step that
waited; the queue is derived here from the session and the indexes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .common import clip, condition, esc

SQL_CHARS = 70

Step = Mapping[str, Any]


def _short(sql: object) -> str:
    text = re.sub(r"\s+", " ", str(sql)).strip()
    return text if len(text) <= SQL_CHARS else text[: SQL_CHARS - 1] + "…"


def _ran_after(step: Step) -> int | None:
    """The step after which a statement sent earlier finally ran; None if it never ran."""
    after = step.get("ran_after_step")
    return after if step.get("status") != "blocked" and isinstance(after, int) else None


class Row(NamedTuple):
    """One row of the timeline: what happened to `step` at that point."""

    kind: str  # ran, wait, queued or late
    step: Step
    behind: int | None  # the session's waiting step it queued behind
    after: int | None  # the step after which it ran, for one that waited or queued; None if it never ran


def execution_order(steps: Sequence[Step]) -> list[Row]:
    """The rows in the order things happened: `ran` for a step that ran when sent, `wait`
    where a step was sent and had to wait for a lock, `queued` where a step was sent while a
    step of its session (`behind`) was waiting, `late` where such a step finally ran."""
    rows: list[tuple[tuple[int, int, int], Row]] = []
    waiting: dict[str, tuple[int, int | None]] = {}  # session -> (its waiting step, ran after)
    for step in sorted((s for s in steps if isinstance(s.get("index"), int)), key=lambda s: int(s["index"])):
        index, session = int(step["index"]), str(step.get("session"))
        behind: int | None = None
        if session in waiting:
            blocker, released = waiting[session]
            if released is None or index <= released:
                behind = blocker
            else:
                del waiting[session]
        # A statement queued behind its session's waiting one ends "blocked" with it, without
        # a holder of its own: it waited for its session, not for a lock.
        if step.get("blocked_by") or (step.get("status") == "blocked" and behind is None):
            after = _ran_after(step)
            waiting[session] = (index, after)
            kind = "wait"
        elif behind is not None:
            after = waiting[session][1] if step.get("status") != "blocked" else None
            kind = "queued"
        else:
            rows.append(((index, 0, index), Row("ran", step, None, None)))
            continue
        rows.append(((index, 0, index), Row(kind, step, behind, after)))
        if after is not None:
            rows.append(((after, 1, index), Row("late", step, behind, after)))
    rows.sort(key=lambda row: row[0])
    return [row for _, row in rows]


def _cell(row: Row) -> str:
    step, behind = row.step, row.behind
    index = esc(step.get("index"))
    sql = f'<code title="{esc(clip(str(step.get("sql", ""))))}">{esc(_short(step.get("sql", "")))}</code>'
    error = f' <span class="failed">error {esc(condition(step.get("error")))}</span>' if step.get("error") else ""
    if step.get("unsafe") and step.get("logged_as") == "STATEMENT":  # what makes a divergence
        error += f' <span class="failed">unsafe ({esc(", ".join(step["unsafe"]))}), logged as STATEMENT</span>'
    fate = "" if row.after is not None else " — never ran"
    queued = f"queued behind step {esc(behind)}" if behind is not None else ""
    if row.kind == "wait":
        holder = f"waits for {esc(step.get('blocked_by'))}" if step.get("blocked_by") else ""
        why = ", then ".join(part for part in (queued, holder) if part) or "waits"
        return f'<td class="wait"><strong>{index}</strong> {sql} <span class="waits">{why}{fate}</span></td>'
    if row.kind == "queued":
        return f'<td class="wait"><strong>{index}</strong> {sql} <span class="waits">{queued}{fate}</span></td>'
    if row.kind == "late":
        why = f"waited for {esc(step.get('blocked_by'))}" if step.get("blocked_by") else f"was queued behind step {esc(behind)}"
        return f'<td class="late"><strong>{index}</strong> {sql} <span class="waits">ran after step {esc(row.after)} ({why})</span>{error}</td>'
    return f"<td><strong>{index}</strong> {sql}{error}</td>"


def timeline(steps: Sequence[Step]) -> str:
    """The timeline table, or "" when the run recorded no steps."""
    order = execution_order(steps)
    if not order:
        return ""
    sessions = list(dict.fromkeys(str(row.step.get("session")) for row in order))
    head = "".join(f"<th>{esc(session)}</th>" for session in sessions)
    rows = []
    for number, row in enumerate(order, start=1):
        column = sessions.index(str(row.step.get("session")))
        cells = "<td></td>" * column + _cell(row) + "<td></td>" * (len(sessions) - column - 1)
        rows.append(f'<tr data-step="{esc(row.step.get("index"))}" data-kind="{row.kind}"><td class="muted">{number}</td>{cells}</tr>')
    return (
        '<p class="muted">In the order the master ran them, a column per session. A step that waited for a lock, '
        "or was sent while its session waited, shows where it was sent and again where it ran.</p>"
        f'<table class="timeline"><tr><th>#</th>{head}</tr>{"".join(rows)}</table>'
    )
