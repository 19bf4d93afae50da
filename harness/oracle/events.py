"""A real server's binlog as observations: SHOW BINLOG EVENTS, plus row images from mariadb-binlog -vv.

SHOW BINLOG EVENTS gives each event's type and what identifies it; it does not decode
row events, so the rows come from `mariadb-binlog -vv --base64-output=decode-rows`,
matched to their event by position.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from harness.snapshot import canonical
from server_sim.temporal_types import time_from_text
from harness.observation import EVENT_KINDS, binlog_text, EventObservation, Image, RowImage, image_value, statement_text, timestamp_text

from .mariadb import ServerError, find_program

_AT = re.compile(r"^# at (\d+)$")
_EVENT_HEADER = re.compile(r"^#\d{6} +\d{1,2}:\d{2}:\d{2} server id ")
# A compressed row event (log_bin_compress) is printed as Write_compressed_rows and the like.
_ROWS_HEADER = re.compile(r"\t(Write|Update|Delete)(?:_compressed)?_rows(?:_v1)?: table id (?P<table>\d+)")
_TABLE_MAP_HEADER = re.compile(r"\tTable_map: (\S+) mapped to number (\d+)")
_ROW_START = re.compile(r"^### (INSERT INTO|UPDATE|DELETE FROM) (\S+)")
_COLUMN = re.compile(r"^###   @(\d+)=(.*) /\* (.*?) meta=")
_VERBS = {"Write": "INSERT", "Update": "UPDATE", "Delete": "DELETE"}
_DATE_COLONS = re.compile(r"^\d{4}:\d{2}:\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$")
_TIME = re.compile(r"^-?\d{2,3}:\d{2}:\d{2}(\.\d{1,6})?$")
_TABLE_MAP_INFO = re.compile(r"^table_id: \d+ \(([^)]*)\)")


def decode_rows(text: str) -> dict[int, list[RowImage]]:
    """Row images of every row event in mariadb-binlog -vv output, keyed by the event's position.

    mariadb-binlog prints the headers of all row events of one statement first and their
    rows after the last one, so rows are dealt out to the events in order: each event
    takes the rows with its verb (INSERT for Write_rows, UPDATE, DELETE) and its table
    (a statement whose triggers write other tables alternates between them).
    """
    dealer = _RowDealer()
    position: int | None = None
    tables: dict[str, str] = {}  # table id -> `db`.`table`, from the Table_map headers
    pending: list[int] = []  # "# at N" lines not yet matched with their event's header line
    for line in text.splitlines():
        at = _AT.match(line)
        if at:
            pending.append(int(at.group(1)))
            continue
        if _EVENT_HEADER.match(line):
            # Several "# at" lines may come before their headers (Annotate_rows, then a
            # Table_map; or a statement's row events): each header takes the oldest.
            position = pending.pop(0) if pending else None
        table_map = _TABLE_MAP_HEADER.search(line) if line.startswith("#") else None
        if table_map:
            tables[table_map.group(2)] = table_map.group(1)
        header = _ROWS_HEADER.search(line) if line.startswith("#") else None
        if header and position is not None:
            dealer.event(position, _VERBS[header.group(1)], tables.get(header.group("table"), ""))
        elif line.startswith("###") and dealer.group:
            dealer.row_line(line)
    dealer.finish_row()
    return dealer.rows


class _RowDealer:
    """Deals the printed rows of a statement out to its row events, as decode_rows says."""

    def __init__(self) -> None:
        self.rows: dict[int, list[RowImage]] = {}
        self.group: list[tuple[int, str, str]] = []  # (position, verb, table) of the row events waiting for rows
        self.taking = 0  # index in `group` of the event the current rows belong to
        self.grouped_rows = False
        self.verb = ""
        self.table = ""
        self.before: Image | None = None
        self.after: Image | None = None
        self.image: Image | None = None

    def event(self, position: int, verb: str, table: str) -> None:
        """A row event's header; after rows, it starts a new statement's group."""
        if self.grouped_rows:  # a new statement's events: the previous group is complete
            self.finish_row()
            self.group, self.taking, self.grouped_rows = [], 0, False
            self.before = self.after = self.image = None
        self.group.append((position, verb, table))
        self.rows.setdefault(position, [])

    def row_line(self, line: str) -> None:
        """A `###` line: a row's start, its WHERE or SET image, or one of their columns."""
        start = _ROW_START.match(line)
        if start:
            self.finish_row()
            self.grouped_rows = True
            self.verb = start.group(1).split()[0]
            self.table = start.group(2)
            self.before = self.after = self.image = None
        elif line == "### WHERE":
            self.before = self.image = {}
        elif line == "### SET":
            self.after = self.image = {}
        else:
            column = _COLUMN.match(line)
            if column and self.image is not None:
                self.image[int(column.group(1))] = _value(column.group(2), column.group(3))

    def finish_row(self) -> None:
        """The row read so far to the first waiting event of its verb and table."""
        group = self.group
        if not group or (self.before is None and self.after is None):
            return
        while self.taking < len(group) - 1 and not (group[self.taking][1] == self.verb and group[self.taking][2] in ("", self.table)):
            self.taking += 1
        self.rows.setdefault(group[self.taking][0], []).append(RowImage(self.before, self.after))


