"""The statement cache and transaction cache of a session, and the events that fill them.

WL#2687: non-transactional changes reach the binlog when their statement ends (statement
cache), transactional ones when the transaction commits (transaction cache). Row events
carry their table map, the column bitmaps binlog_row_image selects, and the images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from itertools import groupby

from server_sim.binlog.events import (
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    STMT_END_F,
    TM_BIT_HAS_TRIGGERS_F,
    TM_BIT_LEN_EXACT_F,
    Annotate_rows_log_event,
    ColumnInfo,
    Delete_rows_log_event,
    Intvar_log_event,
    Log_event,
    Query_log_event,
    Rand_log_event,
    Row,
    Rows_log_event,
    Rows_query_log_event,
    Table_map_log_event,
    Update_rows_log_event,
    User_var_log_event,
    Write_rows_log_event,
    Xid_log_event,
)
from server_sim.binlog.binary.columns import column_info
from server_sim.binlog.binary.format_description import default_charset
from server_sim.binlog.file import flavor_format
from server_sim.table import Column, Table
from server_sim.flavor import Flavor
from server_sim.session import ChangeKind, RowChange
from server_sim.sysvars import charset_ids, option_bits

_ROWS_EVENTS: dict[ChangeKind, type[Rows_log_event]] = {
    ChangeKind.WRITE: Write_rows_log_event,
    ChangeKind.UPDATE: Update_rows_log_event,
    ChangeKind.DELETE: Delete_rows_log_event,
}


class LogTarget(str, Enum):
    """Where a statement's events go (seed 001, D-log-target)."""

    TRX_CACHE = "trx_cache"  # written at COMMIT; at ROLLBACK only if it holds non-transactional changes
    STMT_CACHE = "stmt_cache"  # written when the statement ends
    BINLOG = "binlog"  # written at once: DDL with its implicit commit


@dataclass(frozen=True)
class CachedEvents:
    """The events one statement put into one cache (or straight into the binlog)."""

    target: LogTarget
    events: list[Log_event]


@dataclass
class BinlogCache:
    """Events waiting to be written, and where among them non-transactional changes start."""

    events: list[Log_event] = field(default_factory=list)
    nontransactional_positions: list[int] = field(default_factory=list)

    @property
    def has_nontransactional(self) -> bool:
        return bool(self.nontransactional_positions)

    def add(self, events: Sequence[Log_event], nontransactional: bool) -> None:
        if nontransactional and events:
            self.nontransactional_positions.append(len(self.events))
        self.events.extend(events)

    def truncate(self, position: int) -> None:
        """Drop everything from `position` on (ROLLBACK TO SAVEPOINT with no N-change after it)."""
        del self.events[position:]
        self.nontransactional_positions = [p for p in self.nontransactional_positions if p < position]

    def clear(self) -> None:
        self.truncate(0)

    @property
    def empty(self) -> bool:
        return not self.events


def image_columns(table: Table, image: str, row_image: str, assigned: frozenset[str], flavor: Flavor) -> list[bool]:
    """Which columns an image carries (seed 001's tables; `image` is 'before' or 'after'),
    `assigned` being the row's write set."""
    columns = table.columns
    pke = {name.lower() for name in table.pke_columns()}
    written = {name.lower() for name in assigned}
    if row_image == "FULL" or (table.primary_key is None and flavor.full_row_images_without_primary_key):
        return [True] * len(columns)
    if image == "before":
        if row_image == "MINIMAL":
            return [c.name.lower() in pke for c in columns]
        return [c.name.lower() in pke or not c.type.is_blob for c in columns]
    if row_image == "MINIMAL":
        return [c.name.lower() in written for c in columns]
    return [c.name.lower() in written or not c.type.is_blob for c in columns]


