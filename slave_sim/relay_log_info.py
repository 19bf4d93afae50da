"""The applier's position, kept in the slave's own database (relay_log_info_repository=TABLE).

Crash-safe replicas update mysql.slave_relay_log_info in the same transaction as the
changes of each binlog transaction they apply, so after a crash the recorded position
and the data agree. The simulated slave does the same in DuckDB, and stores with it the
server state a reopened slave needs (its catalog and generators, server_sim/dictionary).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import duckdb

_SCHEMA = "mysql"
_POSITION_TABLE = f"{_SCHEMA}.slave_relay_log_info"
_STATE_TABLE = f"{_SCHEMA}.slave_server_state"


@dataclass(frozen=True)
class AppliedPosition:
    """Where the applier stands: the binlog it reads and the end of the last transaction it applied."""

    master_log_name: str
    master_log_pos: int


class RelayLogInfo:
    """Reads and writes the position and server state inside the caller's open transaction."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {_SCHEMA}")
        connection.execute(f"CREATE TABLE IF NOT EXISTS {_POSITION_TABLE} (Master_log_name VARCHAR NOT NULL, Master_log_pos BIGINT NOT NULL)")
        connection.execute(f"CREATE TABLE IF NOT EXISTS {_STATE_TABLE} (State VARCHAR NOT NULL)")

    def load(self) -> tuple[AppliedPosition, dict[str, Any]] | None:
        """The recorded position and server state, or None for a database never applied to."""
        position = self.connection.execute(f"SELECT Master_log_name, Master_log_pos FROM {_POSITION_TABLE}").fetchone()
        state = self.connection.execute(f"SELECT State FROM {_STATE_TABLE}").fetchone()
        if position is None or state is None:
            return None
        return AppliedPosition(position[0], int(position[1])), json.loads(state[0])

    def save(self, position: AppliedPosition, state: dict[str, Any]) -> None:
        self.connection.execute(f"DELETE FROM {_POSITION_TABLE}")
        self.connection.execute(f"INSERT INTO {_POSITION_TABLE} VALUES (?, ?)", [position.master_log_name, position.master_log_pos])
        self.connection.execute(f"DELETE FROM {_STATE_TABLE}")
        self.connection.execute(f"INSERT INTO {_STATE_TABLE} VALUES (?)", [json.dumps(state)])
