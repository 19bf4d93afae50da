"""Print a binlog the way `mysqlbinlog` does: positions, headers, statements, and, as its
`-v` and `-vv` do, row events decoded.

Verbosity follows mysqlbinlog's: at 0 a row event is its header only; at 1 (`-v`) its rows
follow as `### INSERT INTO ... ### SET ###   @1=...` pseudo-SQL; at 2 (`-vv`) each value
carries a comment on its column's type (`/* INT meta=0 nullable=1 is_null=0 */`), and
MySQL's Rows_query events (the statement behind the rows) are printed, which MariaDB's
Annotate_rows events are at every level.

With `--base64-output=AUTO` (mysqlbinlog's default) the format description and each
statement's table maps and row events are also printed as `BINLOG '...'` statements, so
the output can be replayed into a server, as point-in-time recovery does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from .events import (
    Format_description_log_event,
    Intvar_log_event,
    Log_event,
    Query_log_event,
    Rand_log_event,
    Rows_log_event,
    Rows_query_log_event,
    Annotate_rows_log_event,
    Table_map_log_event,
    Update_rows_log_event,
    User_var_log_event,
    Xid_log_event,
    type_name_of,
)
from .base64_events import binlog_statement
from .events import STMT_END_F
from .file import PositionedEvent

BASE64_OUTPUT = ("DECODE-ROWS", "AUTO")
DECODED = 1  # -v: rows as pseudo-SQL
TYPED = 2  # -vv: with their columns' types, and Rows_query events


def _value(value: object, type_text: str) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str) and not type_text.startswith(("INT", "TINYINT", "SMALLINT", "MEDIUMINT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE")):
        return "'" + value.replace("'", "\\'") + "'"
    return str(value)


def _image(label: str, values: list[object], present: list[bool], table_map: Table_map_log_event | None, verbosity: int) -> list[str]:
    lines = [f"### {label}"]
    columns = iter(values)
    for index, included in enumerate(present, start=1):
        if not included:
            continue
        value = next(columns)
        info = table_map.columns[index - 1] if table_map and index - 1 < len(table_map.columns) else None
        type_text = info.type if info else "?"
        nullable = int(info.nullable) if info else 1
        comment = f" /* {type_text} meta=0 nullable={nullable} is_null={int(value is None)} */" if verbosity >= TYPED else ""
        lines.append(f"###   @{index}={_value(value, type_text)}{comment}")
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


def show(events: Iterable[PositionedEvent], base64_output: str = "DECODE-ROWS", verbosity: int = TYPED) -> str:
    """The text of a whole binlog, event by event; with base64_output AUTO, BINLOG
    statements too. `verbosity` is mysqlbinlog's number of -v; the default, -vv, is what
    a reader of a report wants (library callers); the command line's default is 0, as
    mysqlbinlog's."""
    out: list[str] = []
    table_maps: dict[int, Table_map_log_event] = {}
    statement_events: list[Log_event] = []  # a statement's table maps and row events so far
    for positioned in events:
        event = positioned.event
        stamp = dt.datetime.fromtimestamp(event.timestamp, dt.timezone.utc).strftime("%y%m%d %H:%M:%S")
        name = type_name_of(event)
        header = f"#{stamp} server id {event.server_id}  end_log_pos {positioned.end_log_pos} CRC32 0x00000000 \t{name}"
        out.append(f"# at {positioned.position}")
        if event.ignorable:
            header += "\t/* ignorable */"
        if isinstance(event, Query_log_event):
            out.append(f"{header}\tthread_id={event.thread_id}\texec_time={event.exec_time}\terror_code={event.error_code}")
            out.append(f"SET TIMESTAMP={event.timestamp}/*!*/;")
            out.append(f"{event.query}\n/*!*/;")
        elif isinstance(event, Table_map_log_event):
            table_maps[event.table_id] = event
            statement_events.append(event)
            out.append(f"{header}: `{event.database}`.`{event.table}` mapped to number {event.table_id}")
        elif isinstance(event, Rows_log_event):
            out.append(f"{header}: {event.info()}")
            statement_events.append(event)
            if base64_output == "AUTO" and event.rows_flags & STMT_END_F:
                out.append(f"{binlog_statement(statement_events)}/*!*/;")
            if event.rows_flags & STMT_END_F:
                statement_events = []
            if verbosity >= DECODED:
                out.extend(_rows(event, table_maps.get(event.table_id), verbosity))
        elif isinstance(event, Xid_log_event):
            out.append(f"{header}\tXid = {event.xid}")
            out.append("COMMIT/*!*/;")
        elif isinstance(event, Rows_query_log_event) and verbosity < TYPED:
            pass  # mysqlbinlog prints a Rows_query event only at -vv
        elif isinstance(event, (Rows_query_log_event, Annotate_rows_log_event)):
            out.append(header)
            out.append(f"#Q> {event.query}")
        elif isinstance(event, Intvar_log_event):
            out.append(header)
            out.append(f"SET {event.kind}={event.value}/*!*/;")
        elif isinstance(event, Rand_log_event):
            out.append(header)
            out.append(f"SET @@RAND_SEED1={event.seed1}, @@RAND_SEED2={event.seed2}/*!*/;")
        elif isinstance(event, User_var_log_event):
            out.append(header)
            out.append(f"SET {event.info()}/*!*/;")
        elif isinstance(event, Format_description_log_event):
            out.append(f"{header}\t{event.info()} (flavor {event.flavor})")
            if base64_output == "AUTO":
                out.append(f"{binlog_statement([event])}/*!*/;")
        else:
            out.append(f"{header}\t# unknown event type {name}")
    return "\n".join(out) + "\n"
