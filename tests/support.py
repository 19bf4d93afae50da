"""What many tests need: a scenario written to a file (and loaded), the `rplharness` command
run and its report.json read, one simulated server with a session to run SQL on (`Db`).
One definition, so a change to how scenarios are written, reports read or statements run
is made once. Test modules in every directory import it as `tests.support`."""

from __future__ import annotations

import datetime as dt
import json
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from harness.oracle.mariadb import MariaDBServer
from scenarios.loader import load_scenario
from scenarios.model import Scenario
from server_sim.binlog.control_events import FRAMING_EVENTS, Gtid_log_event
from server_sim.binlog.events import Query_log_event, type_name_of
from server_sim.binlog.file import read_binlog
from server_sim.errors import SqlError
from server_sim.execute.executor import Executor
from server_sim.execute.outcome import Outcome
from server_sim.flavor import MYSQL_80, Flavor
from server_sim.parser import parse_statement
from server_sim.server import Server, ServerIdentity
from server_sim.session import Session
from server_sim.storage import ROW_ID

ROOT = Path(__file__).resolve().parent.parent
"""The repository: the packages, scenarios/, docs/. Tests find files through it, never through
their own location, so a test module can move between directories."""
# How long a test waits for the Spark class-data archive the run is writing (conftest):
# writing it takes under a minute on an idle 2-core machine.
ARCHIVE_WAIT = 240.0
# Whether this machine's class-data archive existed when the run's SparkSession started.
ARCHIVE_AT_START = pytest.StashKey[bool]()

MASTER = ServerIdentity(1, "master", 7)
SLAVE = ServerIdentity(2, "slave", 8, clock_start=dt.datetime(2026, 1, 1, 12, 0, 30))