class EventFactory:
    """Builds one master's events: header fields, table ids and Xid numbers."""

    def __init__(self, flavor: Flavor, server_id: int, database: str) -> None:
        self.flavor = flavor
        self.server_id = server_id
        self.database = database
        self._table_ids: dict[str, int] = {}
        self._next_xid = 1

    def header(self, timestamp: int) -> dict[str, int]:
        return {"server_id": self.server_id, "timestamp": timestamp}

    def query(self, text: str, timestamp: int, thread_id: int, error_code: int = 0, variables: dict[str, str] | None = None) -> Query_log_event:
        """A Query event with the session's context (`variables`: the statement's session's;
        None for the BEGIN and COMMIT the binlog writes around a transaction)."""
        if variables is None:
            return Query_log_event(**self.header(timestamp), thread_id=thread_id, db=self.database, error_code=error_code, query=text)
        return Query_log_event(
            **self.header(timestamp),
            thread_id=thread_id,
            db=self.database,
            error_code=error_code,
            query=text,
            auto_increment_increment=int(variables.get("auto_increment_increment", "1")),
            auto_increment_offset=int(variables.get("auto_increment_offset", "1")),
            sql_mode=variables.get("sql_mode", ""),
            time_zone=variables.get("time_zone", "SYSTEM"),
            flags2=option_bits(variables),
            charset=charset_ids(variables, self.flavor.utf8mb4_collation),
        )

    def xid(self, timestamp: int) -> Xid_log_event:
        xid = self._next_xid
        self._next_xid += 1
        return Xid_log_event(**self.header(timestamp), xid=xid)

    def context(
        self,
        timestamp: int,
        rand_seeds: tuple[int, int] | None,
        last_insert_id: int | None,
        insert_id: int | None,
        user_variables: dict[str, object],
    ) -> list[Log_event]:
        """Intvar, Rand and User_var events a statement event needs before it."""
        events: list[Log_event] = []
        if last_insert_id is not None:
            events.append(Intvar_log_event(**self.header(timestamp), kind=INTVAR_LAST_INSERT_ID, value=last_insert_id))
        if insert_id is not None:
            events.append(Intvar_log_event(**self.header(timestamp), kind=INTVAR_INSERT_ID, value=insert_id))
        if rand_seeds is not None:
            events.append(Rand_log_event(**self.header(timestamp), seed1=rand_seeds[0], seed2=rand_seeds[1]))
        for name, value in user_variables.items():
            events.append(User_var_log_event(**self.header(timestamp), name=name, value=_user_var_value(value), value_type=_user_var_type(value)))
        return events

    def _table_map(self, table: Table, header: dict[str, int], triggered: frozenset[str]) -> Table_map_log_event:
        return Table_map_log_event(
            **header,
            table_id=self.table_id(table),
            database=self.database,
            table=table.name,
            columns=[self._column_info(c) for c in table.columns],
            map_flags=TM_BIT_LEN_EXACT_F | (TM_BIT_HAS_TRIGGERS_F if table.name.lower() in triggered else 0),
        )

    def table_id(self, table: Table) -> int:
        key = table.storage_name
        if key not in self._table_ids:
            self._table_ids[key] = 100 + len(self._table_ids)
        return self._table_ids[key]

    def rows(
        self,
        changes: Sequence[RowChange],
        timestamp: int,
        row_image: str,
        statement_text: str | None,
        written: Sequence[Table] = (),
        flags: int = 0,
        triggered: frozenset[str] = frozenset(),
    ) -> list[Log_event]:
        """Table maps and row events for one statement's changes in one cache. Once a row is
        logged, every table the statement opened for writing (`written`, in the order it
        opens them: those it names, then each fired trigger's) is mapped, changed or not
        (write_locked_table_maps). `flags`: the checks the session switched off (rows_flags);
        `triggered`: the (lower-case) names of the tables that have triggers, whose table
        maps the flavor may mark."""
        if not changes:
            return []
        header = self.header(timestamp)
        events: list[Log_event] = []
        if statement_text is not None:
            annotation = Rows_query_log_event if self.flavor.rows_query_event == "Rows_query" else Annotate_rows_log_event
            events.append(annotation(**header, query=statement_text))
        mapped: list[Table] = list(written)
        for change in changes:
            if all(change.table is not table for table in mapped):
                mapped.append(change.table)
        events.extend(self._table_map(table, header, triggered) for table in mapped)
        rows_events: list[Rows_log_event] = []
        # A row whose column bitmaps differ from the pending event's starts a new event.
        for (_, kind, before_bits, after_bits), group in groupby(changes, key=lambda c: (id(c.table), c.kind, *self._bitmaps(c, row_image))):
            batch = list(group)
            table = batch[0].table
            rows = [
                Row(
                    before=_image(table, change.before, before_bits) if change.before is not None and before_bits else None,
                    after=_image(table, change.after, after_bits) if change.after is not None and after_bits else None,
                )
                for change in batch
            ]
            rows_events.append(
                _ROWS_EVENTS[kind](
                    **header,
                    version=self.flavor.rows_event_version,
                    table_id=self.table_id(table),
                    rows_flags=flags,
                    width=len(table.columns),
                    columns_before=before_bits,
                    columns_after=after_bits,
                    rows=rows,
                )
            )
        rows_events[-1].rows_flags |= STMT_END_F
        return events + rows_events

    def _column_info(self, column: Column) -> ColumnInfo:
        return column_info(column.type, column.nullable, default_charset(flavor_format(self.flavor.name))[2])

    def _bitmaps(self, change: RowChange, row_image: str) -> tuple[list[bool], list[bool]]:
        """The before and after image columns of one row's change."""
        table, kind = change.table, change.kind
        before = image_columns(table, "before", row_image, change.assigned, self.flavor) if kind is not ChangeKind.WRITE else []
        after = image_columns(table, "after", row_image, change.assigned, self.flavor) if kind is not ChangeKind.DELETE else []
        return before, after


def _image(table: Table, values: tuple, present: list[bool]) -> list[object]:
    return [column.type.binlog_value(value) for column, value, included in zip(table.columns, values, present) if included]


def _user_var_type(value: object) -> str:
    if isinstance(value, int):  # bool included
        return "INT"
    if isinstance(value, float):
        return "REAL"
    if isinstance(value, Decimal):
        return "DECIMAL"
    return "STRING"


def _user_var_value(value: object) -> object:
    if value is None or isinstance(value, (int, float, str)):
        return value
    return str(value)
