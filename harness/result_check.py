"""A mysqltest file run in the simulator and judged against its recorded `.result`.

The test is imported as `rplharness import mysqltest` imports it and run once, under
the first variant its matrix gives. Each statement the simulator ran and the `.result`
shows is judged on what the server recorded for it:

- **outcome**: it failed with the recorded error message, or succeeded as recorded;
- **warnings**: the Warnings block the `.result` shows, level, code (unless masked) and
  message, against the simulator's; judged where the `.result` shows a block or the
  simulator gave a note 1592, outside the test's `--disable_warnings` regions and for
  statements that did not fail (there the `.result` cannot show one);
- **events**: each SHOW BINLOG EVENTS table the `.result` shows after it (Gtid events
  and positions left out, table ids and xids masked, `use `db`; ` prefixes dropped)
  must be the last events the simulator had logged by then. The table starts wherever
  the test last reset or saved the binlog position, which the `.result` does not say,
  so it is compared with the end of the simulator's binlog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.importers.build import build_scenarios
from harness.importers.model import Origin
from harness.importers.mysqltest import import_mysqltest
from harness.result_file import Answer, Diagnostic, ResultFile
from harness.runner import run_variant
from master_sim.results import StepResult
from server_sim.binlog.file import BinlogReader, PositionedEvent
from server_sim.flavor import Flavor

UNSAFE_NOTE = 1592
KINDS = ("outcome", "warnings", "events")
_HIDDEN_EVENTS = frozenset({"Format_desc", "Previous_gtids", "Anonymous_Gtid", "Gtid", "Rotate", "Stop", "Gtid_list", "Binlog_checkpoint"})
_USE = re.compile(r"^use `[^`]*`; ")
_TABLE_ID = re.compile(r"table_id: \d+")
_XID = re.compile(r"/\* (?:xid=\d+|XID) \*/")
_WARNINGS_OFF = re.compile(r"^\s*-{0,2}\s*disable_warnings\b", re.IGNORECASE)
_WARNINGS_ON = re.compile(r"^\s*-{0,2}\s*enable_warnings\b", re.IGNORECASE)
# include/show_binlog_events.inc masks each Xid event as a Query COMMIT where the test set
# $mask_binlog_commit_events (include/show_events.inc), for engines with and without Xids.
_MASK_COMMITS = re.compile(r"^\s*-{0,2}\s*let\s+\$mask_binlog_commit_events\s*=\s*(\S+?)\s*;?\s*$", re.IGNORECASE)
_SHOW_EVENTS = re.compile(r"^\s*-{0,2}\s*source\s+include/show_(?:binlog_)?events2?\.inc", re.IGNORECASE)


@dataclass(frozen=True)
class Item:
    """One judged answer: what the `.result` recorded and what the simulator gave."""

    kind: str  # outcome | warnings | events
    statement: str
    line: int  # where the statement is echoed in the .result (1-based)
    agree: bool
    expected: str
    got: str
    # Agreement on the kind of answer only, as across server versions whose texts differ
    # ("slave" became "replica" in 8.0.26): both failed or both succeeded; the same levels
    # and codes of warnings; the same event types.
    loosely: bool = False


@dataclass
class ResultComparison:
    test: Path
    result: Path
    variant: dict[str, str]
    items: list[Item] = field(default_factory=list)
    not_shown: int = 0  # statements the simulator ran that the .result does not show
    refused: list[str] = field(default_factory=list)  # statements the simulator refused (1235, 1064)

    def count(self, kind: str, loosely: bool = False) -> tuple[int, int]:
        """(agreeing, judged) items of one kind."""
        judged = [item for item in self.items if item.kind == kind]
        return sum(item.loosely if loosely else item.agree for item in judged), len(judged)


def _event_key(event_type: str, info: str) -> tuple[str, str]:
    info = _XID.sub("/* XID */", _TABLE_ID.sub("table_id: #", _USE.sub("", info.strip())))
    return event_type, " ".join(info.split())


def _logged_before(events: list[PositionedEvent], end: int) -> list[tuple[str, str]]:
    return [
        _event_key(positioned.event.type_name, positioned.event.info())
        for positioned in events
        if positioned.end_log_pos <= end and positioned.event.type_name not in _HIDDEN_EVENTS
    ]


def _warnings_disabled_lines(path: Path) -> list[bool]:
    """For each line of `path` (0-based), whether `--disable_warnings` is in force at it
    (within that file), read once per file."""
    disabled, states = False, []
    for text in path.read_text(encoding="utf-8", errors="replace").splitlines():
        states.append(disabled)
        if _WARNINGS_OFF.match(text):
            disabled = True
        elif _WARNINGS_ON.match(text):
            disabled = False
    return states


def _commits_masked(lines: list[str], line: int, next_line: int | None) -> bool:
    """Whether the event table shown after the statement at `line` (1-based) of a test's
    `lines` masks Xid events: the setting of $mask_binlog_commit_events where the test
    sources the include that shows it, before the next statement at `next_line`."""
    masked = False
    for number, text in enumerate(lines, start=1):
        if next_line is not None and number >= next_line:
            break
        setting = _MASK_COMMITS.match(text)
        if setting:
            masked = setting.group(1) not in ("0", "")
        elif number > line and _SHOW_EVENTS.match(text):
            return masked
    return masked


def _masked(event: tuple[str, str]) -> tuple[str, str]:
    event_type, info = event
    return ("Query", info.replace(" /* XID */", "").strip()) if event_type == "Xid" else event


def _text(diagnostics: list[Diagnostic]) -> str:
    return "; ".join(f"{item.level} {item.code if item.code is not None else '####'} {item.message}" for item in diagnostics) or "none"


def _judge(step: StepResult, answer: Answer, line: int, warnings_shown: bool, logged: list[tuple[str, str]], comparison: ResultComparison) -> None:
    expected_error = f"ERROR {answer.error[0]}: {answer.error[1]}" if answer.error else "ok"
    got_error = f"ERROR {step.error.code}: {step.error.message}" if step.error else "ok"
    agree = (answer.error is None) == (step.error is None) and (answer.error is None or " ".join(answer.error[1].split()) == " ".join(step.error.message.split()))
    loosely = (answer.error is None) == (step.error is None)
    comparison.items.append(Item("outcome", step.sql, line, agree, expected_error, got_error, loosely))
    got = [Diagnostic(note.level, note.code, note.message) for note in step.notes]
    # mysqltest shows no Warnings block after a statement that failed (run_query_normal
    # handles the error and skips append_warnings).
    if warnings_shown and answer.error is None and (answer.has_warnings_block or any(note.code == UNSAFE_NOTE for note in got)):
        pairs = list(zip(got, answer.warnings))
        codes = len(got) == len(answer.warnings) and all(
            mine.level == theirs.level and (theirs.code is None or mine.code == theirs.code) for mine, theirs in pairs
        )
        same = codes and all(" ".join(mine.message.split()) == " ".join(theirs.message.split()) for mine, theirs in pairs)
        comparison.items.append(Item("warnings", step.sql, line, same, _text(answer.warnings), _text(got), codes))
    for table in answer.event_tables:
        shown = [_event_key(event_type, info) for event_type, info in table if event_type not in _HIDDEN_EVENTS]
        tail = logged[len(logged) - len(shown):] if shown else []
        types = [event_type for event_type, _ in tail] == [event_type for event_type, _ in shown]
        comparison.items.append(Item("events", step.sql, line, tail == shown, "\n".join(map(" ".join, shown)), "\n".join(map(" ".join, tail)), types))


def compare_with_result(test: Path, result: Path, flavor: Flavor, out: Path) -> ResultComparison:
    """Import `test`, run it, and judge each statement the `.result` shows."""
    capture = import_mysqltest(test)
    scenario = build_scenarios(capture, out / "scenario", test.stem)[0].scenario
    variant = scenario.variants()[0]
    record = run_variant(scenario, variant, flavor, out / "binlogs", replica=capture.replication)
    if record.error:
        raise RuntimeError(f"{test}: the simulator failed on this test:\n{record.error}")
    comparison = ResultComparison(test, result, variant)
    results = list(record.schema_steps) + list(record.steps)
    origins: list[Origin | None] = [*capture.schema_origins, *(statement.origin for statement in capture.statements)]
    if len(origins) != len(results):  # the import reordered what it read: where each came from is unknown
        origins = [None] * len(results)
    comparison.refused = [f"{step.sql}: {step.error.message}" for step in results if step.error and step.error.code in (1235, 1064)]
    # One list of events per binlog file, RESET MASTER starting the next.
    files = [*record.reset_binlogs, record.binlog] if record.binlog else []
    events = [list(BinlogReader(path).events()) for path in files]
    generation = 0
    recorded = ResultFile(result)
    found = [(place, step, origin, recorded.echo_of(step.sql) if step.sql else None) for place, (step, origin) in enumerate(zip(results, origins))]
    shown = [(place, step, origin, echo) for place, step, origin, echo in found if echo is not None]
    comparison.not_shown = sum(echo is None and bool(step.sql) for _, step, _, echo in found)
    reaped = _reaped(results)
    answered_at_reap = set(reaped.values())
    written = previous = 0
    disabled_lines: dict[Path, list[bool]] = {}
    test_lines: dict[Path, list[str]] = {}  # read once, where an events table is shown
    for number, (place, step, origin, (start, end)) in enumerate(shown):
        # What the disconnects before the next statement shown logged (a ROLLBACK, the DROP
        # of temporary tables) is in the event tables the .result shows after this one.
        until = shown[number + 1][0] if number + 1 < len(shown) else len(results)
        ended = [later for later in results[place + 1 : until] if later.disconnect]
        for earlier in results[previous:place + 1]:
            if earlier.reset_binlog:  # the table now starts in the new file
                generation, written = generation + 1, 0
        previous = place + 1
        written = max([written, *(stop for ran in (step, *ended) for _, stop in ran.binlog_ranges)])
        following = shown[number + 1][3][0] if number + 1 < len(shown) else len(recorded.lines)
        if origin is not None and origin.file not in disabled_lines:
            disabled_lines[origin.file] = _warnings_disabled_lines(origin.file)
        states = disabled_lines.get(origin.file, []) if origin is not None else []
        warnings_shown = origin is None or not (0 < origin.line <= len(states) and states[origin.line - 1])
        answer = recorded.answer(end, following)
        logged = _logged_before(events[generation], written) if answer.event_tables else []  # only what a table is compared with
        if logged and origin is not None:
            next_line = shown[number + 1][2].line if number + 1 < len(shown) and shown[number + 1][2] is not None and shown[number + 1][2].file == origin.file else None
            lines = test_lines.get(origin.file) or test_lines.setdefault(origin.file, origin.file.read_text(encoding="utf-8", errors="replace").splitlines())
            if _commits_masked(lines, origin.line, next_line):
                logged = [_masked(event) for event in logged]
        # A statement sent with `send` is answered where it is reaped, after the output of
        # the statement before the reap, which then cannot be told apart: the reaped
        # statement is judged on that block, the one before it not at all.
        reaps = [reaped[later] for later in range(place + 1, until) if later in reaped]
        if place in answered_at_reap:
            continue
        if reaps:
            comparison.not_shown += 1
            step = results[reaps[-1]]
        _judge(step, answer, start + 1, warnings_shown, logged, comparison)
    return comparison


def _reaped(results: list[StepResult]) -> dict[int, int]:
    """Each reap step's place -> the place of the statement it waited for: its session's
    statement before it."""
    reaped: dict[int, int] = {}
    for place, step in enumerate(results):
        if step.reap:
            sent = next((earlier for earlier in range(place - 1, -1, -1) if results[earlier].session == step.session and results[earlier].sql), None)
            if sent is not None:
                reaped[place] = sent
    return reaped
