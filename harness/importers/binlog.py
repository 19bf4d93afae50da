"""A binary binlog (a real MySQL 8.0 or MariaDB 10.11 server's, or the simulator's) as a
captured workload.

The binlog holds what committed, in commit order, one event group per transaction: the
importer makes each group the steps of one session, whole (BEGIN, its statements,
COMMIT), so a replay commits in the binlog's order with no lock waits to guess. A
group's session is the thread id its Query events carry; MariaDB's row-format groups
carry none (a GTID event, the rows, an Xid), and those run in session `binlog`.

A statement event is the statement as the master ran it, preceded by the context the
server logged for it as the session settings that reproduce it: User_var events as
`SET @v = ...`, Intvar INSERT_ID as `SET insert_id`, and a Query event's sql_mode and
auto_increment settings where they change. Rand and LAST_INSERT_ID events carry session
variables the simulator does not model: they are listed as skipped. Row events are
the statement the server annotated them with (MariaDB's Annotate_rows, MySQL's
Rows_query), or else the statements that make the same row changes
(`row_statements`). The position of each event stands where a log's line number would.

Only complete groups are imported; a group the file ends inside is listed as skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.importers.binlog_text import BinlogTextError, TextReader
from harness.importers.model import Capture, ImportFailure, Origin
from harness.importers.row_statements import RowsNotImported, TableShapes, row_statements, sql_literal
from harness.importers.sessions import SessionTracker
from server_sim.binlog.control_events import Gtid_log_event, Mysql_gtid_log_event
from server_sim.binlog.events import (
    Annotate_rows_log_event,
    Format_description_log_event,
    Intvar_log_event,
    Query_log_event,
    Rand_log_event,
    Rows_log_event,
    Rows_query_log_event,
    STMT_END_F,
    Table_map_log_event,
    User_var_log_event,
    Xid_log_event,
)
from server_sim.binlog.binary.header import MAGIC
from server_sim.binlog.file import BinlogCorruptError, BinlogReader
from server_sim.flavor import MARIADB_1011, MYSQL_80
from slave_sim.events import ACCOUNT_STATEMENT

ORDER = (
    "the steps follow the binlog, the order the transactions committed; each transaction's "
    "statements run together in its session, so the replay commits in the same order."
)
ROW_SESSION = "binlog"
ROWS_AS_STATEMENT = "statement"  # row events as the statement annotated with them, where there is one
ROWS_AS_CHANGES = "changes"  # row events always as the row changes they carry
ROWS_AS = (ROWS_AS_STATEMENT, ROWS_AS_CHANGES)
_DDL = re.compile(r"^\s*(?:CREATE|ALTER|DROP|RENAME|TRUNCATE)\b", re.IGNORECASE)
_ENDS = re.compile(r"^\s*(?:COMMIT|ROLLBACK|XA\s+(?:COMMIT|ROLLBACK|END|PREPARE))\b", re.IGNORECASE)
_DEFAULT_INCREMENT = (1, 1)


@dataclass
class _Step:
    sql: str
    origin: Origin
    database: str
    errors: tuple[int, ...] = ()


@dataclass
class _Group:
    """The steps of one event group and the thread that ran it (None: not said)."""

    start: int
    steps: list[_Step] = field(default_factory=list)
    thread: int | None = None


@dataclass
class _SessionState:
    sql_mode: frozenset[str]
    increment: tuple[int, int] = _DEFAULT_INCREMENT


class _Importer:
    def __init__(self, path: Path, capture: Capture, tracker: SessionTracker, shapes: TableShapes) -> None:
        self.path, self.capture, self.tracker, self.shapes = path, capture, tracker, shapes
        self.group: _Group | None = None
        self.context: list[_Step] = []  # SET steps for the next statement
        self.table_maps: dict[int, Table_map_log_event] = {}
        self.states: dict[str, _SessionState] = {}
        self.default_sql_mode = frozenset(MYSQL_80.default_sql_mode.split(","))
        self.annotation: _Step | None = None  # the text of the statement whose rows follow
        self.pending: list[tuple[int, Rows_log_event]] = []  # the rows events of that statement so far
        self.rows_as = ROWS_AS_STATEMENT

    def origin(self, position: int) -> Origin:
        return Origin(self.path, position)

    def event(self, position: int, event: object) -> None:
        if isinstance(event, Format_description_log_event):
            self.capture.server = event.server_version
            flavor = MARIADB_1011 if "mariadb" in event.server_version.lower() else MYSQL_80
            self.default_sql_mode = frozenset(flavor.default_sql_mode.split(","))
        elif isinstance(event, (Gtid_log_event, Mysql_gtid_log_event)):
            self.open(position, transactional=isinstance(event, Gtid_log_event) and not event.standalone)
        elif isinstance(event, Query_log_event):
            self.query(position, event)
        elif isinstance(event, Xid_log_event):
            self.add(_Step("COMMIT", self.origin(position), ""))
            self.close()
        elif isinstance(event, Rand_log_event) or (isinstance(event, Intvar_log_event) and event.kind != "INSERT_ID"):
            self.tracker.skip(self.origin(position), f"{event.type_name} event: the simulator does not model the session "
                              f"variables that carry it ({event.info()}); the next statement computes its own")
        elif isinstance(event, (Intvar_log_event, User_var_log_event)):
            self.context.append(_Step(_context_sql(event), self.origin(position), ""))
        elif isinstance(event, (Annotate_rows_log_event, Rows_query_log_event)):
            self.annotation = _Step(event.query, self.origin(position), "")
        elif isinstance(event, Table_map_log_event):
            self.table_maps[event.table_id] = event
        elif isinstance(event, Rows_log_event):
            self.rows(position, event)

    def current(self) -> _Group:
        if self.group is None:
            self.group = _Group(0)
        return self.group

    def open(self, position: int, transactional: bool) -> None:
        self.group = _Group(position)
        if transactional:
            self.group.steps.append(_Step("BEGIN", self.origin(position), ""))

    def add(self, step: _Step) -> None:
        group = self.current()
        group.steps.extend(self.context)
        self.context = []
        group.steps.append(step)

    def query(self, position: int, event: Query_log_event) -> None:
        text = event.query.strip()
        if text.upper() == "BEGIN":
            if self.group is None or not self.group.steps:
                self.open(position, transactional=True)
            self.current().thread = event.thread_id
            return
        if ACCOUNT_STATEMENT.match(text):  # accounts, privileges, FLUSH: nothing a scenario models
            self.tracker.drop("account, privilege or FLUSH statement")
            if self.group is not None and not (self.group.steps and self.group.steps[0].sql == "BEGIN"):
                self.group = None
            return
        group = self.current()
        group.thread = event.thread_id if group.thread is None else group.thread
        self.settings(position, event)
        if _DDL.match(text):
            self.shapes.follow(text, event.db)
        self.add(_Step(text, self.origin(position), event.db, (event.error_code,) if event.error_code else ()))
        if _ENDS.match(text) or _DDL.match(text) or group.steps[0].sql != "BEGIN":
            self.close()

    def settings(self, position: int, event: Query_log_event) -> None:
        """SET steps for the sql_mode and auto_increment settings the event was logged
        with, where they differ from what the session has; they go before the
        statement's Intvar, Rand and User_var context."""
        settings: list[_Step] = []
        state = self.states.setdefault(f"conn{event.thread_id}", _SessionState(self.default_sql_mode))
        sql_mode = frozenset(filter(None, event.sql_mode.split(",")))
        if sql_mode != state.sql_mode:
            settings.append(_Step(f"SET SESSION sql_mode = {sql_literal(event.sql_mode)}", self.origin(position), ""))
            state.sql_mode = sql_mode
        increment = (event.auto_increment_increment, event.auto_increment_offset)
        if increment != state.increment:
            settings.append(_Step(
                f"SET SESSION auto_increment_increment = {increment[0]}, auto_increment_offset = {increment[1]}",
                self.origin(position), "",
            ))
            state.increment = increment
        self.context[:0] = settings

    def rows(self, position: int, event: Rows_log_event) -> None:
        """Collect a statement's rows events; at its last (STMT_END_F), its steps."""
        self.pending.append((position, event))
        if not event.rows_flags & STMT_END_F:
            return
        pending, annotation, self.pending, self.annotation = self.pending, self.annotation, [], None
        first_map = self.table_maps.get(pending[0][1].table_id)
        if annotation is not None and self.rows_as == ROWS_AS_STATEMENT and not _DDL.match(annotation.sql):
            annotation.database = first_map.database if first_map else ""
            self.add(annotation)
            return
        for position, rows in self.without_trigger_rows(pending):
            self.row_changes(position, rows)

    def without_trigger_rows(self, pending: list[tuple[int, Rows_log_event]]) -> list[tuple[int, Rows_log_event]]:
        """The statement's own rows events: when one of its tables has a trigger for the
        change, the rows on the other tables are taken to be the trigger's, which the
        replayed statement makes again."""
        maps = [(position, rows, self.table_maps.get(rows.table_id)) for position, rows in pending]
        fired = {
            (table_map.database.lower(), table_map.table.lower())
            for _, rows, table_map in maps
            if table_map is not None and self.shapes.has_trigger(table_map.database, table_map.table, rows.verb)
        }
        if not fired:
            return pending
        kept = []
        for position, rows, table_map in maps:
            if table_map is not None and (table_map.database.lower(), table_map.table.lower()) not in fired:
                self.capture.notes.append(
                    f"{self.origin(position)}: rows on `{table_map.table}` taken as made by a trigger on "
                    f"{', '.join(f'`{table}`' for _, table in sorted(fired))}, which fires again when the steps run"
                )
                continue
            kept.append((position, rows))
        return kept

    def row_changes(self, position: int, event: Rows_log_event) -> None:
        table_map = self.table_maps.get(event.table_id)
        if table_map is None:
            self.tracker.skip(self.origin(position), f"row event for table id {event.table_id} with no Table_map before it")
            return
        try:
            statements = row_statements(event, table_map, self.shapes)
        except RowsNotImported as why:
            self.tracker.skip(self.origin(position), f"{event.type_name} event not imported: {why}")
            return
        for sql in statements:
            self.add(_Step(sql, self.origin(position), table_map.database))

    def close(self) -> None:
        group, self.group = self.group, None
        if group is None or not group.steps:
            return
        session = f"conn{group.thread}" if group.thread is not None else ROW_SESSION
        for step in group.steps:
            if step.database:
                self.tracker.use(session, step.database)
            self.tracker.statement(session, step.sql, step.origin, step.errors)

    def finish(self) -> None:
        if self.group is not None and (self.group.steps or self.pending):
            self.tracker.skip(
                self.origin(self.group.start),
                f"the binlog ends inside this transaction ({len(self.group.steps)} step(s) not imported: they never committed in this file)",
            )


