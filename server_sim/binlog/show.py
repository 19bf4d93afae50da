"""Print a binlog the way `mariadb-binlog` / `mysqlbinlog` do: positions, headers,
statements with the session lines before them, and, as their `-v` and `-vv` do, row
events decoded.

The text is the clients' own, event by event (MariaDB's log_event_client.cc, MySQL's
log_event.cc): the header line with end_log_pos and the CRC32 the file holds, the
statement's `use` and `SET` lines (show_session.py), GTID lines, `Xid = N`, a row event's
`# Number of rows` (MariaDB) and its rows (show_rows.py); a whole file is framed by the
clients' DELIMITER preamble and trailer. docs/binlog-show.md lists where the text still
differs from mariadb-binlog's, and why.

With `--base64-output=AUTO` (mysqlbinlog's default) the format description and each
statement's table maps and row events are also printed as `BINLOG '...'` statements
holding the events' bytes, so the output can be replayed into a server, as point-in-time
recovery does. `json_view` is the same events as JSON, one object per line.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import textwrap
from collections.abc import Iterable
from decimal import Decimal

from .binary.codec import MYSQL, FormatContext
from .binary.format_description import context_of
from .binary.header import LOG_EVENT_BINLOG_IN_USE_F, unpack_header
from .binary.registry import encode_body, encode_event, frame_body
from .control_events import (
    Binlog_checkpoint_log_event,
    Gtid_list_log_event,
    Gtid_log_event,
    Mysql_gtid_log_event,
    Previous_gtids_log_event,
    Rotate_log_event,
    Stop_log_event,
)
from .events import (
    STMT_END_F,
    TM_BIT_HAS_TRIGGERS_F,
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
    type_code_of,
    type_name_of,
)
from .file import PositionedEvent
from .show_rows import row_lines
from .show_session import DELIMITER, SessionPrinter, user_var_text

BASE64_OUTPUT = ("DECODE-ROWS", "AUTO")
DECODED = 1  # -v: rows as pseudo-SQL
TYPED = 2  # -vv: with their columns' types, and Rows_query events

# MariaDB's compressed events (log_bin_compress), by type code, as the client names them.
_COMPRESSED_NAMES = {165: "Query_compressed", **dict.fromkeys((166, 169), "Write_compressed_rows"), **dict.fromkeys((167, 170), "Update_compressed_rows"), **dict.fromkeys((168, 171), "Delete_compressed_rows")}
PREAMBLE = {
    "mariadb": ["/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;", "/*!40019 SET @@session.max_delayed_threads=0*/;"],
    MYSQL: ["/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;"],
}
_COMPLETION = "/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;"
TRAILER = {
    "mariadb": ["DELIMITER ;", "# End of log file", "ROLLBACK /* added by mysqlbinlog */;"],
    MYSQL: ["SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;", "DELIMITER ;", "# End of log file"],
}
_RESTORE = ["/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;", "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;"]


def _stamp(timestamp: int) -> str:
    return dt.datetime.fromtimestamp(timestamp, dt.timezone.utc).strftime("%y%m%d %H:%M:%S").replace(" 0", "  ", 1)


class _Printer:
    """The state mysqlbinlog keeps while it prints: the format, table maps, the session
    lines printed so far, the pending BINLOG statement."""

    def __init__(self, base64_output: str, verbosity: int, data: bytes) -> None:
        self.base64_output = base64_output
        self.verbosity = verbosity
        self.data = data
        self.ctx = FormatContext(MYSQL)
        self.session = SessionPrinter(mariadb=False)
        self.table_maps: dict[int, Table_map_log_event] = {}
        self.statement_events: list[PositionedEvent] = []  # a statement's table maps and row events so far
        self.annotation: list[str] = []  # MariaDB prints an Annotate_rows event with the table map after it
        self.rows_headers: list[str] = []  # the statement's row events so far: their headers,
        self.rows_body: list[str] = []  # their rows,
        self.rows_count = 0  # and how many
        self.out: list[str] = []

    def _raw_type(self, positioned: PositionedEvent) -> int | None:
        """The type code the file has at the event's position (a compressed event's own)."""
        data, position = self.data, positioned.position
        if len(data) < positioned.end_log_pos or unpack_header(data, position).event_size != positioned.end_log_pos - position:
            return None
        return data[position + 4]

    def _crc(self, positioned: PositionedEvent) -> str:
        if not self.ctx.checksum:
            return ""
        if self._raw_type(positioned) is not None:
            crc = int.from_bytes(self.data[positioned.end_log_pos - 4 : positioned.end_log_pos], "little")
        else:
            ctx = FormatContext(self.ctx.flavor, self.ctx.post_header_lengths, self.ctx.checksum_alg, dict(self.table_maps))
            crc = int.from_bytes(encode_event(positioned.event, ctx, positioned.position)[-4:], "little")
        return f"CRC32 0x{crc:08x} "

    def header(self, positioned: PositionedEvent) -> str:
        event = positioned.event
        return f"#{_stamp(event.timestamp)} server id {event.server_id}  end_log_pos {positioned.end_log_pos} {self._crc(positioned)}"

    def event(self, positioned: PositionedEvent) -> None:
        event = positioned.event
        if isinstance(event, Format_description_log_event):
            self.ctx = context_of(event)
            self.session = SessionPrinter(mariadb=self.ctx.mariadb)
        self.out.append(f"# at {positioned.position}")
        if isinstance(event, Annotate_rows_log_event):
            self.annotation = [f"{self.header(positioned)}\tAnnotate_rows:", *(f"#Q> {line}" for line in event.query.splitlines() if line)]
            return
        self.out.extend(self.annotation)
        self.annotation = []
        header = self.header(positioned)
        if isinstance(event, Query_log_event):
            name = _COMPRESSED_NAMES.get(self._raw_type(positioned) or 0, "Query")
            self.out.extend((header + self.session.query_header(event, name), *self.session.query_lines(event), event.query, DELIMITER))
        elif isinstance(event, Table_map_log_event):
            self.table_maps[event.table_id] = event
            self.statement_events.append(positioned)
            triggers = " (has triggers)" if event.map_flags & TM_BIT_HAS_TRIGGERS_F else ""
            self.out.append(f"{header}\tTable_map: `{event.database}`.`{event.table}` mapped to number {event.table_id}{triggers}")
        elif isinstance(event, Rows_log_event):
            self.rows_event(positioned, header, _COMPRESSED_NAMES.get(self._raw_type(positioned) or 0, event.type_name))
        elif isinstance(event, Gtid_log_event):
            text, lines = self.session.gtid_lines(event)
            self.out.extend((header + text, *lines))
        elif isinstance(event, Format_description_log_event):
            self.description(positioned, header)
        else:
            self.out.extend(self.other_event(event, header))

    def description(self, positioned: PositionedEvent, header: str) -> None:
        out, event = self.out, positioned.event
        assert isinstance(event, Format_description_log_event)
        out.append(f"{header}\tStart: binlog v {event.binlog_version}, server v {event.server_version} created {_stamp(event.timestamp)}" + (" at startup" if event.create_timestamp else ""))
        if event.flags & LOG_EVENT_BINLOG_IN_USE_F:
            out.append("# Warning: this binlog is either in use or was not closed properly.")
        if event.create_timestamp:
            out.append(f"ROLLBACK{DELIMITER}")
        if self.base64_output == "AUTO":
            out.extend(self.binlog_statement([positioned]))

    def other_event(self, event: Log_event, header: str) -> list[str]:
        """The events printed as a header and a line or two of their own."""
        if isinstance(event, Xid_log_event):
            return [f"{header}\tXid = {event.xid}", f"COMMIT{DELIMITER}"]
        if isinstance(event, Intvar_log_event):
            return [f"{header}\tIntvar", f"SET {event.kind}={event.value}{DELIMITER}"]
        if isinstance(event, Rand_log_event):
            return [f"{header}\tRand", f"SET @@RAND_SEED1={event.seed1}, @@RAND_SEED2={event.seed2}{DELIMITER}"]
        if isinstance(event, User_var_log_event):
            return [f"{header}\tUser_var", user_var_text(event)]
        if isinstance(event, Rows_query_log_event):  # MySQL prints it at -vv only
            return [f"{header}\tRows_query", *(f"# {line}" for line in event.query.split("\n") if line)] if self.verbosity >= TYPED else []
        if isinstance(event, Mysql_gtid_log_event):
            name = "GTID" if event.type_code == 33 else "Anonymous_GTID"
            text = f"\t{name}\tlast_committed={event.last_committed}\tsequence_number={event.sequence_number}\trbr_only={'no' if event.gtid_flags & 1 else 'yes'}"
            return [header + text, f"{event.info()}{DELIMITER}"]
        if isinstance(event, Previous_gtids_log_event):
            return [f"{header}\tPrevious-GTIDs", "# [empty]" if not event.gtid_sets else "# " + event.info()]
        if isinstance(event, Gtid_list_log_event):
            return [f"{header}\tGtid list [" + ",\n# ".join(f"{d}-{s}-{n}" for d, s, n in event.gtids) + "]"]
        if isinstance(event, Binlog_checkpoint_log_event):
            return [f"{header}\tBinlog checkpoint {event.log_file}"]
        if isinstance(event, Rotate_log_event):
            return [f"{header}\tRotate to {event.new_log_ident}  pos: {event.position}"]
        if isinstance(event, Stop_log_event):
            return [f"{header}\tStop"]
        if isinstance(event, Unknown_log_event):
            return [f"{header}\tIgnorable", f"# Ignorable event type {type_code_of(event)} ({type_name_of(event)})"]
        return [f"{header}\t{type_name_of(event)}\t{event.info()}"]

    def rows_event(self, positioned: PositionedEvent, header: str, name: str) -> None:
        """A statement's row events print as the client caches them: each one's `# at`
        at once, then at the statement's last event (STMT_END_F) all their headers, all
        their rows and, MariaDB's client, how many rows the statement changed."""
        event = positioned.event
        assert isinstance(event, Rows_log_event)
        flags = " flags: STMT_END_F" if event.rows_flags & STMT_END_F else ""
        self.rows_headers.append(f"{header}\t{name}: table id {event.table_id}{flags}")
        self.statement_events.append(positioned)
        if self.verbosity >= DECODED:
            self.rows_body.extend(row_lines(event, self.table_maps.get(event.table_id), self.verbosity))
        self.rows_count += len(event.rows)
        if not event.rows_flags & STMT_END_F:
            return
        self.out.extend(self.rows_headers)
        if self.base64_output == "AUTO":
            self.out.extend(("", *self.binlog_statement(self.statement_events)))
        self.out.extend(self.rows_body)
        if self.ctx.mariadb:
            self.out.append(f"# Number of rows: {self.rows_count}")
        self.statement_events, self.rows_headers, self.rows_body, self.rows_count = [], [], [], 0

    def binlog_statement(self, events: list[PositionedEvent]) -> list[str]:
        """`BINLOG '...'` of events as the client prints it: each event's base64 on its
        own lines, the event as the server's reader holds it (a compressed one inflated),
        with the end_log_pos the file has."""
        lines = ["BINLOG '"]
        ctx = FormatContext(self.ctx.flavor, self.ctx.post_header_lengths, self.ctx.checksum_alg)
        for positioned in events:
            body = encode_body(positioned.event, ctx)
            size = len(frame_body(positioned.event, body, ctx, 0))
            data = frame_body(positioned.event, body, ctx, positioned.end_log_pos - size)
            lines.extend(textwrap.wrap(base64.b64encode(data).decode("ascii"), 76))
        return [*lines, f"'{DELIMITER}"]

    def framed(self) -> list[str]:
        """The whole output, between the client's preamble and trailer."""
        flavor = "mariadb" if self.ctx.mariadb else MYSQL
        return [*PREAMBLE[flavor], _COMPLETION, "DELIMITER /*!*/;", *self.out, *self.annotation, *TRAILER[flavor], *_RESTORE]


def show(events: Iterable[PositionedEvent], base64_output: str = "DECODE-ROWS", verbosity: int = TYPED, data: bytes = b"", framed: bool = False) -> str:
    """The text of a binlog, event by event; with base64_output AUTO, BINLOG statements
    too. `verbosity` is mysqlbinlog's number of -v; the default, -vv, is what a reader of
    a report wants (library callers); the command line's default is 0, as mysqlbinlog's.
    `data`: the file's bytes, for the CRC32 and type code each header shows as the file
    has them; `framed`: with the client's DELIMITER preamble and trailer, as a whole file
    is printed."""
    printer = _Printer(base64_output, verbosity, data)
    for positioned in events:
        printer.event(positioned)
    lines = printer.framed() if framed else [*printer.out, *printer.annotation]
    return "\n".join(lines) + "\n"


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
