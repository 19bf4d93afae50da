"""What every part of report.html shares: escaping, clipping, the verdicts in severity order,
and what makes a run worth reading. Report documents of older versions lack keys; every
reader here takes what is present and defaults the rest."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any
from urllib.parse import quote

from harness.percent import NOT_APPLICABLE
from harness.percent import percent as counts_percent  # the rate of counts, written once


Run = Mapping[str, Any]
Document = Mapping[str, Any]

# Display order, least to most severe; a verdict this list lacks is shown after them.
VERDICTS = ("consistent", "divergent", "slave_stopped", "finding", "unsupported", "error")
FORMATS = ("STATEMENT", "MIXED", "ROW")

TEXT_CHARS = 4000


def esc(value: object) -> str:
    """HTML-escaped text; None shows as an empty string rather than "None"."""
    return "" if value is None else escape(str(value))


def clip(text: str, limit: int = TEXT_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def verdict_class(verdict: str) -> str:
    return f"v-{verdict}" if verdict in VERDICTS else "v-other"


def verdict_order(verdicts: Iterable[str]) -> list[str]:
    """The known verdicts in severity order, then any other verdict seen, sorted."""
    return [*VERDICTS, *sorted(set(verdicts) - set(VERDICTS))]


def severity(verdict: str) -> float:
    """Higher is worse; an unknown verdict ranks just above consistent."""
    return VERDICTS.index(verdict) if verdict in VERDICTS else 0.5


def held(run: Run) -> bool:
    """Every expectation of the run held."""
    return all(e.get("held", True) for e in run.get("expectations") or [])


def failed_error_checks(run: Run) -> list[Mapping[str, Any]]:
    return [check for check in run.get("error_checks") or [] if not check.get("held", True)]


def unmet(run: Run) -> bool:
    """An expectation or an error check failed: the square's outline."""
    return not held(run) or bool(failed_error_checks(run))


def unchecked(run: Run) -> bool:
    """The run did not pass although nothing it declared failed: no expectation covers its verdict."""
    return run.get("passed") is False and not unmet(run) and run.get("verdict") not in ("finding", "error")


def notable(run: Run) -> bool:
    """A run worth reading: not consistent, an expectation or error check failed, or it did not pass."""
    return run.get("verdict") != "consistent" or unmet(run) or run.get("passed") is False


def anchor(run: Run) -> str:
    return f"run-{run['run_id']}"


def href(run: Run) -> str:
    return f'href="#{esc(quote(anchor(run)))}"'


def link(run: Run | None, text: str) -> str:
    """`text` (already HTML) linked to the run's detail, or plain when the run has none."""
    return f"<a {href(run)}>{text}</a>" if run is not None else text


def items(lines: Iterable[object]) -> str:
    rows = "".join(f"<li>{esc(clip(str(line)))}</li>" for line in lines)
    return f"<ul>{rows}</ul>" if rows else ""


def condition(value: Mapping[str, Any] | None) -> str:
    """`1062 ER_DUP_ENTRY: Duplicate entry ...`, or "" for none."""
    if not value:
        return ""
    return f"{value.get('code')} {value.get('name', '')}: {value.get('message', '')}"


def percent(agreed: object, compared: object, rate: object = None) -> str:
    """`99.95 %` as `harness.percent` writes it from the counts; a document without counts
    (written before they were kept) gives its rate (0..1), floored the same way; "n/a" for
    a null one."""
    if _count(agreed) and _count(compared):
        return counts_percent(agreed, compared)  # type: ignore[arg-type]
    if isinstance(rate, (int, float)) and not isinstance(rate, bool):
        hundredths = min(int(rate * 10000), 9999 if rate < 1 else 10000)
        return f"{hundredths // 100}.{hundredths % 100:02d} %"
    return NOT_APPLICABLE


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
