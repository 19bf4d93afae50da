"""A capture made into scenario files: steps in the capture's order, the schema it
created (or the one given), and a header comment saying where every step came from,
what was dropped or skipped, and where the order is a guess."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from harness.importers.classify import Kind, kind_of
from harness.importers.model import Capture, Captured
from harness.importers.sessions import idle_points, kept_database
from scenarios.model import Scenario, Step
from scenarios.writer import scenario_to_yaml, write_atomically

_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_HEADER_WIDTH = 86


@dataclass(frozen=True)
class ImportedFile:
    """One scenario an import writes, with the header comment that goes above it."""

    path: Path
    scenario: Scenario
    header: str

    def text(self) -> str:
        return self.header + scenario_to_yaml(self.scenario)

    def write(self) -> None:
        write_atomically(self.path, self.text())


# A temporary table belongs to the session that made it: its DDL stays that session's step.
_TEMPORARY = re.compile(r"\s*(?:/\*.*?\*/\s*)*(?:CREATE|DROP)\s+(?:/\*!\d*\s*)?TEMPORARY\b", re.IGNORECASE | re.DOTALL)


def build_scenarios(
    capture: Capture,
    out: Path,
    name: str,
    schema: list[str] | None = None,
    slave_schema: list[str] | None = None,
    max_steps: int | None = None,
) -> list[ImportedFile]:
    """The scenario files of `capture` under `out`: one, or several of at most
    `max_steps` steps each, cut where no session has a transaction open."""
    database = kept_database(capture)
    statements = list(capture.statements)
    master_schema = list(capture.master_schema)
    if schema is not None:
        master_schema += schema
    elif capture.schema_from_steps:
        while statements and kind_of(statements[0].sql) is Kind.DDL and not statements[0].errors and not _TEMPORARY.match(statements[0].sql):
            master_schema.append(statements.pop(0).sql)
    parts = _parts(statements, max_steps)
    base = _NAME.sub("-", name).strip("-") or "imported"
    files: list[ImportedFile] = []
    for number, part in enumerate(parts, 1):
        part_name = base if len(parts) == 1 else f"{base}-part{number}"
        scenario = Scenario(
            name=part_name,
            source=None,
            description=_description(capture, number, len(parts)),
            settings=dict(capture.settings),
            slave_settings=dict(capture.slave_settings),
            matrix=dict(capture.matrix),
            master_schema=tuple(master_schema),
            slave_schema=tuple([*capture.slave_schema, *(slave_schema or [])]),
            steps=tuple(Step(index, s.session, s.sql, s.errors, s.disconnect, s.reap) for index, s in enumerate(part, 1)),
            tolerate_errors=capture.errors_unknown,
        )
        header = _header(capture, database, part, number, len(parts))
        files.append(ImportedFile(out / f"{part_name}.yaml", scenario, header))
    return files


def _parts(statements: list[Captured], max_steps: int | None) -> list[list[Captured]]:
    if not max_steps or len(statements) <= max_steps:
        return [statements]
    cuts = idle_points(statements)
    parts: list[list[Captured]] = []
    start = 0
    while len(statements) - start > max_steps:
        cut = max((point for point in cuts if start < point <= start + max_steps), default=start + max_steps)
        parts.append(statements[start:cut])
        start = cut
    parts.append(statements[start:])
    return parts


def _description(capture: Capture, number: int, total: int) -> str:
    sources = ", ".join(path.name for path in capture.sources)
    text = f"Imported from the {capture.kind} capture {sources}"
    if capture.server:
        text += f" ({capture.server})"
    text += "."
    if total > 1:
        text += f" Part {number} of {total}: it starts from the schema alone, not from the rows earlier parts left."
    return text


def _header(capture: Capture, database: str, part: list[Captured], number: int, total: int) -> str:
    lines = [f"Imported by `rplharness import {capture.kind}` from {', '.join(map(str, capture.sources))}."]
    if capture.server:
        lines.append(f"Server: {capture.server}.")
    if total > 1:
        lines.append(f"Part {number} of {total}: steps from {part[0].origin} to {part[-1].origin}." if part else f"Part {number} of {total}.")
    sessions = list(dict.fromkeys(statement.session for statement in part))
    lines.append(f"Sessions: {', '.join(sessions) or 'none'}" + (f"; database {database}." if database else "."))
    lines.append("Kept: " + (_counts(capture.kept) or "nothing") + ". Dropped: " + (_counts(capture.dropped) or "nothing") + ".")
    if capture.order:
        lines.append("Order: " + capture.order)
    if capture.errors_unknown:
        lines.append("Errors: the capture does not say which statements failed, so the scenario tolerates errors.")
    paragraphs = [*lines, *(f"Guess: {guess}" for guess in capture.guesses), *(f"Note: {note}" for note in capture.notes)]
    paragraphs += [f"Skipped: {skip}" for skip in capture.skipped]
    return "".join(_comment(paragraph) for paragraph in paragraphs) + "\n"


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{kind} {count}" for kind, count in sorted(counter.items(), key=lambda item: (-item[1], item[0])) if count > 0)


def _comment(paragraph: str) -> str:
    """`paragraph` as `# ` lines of at most _HEADER_WIDTH characters."""
    wrapped = textwrap.wrap(" ".join(paragraph.split()), _HEADER_WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    return "".join(f"# {line}\n" for line in wrapped or [""])
