"""A generated workload: a schema and each session's statements, before they are interleaved.

One workload gives many scenarios, one per interleaving of its sessions' statements, so
the sessions are kept apart here and only `Workload.scenario` puts them in one order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scenarios.model import Scenario, Step

# An order in which the sessions send their statements: the k-th occurrence of a session
# stands for that session's k-th statement.
Interleaving = tuple[str, ...]


@dataclass(frozen=True)
class GeneratedStatement:
    """One statement of a session, with the tables it reads or writes.

    Two statements of different sessions commute, for the interleaving explorer, when
    neither is transaction control and they touch disjoint tables. Transaction control
    conflicts with everything, conservatively: a COMMIT decides where the transaction's
    cached events reach the binlog and releases its locks, a ROLLBACK (TO SAVEPOINT)
    decides what is left of it, and which tables the transaction touched is not tracked.
    """

    sql: str
    tables: frozenset[str] = frozenset()
    transaction_control: bool = False

    def conflicts_with(self, other: GeneratedStatement) -> bool:
        return self.transaction_control or other.transaction_control or not self.tables.isdisjoint(other.tables)


@dataclass(frozen=True)
class Workload:
    """What `(seed, index)` generates: a master schema (with its first rows), the slave's
    own schema changes, settings, and per session its statements in order.

    `volatile` lists the `table.column`s holding values from clocks, generators or server
    variables, which a real server cannot reproduce (see `Scenario.volatile`).
    """

    seed: int
    index: int
    master_schema: tuple[str, ...]
    sessions: Mapping[str, tuple[GeneratedStatement, ...]]
    slave_schema: tuple[str, ...] = ()
    settings: Mapping[str, str] = field(default_factory=dict)
    volatile: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= len(self.sessions) <= 9:
            raise ValueError(f"a workload has 1 to 9 sessions, got {len(self.sessions)}")

    @property
    def name(self) -> str:
        return f"fuzz-s{self.seed}-{self.index:05d}"

    def lengths(self) -> dict[str, int]:
        """How many statements each session sends."""
        return {session: len(statements) for session, statements in self.sessions.items()}

    def statements_in(self, interleaving: Sequence[str]) -> list[tuple[str, GeneratedStatement]]:
        """Each step of `interleaving` as (session, statement); ValueError unless it sends
        every statement of every session exactly once."""
        order = tuple(interleaving)
        if Counter(order) != Counter(self.lengths()):
            raise ValueError(f"{order} is not an interleaving of the sessions {self.lengths()}")
        positions = dict.fromkeys(self.sessions, 0)
        steps = []
        for session in order:
            steps.append((session, self.sessions[session][positions[session]]))
            positions[session] += 1
        return steps

    def scenario(self, interleaving: Sequence[str], settings: Mapping[str, str] | None = None) -> Scenario:
        """The scenario that sends the statements in `interleaving`'s order.

        `settings` are the caller's variables for the run (binlog_format,
        binlog_row_image ...), on top of the workload's own; without binlog_format the
        scenario runs once per format.
        """
        steps = self.statements_in(interleaving)
        label = self.interleaving_label(interleaving)
        return Scenario(
            name=f"{self.name}-{label}",
            source=None,
            description=f"Generated workload {self.index} of seed {self.seed}, sessions in the order {label}.",
            settings={**self.settings, **(settings or {})},
            master_schema=self.master_schema,
            slave_schema=self.slave_schema,
            steps=tuple(Step(number, session, statement.sql) for number, (session, statement) in enumerate(steps, start=1)),
            volatile=self.volatile,
            # Generated statements fail on purpose (duplicate keys, lock waits) and which
            # ones fail depends on the interleaving, so no step can declare its error.
            tolerate_errors=True,
        )

    def interleaving_label(self, interleaving: Sequence[str]) -> str:
        """The interleaving as one digit per step, the session's place in `sessions` (1-based)."""
        places = {session: str(place) for place, session in enumerate(self.sessions, start=1)}
        return "".join(places[session] for session in interleaving)
