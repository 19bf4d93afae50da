"""A real MariaDB 10.11 fed `mariadb-binlog FILE | mariadb` with the simulator's ROW-format
binlogs (mariadb-10.11 flavor) ends with the simulated master's tables: every event the
simulated master writes is one a real server applies, to the same rows.

Every scenario of the bundled suite with a ROW run takes part, except those whose schema
needs what the real server lacks: a storage engine it does not have (NDB, EXAMPLE,
NO_LOGGING: the scenarios about them expect the master to refuse or to log them its way)
or a UDF library (`udf_example.so` is not installed). The real server runs with the
flavor's character set, latin1, as the simulated master does: a Table_map's VARCHAR length
is in bytes, so the two must declare the same charsets (a latin1 VARCHAR(10) is 10 bytes,
a utf8mb4 one 40, and a server given the other stops with 1677).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.compare import diff_snapshots
from harness.oracle.client import snapshot
from harness.oracle.mariadb import MariaDBServer, ServerError, find_program
from harness.runner import run_variant
from scenarios.loader import load_paths
from scenarios.model import Scenario
from server_sim.flavor import MARIADB_1011
from tests.support import ROOT

def _installed() -> bool:
    try:
        find_program("mariadbd", "mysqld")
    except ServerError:
        return False
    return shutil.which("mariadb-binlog") is not None and shutil.which("mariadb") is not None


pytestmark = pytest.mark.skipif(not _installed(), reason="MariaDB 10.11 (server and client) is not installed (.ci/install-mariadb installs it)")
_ENGINE = re.compile(r"\bENGINE\s*=\s*`?(\w+)", re.IGNORECASE)


def _row_scenarios() -> list[Scenario]:
    return [scenario for scenario in load_paths([ROOT / "scenarios" / "suites"]).scenarios if any(v.get("binlog_format") == "ROW" for v in scenario.variants())]


@pytest.fixture(scope="module")
def real_server() -> Iterator[MariaDBServer]:
    server = MariaDBServer("binlog-pipe", 4, ("--default-time-zone=+00:00", f"--character-set-server={MARIADB_1011.character_set_server}", f"--collation-server={MARIADB_1011.collation_server}"))
    server.start()
    yield server
    server.stop()


def _runnable(scenario: Scenario, engines: set[str]) -> bool:
    schema = " ".join((*scenario.master_schema, *(step.sql for step in scenario.steps)))
    return "SONAME" not in schema.upper() and {name.upper() for name in _ENGINE.findall(schema)} <= engines


def test_a_real_server_fed_the_simulators_row_binlogs_ends_with_the_masters_tables(real_server: MariaDBServer, tmp_path: Path) -> None:
    with real_server.connect() as connection, connection.cursor() as cursor:
        cursor.execute("SELECT UPPER(ENGINE) FROM information_schema.ENGINES WHERE SUPPORT IN ('YES', 'DEFAULT')")
        engines = {str(name) for (name,) in cursor.fetchall()}
    scenarios = _row_scenarios()
    runnable = [scenario for scenario in scenarios if _runnable(scenario, engines)]
    assert len(runnable) >= 40 and len(scenarios) - len(runnable) <= 10
    for scenario in runnable:
        variant = next(v for v in scenario.variants() if v.get("binlog_format") == "ROW")
        record = run_variant(scenario, variant, MARIADB_1011, tmp_path)
        assert record.error is None and record.binlog is not None and record.master_snapshot is not None, scenario.name
        with real_server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("DROP DATABASE IF EXISTS test")
            cursor.execute("CREATE DATABASE test")
        text = subprocess.run([find_program("mariadb-binlog"), str(record.binlog)], capture_output=True, check=True, timeout=60).stdout
        admin = real_server.admin  # BINLOG statements need the BINLOG REPLAY privilege
        assert admin is not None
        client = [find_program("mariadb"), f"--socket={real_server.socket_path}", f"--user={admin.user}"]
        fed = subprocess.run(client, input=text, capture_output=True, check=False, timeout=120, env={**os.environ, "MYSQL_PWD": admin.password})
        assert fed.returncode == 0, (scenario.name, fed.stderr.decode())
        diff = diff_snapshots(record.master_snapshot, snapshot(real_server))
        assert diff.consistent, (scenario.name, diff.tables)
