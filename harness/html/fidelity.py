"""The fidelity section: how far the simulator agrees with a real server. Rates are exact
(agreed / compared floored, so a single disagreement never reads as 100.00 %), and every
disagreement is shown side by side, the unexplained ones first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import Document, clip, esc, percent

DISAGREEMENTS_SHOWN = 500
VALUE_CHARS = 1000


def _rates(rates: Mapping[str, Mapping[str, Any]]) -> str:
    rows = "".join(
        f'<tr data-category="{esc(category)}"><th>{esc(category)}</th><td class="n agreed">{esc(row.get("agreed"))}</td>'
        f'<td class="n compared">{esc(row.get("compared"))}</td><td class="n rate">{esc(percent(row.get("agreed"), row.get("compared"), row.get("rate")))}</td></tr>'
        for category, row in rates.items()
    )
    return (
        '<table id="fidelity-rates"><tr><th>category</th><th>agreed</th><th>compared</th><th>agreement</th></tr>'
        f"{rows}</table>"
        '<p class="muted">"runs" counts runs with no disagreement at all; "overall" every compared item.</p>'
    )


def _disagreements(runs: Sequence[Mapping[str, Any]]) -> str:
    found = [d for run in runs for d in run.get("disagreements") or []]
    if not found:
        return "<p>No disagreement.</p>"
    found.sort(key=lambda d: d.get("known") is not None)  # unexplained first, order kept
    unexplained = sum(d.get("known") is None for d in found)
    rows = "".join(
        f'<tr class="{"known" if d.get("known") is not None else "failed"}"><td>{esc(d.get("scenario"))}</td><td>{esc(d.get("variant"))}</td>'
        f'<td>{esc(d.get("category"))}</td><td>{esc(d.get("where"))}</td>'
        f'<td><pre>{esc(clip(str(d.get("simulator")), VALUE_CHARS))}</pre></td><td><pre>{esc(clip(str(d.get("server")), VALUE_CHARS))}</pre></td>'
        f'<td>{esc(d.get("known") if d.get("known") is not None else "unexplained")}</td></tr>'
        for d in found[:DISAGREEMENTS_SHOWN]
    )
    more = f'<p class="muted">{len(found) - DISAGREEMENTS_SHOWN} more disagreements in report.json.</p>' if len(found) > DISAGREEMENTS_SHOWN else ""
    return (
        f"<h3>Disagreements ({unexplained} unexplained, {len(found) - unexplained} known)</h3>"
        '<table id="disagreements"><tr><th>scenario</th><th>variant</th><th>category</th><th>where</th>'
        f"<th>simulator</th><th>server</th><th>known reason</th></tr>{rows}</table>{more}"
    )


def fidelity(report: Document) -> str:
    """The section, or "" when the report compared nothing with a server."""
    section = report.get("fidelity")
    if not section:
        return ""
    missing = section.get("missing") or []
    missing_list = (
        f'<h3>Missing ({len(missing)})</h3><ul class="failed" id="fidelity-missing">' + "".join(f"<li>{esc(line)}</li>" for line in missing) + "</ul>"
        if missing
        else ""
    )
    return (
        f'<h2 id="fidelity">Fidelity against {esc(section.get("system"))}</h2>'
        f"{_rates(section.get('rates') or {})}{_disagreements(section.get('runs') or [])}{missing_list}"
    )
