"""The oracle's sandbox on real MariaDB servers: scenario SQL reads, writes, loads and
reaches nothing beyond its own tables, a server that dies is restarted, and no server
directory outlives the harness."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pymysql
import pytest

from harness.oracle.mariadb import MariaDBServer, ServerError, find_program
from harness.oracle.replication import DATABASE, ReplicationPair
from harness.oracle.workdir import OWNER_FILE, make_workdir, remove_stale
from server_sim.flavor import MARIADB_1011
from tests.support import ROOT, harness_servers, read_report, scenario_file, server_directory

try:
    find_program("mariadbd", "mysqld")
    HAVE_MARIADB = True
except ServerError:
    HAVE_MARIADB = False

pytestmark = pytest.mark.skipif(not HAVE_MARIADB, reason="MariaDB is not installed (.ci/install-mariadb installs it)")


@pytest.fixture(scope="module")
def pair():
    with ReplicationPair(MARIADB_1011) as started:
        yield started


def _uid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def test_servers_start_with_files_plugins_and_network_closed(pair: ReplicationPair) -> None:
    for server in (pair.master, pair.replica):
        with server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SELECT @@secure_file_priv, @@local_infile, @@plugin_dir, @@bind_address, @@skip_networking")
            files, local_infile, plugin_dir, bind_address, skip_networking = cursor.fetchone()
        assert Path(files).parent == server.root and list(Path(files).iterdir()) == []
        assert (local_infile, bind_address, skip_networking) == (0, "127.0.0.1", 0)
        assert Path(plugin_dir).parent == server.root
        assert sorted(path.name for path in Path(plugin_dir).iterdir()) == ["ha_archive.so", "ha_blackhole.so"]
        if os.geteuid() == 0:
            assert _uid(server.pid) != 0, "mariadbd runs as root"


@pytest.mark.parametrize(
    "sql, code",
    [
        ("SET SESSION binlog_format = 'ROW'", None),
        ("SET SESSION binlog_row_image = 'MINIMAL'", None),
        ("SET sql_log_bin = 0", None),
        ("CREATE TRIGGER probe_bi BEFORE INSERT ON probe FOR EACH ROW SET NEW.a = NEW.a + 1", None),
        ("CREATE DEFINER=`root`@`localhost` TRIGGER probe_bu BEFORE UPDATE ON probe FOR EACH ROW SET NEW.a = 1", None),
        ("CREATE TEMPORARY TABLE probe_tmp (a INT)", None),
        ("CREATE DATABASE probe_other", None),
        ("SELECT COUNT(*) FROM mysql.general_log", None),
        ("INSERT INTO mysql.general_log (argument) VALUES ('x')", 1556),
        ("TRUNCATE mysql.general_log", None),
        ("SHUTDOWN", 1227),
        ("INSTALL SONAME 'ha_federatedx'", 1142),
        ("INSTALL PLUGIN federated SONAME 'ha_federated'", 1142),
        ("CREATE FUNCTION probe_udf RETURNS INTEGER SONAME 'udf_example.so'", 1044),
        ("INSERT INTO mysql.plugin VALUES ('x', 'x.so')", 1142),
        ("SELECT * FROM mysql.user", 1142),
        ("CREATE TABLE mysql.probe (a INT)", 1142),
        ("CREATE USER probe@localhost", 1227),
        ("GRANT ALL PRIVILEGES ON *.* TO root@localhost", 1045),
        ("CREATE DEFINER=`rplh_admin`@`localhost` TRIGGER probe_bd BEFORE DELETE ON probe FOR EACH ROW SET @a = 1", 1227),
        ("SELECT 1 INTO OUTFILE 'probe.txt'", 1227),
        ("SET GLOBAL general_log_file = 'probe.log'", 1227),
        ("SET GLOBAL read_only = ON", 1227),
        ("SHOW PROCESSLIST", None),
        ("FLUSH LOGS", 1227),
        ("CHANGE MASTER TO MASTER_HOST = '127.0.0.1'", 1227),
        ("CREATE SERVER probe FOREIGN DATA WRAPPER mysql OPTIONS (HOST '127.0.0.1')", 1227),
        ("BINLOG 'AAAA'", 1227),
        ("SET SESSION pseudo_thread_id = 5", 1227),
    ],
)
def test_the_scenario_account_may_do_what_scenarios_do_and_nothing_more(pair: ReplicationPair, sql: str, code: int | None) -> None:
    pair.reset()
    with pair.master.connect_scenario(DATABASE) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE probe (a INT)")
        try:
            cursor.execute(sql)
            got = None
        except pymysql.err.MySQLError as error:
            got = error.args[0]
    assert got == code


def test_scenario_sessions_are_root_at_localhost_and_cannot_touch_the_harness_session(pair: ReplicationPair) -> None:
    with pair.master.connect() as admin, admin.cursor() as cursor:
        cursor.execute("SELECT CONNECTION_ID(), CURRENT_USER()")
        admin_id, admin_user = cursor.fetchone()
        with pair.master.connect_scenario(DATABASE) as connection, connection.cursor() as scenario:
            scenario.execute("SELECT CURRENT_USER()")
            assert scenario.fetchone() == ("root@localhost",)
            with pytest.raises(pymysql.err.MySQLError) as refused:
                scenario.execute(f"KILL {admin_id}")
            assert refused.value.args[0] == 1095  # ER_KILL_DENIED_ERROR: not the owner of the thread
        cursor.execute("SELECT 1")
    assert admin_user != "root@localhost"


# -- through the command line -----------------------------------------------------------------


class Listener:
    """A TCP listener on a loopback port that counts the connections it accepts."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.socket.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            connection.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.socket.close()


