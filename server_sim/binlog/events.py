"""Binlog events, modelled on the server's Log_event hierarchy.

Class names are the server's own (Query_log_event, Rows_log_event, ...), so a replication
engineer finds each one where expected. Every event has a type code, header flags
(LOG_EVENT_IGNORABLE_F = 0x80), server id and timestamp; a row event carries its table
map's id, the column bitmaps of its images and the images themselves. Row images hold
Python values (int, Decimal, float, str, bytes, date, datetime), as the table map's
column types read them; server_sim/binlog/binary writes and reads them in the servers'
binary format.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cache
from typing import ClassVar

LOG_EVENT_IGNORABLE_F = 0x80
STMT_END_F = 0x1

# A Query event's flags2: the session's OPTION bits the slave runs the statement with.
OPTION_AUTO_IS_NULL = 1 << 14
OPTION_NOT_AUTOCOMMIT = 1 << 19
OPTION_NO_FOREIGN_KEY_CHECKS = 1 << 26
OPTION_RELAXED_UNIQUE_CHECKS = 1 << 27
# A row event's flags besides STMT_END_F: the checks the master's session had switched off.
NO_FOREIGN_KEY_CHECKS_F = 1 << 1
RELAXED_UNIQUE_CHECKS_F = 1 << 2

# A Table_map's flags: always LEN_EXACT; MariaDB marks a table that has triggers.
TM_BIT_LEN_EXACT_F = 1 << 0
TM_BIT_HAS_TRIGGERS_F = 1 << 14

INTVAR_LAST_INSERT_ID = "LAST_INSERT_ID"
INTVAR_INSERT_ID = "INSERT_ID"


@dataclass
class Log_event:
    """The common header: type code, server id, timestamp (Unix seconds) and flags."""

    type_code: ClassVar[int] = 0
    type_name: ClassVar[str] = "Unknown"

    server_id: int = 0
    timestamp: int = 0
    flags: int = 0

    @property
    def ignorable(self) -> bool:
        return bool(self.flags & LOG_EVENT_IGNORABLE_F)

    def body(self) -> dict[str, object]:
        """The event's own fields, as they are written to the file."""
        return {f.name: getattr(self, f.name) for f in body_fields(type(self))}

    def info(self) -> str:
        """The Info column of SHOW BINLOG EVENTS."""
        return ""


@dataclass
class Format_description_log_event(Log_event):
    """First event of every binlog: format version, server and the event types it writes."""

    type_code: ClassVar[int] = 15
    type_name: ClassVar[str] = "Format_desc"

    binlog_version: int = 4
    server_version: str = ""
    create_timestamp: int = 0
    header_length: int = 19
    post_header_lengths: tuple[int, ...] = ()
    checksum_alg: int = 1  # BINLOG_CHECKSUM_ALG_CRC32; 0 for binlog_checksum=NONE

    def info(self) -> str:
        return f"Server ver: {self.server_version}, Binlog ver: {self.binlog_version}"


@dataclass
class Query_log_event(Log_event):
    """A statement, with the context the slave needs to run it as the master did."""

    type_code: ClassVar[int] = 2
    type_name: ClassVar[str] = "Query"

    thread_id: int = 0
    exec_time: int = 0
    db: str = ""
    error_code: int = 0
    query: str = ""
    # Status variables that change what the statement does.
    auto_increment_increment: int = 1
    auto_increment_offset: int = 1
    sql_mode: str = ""
    time_zone: str = "SYSTEM"
    flags2: int = 0  # OPTION_AUTO_IS_NULL, OPTION_NOT_AUTOCOMMIT, OPTION_NO_FOREIGN_KEY_CHECKS, OPTION_RELAXED_UNIQUE_CHECKS
    charset: tuple[int, int, int] | None = None  # character_set_client, collation_connection, collation_server ids
    # The status variables as the event carried them (code -> raw bytes), for those the
    # fields above do not model; written back in code order.
    other_status: tuple[tuple[int, bytes], ...] = ()

    def info(self) -> str:
        return self.query


