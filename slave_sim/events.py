"""Applying binlog events to the slave's session, as a replica's SQL thread does: statements
with the master's context (timestamp, Intvar, Rand, User_var, thread id) and the error
code the master logged; row events through the server's row applier, which finds rows
through the slave's own keys, per flavor. A failure raises SlaveStop with the server's
error code; where the position stands and what is committed is the Slave's concern."""

from __future__ import annotations

import datetime as dt
import re

from server_sim.applier.row_applier import RowApplier
from server_sim.binlog.control_events import Gtid_log_event
from server_sim.binlog.events import (
    INTVAR_INSERT_ID,
    NO_FOREIGN_KEY_CHECKS_F,
    RELAXED_UNIQUE_CHECKS_F,
    STMT_END_F,
    Annotate_rows_log_event,
    Format_description_log_event,
    Intvar_log_event,
    Log_event,
    Query_log_event,
    Rand_log_event,
    Rows_log_event,
    Rows_query_log_event,
    Table_map_log_event,
    Unknown_log_event,
    User_var_log_event,
    Xid_log_event,
    type_name_of,
)
from server_sim.binlog.file import PositionedEvent
from server_sim.errors import ErrorCode, SqlError
from server_sim.execute.executor import Executor
from server_sim.execute.outcome import Outcome
from server_sim.flavor import Flavor
from server_sim.parser import parse_statement
from server_sim.server import Server
from server_sim.session import Savepoint, Session
from server_sim.statement import Statement, StatementKind
from server_sim.sysvars import charset_variables, option_variables

from .status import SlaveStatus, SlaveStop


class EventApplier:
    """The applier session and what the events before a statement set for it (table maps,
    Intvar, Rand, User_var, the Rows_query annotation); warnings and row lookups go to `status`."""

    def __init__(self, flavor: Flavor, server: Server, executor: Executor, status: SlaveStatus) -> None:
        self.flavor = flavor
        self.server = server
        self.executor = executor
        self.status = status
        self.applier = RowApplier(executor)
        self.reset(server.new_session(flavor.applier_user, slave_thread=True))

    def reset(self, session: Session) -> None:
        """Start afresh with `session`: nothing mapped, no context, nothing pending."""
        self.session = session
        self.table_maps: dict[int, Table_map_log_event] = {}
        self._reset_context()
        self._rows_query: str | None = None
        self.position = 0  # of the event being applied, for messages
        self.pending_events = 0  # applied in the open transaction, not committed yet

    def _reset_context(self) -> None:
        self._insert_id: int | None = None
        self._last_insert_id: int | None = None
        self._rand: tuple[int, int] | None = None
        self._user_variables: dict[str, object] = {}

    def apply(self, positioned: PositionedEvent) -> None:
        """Apply one event: a statement, a row change, the context of the next statement, or a commit."""
        self.position = positioned.position
        event = positioned.event
        if isinstance(event, Format_description_log_event):
            return
        if isinstance(event, Gtid_log_event):
            if not event.standalone:
                self.session.begin(explicit=True)  # MariaDB: the GTID event opens the group, no BEGIN follows
            return
        if isinstance(event, Query_log_event):
            self._query(event)
        elif isinstance(event, Xid_log_event):
            self.commit()
        elif isinstance(event, Intvar_log_event):
            if event.kind == INTVAR_INSERT_ID:
                self._insert_id = event.value
            else:
                self._last_insert_id = event.value
        elif isinstance(event, Rand_log_event):
            self._rand = (event.seed1, event.seed2)
        elif isinstance(event, User_var_log_event):
            self._user_variables[event.name.lower()] = event.value
        elif isinstance(event, Table_map_log_event):
            self.table_maps[event.table_id] = event
        elif isinstance(event, (Rows_query_log_event, Annotate_rows_log_event)):
            self._rows_query = event.query
        elif isinstance(event, Rows_log_event):
            self._rows(event, positioned.position)
        elif isinstance(event, Unknown_log_event) or type(event) is Log_event:
            if event.ignorable:
                return  # an informational event this slave does not know: skipped
            raise SlaveStop(
                SqlError(
                    ErrorCode.ER_SLAVE_RELAY_LOG_READ_FAILURE,
                    f"unknown event type {type_name_of(event)} without the ignorable flag at position {positioned.position}",
                )
            )
        # The other events frame transactions and files (MySQL's GTID events,
        # Previous_gtids, Gtid_list, Binlog_checkpoint, Rotate, Stop) or are known
        # ignorable ones: a replica's SQL thread has nothing to apply for them.

    def _query(self, event: Query_log_event) -> None:
        text = event.query.strip()
        keyword = text.upper()
        if keyword == "BEGIN":
            self.session.begin(explicit=True)
            return
        if keyword == "COMMIT":
            self.commit()
            return
        if keyword == "ROLLBACK":
            self.rollback()
            return
        if ACCOUNT_STATEMENT.match(text):
            # Accounts, privileges and caches live in the mysql schema and the server, not in
            # the tables replication is checked on: a replica runs these, this one notes them.
            self.status.warnings.append(f"{_first_words(text)} at position {self.position} applied as a no-op (accounts, privileges and caches are not modelled)")
            return
        try:
            statement = parse_statement(text, self.flavor.comment_rules)
        except SqlError as error:
            raise SlaveStop(_query_error(error, event)) from None
        transaction = self.session.transaction
        if statement.kind is StatementKind.SAVEPOINT and transaction is not None:
            transaction.savepoints.append(Savepoint(statement.savepoint or "", len(transaction.undo)))
            return
        if statement.kind is StatementKind.ROLLBACK_TO_SAVEPOINT and transaction is not None:
            mark = next((s.undo_mark for s in transaction.savepoints if s.name.lower() == (statement.savepoint or "").lower()), None)
            if mark is not None:
                transaction.undo_to(mark, self.server.storage)
            return
        self._run_statement(statement, event)

    def _run_statement(self, statement: Statement, event: Query_log_event) -> None:
        session = self.session
        session.thread_id = event.thread_id
        if self.flavor.applier_server_id_from_event:
            session.variables["server_id"] = str(event.server_id)
        _apply_query_context(session.variables, event)
        if self._rand is not None:
            session.rand_seed1, session.rand_seed2 = self._rand
        if self._last_insert_id is not None:
            session.last_insert_id = self._last_insert_id
        session.user_variables.update(self._user_variables)
        if statement.kind.is_ddl and not statement.temporary:
            self.commit()
        master_time = dt.datetime.fromtimestamp(event.timestamp, dt.timezone.utc).replace(tzinfo=None)
        self.server.advance_clock_to(master_time)
        self.server.tick()
        transaction = session.ensure_transaction()
        mark = len(transaction.undo)
        context = self.server.statement_context(session, master_time)
        outcome = self.executor.run(session, statement, context, insert_id=self._insert_id)
        self._reset_context()
        actual = outcome.error.code if outcome.error is not None else 0
        if outcome.error is not None:
            transaction.undo_to(mark, self.server.storage)
        if actual != event.error_code:
            if event.error_code == 0 and outcome.error is not None:
                raise SlaveStop(_query_error(outcome.error, event))
            raise SlaveStop(
                SqlError(
                    ErrorCode.ER_INCONSISTENT_ERROR,
                    f"error code {event.error_code}",
                    event.error_code,
                    outcome.error.message if outcome.error else "no error",
                    actual,
                    event.db,
                    event.query,
                )
            )
        if not session.in_multi_statement_transaction or (statement.kind.is_ddl and not statement.temporary):
            self.commit()

    def _rows(self, event: Rows_log_event, position: int) -> None:
        table_map = self.table_maps.get(event.table_id)
        if table_map is None:
            raise SlaveStop(SqlError(ErrorCode.ER_SLAVE_RELAY_LOG_READ_FAILURE, f"row event for unmapped table id {event.table_id}"))
        variables = self.session.variables
        variables["foreign_key_checks"] = "OFF" if event.rows_flags & NO_FOREIGN_KEY_CHECKS_F else "ON"
        variables["unique_checks"] = "OFF" if event.rows_flags & RELAXED_UNIQUE_CHECKS_F else "ON"
        applier = self.applier
        try:
            applier.apply(self.session, event, table_map, position, Outcome())
        except SqlError as error:
            raise SlaveStop(self._row_error(event, table_map, error)) from None
        finally:
            self.status.warnings.extend(warning.message for warning in applier.warnings)
            self.status.lookups.extend(applier.lookups)
            applier.warnings.clear()
            applier.lookups.clear()
        if event.rows_flags & STMT_END_F:
            self._rows_query = None  # the annotation covered this statement's row events only

    def _row_error(self, event: Rows_log_event, table_map: Table_map_log_event, error: SqlError) -> SqlError:
        handler = {1032: "HA_ERR_KEY_NOT_FOUND", 1062: "HA_ERR_FOUND_DUPP_KEY"}.get(error.code, "")
        statement = f" (statement: {self._rows_query})" if self._rows_query else ""
        message = (
            f"Could not execute {event.type_name} event on table {table_map.database}.{table_map.table}; "
            f"{error.message}, Error_code: {error.code};{' handler error ' + handler + ';' if handler else ''} "
            f"the event's master log position {self.position}{statement}"
        )
        return SqlError(error.error, message=message)

    def commit(self) -> None:
        self.session.transaction = None

    def rollback(self) -> None:
        """Undo the open transaction's changes (non-transactional ones stay, as no undo holds them)."""
        self.pending_events = 0
        transaction = self.session.transaction
        if transaction is not None:
            transaction.undo_to(0, self.server.storage)
        self.session.transaction = None