def _context_sql(event: object) -> str:
    if isinstance(event, Intvar_log_event):
        return f"SET SESSION insert_id = {event.value}"
    assert isinstance(event, User_var_log_event)
    name = "`" + event.name.replace("`", "``") + "`"
    return f"SET @{name} = {sql_literal(event.value)}"


def import_binlog(path: Path, keep_reads: bool = False, schema: list[str] | None = None, rows_as: str = ROWS_AS_STATEMENT) -> Capture:
    """The transactions of one binlog as the steps of their sessions: a binary binlog file,
    or the text mysqlbinlog / mariadb-binlog print for one. `schema`: the master's schema
    the binlog starts from (to name the columns of row events); `rows_as`: what row events
    become (ROWS_AS)."""
    capture = Capture(kind="binlog", sources=(path,), order=ORDER, errors_unknown=False)
    shapes = TableShapes()
    for statement in schema or []:
        shapes.follow(statement, "")
    importer = _Importer(path, capture, SessionTracker(capture, keep_reads), shapes)
    importer.rows_as = rows_as
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ImportFailure(f"{path}: {error.strerror or error}") from None
    if data[: len(MAGIC)] == MAGIC:
        _read_binary(path, data, importer)
    else:
        _read_text(path, data, importer)
    importer.finish()
    if not capture.statements:
        raise ImportFailure(f"{path}: the binlog holds no statements or row changes to import")
    return capture


def _read_binary(path: Path, data: bytes, importer: _Importer) -> None:
    try:
        for positioned in BinlogReader(path, data).events():
            importer.event(positioned.position, positioned.event)
    except BinlogCorruptError as error:
        if not importer.capture.statements and importer.group is None:
            raise ImportFailure(str(error)) from None
        importer.capture.notes.append(f"read stopped: {error}; the complete transactions before it are imported")


def _read_text(path: Path, data: bytes, importer: _Importer) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ImportFailure(f"{path}: neither a binary binlog (no FE 62 69 6E magic bytes) nor mysqlbinlog text (byte {error.start} is not UTF-8)") from None
    reader = TextReader()
    try:
        for position, event in reader.events(text):
            importer.event(position, event)
    except BinlogTextError as error:
        raise ImportFailure(f"{path}: neither a binary binlog (no FE 62 69 6E magic bytes) nor mysqlbinlog text ({error})") from None
    for position, reason in reader.skipped:
        importer.tracker.skip(importer.origin(position), reason)