@dataclass
class Intvar_log_event(Log_event):
    """INSERT_ID (the first auto-increment value) or LAST_INSERT_ID for the next statement."""

    type_code: ClassVar[int] = 5
    type_name: ClassVar[str] = "Intvar"

    kind: str = INTVAR_INSERT_ID
    value: int = 0

    def info(self) -> str:
        return f"{self.kind}={self.value}"


@dataclass
class Rand_log_event(Log_event):
    """The session's RAND() seeds before the next statement."""

    type_code: ClassVar[int] = 13
    type_name: ClassVar[str] = "RAND"

    seed1: int = 0
    seed2: int = 0

    def info(self) -> str:
        return f"rand_seed1={self.seed1},rand_seed2={self.seed2}"


@dataclass
class User_var_log_event(Log_event):
    """The value of a user variable (@name) the next statement reads."""

    type_code: ClassVar[int] = 14
    type_name: ClassVar[str] = "User var"

    name: str = ""
    value: object = None
    value_type: str = "STRING"  # STRING, INT, DECIMAL or REAL
    value_charset: int = 0  # collation id of the value (0: the flavor's default)
    value_flags: int | None = None  # UNSIGNED_F (1); None when the event has no flags byte

    def info(self) -> str:
        shown = "NULL" if self.value is None else (repr(self.value) if self.value_type == "STRING" else str(self.value))
        return f"@`{self.name}`={shown}"


@dataclass
class Xid_log_event(Log_event):
    """Commit marker of a transaction on an XA-capable (transactional) engine."""

    type_code: ClassVar[int] = 16
    type_name: ClassVar[str] = "Xid"

    xid: int = 0

    def info(self) -> str:
        return f"COMMIT /* xid={self.xid} */"


@dataclass(frozen=True)
class ColumnInfo:
    """A table-map column, by position: its type text and NULL-ability, and what the
    binary format carries for it: type code, per-type metadata, and signedness, charset
    and name when the event's optional metadata has them (None: not carried)."""

    type: str
    nullable: bool
    type_code: int | None = None
    metadata: int = 0
    unsigned: bool | None = None
    charset: int | None = None
    name: str | None = None
    members: tuple[str, ...] | None = None  # an ENUM's / SET's, carried by FULL row metadata


@dataclass
class Table_map_log_event(Log_event):
    """Maps a table id to database, table and column types, for the row events after it."""

    type_code: ClassVar[int] = 19
    type_name: ClassVar[str] = "Table_map"

    table_id: int = 0
    database: str = ""
    table: str = ""
    columns: list[ColumnInfo] = field(default_factory=list)
    map_flags: int = TM_BIT_LEN_EXACT_F  # MariaDB adds TM_BIT_HAS_TRIGGERS_F for a table with triggers
    # The optional metadata as read from a file (every TLV, in order), written back as
    # it was; empty for an event the simulator makes, whose TLVs come from its columns.
    other_metadata: tuple[tuple[int, bytes], ...] = ()

    def info(self) -> str:
        return f"table_id: {self.table_id} ({self.database}.{self.table})"

    def body(self) -> dict[str, object]:
        body = super().body()
        body["columns"] = [dataclasses.asdict(c) for c in self.columns]
        return body


@dataclass
class Row:
    """One row of a row event: the before image, the after image, or both (UPDATE)."""

    before: list[object] | None = None
    after: list[object] | None = None


@dataclass
class Rows_log_event(Log_event):
    """Rows of one table changed by one statement, with the bitmaps of present columns."""

    verb: ClassVar[str] = ""
    v1_type_code: ClassVar[int] = 0
    v2_type_code: ClassVar[int] = 0

    version: int = 2
    table_id: int = 0
    rows_flags: int = STMT_END_F
    width: int = 0
    columns_before: list[bool] = field(default_factory=list)
    columns_after: list[bool] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    extra_data: bytes = b""  # v2's extra row info after its length (TLVs), as read

    @property
    def event_type_code(self) -> int:
        return self.v2_type_code if self.version == 2 else self.v1_type_code

    def info(self) -> str:
        flags = " flags: STMT_END_F" if self.rows_flags & STMT_END_F else ""
        return f"table_id: {self.table_id}{flags}"

    def body(self) -> dict[str, object]:
        body = super().body()
        body["rows"] = [{k: v for k, v in (("before", r.before), ("after", r.after)) if v is not None} for r in self.rows]
        return body