def _apply_query_context(variables: dict[str, str], event: Query_log_event) -> None:
    """The master session's context the event carries, set on the applier's session before
    the statement runs (Query_log_event::do_apply_event): auto-increment settings, sql_mode,
    time_zone, the OPTION bits of flags2 and the character sets."""
    variables["auto_increment_increment"] = str(event.auto_increment_increment)
    variables["auto_increment_offset"] = str(event.auto_increment_offset)
    if event.sql_mode or event.charset is not None:
        # An empty sql_mode (SET sql_mode = '') is the master's too; only an event that
        # carries no session context (the simulated BEGIN and COMMIT) leaves it.
        variables["sql_mode"] = event.sql_mode
    variables["time_zone"] = event.time_zone
    variables.update(option_variables(event.flags2))
    if event.charset is not None:
        variables.update(charset_variables(event.charset))


# What real masters log besides changes to tables: account management, privileges and
# FLUSH of the server's caches. They change nothing the simulator compares.
ACCOUNT_STATEMENT = re.compile(
    r"(?:/\*.*?\*/\s*)*(?:(?:CREATE|DROP|RENAME|ALTER)\s+(?:USER|ROLE)\b|(?:GRANT|REVOKE)\b|SET\s+(?:PASSWORD|DEFAULT\s+ROLE)\b|FLUSH\b)",
    re.IGNORECASE | re.DOTALL,
)


def _first_words(text: str) -> str:
    return " ".join(text.split()[:2]).upper()


def _query_error(error: SqlError, event: Query_log_event) -> SqlError:
    return SqlError(
        error.error,
        message=f"Error '{error.message}' on query. Default database: '{event.db}'. Query: '{event.query}'",
    )
