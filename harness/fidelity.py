"""Fidelity: how far the simulator agrees with a real server, run by run and category by category.

Two observations of the same run are compared item by item: each step's result,
its diagnostics and whether it waited; the binlog's event sequence with row images;
the replica's state; every table on both sides; the verdict. Columns a scenario marks
`volatile` (values from clocks and generators) compare only as NULL or not NULL.
A disagreement that a known-differences file explains is reported with that reason.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .observation import EventObservation, Observation, RowImage, StepObservation, TableObservation
from .percent import rate

CATEGORIES: tuple[str, ...] = ("steps", "diagnostics", "blocking", "binlog", "replica", "tables", "verdict")
NOT_NULL = "<not null>"
KNOWN_DIFFERENCES_FILE = "known-differences.yaml"
_EVENT_LISTING_LIMIT = 8


@dataclass(frozen=True)
class Disagreement:
    scenario: str
    variant: str
    category: str
    where: str
    simulator: str
    server: str
    known: str | None = None  # the reason a known-differences entry gives

    def __str__(self) -> str:
        return f"{self.scenario} [{self.variant}] {self.category} {self.where}: simulator {self.simulator} | server {self.server}"


@dataclass
class RunFidelity:
    scenario: str
    variant: str
    compared: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    agreed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.disagreements

    def item(self, category: str, where: str, simulator: object, server: object) -> None:
        """Count one compared item; record it when the two sides differ."""
        self.compared[category] += 1
        if simulator == server:
            self.agreed[category] += 1
        else:
            self.disagreements.append(Disagreement(self.scenario, self.variant, category, where, _text(simulator), _text(server)))


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str, separators=(",", ":"))


# -- comparing two observations ----------------------------------------------------------------


def compare_observations(simulator: Observation, server: Observation, volatile: Iterable[str] = ()) -> RunFidelity:
    run = RunFidelity(server.scenario, server.variant)
    if simulator.error or server.error:
        for category in CATEGORIES:
            run.item(category, "run", simulator.error or "ran", server.error or "ran")
        return run
    volatile_columns = _volatile_by_table(volatile)
    _compare_steps(run, simulator.steps, server.steps)
    _compare_events(run, simulator, server, volatile_columns)
    run.item("replica", "replica", _replica(simulator), _replica(server))
    for side, ours, theirs in (("master", simulator.master_tables, server.master_tables), ("slave", simulator.slave_tables, server.slave_tables)):
        for name in sorted(set(ours) | set(theirs)):
            masked = volatile_columns.get(name, set())
            run.item("tables", f"{side} table {name}", _table(ours.get(name), masked), _table(theirs.get(name), masked))
    run.item("verdict", "verdict", simulator.verdict, server.verdict)
    return run


def _volatile_by_table(volatile: Iterable[str]) -> dict[str, set[str]]:
    columns: dict[str, set[str]] = {}
    for name in volatile:
        table, _, column = name.lower().partition(".")
        columns.setdefault(table, set()).add(column)
    return columns


def _compare_steps(run: RunFidelity, ours: list[StepObservation], theirs: list[StepObservation]) -> None:
    theirs_by_index = {step.index: step for step in theirs}
    for step in ours:
        other = theirs_by_index.get(step.index)
        where = f"step {step.index} ({step.session})"
        if other is None:
            run.item("steps", where, _status(step), "missing")
            continue
        run.item("steps", where, _status(step), _status(other))
        run.item("diagnostics", where, _diagnostics(step), _diagnostics(other))
        run.item("blocking", where, "blocked" if step.blocked else "ran at once", "blocked" if other.blocked else "ran at once")


def _status(step: StepObservation) -> str:
    return f"error {step.error}" if step.error is not None else step.status


def _diagnostics(step: StepObservation) -> list[str]:
    return [f"{d.level} {d.code}" + (f" ({d.reason})" if d.reason else "") for d in step.diagnostics]


def _replica(observation: Observation) -> str:
    if observation.replica_error is not None:
        return f"stopped with {observation.replica_error}"
    return "running" if observation.replica_running else "stopped"


def _table(table: TableObservation | None, volatile: set[str]) -> object:
    if table is None:
        return "no such table"
    masked = [index for index, column in enumerate(table.columns) if column in volatile]
    rows = [[NOT_NULL if index in masked and value is not None else value for index, value in enumerate(row)] for row in table.rows]
    rows.sort(key=lambda row: json.dumps(row, default=str))
    return {"columns": list(table.columns), "rows": rows}


def _compare_events(run: RunFidelity, simulator: Observation, server: Observation, volatile: dict[str, set[str]]) -> None:
    """One item per run: the event sequences agree, headers and row images alike."""
    ours = [_masked_event(event, simulator, volatile) for event in simulator.events]
    theirs = [_masked_event(event, server, volatile) for event in server.events]
    run.compared["binlog"] += 1
    differences: list[Disagreement] = []
    matcher = difflib.SequenceMatcher(a=[e.header for e in ours], b=[e.header for e in theirs], autojunk=False)
    for tag, first, last, other_first, other_last in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(last - first):
                mine, other = ours[first + offset], theirs[other_first + offset]
                if mine.rows != other.rows:
                    differences.append(_event_difference(run, f"event {first + offset + 1} ({mine.header}) rows", _rows(mine.rows), _rows(other.rows)))
            continue
        where = f"events {first + 1}-{last}" if last - first > 1 else f"event {first + 1}"
        differences.append(
            _event_difference(run, where, [e.header for e in ours[first:last]] or "nothing", [e.header for e in theirs[other_first:other_last]] or "nothing")
        )
    if not differences:
        run.agreed["binlog"] += 1
        return
    run.disagreements.extend(differences[:_EVENT_LISTING_LIMIT])
    if len(differences) > _EVENT_LISTING_LIMIT:
        run.disagreements.append(_event_difference(run, "more events", f"{len(differences) - _EVENT_LISTING_LIMIT} more differences", "-"))


def _event_difference(run: RunFidelity, where: str, simulator: object, server: object) -> Disagreement:
    return Disagreement(run.scenario, run.variant, "binlog", where, _text(simulator), _text(server))


def _masked_event(event: EventObservation, observation: Observation, volatile: dict[str, set[str]]) -> EventObservation:
    if not event.rows:
        return event
    table = event.info.rpartition(".")[2].lower()
    columns = observation.master_tables.get(table)
    masked = {index + 1 for index, column in enumerate(columns.columns) if column in volatile.get(table, set())} if columns else set()
    if not masked:
        return event

    def mask(image: dict[int, object] | None) -> dict[int, object] | None:
        if image is None:
            return None
        return {number: NOT_NULL if number in masked and value is not None else value for number, value in image.items()}

    return EventObservation(event.kind, event.info, tuple(RowImage(mask(row.before), mask(row.after)) for row in event.rows))


def _rows(rows: tuple[RowImage, ...]) -> list[dict[str, object]]:
    return [
        {side: {f"@{n}": v for n, v in sorted(image.items())} for side, image in (("before", row.before), ("after", row.after)) if image is not None}
        for row in rows
    ]


# -- known differences -------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownDifference:
    """A disagreement that stays, and why: scenario, variant, category and where are globs."""

    scenario: str
    reason: str
    variant: str = "*"
    category: str = "*"
    where: str = "*"

    def explains(self, disagreement: Disagreement) -> bool:
        return all(
            fnmatch.fnmatchcase(value, pattern)
            for value, pattern in (
                (disagreement.scenario, self.scenario),
                (disagreement.variant, self.variant),
                (disagreement.category, self.category),
                (disagreement.where, self.where),
            )
        )


def load_known_differences(path: Path) -> list[KnownDifference]:
    """The entries of a known-differences YAML file; an unreadable entry names its index."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(f"{path}: {error}") from None
    if not isinstance(document, list):
        raise ValueError(f"{path}: expected a list of known differences")
    entries = []
    for index, raw in enumerate(document):
        if not isinstance(raw, dict) or not {"scenario", "reason"} <= set(raw) or not set(raw) <= {"scenario", "variant", "category", "where", "reason"}:
            raise ValueError(f"{path}: entry [{index}]: needs scenario and reason, and may have variant, category, where")
        if raw.get("category", "*") != "*" and raw["category"] not in CATEGORIES:
            raise ValueError(f"{path}: entry [{index}]: category {raw['category']!r} is not one of {', '.join(CATEGORIES)}")
        entries.append(KnownDifference(**{key: str(value) for key, value in raw.items()}))
    return entries


