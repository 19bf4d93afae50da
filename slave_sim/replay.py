"""Replaying a binlog onto a persistent slave database, resuming where the last run stopped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from server_sim.errors import Condition
from server_sim.flavor import Flavor
from server_sim.parser import split_statements
from server_sim.sysvars import VariableRegistry

from .slave import Slave
from .status import SlaveStatus


@dataclass
class ReplayResult:
    """What one `replay` run did: where it started, the slave's status, the provisioning errors."""

    resumed_from: int | None  # the recorded position a reopened database continued from
    status: SlaveStatus
    schema_errors: list[tuple[str, Condition]] = field(default_factory=list)


def replay(
    binlog: Path | Sequence[Path],
    database: Path,
    flavor: Flavor,
    settings: dict[str, str],
    slave_schema: str | None = None,
    start_position: int = 0,
    seed: int = 0,
) -> ReplayResult:
    """Apply `binlog` to the slave kept in `database`: one file, or a sequence of them the
    slave follows from one to the next by each file's closing Rotate event.

    A new database is first provisioned with `slave_schema` (SQL statements run locally,
    as a DBA prepares a replica from a dump) and starts at `start_position`, the binlog
    position that data corresponds to. An existing database resumes from the position it
    recorded, and neither is used again.
    """
    slave = Slave(flavor, VariableRegistry(flavor).validate(settings), seed, database=database)
    try:
        result = ReplayResult(slave.status.applied_position if slave.resumed else None, slave.status)
        binlogs = [binlog] if isinstance(binlog, Path) else list(binlog)
        if not slave.resumed:
            result.schema_errors = slave.provision(split_statements(slave_schema or ""), binlogs[0].name, start_position)
            if result.schema_errors:
                return result
        slave.apply_files(binlogs, start=0 if slave.resumed else start_position)
        return result
    finally:
        slave.close()