@dataclass
class Write_rows_log_event(Rows_log_event):
    type_name: ClassVar[str] = "Write_rows"
    verb: ClassVar[str] = "INSERT"
    v1_type_code: ClassVar[int] = 23
    v2_type_code: ClassVar[int] = 30


@dataclass
class Update_rows_log_event(Rows_log_event):
    type_name: ClassVar[str] = "Update_rows"
    verb: ClassVar[str] = "UPDATE"
    v1_type_code: ClassVar[int] = 24
    v2_type_code: ClassVar[int] = 31


@dataclass
class Partial_update_rows_log_event(Update_rows_log_event):
    """MySQL's Update_rows with partial JSON updates (binlog_row_value_options=PARTIAL_JSON).

    After each row's before image comes its value options; with PARTIAL_JSON_UPDATES
    (bit 0) a bitmap over the JSON columns of the after image says which hold the diffs
    to apply to the before document (a list of JsonDiff) instead of the whole new one.
    """

    type_name: ClassVar[str] = "Update_rows_partial"
    v1_type_code: ClassVar[int] = 39
    v2_type_code: ClassVar[int] = 39

    row_options: list[int] = field(default_factory=list)  # per row
    partial_columns: list[list[bool]] = field(default_factory=list)  # per row, over the after image's JSON columns


@dataclass
class Delete_rows_log_event(Rows_log_event):
    type_name: ClassVar[str] = "Delete_rows"
    verb: ClassVar[str] = "DELETE"
    v1_type_code: ClassVar[int] = 25
    v2_type_code: ClassVar[int] = 32


@dataclass
class Ignorable_log_event(Log_event):
    """An informational event a slave may skip when it does not know the type (WL#4033)."""

    type_code: ClassVar[int] = 28
    type_name: ClassVar[str] = "Ignorable"

    def __post_init__(self) -> None:
        self.flags |= LOG_EVENT_IGNORABLE_F


@dataclass
class Rows_query_log_event(Ignorable_log_event):
    """The original statement of the row events that follow (MySQL, binlog_rows_query_log_events)."""

    type_code: ClassVar[int] = 29
    type_name: ClassVar[str] = "Rows_query"

    query: str = ""

    def info(self) -> str:
        return f"# {self.query}"


@dataclass
class Annotate_rows_log_event(Log_event):
    """MariaDB's statement text before row events (binlog_annotate_row_events); not ignorable."""

    type_code: ClassVar[int] = 160
    type_name: ClassVar[str] = "Annotate_rows"

    query: str = ""

    def info(self) -> str:
        return self.query


@dataclass
class Unknown_log_event(Log_event):
    """An event of a type this reader does not know; kept whole so the applier can decide."""

    unknown_type_code: int = 0
    unknown_type_name: str = ""
    fields: dict[str, object] = field(default_factory=dict)
    raw: bytes = b""  # the body as read from a binary file


EVENT_CLASSES: tuple[type[Log_event], ...] = (
    Format_description_log_event,
    Query_log_event,
    Intvar_log_event,
    Rand_log_event,
    User_var_log_event,
    Xid_log_event,
    Table_map_log_event,
    Write_rows_log_event,
    Update_rows_log_event,
    Partial_update_rows_log_event,
    Delete_rows_log_event,
    Ignorable_log_event,
    Rows_query_log_event,
    Annotate_rows_log_event,
)


@cache
def body_fields(cls: type[Log_event]) -> tuple[dataclasses.Field, ...]:
    """An event class's own fields, after the common header's (looked up once per class)."""
    header = {f.name for f in dataclasses.fields(Log_event)}
    return tuple(f for f in dataclasses.fields(cls) if f.name not in header)


def type_code_of(event: Log_event) -> int:
    if isinstance(event, Unknown_log_event):
        return event.unknown_type_code
    if isinstance(event, Rows_log_event):
        return event.event_type_code
    return event.type_code


def type_name_of(event: Log_event) -> str:
    if isinstance(event, Unknown_log_event):
        return event.unknown_type_name or f"Unknown({event.unknown_type_code})"
    return event.type_name
