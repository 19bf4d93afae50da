"""A binlog as `mysqlbinlog` / `mariadb-binlog` print it, read back into its events.

The text holds every event the importer needs: each event's position (`# at N`), a
header line naming its type (`#260101 12:00:01 server id 1  end_log_pos 577 ... Query
thread_id=1 ...`), and a body: a Query event's `use`, `SET` context lines and statement,
Intvar, Rand and User_var as `SET` statements, MariaDB's Annotate_rows as `#Q>` lines,
MySQL's Rows_query as `# ` lines under `-vv`, and the format description, table maps and
row events as the bytes of a `BINLOG '...'` statement (the default
`--base64-output=AUTO`). Positions come in the order the tool printed them: it may print
several `# at` lines before their headers, and a statement's table maps and row events
share one BINLOG statement after the last of them.

Rows printed only as `###` pseudo-SQL (`--base64-output=DECODE-ROWS`) lost their values'
types; they are not read back, and each such event is listed with the reason.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from server_sim.binlog.base64_events import decode_events
from server_sim.binlog.binary.codec import MARIADB, MYSQL
from server_sim.binlog.binary.sql_mode import sql_mode_text
from server_sim.binlog.control_events import FL_STANDALONE, FL_TRANSACTIONAL, Anonymous_gtid_log_event, Gtid_log_event
from server_sim.binlog.events import (
    Annotate_rows_log_event,
    Format_description_log_event,
    Intvar_log_event,
    Log_event,
    Query_log_event,
    Rand_log_event,
    Rows_query_log_event,
    User_var_log_event,
    Xid_log_event,
)
from server_sim.errors import SqlError

_AT = re.compile(r"^# at (\d+)\s*$")
_HEADER = re.compile(r"^#\d{6}\s+\d{1,2}:\d\d:\d\d server id \d+\s+end_log_pos \d+(?: CRC32 0x[0-9a-f]+)?\s+(.*)$")
_FIELD = re.compile(r"(\w+)=(\S+)")
_ROW_TYPES = ("Table_map", "Write_rows", "Update_rows", "Delete_rows", "Update_rows_partial")
_IGNORED = ("Start:", "Gtid list", "Binlog checkpoint", "Stop", "Rotate", "Previous-GTIDs", "Format_desc", "Heartbeat")
_SESSION_PAIR = re.compile(r"@@session\.(\w+)=([^,]*)", re.IGNORECASE)
# Context lines of a Query event that are not its statement: `SET @@session.x=...`, in
# a versioned comment or not, and the client charset line `/*!\C utf8mb4 */`.
_CONTEXT = re.compile(r"^(?:/\*M?!\d*\s*)?SET @@session\.|^/\*!\\C ", re.IGNORECASE)
_USER_VAR = re.compile(r"^SET @`((?:[^`]|``)+)`:=(.*)$", re.DOTALL)
_STRING_VALUE = re.compile(r"^_\w+ (?:X'([0-9a-fA-F]*)'|'((?:[^'\\]|\\.|'')*)')(?: COLLATE `?\w+`?)?$", re.DOTALL)
_DELIMITER = "/*!*/;"
_NO_ROWS = "row event printed without its BINLOG statement (--base64-output=DECODE-ROWS): its values cannot be read back"
# mariadb-binlog reading a MySQL binlog: its GTID events are printed as ignorable ones.
_MYSQL_GTID = re.compile(r"^# Ignorable event type 3[34] \(MySQL (?:Anonymous_)?Gtid\)$", re.MULTILINE)


class BinlogTextError(Exception):
    """Text that is not mysqlbinlog output."""


@dataclass
class _Entry:
    position: int
    kind: str  # the header's text after end_log_pos and CRC32
    body: list[str] = field(default_factory=list)


def _statements(body: list[str]) -> list[str]:
    """The body's statements, each ended by mysqlbinlog's delimiter `/*!*/;`."""
    text = "\n".join(line for line in body if not line.startswith("#"))
    return [part.strip() for part in text.split(_DELIMITER) if part.strip()]


@dataclass
class TextReader:
    """Reads the events of one mysqlbinlog text; `skipped` collects (position, reason)."""

    flavor: str = MYSQL  # the binary format family, from the format description
    skipped: list[tuple[int, str]] = field(default_factory=list)
    server: str = ""
    _rows: deque[int] = field(default_factory=deque)  # positions of table maps and row events awaiting their BINLOG
    # mysqlbinlog prints a Query event's context only where it changed from the event
    # before: what was printed last holds for the events after it.
    _sql_mode: str = ""
    _increment: tuple[int, int] = (1, 1)

    def events(self, text: str) -> Iterator[tuple[int, Log_event]]:
        positions: deque[int] = deque()
        entry: _Entry | None = None
        seen = False
        for line in text.splitlines():
            at = _AT.match(line)
            header = _HEADER.match(line) if not at else None
            if at:
                positions.append(int(at.group(1)))
                seen = True
                continue
            if header and positions:
                if entry is not None:
                    yield from self._finish(entry)
                entry = _Entry(positions.popleft(), header.group(1).strip())
            elif entry is not None:
                entry.body.append(line)
        if not seen:
            raise BinlogTextError("no '# at N' lines: not mysqlbinlog or mariadb-binlog output")
        if entry is not None:
            yield from self._finish(entry)
        for position in self._rows:
            self.skipped.append((position, _NO_ROWS))
        self._rows.clear()

    def _finish(self, entry: _Entry) -> Iterator[tuple[int, Log_event]]:
        kind = entry.kind
        if kind.startswith(_ROW_TYPES):
            self._rows.append(entry.position)
        elif self._rows and not kind.startswith(("Annotate_rows", "Rows_query")):
            for position in self._rows:
                self.skipped.append((position, _NO_ROWS))
            self._rows.clear()
        yield from self._blobs(entry)
        event = self._event(entry)
        if event is not None:
            yield entry.position, event

    def _blobs(self, entry: _Entry) -> Iterator[tuple[int, Log_event]]:
        """The events of the entry's BINLOG statements, at the positions printed for them."""
        for statement in _statements(entry.body):
            if not statement.upper().startswith("BINLOG "):
                continue
            try:
                events = decode_events(statement[len("BINLOG "):].strip().strip("'"))
            except SqlError as error:
                self.skipped.append((entry.position, f"BINLOG statement that does not decode: {error.message}"))
                continue
            for event in events:
                if isinstance(event, Format_description_log_event):
                    self.server = event.server_version
                    self.flavor = MARIADB if "mariadb" in event.server_version.lower() else MYSQL
                    yield entry.position, event
                elif self._rows:
                    yield self._rows.popleft(), event
                else:
                    self.skipped.append((entry.position, f"{event.type_name} event in a BINLOG statement with no header printed for it"))

    def _event(self, entry: _Entry) -> Log_event | None:
        kind = entry.kind
        if kind.startswith(_ROW_TYPES) or kind.startswith(_IGNORED):
            return None
        if kind.startswith("Query"):
            return self._query(entry)
        if kind.startswith("Xid"):
            return Xid_log_event(xid=int(kind.split("=")[-1].strip() or 0))
        if kind.startswith(("GTID ", "BEGIN GTID")):
            transactional = "trans" in kind.split() or any(s.upper() == "START TRANSACTION" for s in _statements(entry.body))
            return Gtid_log_event(flags2=FL_TRANSACTIONAL if transactional else FL_STANDALONE)
        if kind.startswith(("Anonymous_GTID", "GTID")) or _MYSQL_GTID.search("\n".join(entry.body)):
            return Anonymous_gtid_log_event()
        if kind.startswith("Ignorable"):  # an event the printing tool did not know, flagged as safe to skip
            return None
        if kind.startswith("Annotate_rows"):
            return Annotate_rows_log_event(query="\n".join(line[4:] for line in entry.body if line.startswith("#Q> ")))
        if kind.startswith("Rows_query"):
            return Rows_query_log_event(query="\n".join(line[2:] for line in entry.body if line.startswith("# ") and not line.startswith("# Number")))
        if kind.startswith(("Intvar", "Rand", "User_var")):
            return self._context(entry)
        self.skipped.append((entry.position, f"{kind.split()[0] if kind else 'an'} event printed as text is not read back"))
        return None

    def _query(self, entry: _Entry) -> Query_log_event | None:
        fields = dict(_FIELD.findall(entry.kind))
        event = Query_log_event(
            thread_id=int(fields.get("thread_id", 0)), error_code=int(fields.get("error_code", 0)), sql_mode=self._sql_mode,
            auto_increment_increment=self._increment[0], auto_increment_offset=self._increment[1],
        )
        query = ""
        for statement in _statements(entry.body):
            if statement.startswith("use `"):
                event.db = statement[5:-1].replace("``", "`")
            elif statement.startswith("SET TIMESTAMP="):
                continue
            elif _CONTEXT.match(statement):
                self._session_setting(event, {name.lower(): value.strip() for name, value in _SESSION_PAIR.findall(statement)})
            else:
                query = statement
        if not query:
            self.skipped.append((entry.position, "Query event with no statement in its text"))
            return None
        event.query = query
        return event

    def _session_setting(self, event: Query_log_event, pairs: dict[str, str]) -> None:
        if pairs.get("sql_mode", "").isdigit():
            self._sql_mode = event.sql_mode = sql_mode_text(int(pairs["sql_mode"]), self.flavor)
        if pairs.get("auto_increment_increment", "").isdigit():
            event.auto_increment_increment = int(pairs["auto_increment_increment"])
            event.auto_increment_offset = int(pairs.get("auto_increment_offset", "1") or 1)
            self._increment = (event.auto_increment_increment, event.auto_increment_offset)

    def _context(self, entry: _Entry) -> Log_event | None:
        statements = _statements(entry.body)
        text = statements[0] if statements else ""
        if entry.kind.startswith("Intvar") and (match := re.match(r"^SET (INSERT_ID|LAST_INSERT_ID)=(\d+)$", text)):
            return Intvar_log_event(kind=match.group(1), value=int(match.group(2)))
        if entry.kind.startswith("Rand") and (match := re.match(r"^SET @@RAND_SEED1=(\d+), @@RAND_SEED2=(\d+)$", text)):
            return Rand_log_event(seed1=int(match.group(1)), seed2=int(match.group(2)))
        if entry.kind.startswith("User_var") and (match := _USER_VAR.match(text)) is not None:
            value = user_variable_value(match.group(2).strip())
            if value is not _UNREADABLE:
                return User_var_log_event(name=match.group(1).replace("``", "`"), value=value)
        self.skipped.append((entry.position, f"{entry.kind.split()[0]} event whose text is not understood: {text[:60]!r}"))
        return None


_UNREADABLE = object()


def user_variable_value(text: str) -> object:
    """A User_var event's value as mysqlbinlog prints it."""
    if text == "NULL":
        return None
    string = _STRING_VALUE.match(text)
    if string:
        if string.group(1) is not None:
            data = bytes.fromhex(string.group(1))
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                return data
        return string.group(2).replace("''", "'").replace("\\'", "'").replace("\\\\", "\\")
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    try:
        return Decimal(text) if re.fullmatch(r"-?\d+\.\d*", text) else float(text)
    except (InvalidOperation, ValueError):
        return _UNREADABLE
