"""Import proven on real logs: a real MariaDB 10.11 master (the oracle mode's servers) with
the general log and the slow log at long_query_time=0 runs workloads of concurrent
sessions over real connections; the imported scenario, run by the simulator, ends with
the tables the real replica ended with, and the bundled sysbench- and TPC-C-style
workloads import back to their own statements, session by session."""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest
from pymysql.constants import COMMAND

from harness.importers.build import build_scenarios
from harness.importers.classify import Kind, kind_of
from harness.importers.general_log import import_general_log
from harness.importers.slow_log import import_slow_log
from harness.oracle.client import OracleClient
from harness.oracle.mariadb import ServerError, find_program
from harness.oracle.replication import DATABASE, ReplicationPair
from harness.oracle.client import snapshot as server_snapshot
from harness.runner import SETUP_SESSION, run_variant
from harness.snapshot import ServerSnapshot
from scenarios.loader import load_paths
from scenarios.model import Scenario
from server_sim.flavor import MARIADB_1011
from tests.support import ROOT

try:
    find_program("mariadbd", "mysqld")
    HAVE_MARIADB = True
except ServerError:
    HAVE_MARIADB = False

pytestmark = pytest.mark.skipif(not HAVE_MARIADB, reason="MariaDB is not installed (.ci/install-mariadb installs it)")
IMPORTERS = {"general": import_general_log, "slow": import_slow_log}
WORKLOADS = load_paths([ROOT / "scenarios" / "workloads"]).scenarios


class CapturingPair(ReplicationPair):
    """A master and replica whose master logs every statement of each run, to new files."""

    def __init__(self, directory: Path) -> None:
        super().__init__(MARIADB_1011)
        self.directory = directory
        self.logs: dict[str, Path] = {}
        self.resets = 0

    def reset(self, master_settings=None, replica_settings=None) -> None:
        self._execute(self.master, "SET GLOBAL general_log = OFF", "SET GLOBAL slow_query_log = OFF")
        super().reset(master_settings, replica_settings)
        self.wait_for_replica()  # the replica's connection is made before the logs start
        # New files in the master's own directory: the server runs as nobody and writes nowhere else.
        self.resets += 1
        self.logs = {kind: self.master.root / f"{kind}-{self.resets}.log" for kind in ("general", "slow")}
        self._execute(
            self.master,
            "SET GLOBAL log_output = 'FILE'",
            f"SET GLOBAL general_log_file = '{self.logs['general']}'",
            f"SET GLOBAL slow_query_log_file = '{self.logs['slow']}'",
            "SET GLOBAL long_query_time = 0",
            # One statement: the general log is written before it runs, the slow log only
            # for sessions that started with long_query_time=0; so neither log holds it.
            "SET GLOBAL general_log = ON, slow_query_log = ON",
        )

    def finish_capture(self) -> dict[str, Path]:
        """The run's logs, copied before the next reset's own statements reach them."""
        copies = {kind: self.directory / path.with_suffix(".captured").name for kind, path in self.logs.items()}
        for kind, path in self.logs.items():
            copies[kind].write_bytes(path.read_bytes())
        return copies


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CapturingPair]:
    with CapturingPair(tmp_path_factory.mktemp("captures")) as started:
        yield started