ATTACKS = {
    "read-canary": [
        "INSERT INTO t (v) SELECT LOAD_FILE('{canary}')",
        "LOAD DATA INFILE '{canary}' INTO TABLE t (v)",
        "/*! LOAD DATA INFILE '{canary}' INTO TABLE t (v) */",
        "INSERT INTO t (v) VALUES (/*!50000 LOAD_FILE('{canary}') */)",
        "LOAD DATA LOCAL INFILE '{canary}' INTO TABLE t (v)",
    ],
    "write-sentinel": [
        "SELECT 'leak' INTO OUTFILE '{sentinel}/outfile'",
        "SELECT 'leak' INTO DUMPFILE '{sentinel}/dumpfile'",
        "/*! SELECT 'leak' INTO OUTFILE '{sentinel}/comment' */",
        "SET GLOBAL general_log_file = '{sentinel}/general.log'",
        "SET GLOBAL general_log = ON",
        "SET GLOBAL slow_query_log_file = '{sentinel}/slow.log'",
    ],
    "load-plugin-and-connect": [
        "INSTALL SONAME 'ha_federatedx'",
        "INSTALL PLUGIN federated SONAME 'ha_federated'",
        "CREATE TABLE f (id INT) ENGINE=FEDERATED CONNECTION='mysql://probe@127.0.0.1:{port}/test/t'",
        "SELECT * FROM f",
        "CREATE SERVER loop FOREIGN DATA WRAPPER mysql OPTIONS (HOST '127.0.0.1', PORT {port}, USER 'probe', DATABASE 'test')",
        "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {port}",
    ],
    "shutdown": ["SHUTDOWN"],
}
AFTER = """\
name: zz-after
master_schema:
  - CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1)"}
expect:
  - verdict: consistent
"""


def _attack_suite(directory: Path, canary: Path, sentinel: Path, port: int) -> None:
    for name, statements in ATTACKS.items():
        # A JSON string is a YAML double-quoted scalar.
        steps = "".join(f"  - {{session: con1, sql: {json.dumps(sql.format(canary=canary, sentinel=sentinel, port=port))}}}\n" for sql in statements)
        # One format each: STATEMENT, under which the replica runs each statement again too.
        text = f"name: {name}\nsettings: {{binlog_format: STATEMENT}}\nmaster_schema:\n  - CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v TEXT) ENGINE=InnoDB\nsteps:\n{steps}"
        scenario_file(directory, text, f"{name}.yaml")
    scenario_file(directory, AFTER, "zz-after.yaml")


def _files_holding(directory: Path, secret: bytes) -> list[Path]:
    return [path for path in directory.rglob("*") if path.is_file() and secret in path.read_bytes()]


def test_scenario_sql_reads_writes_loads_and_reaches_nothing_and_the_suite_goes_on(tmp_path: Path) -> None:
    secret = secrets.token_hex(16).encode()
    canary = tmp_path / "canary.txt"
    canary.write_bytes(secret + b"\n")
    canary.chmod(0o644)
    sentinel = tmp_path / "sentinel"
    sentinel.mkdir()
    sentinel.chmod(0o777)
    listener = Listener()
    try:
        _attack_suite(tmp_path / "suite", canary, sentinel, listener.port)
        out = tmp_path / "out"
        result = subprocess.run(
            [sys.executable, "-m", "harness.cli", "run", "--oracle", "mariadb", str(tmp_path / "suite"), "--out", str(out), "--compare", "python"],
            cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        )
    finally:
        listener.close()
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr
    assert result.returncode in (0, 1), result.stderr
    assert listener.accepted == 0
    assert list(sentinel.iterdir()) == []
    assert _files_holding(out, secret) == []
    runs = read_report(out)["runs"]
    assert {run["scenario"] for run in runs} == {*ATTACKS, "zz-after"}
    after = [run for run in runs if run["scenario"] == "zz-after"]
    assert after and all(run["verdict"] == "consistent" for run in after)
    assert "zz-after" in result.stdout


