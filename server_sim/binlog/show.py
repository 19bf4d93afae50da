"""Print a binlog the way `mysqlbinlog -vv` does: positions, headers, statements, decoded rows.

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


def _value(value: object, type_text: str) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str) and not type_text.startswith(("INT", "TINYINT", "SMALLINT", "MEDIUMINT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE")):
        return "'" + value.replace("'", "\\'") + "'"
    return str(value)


def _image(label: str, values: list[object], present: list[bool], table_map: Table_map_log_event | None) -> list[str]:
    lines = [f"### {label}"]
    columns = iter(values)
    for index, included in enumerate(present, start=1):
        if not included:
            continue
        value = next(columns)
        info = table_map.columns[index - 1] if table_map and index - 1 < len(table_map.columns) else None
        type_text = info.type if info else "?"
        nullable = int(info.nullable) if info else 1
        lines.append(f"###   @{index}={_value(value, type_text)} /* {type_text} meta=0 nullable={nullable} is_null={int(value is None)} */")
    return lines


def show(events: Iterable[PositionedEvent], base64_output: str = "DECODE-ROWS") -> str:
    """The text of a whole binlog, event by event; with base64_output AUTO, BINLOG
    statements too."""
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
            table_map = table_maps.get(event.table_id)
            target = f"`{table_map.database}`.`{table_map.table}`" if table_map else f"table id {event.table_id}"
            for row in event.rows:
                if isinstance(event, Update_rows_log_event):
                    out.append(f"### UPDATE {target}")
                    out.extend(_image("WHERE", row.before or [], event.columns_before, table_map))
                    out.extend(_image("SET", row.after or [], event.columns_after, table_map))
                elif row.after is not None:
                    out.append(f"### INSERT INTO {target}")
                    out.extend(_image("SET", row.after, event.columns_after, table_map))
                else:
                    out.append(f"### DELETE FROM {target}")
                    out.extend(_image("WHERE", row.before or [], event.columns_before, table_map))
        elif isinstance(event, Xid_log_event):
            out.append(f"{header}\tXid = {event.xid}")
            out.append("COMMIT/*!*/;")
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
