"""Print a binlog the way `mysqlbinlog` does: positions, headers, statements, and, as its
`-v` and `-vv` do, row events decoded.

Verbosity follows mysqlbinlog's: at 0 a row event is its header only; at 1 (`-v`) its rows
follow as `### INSERT INTO ... ### SET ###   @1=...` pseudo-SQL; at 2 (`-vv`) each value
carries a comment on its column's type (`/* INT meta=0 nullable=1 is_null=0 */`), and
MySQL's Rows_query events (the statement behind the rows) are printed, which MariaDB's
Annotate_rows events are at every level.

With `--base64-output=AUTO` (mysqlbinlog's default) the format description and each
statement's table maps and row events are also printed as `BINLOG '...'` statements
holding the events' bytes, so the output can be replayed into a server, as point-in-time
recovery does. `json_view` is the same events as JSON, one object per line.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from decimal import Decimal

from .base64_events import binlog_statement
from .binary import columns as c
from .binary.codec import MYSQL, FormatContext
from .binary.format_description import context_of
from .binary.registry import encode_event
from .control_events import Gtid_log_event, Mysql_gtid_log_event
from .events import (
    STMT_END_F,
    Annotate_rows_log_event,
    ColumnInfo,
    Format_description_log_event,
    Intvar_log_event,
    Log_event,
    Query_log_event,
    Rand_log_event,
    Rows_log_event,
    Rows_query_log_event,
    Table_map_log_event,
    Unknown_log_event,
    Update_rows_log_event,
    User_var_log_event,
    Xid_log_event,
    type_code_of,
    type_name_of,
)
from .file import PositionedEvent

BASE64_OUTPUT = ("DECODE-ROWS", "AUTO")
DECODED = 1  # -v: rows as pseudo-SQL
TYPED = 2  # -vv: with their columns' types, and Rows_query events


def _quoted(value: str | bytes) -> str:
    """A string as mysqlbinlog quotes it: control bytes as \\xNN, quote and backslash
    escaped, other bytes as they are (shown as UTF-8)."""
    data = value.encode() if isinstance(value, str) else value
    out = bytearray()
    for byte in data:
        if byte < 0x20 or byte == 0x7F:
            out += f"\\x{byte:02x}".encode()
        elif byte in (0x27, 0x5C):
            out += b"\\" + bytes((byte,))
        else:
            out.append(byte)
    return "'" + out.decode("utf-8", "replace") + "'"


def value_text(value: object, column: ColumnInfo | None) -> str:
    """A value as mysqlbinlog -v prints it: strings quoted, dates with colons, an integer
    whose top bit is set followed by its unsigned reading."""
    if value is None:
        return "NULL"
    code = column.type_code if column else None
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int) and code in c.INTEGER_CODES:
        bits = c.INTEGER_CODES[code]
        signed = value - (1 << bits) if value >= 1 << (bits - 1) else value
        return f"{signed} ({signed + (1 << bits)})" if signed < 0 else str(signed)
    if isinstance(value, dt.datetime):
        if code == c.MYSQL_TYPE_TIMESTAMP2:
            return str(0 if value == dt.datetime(1, 1, 1) else int(value.replace(tzinfo=dt.timezone.utc).timestamp()))
        return f"'{value:%Y-%m-%d %H:%M:%S}'" if value != dt.datetime(1, 1, 1) else "'0000-00-00 00:00:00'"
    if isinstance(value, dt.date):
        return f"'{value:%Y:%m:%d}'" if value != dt.date(1, 1, 1) else "'0000:00:00'"
    if isinstance(value, (str, bytes)):
        return _quoted(value)
    if isinstance(value, float):
        return f"{value:<20g}" if code == c.MYSQL_TYPE_FLOAT else f"{value:.20g}"
    if isinstance(value, (Decimal, int)):
        return str(value)
    return _quoted(str(value))


def _image(label: str, values: list[object], present: list[bool], table_map: Table_map_log_event | None, verbosity: int) -> list[str]:
    lines = [f"### {label}"]
    columns = iter(values)
    for index, included in enumerate(present, start=1):
        if not included:
            continue
        value = next(columns, None)
        info = table_map.columns[index - 1] if table_map and index - 1 < len(table_map.columns) else None
        comment = ""
        if verbosity >= TYPED:
            type_text, meta, nullable = (info.type, info.metadata, int(info.nullable)) if info else ("?", 0, 1)
            comment = f" /* {type_text} meta={meta} nullable={nullable} is_null={int(value is None)} */"
        lines.append(f"###   @{index}={value_text(value, info)}{comment}")
    return lines


def _rows(event: Rows_log_event, table_map: Table_map_log_event | None, verbosity: int) -> list[str]:
    """A row event's rows as `### INSERT INTO ...` pseudo-SQL, as mysqlbinlog -v prints them."""
    lines: list[str] = []
    target = f"`{table_map.database}`.`{table_map.table}`" if table_map else f"table id {event.table_id}"
    for row in event.rows:
        if isinstance(event, Update_rows_log_event):
            lines.append(f"### UPDATE {target}")
            lines.extend(_image("WHERE", row.before or [], event.columns_before, table_map, verbosity))
            lines.extend(_image("SET", row.after or [], event.columns_after, table_map, verbosity))
        elif row.after is not None:
            lines.append(f"### INSERT INTO {target}")
            lines.extend(_image("SET", row.after, event.columns_after, table_map, verbosity))
        else:
            lines.append(f"### DELETE FROM {target}")
            lines.extend(_image("WHERE", row.before or [], event.columns_before, table_map, verbosity))
    return lines