DYING = """\
name: dies
matrix:
  binlog_format: [ROW]
master_schema:
  - CREATE TABLE marker_dies (id INT PRIMARY KEY) ENGINE=InnoDB
steps:
  - {session: con1, sql: "SELECT SLEEP(60)"}
"""
BEFORE = AFTER.replace("zz-after", "aa-before")


def test_a_server_that_dies_mid_suite_is_restarted_and_its_scenario_reported(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    scenario_file(suite, BEFORE, "aa-before.yaml")
    scenario_file(suite, DYING, "dies.yaml")
    scenario_file(suite, AFTER, "zz-after.yaml")
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", "--oracle", "mariadb", str(suite), "--out", str(out), "--compare", "python"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    killed = _kill_the_master_once(process.pid, "marker_dies.frm")
    stdout, stderr = process.communicate(timeout=600)
    assert killed, "the dying scenario never started on the master"
    assert "Traceback" not in stderr, stderr
    assert "the master died during this run" in stdout
    runs = {run["scenario"]: run for run in read_report(out)["runs"]}
    assert runs["aa-before"]["verdict"] == runs["zz-after"]["verdict"] == "consistent"
    assert harness_servers(process.pid) == set()


def _kill_the_master_once(parent: int, marker: str) -> bool:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        for pid in harness_servers(parent):
            directory = server_directory(pid)
            if directory.name.startswith("rplh-master-") and (directory / "data" / DATABASE / marker).exists():
                os.kill(pid, signal.SIGKILL)
                return True
        time.sleep(0.05)
    return False


SLOW = """\
name: slow
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB
steps:
  - {session: con1, sql: "SELECT SLEEP(60)"}
"""


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_or_terminated_run_removes_its_server_directories(stop_signal: int, tmp_path: Path) -> None:
    process, directories = _started_run(tmp_path)
    process.send_signal(stop_signal)
    process.wait(timeout=90)
    assert [directory for directory in directories if directory.exists()] == []


def test_directories_a_killed_harness_left_are_removed_by_the_next_start(tmp_path: Path, pair: ReplicationPair) -> None:
    process, directories = _started_run(tmp_path)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert all(directory.exists() for directory in directories)
    unmarked = make_workdir("unmarked")
    (unmarked / OWNER_FILE).unlink()
    try:
        server = MariaDBServer("next", 11)
        server.start()
        server.stop()
        assert [directory for directory in directories if directory.exists()] == []
        assert unmarked.exists() and pair.master.root is not None and pair.master.root.exists()
    finally:
        unmarked.rmdir()


def _started_run(tmp_path: Path) -> tuple[subprocess.Popen[bytes], list[Path]]:
    path = scenario_file(tmp_path, SLOW)
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", "--oracle", "mariadb", str(path), "--out", str(tmp_path / "out"), "--compare", "python"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    started: set[int] = set()
    while time.monotonic() < deadline and len(started) < 2 and process.poll() is None:
        started = harness_servers(process.pid)
        time.sleep(0.2)
    assert len(started) == 2, "the run did not start its master and replica"
    directories = [server_directory(pid) for pid in started]
    time.sleep(1.0)
    return process, directories


@pytest.mark.parametrize("owner", ["dead", "reused-pid", "garbage"])
def test_remove_stale_removes_marked_directories_whose_owner_is_gone(tmp_path: Path, owner: str) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    marks = {"dead": f"{dead.pid} 12345\n", "reused-pid": f"{os.getpid()} 1\n", "garbage": "not a mark\n"}
    live = make_workdir("live", tmp_path)
    stale = tmp_path / "rplh-master-stale"
    stale.mkdir()
    (stale / OWNER_FILE).write_text(marks[owner])
    unmarked = tmp_path / "rplh-other-unmarked"
    unmarked.mkdir()
    assert remove_stale(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and unmarked.exists()


def test_globals_the_scenario_account_may_set_do_not_leak_into_the_next_run(pair: ReplicationPair) -> None:
    pair.reset()
    read = "SELECT @@GLOBAL.max_binlog_size, @@GLOBAL.binlog_cache_size, @@GLOBAL.log_bin_compress, @@GLOBAL.binlog_row_metadata"
    with pair.master.connect_scenario(DATABASE) as connection, connection.cursor() as cursor:
        cursor.execute(read)
        before = cursor.fetchone()
        for sql in ("SET GLOBAL max_binlog_size = 8192", "SET GLOBAL binlog_cache_size = 8192", "SET GLOBAL log_bin_compress = ON", "SET GLOBAL binlog_row_metadata = FULL"):
            cursor.execute(sql)
        cursor.execute(read)
        assert cursor.fetchone() != before
    pair.reset()
    with pair.master.connect() as connection, connection.cursor() as cursor:
        cursor.execute(read)
        assert cursor.fetchone() == before