def explain(runs: list[RunFidelity], known: list[KnownDifference]) -> None:
    """Attach each known difference's reason to the disagreements it explains."""
    for run in runs:
        run.disagreements = [
            next(
                (Disagreement(**{**d.__dict__, "known": entry.reason}) for entry in known if entry.explains(d)),
                d,
            )
            for d in run.disagreements
        ]


# -- the whole suite ---------------------------------------------------------------------------


@dataclass
class FidelityResult:
    system: str
    runs: list[RunFidelity] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # runs with no recorded or live server result

    def rates(self) -> dict[str, dict[str, float | int | None]]:
        """Per category, then `overall` (every item) and `runs` (runs with no disagreement):
        compared, agreed, and their exact ratio, None when nothing was compared."""
        counts: dict[str, tuple[int, int]] = {}
        for category in CATEGORIES:
            counts[category] = (sum(run.compared[category] for run in self.runs), sum(run.agreed[category] for run in self.runs))
        counts["overall"] = (sum(compared for compared, _ in counts.values()), sum(agreed for _, agreed in counts.values()))
        counts["runs"] = (len(self.runs), sum(run.agrees for run in self.runs))
        return {name: {"compared": compared, "agreed": agreed, "rate": rate(agreed, compared)} for name, (compared, agreed) in counts.items()}

    @property
    def unexplained(self) -> list[Disagreement]:
        return [d for run in self.runs for d in run.disagreements if d.known is None]

    @property
    def explained(self) -> list[Disagreement]:
        return [d for run in self.runs for d in run.disagreements if d.known is not None]

    def to_json(self) -> dict[str, object]:
        return {
            "system": self.system,
            "rates": self.rates(),
            "missing": self.missing,
            "runs": [
                {
                    "scenario": run.scenario,
                    "variant": run.variant,
                    "agrees": run.agrees,
                    "disagreements": [d.__dict__ for d in run.disagreements],
                }
                for run in self.runs
            ],
        }