def scenario_file(directory: Path, text: str, name: str = "scenario.yaml", dedent: bool = False) -> Path:
    """`text` written as `directory/name` (parent directories made); with `dedent`, the
    indentation of a triple-quoted literal removed first."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if dedent else text, encoding="utf-8")
    return path


def scenario_from(directory: Path, text: str, name: str = "scenario.yaml") -> Scenario:
    """The scenario `text` describes, loaded from a file the way `rplharness run` loads it."""
    return load_scenario(scenario_file(directory, text, name))


def read_report(out: Path) -> dict:
    """OUT/report.json as a dict; `{}` when the command wrote none (a usage error)."""
    path = out / "report.json"
    return json.loads(path.read_text()) if path.exists() else {}


def run_command(out: Path, *arguments: str) -> tuple[int, dict]:
    """`rplharness run ARGUMENTS --out OUT`: its exit code and its report."""
    from harness.cli import main

    code = main(["run", *arguments, "--out", str(out)])
    return code, read_report(out)


class Db:
    """One simulated server with one session, and shorthands to run SQL on it: the way the
    simulators run it (parse_statement, then Executor.run with a statement context from the
    server). `flavor` and `identity` choose the server; `sorted_rows` makes rows() give a
    table's rows sorted by their repr instead of in physical order; `fast_path` False makes
    DuckDB answer everything the mirror would."""

    def __init__(self, identity: ServerIdentity = MASTER, flavor: Flavor = MYSQL_80, sorted_rows: bool = False, fast_path: bool = True) -> None:
        self.server = Server(flavor, identity, fast_path=fast_path)
        self.executor = Executor(self.server)
        self.session = self.server.new_session("root@localhost")
        self.sorted_rows = sorted_rows

    def new_session(self) -> Session:
        return self.server.new_session("root@localhost")

    def run(self, sql: str, session: Session | None = None, timestamp: dt.datetime | None = None) -> Outcome:
        session = session or self.session
        moment = timestamp or self.server.tick()
        return self.executor.run(session, parse_statement(sql), self.server.statement_context(session, moment))

    def ok(self, sql: str, session: Session | None = None, timestamp: dt.datetime | None = None) -> Outcome:
        outcome = self.run(sql, session, timestamp)
        assert outcome.error is None, f"{sql!r} failed: {outcome.error}"
        return outcome

    def error(self, sql: str, session: Session | None = None) -> SqlError:
        """The error `sql` fails with, whether the parser or the executor raises it."""
        try:
            outcome = self.run(sql, session)
        except SqlError as error:
            return error
        assert outcome.error is not None, f"{sql!r} succeeded: {outcome}"
        return outcome.error

    def query(self, sql: str, session: Session | None = None, timestamp: dt.datetime | None = None) -> list[tuple]:
        outcome = self.ok(sql, session, timestamp)
        assert outcome.rows is not None
        return outcome.rows

    def value(self, sql: str, session: Session | None = None, timestamp: dt.datetime | None = None) -> object:
        (row,) = self.query(sql, session, timestamp)
        (value,) = row
        return value

    def rows(self, table: str) -> list[tuple]:
        """The table's rows in physical order, as server.dump() reports them (sorted by
        their repr with `sorted_rows`)."""
        rows = self.server.dump()[table][1]
        return sorted(rows, key=repr) if self.sorted_rows else rows

    def columns(self, table: str) -> list[str]:
        return self.server.dump()[table][0]

    def close(self) -> None:
        self.server.close()


def kinds(outcome: Outcome) -> list[str]:
    """The kinds of the row changes a statement made, in order."""
    return [change.kind.value for change in outcome.changes]


def images(outcome: Outcome) -> list[tuple[str, tuple | None, tuple | None]]:
    """Each row change as (kind, before image, after image)."""
    return [(change.kind.value, change.before, change.after) for change in outcome.changes]


MYSQL_BINLOGS = ROOT.parent / "shared" / "testdata" / "binlogs" / "mysql-8.0"
"""Binlogs real MySQL 8.0 servers wrote (fetched test data, never copied into the repository:
tests that read them skip when the folder is absent)."""


@dataclass(frozen=True)
class RawEvent:
    """One event of a binlog file as bytes, found by a walk independent of the codec: its
    position, type code, flags and body (after the 19-byte common header, before the CRC)."""

    position: int
    type_code: int
    flags: int
    body: bytes


def raw_events(data: bytes) -> list[RawEvent]:
    """Every event of a v4 binlog file's bytes, by each header's event_size; whether events
    end in a CRC comes from the Format_description's algorithm byte (which is itself always
    followed by one)."""
    assert data[:4] == b"\xfebin", "not a binlog file"
    events, position, crc = [], 4, 4
    while position + 19 <= len(data):
        type_code, size, flags = data[position + 4], int.from_bytes(data[position + 9 : position + 13], "little"), int.from_bytes(data[position + 17 : position + 19], "little")
        event = data[position : position + size]
        if type_code == 15:
            crc = 4 if event[-5] == 1 else 0
            events.append(RawEvent(position, type_code, flags, event[19:-4]))
        else:
            events.append(RawEvent(position, type_code, flags, event[19 : size - crc]))
        position += size
    return events


ALL_TYPES_TABLE = (
    "CREATE TABLE all_types ("
    "id INT NOT NULL PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,"
    " mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,"
    " de DECIMAL(12,3), du DECIMAL(5,0) UNSIGNED, f FLOAT, d DOUBLE, c CHAR(5), vc VARCHAR(300), vs VARCHAR(20),"
    " tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT, b BINARY(4), vb VARBINARY(10),"
    " tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB, dt DATE, dtm DATETIME, dtm6 DATETIME(6),"
    " ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL) ENGINE=InnoDB"
)
"""A table with a column of every type the catalog models (signed and unsigned integers,
fractional seconds), for binlogs and dumps that exercise every value packing."""

ALL_TYPES_ROWS = (
    "INSERT INTO all_types VALUES (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,"
    " -9223372036854775808, 18446744073709551615, -123456789.125, 99999, 1.5, -2.25e100, 'ab', REPEAT('v', 300), 'x',"
    " 'tiny', 'text', 'medium', 'long', 'b', 'vb', 'tb', 'blob', 'mblob', 'lblob', '2024-02-29', '2024-02-29 23:59:59',"
    " '1999-12-31 23:59:59.999999', '2038-01-19 03:14:07', '2001-01-01 00:00:00.123')",
    "INSERT INTO all_types (id) VALUES (2)",
    "UPDATE all_types SET vc = REPEAT('w', 299), d = 0 WHERE id = 1",
    "DELETE FROM all_types WHERE id = 2",
)


class MariaDBBinlogs:
    """One private MariaDB 10.11 with --log-bin (the oracle mode's server), making a binlog
    file per call: `binlog(statements, **settings)` sets the global variables, starts a
    new binlog file, runs the statements in database `test` on a new connection, closes
    the file and returns a copy. Each file holds that call's events only; equal calls
    share one file."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.server = MariaDBServer("binlogs", 1, ("--log-bin=bin", "--default-time-zone=+00:00", "--binlog-format=MIXED"))
        self.server.start()
        self._defaults = self._globals(("log_bin_compress", "log_bin_compress_min_len", "binlog_checksum", "binlog_row_metadata", "binlog_format"))
        self._made: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], Path] = {}

    def _globals(self, names: tuple[str, ...]) -> dict[str, str]:
        with self.server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SELECT " + ", ".join(f"@@GLOBAL.{name}" for name in names))
            return {name: str(value) for name, value in zip(names, cursor.fetchone(), strict=True)}

    def binlog(self, statements: tuple[str, ...] | list[str], **settings: str) -> Path:
        key = (tuple(statements), tuple(sorted(settings.items())))
        if key not in self._made:
            self._made[key] = self._make(tuple(statements), self._defaults | settings, len(self._made))
        return self._made[key]

    def _make(self, statements: tuple[str, ...], settings: dict[str, str], number: int) -> Path:
        with self.server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SET sql_log_bin = 0")
            cursor.execute("DROP DATABASE IF EXISTS test")
            cursor.execute("CREATE DATABASE test")
            for name, value in settings.items():
                cursor.execute(f"SET GLOBAL {name} = {value if value.isdigit() else repr(value)}")
            cursor.execute("FLUSH BINARY LOGS")
            cursor.execute("SHOW MASTER STATUS")
            name = str(cursor.fetchone()[0])
            with self.server.connect("test") as session, session.cursor() as run:
                for sql in statements:
                    run.execute(sql)
            cursor.execute("FLUSH BINARY LOGS")
        copy = self.directory / f"{number:03d}-{name}"
        copy.write_bytes((self.server.datadir / name).read_bytes())
        return copy

    def stop(self) -> None:
        self.server.stop()