def _value(text: str, type_text: str) -> object:
    """A value as mariadb-binlog prints it, in canonical form."""
    if text == "NULL":
        return None
    if text.startswith("'"):
        # The value's own bytes (the output was read with surrogateescape), in its charset.
        value = binlog_text(_unquote(text).encode("utf-8", "surrogateescape"))
        if type_text.startswith("DATE") and _DATE_COLONS.match(value):
            return value.replace(":", "-")  # mariadb-binlog prints a DATE as 2024:02:29
        if type_text.startswith("DATETIME") and _DATETIME.match(value):
            return canonical(dt.datetime.fromisoformat(value.ljust(26, "0") if "." in value else value))
        if type_text.startswith("TIME(") and _TIME.match(value):
            return canonical(time_from_text(value))  # its digits, as many as the column has
        return value
    if text.startswith("b'") and type_text.startswith("BIT"):
        return int(text[2:-1] or "0", 2)  # a BIT column's bits, compared as its number
    number = text.split(" ", 1)[0]  # integers may be followed by "(unsigned value)"
    if type_text.startswith("TIMESTAMP"):
        return timestamp_text(number)
    if type_text == "YEAR" and number == "1900":
        return 0  # mariadb-binlog prints the byte plus 1900: YEAR 0000 as 1900
    return image_value(number, type_text)


def _unquote(text: str) -> str:
    """A quoted value's characters: mariadb-binlog writes a byte below 0x20 as \\xNN and
    every other byte as it is, quotes and backslashes included (my_b_write_quoted tests
    `> 0x1F` before its escapes for them), so only such an \\xNN is read back."""
    body = text[1:-1] if text.endswith("'") and len(text) >= 2 else text[1:]
    return _CONTROL_BYTE.sub(lambda match: chr(int(match.group(1), 16)), body)


_CONTROL_BYTE = re.compile(r"\\x([01][0-9a-f])")


def observe_events(shown: Sequence[Sequence[object]], decoded: dict[int, list[RowImage]]) -> list[EventObservation]:
    """Rows of SHOW BINLOG EVENTS (Log_name, Pos, Event_type, Server_id, End_log_pos, Info).

    MariaDB opens every transaction with a Gtid event flagged BEGIN where MySQL writes a
    Query BEGIN; it is observed as that Query, and other Gtid events are skipped.
    """
    observed: list[EventObservation] = []
    table_names: dict[str, str] = {}
    last_table = ""
    for _, position, event_type, _, _, info in shown:
        position = int(position)
        event_type, info = str(event_type), str(info or "")
        if event_type == "Gtid":
            if info.startswith("BEGIN"):
                observed.append(EventObservation("Query", "BEGIN"))
            continue
        # log_bin_compress: Query_compressed, Write_rows_compressed_v1 ... stand for the plain event
        kind = EVENT_KINDS.get(event_type.replace("_compressed", ""))
        if kind is None:
            continue
        if kind in ("Query", "Annotate_rows", "Rows_query"):
            observed.append(EventObservation(kind, statement_text(info)))
        elif kind == "Table_map":
            match = _TABLE_MAP_INFO.match(info)
            last_table = match.group(1) if match else info
            table_id = info.split()[1] if info.startswith("table_id:") else ""
            table_names[table_id] = last_table
            observed.append(EventObservation(kind, last_table))
        elif kind.endswith("_rows"):
            table_id = info.split()[1] if info.startswith("table_id:") else ""
            observed.append(EventObservation(kind, table_names.get(table_id, last_table), tuple(decoded.get(position, []))))
        elif kind == "Intvar":
            observed.append(EventObservation(kind, info.strip()))
        elif kind == "User_var":
            observed.append(EventObservation(kind, "@" + info.split("=", 1)[0].strip().lstrip("@").strip("`")))
        else:
            observed.append(EventObservation(kind))
    return observed


def read_server_binlog(cursor: object, datadir: Path, log_file: str) -> list[EventObservation]:
    """The events of `log_file`, read from a running server."""
    cursor.execute(f"SHOW BINLOG EVENTS IN '{log_file}'")  # type: ignore[attr-defined]
    shown = list(cursor.fetchall())  # type: ignore[attr-defined]
    return observe_events(shown, decode_rows(mariadb_binlog(datadir / log_file)))


def mariadb_binlog(path: Path) -> str:
    command = [find_program("mariadb-binlog", "mysqlbinlog"), "-vv", "--base64-output=decode-rows", str(path)]
    result = subprocess.run(command, capture_output=True, text=True, errors="surrogateescape", check=False)  # noqa: S603
    if result.returncode != 0:
        raise ServerError(f"mariadb-binlog {path} failed (exit {result.returncode}): {result.stderr.strip()[-500:]}")
    return result.stdout