def binary_protocol_execute(connection: pymysql.connections.Connection, sql: str, parameters: tuple[int | str, ...]) -> None:
    """COM_STMT_PREPARE, COM_STMT_EXECUTE with the parameters bound, COM_STMT_CLOSE: a
    prepared statement as connectors run it (PyMySQL itself only sends text queries)."""
    connection._execute_command(COMMAND.COM_STMT_PREPARE, sql)
    statement_id, columns, count = struct.unpack("<xIHH", connection._read_packet().get_all_data()[:9])
    for _ in range(count + (1 if count else 0) + columns + (1 if columns else 0)):
        connection._read_packet()  # parameter and column definitions, each list ended by EOF
    types, values = b"", b""
    for value in parameters:
        if isinstance(value, int):
            types, values = types + b"\x08\x00", values + struct.pack("<q", value)  # MYSQL_TYPE_LONGLONG
        else:
            data = value.encode()
            types, values = types + b"\xfd\x00", values + bytes([len(data)]) + data  # MYSQL_TYPE_VAR_STRING
    payload = struct.pack("<IBI", statement_id, 0, 1) + bytes((count + 7) // 8) + b"\x01" + types + values
    connection._execute_command(COMMAND.COM_STMT_EXECUTE, payload)
    assert connection._read_packet().is_ok_packet()
    connection._execute_command(COMMAND.COM_STMT_CLOSE, struct.pack("<I", statement_id))


def run(connection: pymysql.connections.Connection, *statements: str) -> None:
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
            if cursor.description:
                cursor.fetchall()


def waiting_for_lock(pair: CapturingPair) -> bool:
    with pair.master.connect() as connection, connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'")
        return bool(cursor.fetchone()[0])


def mixed_workload(pair: CapturingPair) -> None:
    """Three sessions: a transaction over InnoDB that also writes MyISAM while another
    session waits for its row lock, UUID() (unsafe: logged as rows under MIXED), reads,
    SQL-level PREPARE/EXECUTE and binary-protocol prepared statements."""
    setup = pair.master.connect(DATABASE)
    run(
        setup,
        "CREATE TABLE orders (id INT PRIMARY KEY, note VARCHAR(40), amount INT) ENGINE=InnoDB",
        "CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, token VARCHAR(36), what VARCHAR(20)) ENGINE=MyISAM",
    )
    setup.close()
    a, b, c = (pair.master.connect(DATABASE) for _ in range(3))
    run(a, "INSERT INTO orders VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)", "BEGIN", "UPDATE orders SET amount = amount + 1 WHERE id = 1")
    waiter = threading.Thread(target=run, args=(b, "UPDATE orders SET note = 'waited', amount = amount * 2 WHERE id = 1"))
    waiter.start()
    deadline = time.monotonic() + 10
    while not waiting_for_lock(pair) and time.monotonic() < deadline:
        time.sleep(0.02)
    run(c, "INSERT INTO audit (token, what) VALUES (UUID(), 'uuid')", "SELECT * FROM orders", "SHOW TABLES")
    run(a, "INSERT INTO audit (token, what) VALUES ('fixed', 'in-trx')", "COMMIT")
    waiter.join()
    run(c, "PREPARE s FROM 'INSERT INTO orders VALUES (?, ?, ?)'", "SET @i = 4, @n = 'sql-ps', @m = 40", "EXECUTE s USING @i, @n, @m", "DEALLOCATE PREPARE s")
    binary_protocol_execute(b, "UPDATE orders SET amount = ? WHERE id = ?", (99, 2))
    binary_protocol_execute(b, "INSERT INTO orders VALUES (?, ?, ?)", (5, "bin-ps", 50))
    run(a, "DELETE FROM orders WHERE id = 3")
    for connection in (a, b, c):
        connection.close()


@pytest.fixture(scope="module")
def mixed_capture(pair: CapturingPair) -> tuple[dict[str, Path], ServerSnapshot, ServerSnapshot]:
    pair.reset()
    mixed_workload(pair)
    assert pair.wait_for_replica().error_code is None
    master, replica = server_snapshot(pair.master), server_snapshot(pair.replica)
    return pair.finish_capture(), master, replica


def rows(snapshot: ServerSnapshot, table: str) -> list[tuple[str, ...]]:
    """A table's rows as text, sorted, with the UUID column's value replaced by whether it
    is one: a generated value is compared for its presence, the servers' own are compared
    between master and replica below."""
    result = []
    for row in snapshot.tables[table].rows:
        values = tuple("None" if value is None else str(value) for value in row)
        result.append(tuple("<uuid>" if len(value) == 36 and value.count("-") == 4 else value for value in values))
    return sorted(result)


@pytest.mark.parametrize("kind", ["general", "slow"])
def test_the_imported_capture_reproduces_the_real_replica(tmp_path: Path, mixed_capture, kind: str) -> None:
    logs, real_master, real_replica = mixed_capture
    capture = IMPORTERS[kind](logs[kind])
    [imported] = build_scenarios(capture, tmp_path, f"mixed-{kind}")
    scenario = imported.scenario
    assert not capture.skipped, capture.skipped
    sqls = [step.sql for step in scenario.steps]
    assert "UPDATE orders SET amount = 99 WHERE id = 2" in sqls and "INSERT INTO orders VALUES (5, 'bin-ps', 50)" in sqls
    assert "INSERT INTO orders VALUES (4, 'sql-ps', 40)" in sqls and not any(sql.upper().startswith(("EXECUTE", "PREPARE")) for sql in sqls)
    assert capture.dropped["read-only"] >= 2
    record = run_variant(scenario, {"binlog_format": "MIXED"}, MARIADB_1011, tmp_path)
    assert record.error is None and record.slave.error is None
    assert all(step.error is None for step in record.steps), [step.error for step in record.steps if step.error]
    for table in ("orders", "audit"):
        assert rows(record.slave_snapshot, table) == rows(real_replica, table) == rows(real_master, table)
    real_tokens = [row for row in real_master.tables["audit"].rows]
    assert real_tokens == list(real_replica.tables["audit"].rows)  # the UUID replicated as a row
    assert list(record.master_snapshot.tables["audit"].rows) == list(record.slave_snapshot.tables["audit"].rows)


def per_session(sessions: list[tuple[str, str]]) -> list[list[str]]:
    """Each session's statements in order, sessions in order of their first statement."""
    grouped: dict[str, list[str]] = {}
    for session, sql in sessions:
        grouped.setdefault(session, []).append(" ".join(sql.split()))
    return list(grouped.values())


@pytest.mark.parametrize("kind", ["general", "slow"])
@pytest.mark.parametrize("workload", WORKLOADS, ids=[workload.name for workload in WORKLOADS])
def test_a_captured_workload_imports_as_its_own_statements(tmp_path: Path, pair: CapturingPair, workload: Scenario, kind: str) -> None:
    """The workload run by the oracle client (one real connection per session, lock waits
    included) and imported from the log: the same statements, session by session, reads
    left out. The import is checked, not whether the simulator accepts every statement."""
    run = OracleClient(pair).run_variant(workload, workload.variants()[0])
    assert run.record.error is None, run.record.error
    log = pair.finish_capture()[kind]
    capture = IMPORTERS[kind](log)
    [imported] = build_scenarios(capture, tmp_path, workload.name)
    original = [(SETUP_SESSION, sql) for sql in workload.master_schema] + [(step.session, step.sql) for step in workload.steps]
    want = per_session([(session, sql) for session, sql in original if kind_of(sql) is not Kind.READ])
    got = per_session([("schema", sql) for sql in imported.scenario.master_schema] + [(step.session, step.sql) for step in imported.scenario.steps])
    if len(got) > 1 and got[0] and want[0][: len(got[0])] == got[0]:
        got = [got[0] + got[1], *got[2:]]  # the schema's DDL and its rows came from one session
    assert got == want
    assert not capture.skipped, capture.skipped
