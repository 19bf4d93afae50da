"""What the slave reports and how its applier stops: SHOW SLAVE STATUS reduced, the retries
of transactions after transient errors, and the exceptions that end or repeat a transaction."""

from __future__ import annotations

from dataclasses import dataclass, field

from server_sim.applier.row_applier import RowLookup
from server_sim.errors import Condition, SqlError


class SlaveStop(Exception):
    """The applier stops: the error it reports, about the event being applied."""

    def __init__(self, error: SqlError) -> None:
        super().__init__(error.message)
        self.error = error


class TransientStop(SlaveStop):
    """A transient error in a transaction the applier has rolled back and may run again."""


class SlaveConfigurationError(Exception):
    """The slave cannot apply this binlog at all (its database follows another binlog)."""


@dataclass(frozen=True)
class Retry:
    """One retry of a transaction after a transient error (slave_transaction_retries)."""

    position: int  # where the transaction starts (0 also for opening the database)
    attempt: int  # 1 for the first retry
    code: int
    message: str
    wait_seconds: float


@dataclass
class SlaveStatus:
    """SHOW SLAVE STATUS, reduced: running or stopped, where and why."""

    running: bool = True
    error: Condition | None = None
    error_position: int | None = None
    error_event: str | None = None
    applied_position: int = 0
    events_applied: int = 0  # events of committed transactions
    waiting: str | None = None  # where the binlog ends inside a transaction or an event
    warnings: list[str] = field(default_factory=list)
    lookups: list[RowLookup] = field(default_factory=list)
    retries: list[Retry] = field(default_factory=list)
