"""What the master reports about each statement: its result and the rows it changed."""

from __future__ import annotations

from dataclasses import dataclass, field

from server_sim.errors import Condition, SqlError

from .binlog_cache import CachedEvents
from .decision import Decision


@dataclass
class StepResult:
    """What happened to one statement on the master."""

    index: int | None  # the scenario step (None for master_schema statements)
    session: str
    sql: str
    status: str = "ok"  # ok | error | blocked (waited and never ran)
    error: Condition | None = None
    notes: list[Condition] = field(default_factory=list)
    unsafe: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)  # "table (Engine)", every table accessed
    writes: list[str] = field(default_factory=list)
    logged_as: str = "none"  # STATEMENT | ROW | none: what reached the caches
    decision: Decision | None = None  # the logging decision, also when nothing ended up logged
    logged_to: list[CachedEvents] = field(default_factory=list)  # the caches the events went to
    affected_rows: int = 0
    blocked_by: str | None = None
    ran_after_step: int | None = None
    # Byte ranges of the binlog written while the statement ran, one per attempt that
    # wrote (a statement that waits for a lock runs again later): its own events, and a
    # transaction it committed (COMMIT, autocommit, DDL's implicit commit).
    binlog_ranges: list[tuple[int, int]] = field(default_factory=list)
    # A CALL's statements, each run, decided and logged as a statement of its own.
    statements: list[StepResult] = field(default_factory=list)
    disconnect: bool = False  # a disconnect step: no statement, the session's end
    reap: bool = False  # a reap step: no statement, the client waits for its answers
    # RESET MASTER emptied the binlog: the ranges of later statements are in the new file.
    reset_binlog: bool = False

    def restart(self) -> None:
        """Forget what an attempt that had to wait left (a CALL runs again from its start)."""
        self.notes.clear()
        self.unsafe.clear()
        self.reads.clear()
        self.writes.clear()
        self.logged_to.clear()
        self.statements.clear()
        self.logged_as = "none"
        self.decision = None

    def fail(self, error: SqlError) -> None:
        self.status = "error"
        self.error = error.condition()


@dataclass(frozen=True)
class RowEffect:
    """One row a statement changed on the master: the step (None for master_schema), the
    table, and the row before and after (None for an insert's before, a delete's after)."""

    step: int | None
    table: str
    before: tuple | None
    after: tuple | None