class _Printer:
    """The state mysqlbinlog keeps while it prints: the format, table maps, the pending BINLOG statement."""

    def __init__(self, base64_output: str, verbosity: int) -> None:
        self.base64_output = base64_output
        self.verbosity = verbosity
        self.ctx = FormatContext(MYSQL)
        self.table_maps: dict[int, Table_map_log_event] = {}
        self.statement_events: list[Log_event] = []  # a statement's table maps and row events so far
        self.out: list[str] = []

    def header(self, positioned: PositionedEvent) -> str:
        event = positioned.event
        stamp = dt.datetime.fromtimestamp(event.timestamp, dt.timezone.utc).strftime("%y%m%d %H:%M:%S")
        crc = ""
        if self.ctx.checksum or isinstance(event, Format_description_log_event):
            data = encode_event(event, FormatContext(self.ctx.flavor, self.ctx.post_header_lengths, self.ctx.checksum_alg, dict(self.table_maps)), positioned.position)
            crc = f" CRC32 0x{int.from_bytes(data[-4:], 'little'):08x}"
        text = f"#{stamp} server id {event.server_id}  end_log_pos {positioned.end_log_pos}{crc} \t{type_name_of(event)}"
        return text + ("\t/* ignorable */" if event.ignorable else "")

    def event(self, positioned: PositionedEvent) -> None:
        event, out = positioned.event, self.out
        if isinstance(event, Format_description_log_event):
            self.ctx = context_of(event)
        header = self.header(positioned)
        out.append(f"# at {positioned.position}")
        if isinstance(event, Query_log_event):
            out.append(f"{header}\tthread_id={event.thread_id}\texec_time={event.exec_time}\terror_code={event.error_code}")
            out.append(f"SET TIMESTAMP={event.timestamp}/*!*/;")
            out.append(f"{event.query}\n/*!*/;")
        elif isinstance(event, Table_map_log_event):
            self.table_maps[event.table_id] = event
            self.statement_events.append(event)
            out.append(f"{header}: `{event.database}`.`{event.table}` mapped to number {event.table_id}")
        elif isinstance(event, Rows_log_event):
            self.rows_event(event, header)
        elif isinstance(event, Xid_log_event):
            out.extend((f"{header}\tXid = {event.xid}", "COMMIT/*!*/;"))
        elif isinstance(event, Rows_query_log_event) and self.verbosity < TYPED:
            pass  # mysqlbinlog prints a Rows_query event only at -vv
        elif isinstance(event, (Rows_query_log_event, Annotate_rows_log_event)):
            out.extend((header, f"#Q> {event.query}"))
        elif isinstance(event, (Intvar_log_event, Rand_log_event, User_var_log_event)):
            out.extend((header, f"SET {_context_text(event)}/*!*/;"))
        elif isinstance(event, (Gtid_log_event, Mysql_gtid_log_event)):
            out.extend((f"{header}\t{event.info()}", f"/*!100001 {event.info()} */" if isinstance(event, Gtid_log_event) else f"{event.info()}/*!*/;"))
        elif isinstance(event, Format_description_log_event):
            out.append(f"{header}\t{event.info()}")
            if self.base64_output == "AUTO":
                out.append(f"{binlog_statement([event])}/*!*/;")
        elif isinstance(event, Unknown_log_event):
            out.append(f"{header}\t# unknown event type {type_code_of(event)}")
        else:
            out.append(f"{header}\t{event.info()}" if event.info() else header)

    def rows_event(self, event: Rows_log_event, header: str) -> None:
        self.out.append(f"{header}: {event.info()}")
        self.statement_events.append(event)
        if event.rows_flags & STMT_END_F:
            if self.base64_output == "AUTO":
                ctx = FormatContext(self.ctx.flavor, self.ctx.post_header_lengths, self.ctx.checksum_alg)
                self.out.append(f"{binlog_statement(self.statement_events, ctx)}/*!*/;")
            self.statement_events = []
        if self.verbosity >= DECODED:
            self.out.extend(_rows(event, self.table_maps.get(event.table_id), self.verbosity))


def _context_text(event: Log_event) -> str:
    if isinstance(event, Intvar_log_event):
        return f"{event.kind}={event.value}"
    if isinstance(event, Rand_log_event):
        return f"@@RAND_SEED1={event.seed1}, @@RAND_SEED2={event.seed2}"
    return event.info()


def show(events: Iterable[PositionedEvent], base64_output: str = "DECODE-ROWS", verbosity: int = TYPED) -> str:
    """The text of a whole binlog, event by event; with base64_output AUTO, BINLOG
    statements too. `verbosity` is mysqlbinlog's number of -v; the default, -vv, is what
    a reader of a report wants (library callers); the command line's default is 0, as
    mysqlbinlog's."""
    printer = _Printer(base64_output, verbosity)
    for positioned in events:
        printer.event(positioned)
    return "\n".join(printer.out) + "\n"


def json_view(events: Iterable[PositionedEvent]) -> str:
    """The events as JSON objects, one a line: position, end_log_pos, type, header and body."""
    lines = []
    for positioned in events:
        event = positioned.event
        record: dict[str, object] = {"position": positioned.position, "end_log_pos": positioned.end_log_pos, "type": type_name_of(event), "type_code": type_code_of(event)}
        record.update(server_id=event.server_id, timestamp=event.timestamp, flags=event.flags)
        record.update(event.body())
        lines.append(json.dumps(record, separators=(",", ":"), default=_json_default))
    return "\n".join(lines) + ("\n" if lines else "")


def _json_default(value: object) -> object:
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, (dt.date, dt.datetime, dt.timedelta, Decimal)):
        return str(value)
    return repr(value)
