"""Aggregates of a fuzz report, shown before any run: thousands of generated runs are read
as counts (verdicts per binlog format, row image and flavor; slave stops per error code)
and as groups of findings that share a signature, each with one shrunk example to copy."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .common import FORMATS, Document, Run, esc, link, verdict_class, verdict_order
from .overview import finding

GROUPS_SHOWN = 100
GROUP_RUNS_SHOWN = 20


def is_fuzz(report: Document) -> bool:
    return report.get("command") == "fuzz" or bool(report.get("exploration"))


def _key(run: Run, flavor: object) -> tuple[str, str, str]:
    settings = run.get("settings") or {}
    return str(settings.get("binlog_format", "?")), str(settings.get("binlog_row_image", "")), str(run.get("flavor") or flavor or "?")


def _key_order(key: tuple[str, str, str]) -> tuple[int, str, str, str]:
    return (FORMATS.index(key[0]) if key[0] in FORMATS else len(FORMATS), *key)


def verdict_table(runs: Sequence[Run], flavor: object) -> str:
    """Verdict counts per binlog_format × binlog_row_image × flavor, with totals."""
    by_key: dict[tuple[str, str, str], Counter[str]] = {}
    for run in runs:
        by_key.setdefault(_key(run, flavor), Counter())[str(run.get("verdict"))] += 1
    totals: Counter[str] = sum(by_key.values(), Counter())
    verdicts = verdict_order(totals)
    head = "".join(f'<th><span class="badge {verdict_class(v)}">{esc(v)}</span></th>' for v in verdicts)

    def cells(counts: Counter[str]) -> str:
        return "".join(f'<td class="n" data-verdict="{esc(v)}">{counts[v]}</td>' for v in verdicts) + f'<td class="n total">{sum(counts.values())}</td>'

    rows = "".join(
        f'<tr class="combination"><td>{esc(key[0])}</td><td>{esc(key[1] or "—")}</td><td>{esc(key[2])}</td>{cells(by_key[key])}</tr>'
        for key in sorted(by_key, key=_key_order)
    )
    return (
        "<h2>Verdicts by binlog format, row image and flavor</h2>"
        '<table id="fuzz-verdicts"><tr><th>binlog_format</th><th>binlog_row_image</th><th>flavor</th>'
        f'{head}<th>runs</th></tr>{rows}<tr class="totals"><th colspan="3">all</th>{cells(totals)}</tr></table>'
    )


def slave_stops(runs: Sequence[Run], detailed: Mapping[str, Run]) -> str:
    """Runs whose slave stopped, per error code, with the first message seen and a few runs."""
    stops: dict[object, list[Run]] = {}
    for run in runs:
        error = (run.get("slave") or {}).get("error")
        if error:
            stops.setdefault(error.get("code"), []).append(run)
    if not stops:
        return ""
    rows = []
    for code, stopped in sorted(stops.items(), key=lambda item: (-len(item[1]), str(item[0]))):
        error = stopped[0]["slave"]["error"]
        examples = [link(detailed[str(r.get("run_id"))], esc(r.get("run_id"))) for r in stopped if str(r.get("run_id")) in detailed][:3]
        rows.append(
            f'<tr><td class="code">{esc(code)}</td><td>{esc(error.get("name"))}</td><td class="n">{len(stopped)}</td>'
            f"<td>{esc(error.get('message'))}</td><td>{', '.join(examples)}</td></tr>"
        )
    return (
        "<h2>Slave stops by error code</h2>"
        '<table id="slave-stops"><tr><th>code</th><th>name</th><th>runs</th><th>first message</th><th>runs with detail</th></tr>'
        f"{''.join(rows)}</table>"
    )


def _signature(signature: Mapping[str, Any], flavor: object) -> str:
    fields = [(key.replace("_", " "), value) for key, value in signature.items()]
    if flavor:
        fields.append(("flavor", flavor))
    shown = [(key, ", ".join(map(str, value)) if isinstance(value, list) else value) for key, value in fields]
    return '<dl class="signature">' + "".join(f"<dt>{esc(key)}</dt><dd>{esc('—' if value in (None, '') else value)}</dd>" for key, value in shown) + "</dl>"


def finding_groups(groups: Sequence[Mapping[str, Any]], detailed: Mapping[str, Run]) -> str:
    """Each group of findings with one signature: what they share, how many, and one example
    shrunk to its essentials, its scenario file shown whole."""
    if not groups:
        return ""
    total = sum(int(group.get("count") or 0) for group in groups)
    parts = [f"<h2>Findings by group ({len(groups)} groups, {total} findings)</h2>"]
    for number, group in enumerate(groups[:GROUPS_SHOWN], start=1):
        run_ids = [str(run_id) for run_id in group.get("run_ids") or []][:GROUP_RUNS_SHOWN]
        listed = ", ".join(link(detailed.get(run_id), esc(run_id)) for run_id in run_ids)
        more = int(group.get("count") or 0) - len(run_ids)
        example = group.get("example")
        parts.append(
            f'<section class="finding-group" id="group-{number}"><h3>{esc(group.get("title"))}</h3>'
            f'<p><span class="group-count">{esc(group.get("count"))}</span> findings</p>'
            f"{_signature(group.get('signature') or {}, group.get('flavor'))}"
            f"<p>Runs: {listed}{f' and {more} more in report.json' if more > 0 else ''}</p>"
        )
        if example:
            parts.append("<h4>Example</h4>" + finding(example, detailed.get(str(example.get("run_id"))), heading="h5"))
        parts.append("</section>")
    if len(groups) > GROUPS_SHOWN:
        parts.append(f'<p class="muted">{len(groups) - GROUPS_SHOWN} more groups in report.json (finding_groups).</p>')
    return "".join(parts)
