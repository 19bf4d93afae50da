"""What an importer reads out of a captured workload, before it becomes a scenario: the
statements of each session in replay order, where each came from, and every line the
importer skipped or had to guess about, so nothing is dropped silently."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path


class ImportFailure(Exception):
    """A file that cannot be imported at all (not text, not the kind given, unreadable):
    the message names the file and, where one is to blame, the line."""


@dataclass(frozen=True)
class Origin:
    """A place in an input file, as `file:line`."""

    file: Path
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Captured:
    """One statement one session sent, as it becomes a step.

    `errors` are the errors the capture says it ended with (mysqltest's `--error`);
    `database` is the session's default database when it ran.
    """

    session: str
    sql: str
    origin: Origin
    database: str = ""
    errors: tuple[int | str, ...] = ()
    # mysqltest's `disconnect`: the session closes its connection (`sql` is empty).
    disconnect: bool = False
    # mysqltest's `reap`: the client waits for its sent statement's answer (`sql` is empty).
    reap: bool = False


@dataclass(frozen=True)
class Skipped:
    """A line or statement the importer did not turn into a step, and why."""

    origin: Origin
    reason: str

    def __str__(self) -> str:
        return f"{self.origin}: {self.reason}"


@dataclass
class Capture:
    """Everything read from one input: `statements` in replay order, the schema the input
    creates, the counts of statements kept and dropped per kind (`classify.Kind` values),
    the lines skipped, and the places where the replay order is a guess."""

    kind: str
    sources: tuple[Path, ...]
    server: str = ""  # the version line of the log's header, or the mtr suite's server
    statements: list[Captured] = field(default_factory=list)
    master_schema: list[str] = field(default_factory=list)
    schema_origins: list[Origin] = field(default_factory=list)  # where each master_schema statement was read, when known
    slave_schema: list[str] = field(default_factory=list)
    matrix: dict[str, tuple[str, ...]] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    slave_settings: dict[str, str] = field(default_factory=dict)
    kept: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    skipped: list[Skipped] = field(default_factory=list)
    guesses: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # How the steps' order was decided from the input: said in the file's header.
    order: str = ""
    # The leading DDL of the steps is the master's schema (a log); a mysqltest file says
    # where its set-up ends (its first sync), and then this is False.
    schema_from_steps: bool = True
    # Statements may fail without saying so: a log does not record errors.
    errors_unknown: bool = True
    # The input set a replica up (a mysqltest file sourcing master-slave.inc, or connecting
    # to the slave's port); a test of the binlog alone has none.
    replication: bool = True
