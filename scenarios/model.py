"""The scenario model: what a scenario file says, with no notion of how it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

BINLOG_FORMATS: tuple[str, ...] = ("STATEMENT", "MIXED", "ROW")


class Verdict(str, Enum):
    """The outcome of one run, as the checker judges it."""

    CONSISTENT = "consistent"
    DIVERGENT = "divergent"
    SLAVE_STOPPED = "slave_stopped"
    # A divergence or a slave stop no reason the server gives explains: what the harness hunts.
    FINDING = "finding"
    # The simulator refused (1235) or could not parse (1064) a statement no step declared:
    # the run's comparison says nothing, so it is never reported as consistent.
    UNSUPPORTED = "unsupported"
    ERROR = "error"


@dataclass(frozen=True)
class Step:
    """One statement sent by one session; `index` is its 1-based place in `steps`.

    `errors` are the errors it may end with, as mysqltest's `--error` lists them: MySQL
    codes or `ER_` names, `0` for success. Empty means it must succeed (unless the
    scenario tolerates errors).

    A `disconnect` step sends no statement (`sql` is empty): the session's client closes
    its connection, and the server ends the session as it does at a disconnect (its
    transaction rolled back, its temporary tables dropped, its locks released). A later
    step of the same session name connects anew, as a fresh session.

    A `reap` step sends no statement either: the session's client waits for the answer to
    its last statement, as mysqltest's `reap` does. A statement that still waits for a
    lock then (no other session runs while the client waits) fails with 1205 once the
    server's lock wait timeout passes, its own changes undone and its transaction open;
    one that already ran is answered at once. Without a reap step a waiting statement runs
    when the lock is released, however many steps later.
    """

    index: int
    session: str
    sql: str
    errors: tuple[int | str, ...] = ()
    disconnect: bool = False
    reap: bool = False


@dataclass(frozen=True)
class EventPattern:
    """One expected binlog event: its kind (`Query`, `Table_map`, `Write_rows`, ...) and,
    when given, the text that identifies it (a statement, `db.table`, `@variable`)."""

    kind: str
    info: str = ""

    def __str__(self) -> str:
        return f"{self.kind} {self.info}" if self.info else self.kind


@dataclass(frozen=True)
class Expectation:
    """An assertion about every run whose variant matches `when`.

    `when` maps a variable, or `flavor` (the server modelled), to the values it may take
    (a scalar in the file becomes a one-element tuple); an empty `when` matches every run. With `step`, the entry also
    asserts what that step did: its diagnostics (`notes`: unsafe reason names for Note
    1592, codes for the rest), its error code (`error`, 0 for none) and the binlog events
    written while it ran (`events`). A check left out (None) is not made.
    """

    when: dict[str, tuple[str, ...]]
    verdict: Verdict | None = None
    slave_error: int | None = None
    step: int | None = None
    notes: tuple[str | int, ...] | None = None
    error: int | None = None
    events: tuple[EventPattern, ...] | None = None

    def matches(self, variant: dict[str, str]) -> bool:
        """Whether a run of `variant` (its settings, and `flavor`) is one this entry is about."""
        return all(variant.get(name) in values for name, values in self.when.items())


@dataclass(frozen=True)
class EngineDeclaration:
    """A storage engine a scenario declares, by its binlog capabilities (WL#3303): lets a
    scenario use an engine the server does not ship, e.g. one that is neither row- nor
    statement-capable."""

    transactional: bool
    row_capable: bool
    statement_capable: bool
    self_logging: bool = False


@dataclass(frozen=True)
class Scenario:
    """A scenario as loaded from one YAML file, values normalised to strings.

    Setting values are upper-case strings where the variable is an enumeration
    (`STATEMENT`, `ON`, `REPEATABLE-READ`); YAML booleans become `ON`/`OFF`.
    """

    name: str
    source: Path | None
    description: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    slave_settings: dict[str, str] = field(default_factory=dict)
    matrix: dict[str, tuple[str, ...]] = field(default_factory=dict)
    engines: dict[str, EngineDeclaration] = field(default_factory=dict)
    master_schema: tuple[str, ...] = ()
    slave_schema: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    expect: tuple[Expectation, ...] = ()
    # `table.column` whose values come from clocks or generators (UUID(), RAND(), SYSDATE()):
    # the fidelity check compares them with a real server only as NULL or not NULL.
    volatile: tuple[str, ...] = ()
    # The server this scenario models, when it is about one (a fuzz finding reproduces
    # only there); None runs it under the command's --flavor.
    flavor: str | None = None
    # The base seed of the simulated servers (clocks, RAND(), UUID()); None takes --seed.
    seed: int | None = None
    # Statements may fail without declaring it, as mysqltest's --disable_abort_on_error:
    # generated workloads fail statements on purpose.
    tolerate_errors: bool = False

    def variants(self) -> list[dict[str, str]]:
        """One settings dict per run: `settings` overridden by each matrix combination.

        With neither a matrix nor `binlog_format` in `settings`, the scenario runs
        once per binlog format.
        """
        matrix = dict(self.matrix)
        if "binlog_format" not in matrix and "binlog_format" not in self.settings:
            matrix["binlog_format"] = BINLOG_FORMATS
        runs: list[dict[str, str]] = [dict(self.settings)]
        for name, values in matrix.items():
            runs = [{**run, name: value} for run in runs for value in values]
        return runs

    def variant_label(self, variant: dict[str, str]) -> str:
        """A short name for a run: its binlog format and the values of the matrix variables."""
        names = list(self.matrix)
        if "binlog_format" not in names:
            names.insert(0, "binlog_format")
        return ",".join(f"{name}={variant[name]}" for name in names if name in variant)


@dataclass(frozen=True)
class ScenarioError:
    """A scenario file that could not be loaded: which file, which key, why."""

    source: Path
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.source}: {self.key}" if self.key else str(self.source)
        return f"{where}: {self.message}"
