"""The session lines mysqlbinlog prints before a statement, so that piping its output into
a client runs each statement as the master did: `use`, `SET TIMESTAMP`, the pseudo thread
id, the flags2 options, sql_mode, auto_increment, character set, time zone, lc_time_names
and collation_database, each printed when it changes (the client's PRINT_EVENT_INFO), and
MariaDB's GTID event as its `/*M!100001 SET @@session.gtid_... */` lines.

The texts are the clients' own (MariaDB's log_event_client.cc, MySQL's log_event.cc).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..charsets import COLLATION_NAMES, COLLATIONS
from .binary.header import LOG_EVENT_SUPPRESS_USE_F, LOG_EVENT_THREAD_SPECIFIC_F
from .binary.sql_mode import sql_mode_bits
from .control_events import Gtid_log_event
from .events import (
    OPTION_AUTO_IS_NULL,
    OPTION_NO_FOREIGN_KEY_CHECKS,
    OPTION_NOT_AUTOCOMMIT,
    OPTION_RELAXED_UNIQUE_CHECKS,
    Query_log_event,
    User_var_log_event,
)

DELIMITER = "/*!*/;"
Q_LC_TIME_NAMES, Q_CHARSET_DATABASE, Q_HRNOW, Q_XID = 7, 8, 128, 129
FL_STANDALONE, FL_GROUP_COMMIT_ID, FL_TRANSACTIONAL, FL_ALLOW_PARALLEL, FL_WAITED, FL_DDL = 1, 2, 4, 8, 16, 32
OPTION_NO_CHECK_CONSTRAINT_CHECKS = 1 << 15
OPTION_IF_EXISTS = 1 << 23
OPTION_EXPLICIT_DEF_TIMESTAMP = 1 << 24
OPTION_INSERT_HISTORY = 1 << 25

# (bit, variable, printed as the bit's value (True) or its negation) in the client's order.
_OPTIONS = (
    (OPTION_NO_FOREIGN_KEY_CHECKS, "foreign_key_checks", False),
    (OPTION_AUTO_IS_NULL, "sql_auto_is_null", True),
    (OPTION_RELAXED_UNIQUE_CHECKS, "unique_checks", False),
    (OPTION_NOT_AUTOCOMMIT, "autocommit", False),
)
_MARIADB_OPTIONS = (
    *_OPTIONS,
    (OPTION_NO_CHECK_CONSTRAINT_CHECKS, "check_constraint_checks", False),
    (OPTION_IF_EXISTS, "sql_if_exists", True),
    (OPTION_EXPLICIT_DEF_TIMESTAMP, "explicit_defaults_for_timestamp", True),
    (OPTION_INSERT_HISTORY, "system_versioning_insert_history", True),
)
_UNSET = object()


def status_int(event: Query_log_event, code: int) -> int | None:
    """A little-endian status variable the event fields do not model (None: absent)."""
    for status_code, data in event.other_status:
        if status_code == code:
            return int.from_bytes(data, "little")
    return None


@dataclass
class SessionPrinter:
    """What the client has printed so far, so it prints only what changes."""

    mariadb: bool
    db: str = ""
    thread_id: int | None = None
    flags2: int | None = None
    sql_mode: int | None = None
    auto_increment: tuple[int, int] = (0, 0)
    charset: tuple[int, int, int] | None = None
    time_zone: str = ""
    lc_time_names: object = _UNSET
    charset_database: object = _UNSET
    gtid_printed: dict[str, int] = field(default_factory=dict)

    def query_header(self, event: Query_log_event, name: str) -> str:
        text = f"\t{name}\tthread_id={event.thread_id}\texec_time={event.exec_time}\terror_code={event.error_code}"
        return text + (f"\txid={status_int(event, Q_XID) or 0}" if self.mariadb else "")

    def query_lines(self, event: Query_log_event) -> list[str]:
        """The lines between a Query event's header and its statement."""
        lines = self._use(event)
        fraction = status_int(event, Q_HRNOW)
        lines.append(f"SET TIMESTAMP={event.timestamp}{f'.{fraction:06d}' if fraction else ''}{DELIMITER}")
        if self.thread_id is None or (event.flags & LOG_EVENT_THREAD_SPECIFIC_F and event.thread_id != self.thread_id):
            lines.append(f"SET @@session.pseudo_thread_id={event.thread_id}{DELIMITER}")
            self.thread_id = event.thread_id
        lines.extend(self._options(event.flags2))
        lines.extend(self._modes(event))
        lines.extend(self._charset(event.charset))
        lines.extend(self._locale(event))
        return lines

    def _use(self, event: Query_log_event) -> list[str]:
        if event.flags & LOG_EVENT_SUPPRESS_USE_F:
            if event.query not in ("BEGIN", "COMMIT", "ROLLBACK"):
                self.db = ""
            return []
        different = event.db != self.db
        self.db = event.db
        quoted = "`" + event.db.replace("`", "``") + "`"
        return [f"use {quoted}{DELIMITER}"] if event.db and different else []

    def _options(self, flags2: int) -> list[str]:
        changed = ~0 if self.flags2 is None else self.flags2 ^ flags2
        self.flags2 = flags2
        if not changed:
            return []
        options = _MARIADB_OPTIONS if self.mariadb else _OPTIONS
        parts = [f"@@session.{name}={int(bool(flags2 & bit) == positive)}" for bit, name, positive in options if changed & bit]
        return [f"SET {', '.join(parts)}{DELIMITER}"]

    def _modes(self, event: Query_log_event) -> list[str]:
        lines = []
        mode = sql_mode_bits(event.sql_mode, "mariadb" if self.mariadb else "mysql")
        if mode != self.sql_mode:
            lines.append(f"SET @@session.sql_mode={mode}{DELIMITER}")
            self.sql_mode = mode
        increment = (event.auto_increment_increment, event.auto_increment_offset)
        if increment != self.auto_increment:
            lines.append(f"SET @@session.auto_increment_increment={increment[0]}, @@session.auto_increment_offset={increment[1]}{DELIMITER}")
            self.auto_increment = increment
        return lines

    def _charset(self, charset: tuple[int, int, int] | None) -> list[str]:
        if charset is None or charset == self.charset:
            return []
        self.charset = charset
        client, connection, server = charset
        name = COLLATIONS[COLLATION_NAMES[client]].charset if client in COLLATION_NAMES else None
        lines = [f"/*!\\C {name} */{DELIMITER}"] if name else []
        if self.mariadb:
            lines.append(f"SET @@session.character_set_client={name},@@session.collation_connection={connection},@@session.collation_server={server}{DELIMITER}")
        else:
            lines.append(f"SET @@session.character_set_client={client},@@session.collation_connection={connection},@@session.collation_server={server}{DELIMITER}")
        return lines

    def _locale(self, event: Query_log_event) -> list[str]:
        lines = []
        if event.time_zone != "SYSTEM" and event.time_zone != self.time_zone:
            lines.append(f"SET @@session.time_zone='{event.time_zone}'{DELIMITER}")
            self.time_zone = event.time_zone
        lc_time_names = status_int(event, Q_LC_TIME_NAMES) or 0
        if lc_time_names != self.lc_time_names:
            lines.append(f"SET @@session.lc_time_names={lc_time_names}{DELIMITER}")
            self.lc_time_names = lc_time_names
        database = status_int(event, Q_CHARSET_DATABASE) or 0
        if database != self.charset_database:
            lines.append(f"SET @@session.collation_database={database or 'DEFAULT'}{DELIMITER}")
            self.charset_database = database
        return lines

    def gtid_lines(self, event: Gtid_log_event) -> tuple[str, list[str]]:
        """MariaDB's GTID event: its header text and the lines after it."""
        flags = event.flags2
        marks = [(FL_GROUP_COMMIT_ID, f" cid={event.commit_id}"), (FL_DDL, " ddl"), (FL_TRANSACTIONAL, " trans"), (FL_WAITED, " waited")]
        header = f"\tGTID {event.domain_id}-{event.server_id}-{event.seq_no}" + "".join(text for bit, text in marks if flags & bit)
        lines = []
        for key, value, text in (
            ("skip_parallel_replication", int(not flags & FL_ALLOW_PARALLEL), "/*M!100101 SET @@session.skip_parallel_replication={}*/"),
            ("gtid_domain_id", event.domain_id, "/*M!100001 SET @@session.gtid_domain_id={}*/"),
            ("server_id", event.server_id, "/*M!100001 SET @@session.server_id={}*/"),
        ):
            if self.gtid_printed.get(key) != value:
                lines.append(text.format(value) + DELIMITER)
                self.gtid_printed[key] = value
        lines.append(f"/*M!100001 SET @@session.gtid_seq_no={event.seq_no}*/{DELIMITER}")
        if not flags & FL_STANDALONE:
            lines.extend(("START TRANSACTION", DELIMITER))
        return header, lines


def user_var_text(event: User_var_log_event) -> str:
    """`SET @name:=value` as the client prints a User_var event: a string as hex with its
    character set and collation, a number as written."""
    name = "`" + event.name.replace("`", "``") + "`"
    if event.value is None:
        return f"SET @{name}:=NULL{DELIMITER}"
    if event.value_type == "STRING":
        data = event.value.encode() if isinstance(event.value, str) else bytes(event.value)  # type: ignore[arg-type]
        collation = COLLATION_NAMES.get(event.value_charset)
        if collation is None:
            return f"SET @{name}:=???{DELIMITER}"
        hexed = f"X'{data.hex().upper()}'" if data else '""'
        return f"SET @{name}:=_{COLLATIONS[collation].charset} {hexed} COLLATE `{collation}`{DELIMITER}"
    if event.value_type == "REAL":
        return f"SET @{name}:={float(event.value):.14g}{DELIMITER}"  # type: ignore[arg-type]
    return f"SET @{name}:={event.value}{DELIMITER}"
