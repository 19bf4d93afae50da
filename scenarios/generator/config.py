"""The generator's tunables: how many tables, sessions and statements, which engines, and
the rate of each construct, so a fuzz run can aim at one kind of statement."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ENGINES: tuple[str, ...] = ("InnoDB", "MyISAM", "MEMORY")
TRANSACTIONAL_ENGINES = frozenset({"InnoDB"})
# MEMORY tables cannot hold BLOB or TEXT columns.
BLOBLESS_ENGINES = frozenset({"MEMORY"})


def _check_range(name: str, bounds: tuple[int, int], low: int, high: int) -> None:
    first, last = bounds
    if not low <= first <= last <= high:
        raise ValueError(f"{name} must be a range (min, max) within {low}..{high}, got {bounds}")


@dataclass(frozen=True)
class GeneratorConfig:
    """The generator's tunables. Rates are per-statement probabilities unless noted."""

    tables: tuple[int, int] = (2, 3)  # how many tables, min and max
    sessions: tuple[int, int] = (2, 2)
    statements: int = 20  # over all sessions, before each session's closing COMMIT/ROLLBACK
    engine_weights: Mapping[str, float] = field(default_factory=lambda: {"InnoDB": 3.0, "MyISAM": 2.0, "MEMORY": 1.0})
    nondeterministic_function_rate: float = 0.06  # RAND(), UUID(), SYSDATE(), USER()
    unsafe_variable_rate: float = 0.04  # @@server_id, @@hostname
    unsafe_limit_rate: float = 0.06  # UPDATE/DELETE/INSERT ... SELECT with LIMIT but no unique ORDER BY
    # A DML statement inside a transaction writes a non-transactional table (when the
    # schema has one; otherwise statements in a transaction write transactional tables).
    nontransactional_in_transaction_rate: float = 0.25
    begin_rate: float = 0.15  # a session outside a transaction starts one
    end_rate: float = 0.2  # a session inside a transaction ends it
    rollback_rate: float = 0.25  # an ending is ROLLBACK rather than COMMIT
    savepoint_rate: float = 0.12  # SAVEPOINT, ROLLBACK TO or RELEASE, inside a transaction
    direct_updates_rate: float = 0.2  # per workload: binlog_direct_non_transactional_updates=ON
    slave_schema_rate: float = 0.1  # per workload: the slave's copy of one table differs
    multi_table_rate: float = 0.08  # a DML statement is a multi-table UPDATE or DELETE over two tables
    trigger_rate: float = 0.1  # per workload: one table has a row trigger (on itself, or writing another table)

    def __post_init__(self) -> None:
        _check_range("tables", self.tables, 1, 4)
        _check_range("sessions", self.sessions, 1, 4)
        if self.statements < self.sessions[1]:
            raise ValueError(f"statements ({self.statements}) must give every session at least one")
        unknown = set(self.engine_weights) - set(ENGINES)
        if unknown or not any(weight > 0 for weight in self.engine_weights.values()):
            raise ValueError(f"engine_weights needs a positive weight for one of {', '.join(ENGINES)}; unknown: {sorted(unknown)}")
        for name, value in vars(self).items():
            if name.endswith("_rate") and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a probability, got {value}")
