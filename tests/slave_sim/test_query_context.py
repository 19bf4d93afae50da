"""The master's session context a Query event or a row event carries, set on the applier's
session before the event runs (Query_log_event::do_apply_event, Rows_log_event flags)."""

from __future__ import annotations

import pytest

from server_sim.binlog.events import (
    NO_FOREIGN_KEY_CHECKS_F,
    OPTION_AUTO_IS_NULL,
    OPTION_NO_FOREIGN_KEY_CHECKS,
    OPTION_RELAXED_UNIQUE_CHECKS,
    RELAXED_UNIQUE_CHECKS_F,
    STMT_END_F,
    ColumnInfo,
    Partial_update_rows_log_event,
    Query_log_event,
    Row,
    Table_map_log_event,
    Write_rows_log_event,
)
from server_sim.binlog.binary.columns import column_info
from server_sim.binlog.binary.json_binary import JsonDiff, JsonDiffOperation
from server_sim.binlog.file import PositionedEvent
from server_sim.execute.executor import Executor
from server_sim.flavor import MARIADB_1011
from server_sim.server import Server, ServerIdentity
from server_sim.types import ColumnType
from slave_sim.events import EventApplier
from slave_sim.status import SlaveStatus, SlaveStop


@pytest.fixture
def applier():
    server = Server(MARIADB_1011, ServerIdentity(2, "slave", 1))
    yield EventApplier(MARIADB_1011, server, Executor(server), SlaveStatus())
    server.close()


def _apply(applier: EventApplier, event) -> None:
    applier.apply(PositionedEvent(4, 5, event))


@pytest.mark.parametrize(
    ("fields", "variables"),
    [
        ({}, {"foreign_key_checks": "ON", "unique_checks": "ON", "sql_auto_is_null": "OFF", "autocommit": "ON"}),
        ({"flags2": OPTION_NO_FOREIGN_KEY_CHECKS}, {"foreign_key_checks": "OFF", "unique_checks": "ON"}),
        ({"flags2": OPTION_RELAXED_UNIQUE_CHECKS | OPTION_AUTO_IS_NULL}, {"unique_checks": "OFF", "sql_auto_is_null": "ON"}),
        ({"charset": (45, 46, 8)}, {"character_set_client": "utf8mb4", "collation_connection": "utf8mb4_bin", "collation_server": "latin1_swedish_ci"}),
        ({"sql_mode": "NO_AUTO_VALUE_ON_ZERO,STRICT_TRANS_TABLES", "time_zone": "+00:00"}, {"sql_mode": "NO_AUTO_VALUE_ON_ZERO,STRICT_TRANS_TABLES", "time_zone": "+00:00"}),
        # The master's empty sql_mode (SET sql_mode = ''): the statement runs outside strict mode there too.
        ({"sql_mode": "", "charset": (45, 45, 45)}, {"sql_mode": ""}),
        ({"sql_mode": ""}, {"sql_mode": "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"}),  # no context carried
    ],
)
def test_a_statement_runs_with_the_context_its_event_carries(applier: EventApplier, fields: dict, variables: dict[str, str]) -> None:
    _apply(applier, Query_log_event(timestamp=1700000000, query="CREATE TABLE t (a INT PRIMARY KEY)", **fields))
    assert {name: applier.session.variables[name] for name in variables} == variables


@pytest.mark.parametrize(
    ("flags", "variables"),
    [
        (STMT_END_F, {"foreign_key_checks": "ON", "unique_checks": "ON"}),
        (STMT_END_F | NO_FOREIGN_KEY_CHECKS_F, {"foreign_key_checks": "OFF", "unique_checks": "ON"}),
        (STMT_END_F | RELAXED_UNIQUE_CHECKS_F, {"foreign_key_checks": "ON", "unique_checks": "OFF"}),
    ],
)
def test_a_row_event_runs_with_the_checks_its_flags_switch_off(applier: EventApplier, flags: int, variables: dict[str, str]) -> None:
    _apply(applier, Query_log_event(timestamp=1700000000, query="CREATE TABLE t (a INT PRIMARY KEY)"))
    _apply(applier, Table_map_log_event(table_id=100, database="test", table="t", columns=[column_info(ColumnType("INT"), False, 45)]))
    _apply(applier, Write_rows_log_event(table_id=100, rows_flags=flags, width=1, columns_after=[True], rows=[Row(after=[1])]))
    assert {name: applier.session.variables[name] for name in variables} == variables


def test_a_partial_json_update_stops_the_replica_naming_it(applier: EventApplier) -> None:
    """The diffs of an Update_rows_partial event are not applied as values: the replica
    stops (here its column is TEXT, which would otherwise take the diffs' text)."""
    _apply(applier, Query_log_event(timestamp=1700000000, query="CREATE TABLE t (a INT PRIMARY KEY, doc TEXT)"))
    _apply(applier, Table_map_log_event(table_id=100, database="test", table="t", columns=[column_info(ColumnType("INT"), False, 45), ColumnInfo("json", True, 245, 4)]))
    diff = [JsonDiff(JsonDiffOperation.REPLACE, "$.a", 1)]
    event = Partial_update_rows_log_event(
        table_id=100, width=2, columns_before=[True, False], columns_after=[True, True], rows=[Row(before=[1], after=[1, diff])],
        row_options=[1], partial_columns=[[True]],
    )
    with pytest.raises(SlaveStop) as stop:
        _apply(applier, event)
    assert stop.value.error.code == 1235 and "partial JSON updates" in stop.value.error.message
