"""`BINLOG '...'`: row events a client hands the master, applied as a replica applies them.

mysqlbinlog prints a binlog's row events as BINLOG statements, so replaying its output into
a server (point-in-time recovery) injects rows. The server checks the events first (a
format description before any row event, nothing but row events and format descriptions),
then applies them with the replica's code. For decide_logging_format such a statement is a
row injection: it can only be logged in row format, which is where errors 1664 and (MySQL)
1666 come from. The rows it changes are logged like any statement's, with this master's own
table maps and binlog_row_image.
"""

from __future__ import annotations

from server_sim.applier.row_applier import RowApplier
from server_sim.binlog.events import Format_description_log_event, Rows_log_event, Rows_query_log_event, Table_map_log_event, type_name_of
from server_sim.catalog import Catalog
from server_sim.table import Table
from server_sim.errors import ErrorCode, SqlError
from server_sim.execute.outcome import Outcome
from server_sim.session import Session
from server_sim.statement import Statement


# What mysql_client_binlog_statement lets through besides a format description (check_event_type).
_ROW_EVENTS = (Table_map_log_event, Rows_log_event, Rows_query_log_event)


def check_events(statement: Statement, session: Session) -> None:
    """The server's checks before it applies anything: 1730 for an event that is neither a
    format description nor a row event, 1609 for a row event before any format description
    (the session remembers one from an earlier BINLOG statement)."""
    described = session.binlog_description_seen
    for event in statement.events:
        if isinstance(event, Format_description_log_event):
            described = True
        elif not isinstance(event, _ROW_EVENTS):
            raise SqlError(ErrorCode.ER_ONLY_FD_AND_RBR_EVENTS_ALLOWED_IN_BINLOG_STATEMENT, type_name_of(event))
        elif not described:
            raise SqlError(ErrorCode.ER_NO_FORMAT_DESCRIPTION_EVENT_BEFORE_BINLOG_STATEMENT, type_name_of(event))
    session.binlog_description_seen = described


def injected_rows(statement: Statement) -> list[tuple[Rows_log_event, Table_map_log_event]]:
    """Each row event of the statement with the table map before it that gives its table id."""
    table_maps: dict[int, Table_map_log_event] = {}
    rows = []
    for event in statement.events:
        if isinstance(event, Table_map_log_event):
            table_maps[event.table_id] = event
        elif isinstance(event, Rows_log_event):
            table_map = table_maps.get(event.table_id)
            if table_map is None:
                raise SqlError(ErrorCode.ER_UNKNOWN_ERROR, f"the {type_name_of(event)} event names table id {event.table_id}, which no table map of the statement maps")
            rows.append((event, table_map))
    return rows


def injected_tables(statement: Statement, catalog: Catalog) -> list[Table]:
    """The tables the statement's row events write, once each (missing ones fail when applied)."""
    tables: list[Table] = []
    for _, table_map in injected_rows(statement):
        table = catalog.find(table_map.table) if table_map.database.lower() == catalog.database.lower() else None
        if table is not None and all(table is not known for known in tables):
            tables.append(table)
    return tables


def inject(applier: RowApplier, session: Session, statement: Statement) -> Outcome:
    """Apply the statement's row events in order; the first row that fails ends it with its error."""
    outcome = Outcome()
    try:
        for event, table_map in injected_rows(statement):
            applier.apply(session, event, table_map, 0, outcome)  # no binlog position: a client sent it
    except SqlError as error:
        outcome.error = error
    finally:
        outcome.warnings.extend(applier.warnings)
        applier.warnings.clear()
        applier.lookups.clear()
    outcome.affected_rows = len(outcome.changes)
    session.row_count = outcome.affected_rows
    return outcome