def logged_statements(binlog: Path, start: int = 0) -> list[str]:
    """The binlog's events from byte `start` on, as both flavors' statements read: Query
    events by their text, others by type name; MariaDB's GTID event shown as the BEGIN it
    stands for (nothing for a standalone DDL's), the framing events left out."""
    shown: list[str] = []
    for positioned in read_binlog(binlog):
        event = positioned.event
        if positioned.position < start or isinstance(event, FRAMING_EVENTS):
            continue
        if isinstance(event, Gtid_log_event):
            if not event.standalone:
                shown.append("BEGIN")
            continue
        shown.append(event.query if isinstance(event, Query_log_event) else type_name_of(event))
    return shown


# -- a slave kept in a DuckDB file (`rplharness replay --db`) ------------------------------


def slave_tables(database: Path) -> dict[str, list[tuple]]:
    """Every table of the slave's `test` schema, rows sorted, read straight from DuckDB."""
    with duckdb.connect(str(database), read_only=True) as connection:
        names = [row[0] for row in connection.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'test' ORDER BY 1").fetchall()]
        return {name: sorted(connection.execute(f'SELECT * EXCLUDE ("{ROW_ID}") FROM test."{name}"').fetchall(), key=repr) for name in names}


def applied_position(database: Path) -> tuple[str, int] | None:
    """The recorded position; None for a database killed before it recorded one."""
    with duckdb.connect(str(database), read_only=True) as connection:
        try:
            return connection.execute("SELECT Master_log_name, Master_log_pos FROM mysql.slave_relay_log_info").fetchone()
        except duckdb.CatalogException:
            return None


def harness_servers(parent: int | None = None) -> set[int]:
    """PIDs of every live mariadbd that `parent` (this test process by default) started;
    their datadirs are under rplh-* temp dirs. Servers other processes on the machine run
    are not this test's concern."""
    parent = os.getpid() if parent is None else parent
    return {pid for pid, status in _servers().items() if status.get("PPid", "").strip() == str(parent)}


def alive(pids: set[int]) -> set[int]:
    """Those of `pids` that are still a live harness server, whoever their parent is now."""
    return pids & set(_servers())


def _servers() -> dict[int, dict[str, str]]:
    """Every live harness mariadbd on the machine, with its /proc status fields."""
    servers = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            status = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if command[0].endswith((b"mariadbd", b"mysqld")) and any(b"rplh-" in part for part in command) and "zombie" not in status.get("State", ""):
            servers[int(entry.name)] = status
    return servers


def server_directory(pid: int) -> Path:
    """The directory a live harness mariadbd runs in: the parent of its --datadir."""
    for part in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
        if part.startswith(b"--datadir="):
            return Path(part.removeprefix(b"--datadir=").decode()).parent
    raise AssertionError(f"mariadbd {pid} has no --datadir")
