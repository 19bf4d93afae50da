"""`rplharness replay` SIGKILLed at random points, provisioning included, first on a binlog
cut inside a transaction, then on the whole file: the database ends equal to an
uninterrupted replay and to the master, on the simulator's binlog and on a real MariaDB's."""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.cli import main
from harness.runner import run_variant
from scenarios.model import Scenario, Step
from server_sim.binlog.events import Table_map_log_event, Xid_log_event
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import ROOT, MariaDBBinlogs, applied_position, slave_tables

PROVISIONED_ROWS = 300  # the slave's own table: provisioning takes a share of the run to kill in
WORKLOAD_ROWS = 70  # transactions and statements enough for kills to land inside both


def workload(rows: int) -> tuple[list[str], list[str]]:
    """A binlog of many transactions: InnoDB and MyISAM, autocommit and BEGIN ... COMMIT,
    statements and rows (MIXED with unsafe statements), auto-increment keys."""
    schema = [
        "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT, s VARCHAR(20)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
        "CREATE TABLE m (id INT NOT NULL PRIMARY KEY, total INT) ENGINE=MyISAM",
        "INSERT INTO m VALUES (1, 0), (2, 0)",
    ]
    generator = random.Random(7)
    steps: list[str] = []
    for index in range(rows):
        choice = index % 5
        if choice == 0:
            steps += ["BEGIN", f"INSERT INTO t (v, s) VALUES ({index}, 'row {index}'), ({index + 1}, 'next')", f"UPDATE m SET total = total + {index} WHERE id = 1", "COMMIT"]
        elif choice == 1:
            steps.append(f"UPDATE t SET v = v + 1 WHERE id % 3 = {generator.randrange(3)}")
        elif choice == 2:
            steps.append(f"UPDATE t SET s = 'limited {index}' ORDER BY id LIMIT 2")
        elif choice == 3:
            steps.append(f"DELETE FROM t WHERE id = {generator.randrange(1, index + 2)}")
        else:
            steps.append(f"UPDATE m SET total = total - 1 WHERE id = {1 + index % 2}")
    return schema, steps


@dataclass(frozen=True)
class Master:
    """A binlog to replay, its flavor, and the tables the master held after writing it."""

    binlog: Path
    flavor: str
    tables: dict[str, list[tuple]]


def simulated_master(tmp_path: Path) -> Master:
    schema, steps = workload(WORKLOAD_ROWS)
    scenario = Scenario("workload", None, settings={"binlog_format": "MIXED"}, master_schema=tuple(schema), steps=tuple(Step(i, "con1", sql) for i, sql in enumerate(steps, 1)))
    record = run_variant(scenario, scenario.variants()[0], MYSQL_80, tmp_path)
    assert record.error is None, record.error
    rows = {name: sorted(snapshot.rows, key=repr) for name, snapshot in record.master_snapshot.tables.items()}
    return Master(record.binlog, MYSQL_80.name, rows)


def mariadb_master(binlogs: MariaDBBinlogs) -> Master:
    schema, steps = workload(WORKLOAD_ROWS)
    binlog = binlogs.binlog([*schema, *steps], binlog_format="MIXED")
    rows: dict[str, list[tuple]] = {}
    with binlogs.server.connect("test") as connection, connection.cursor() as cursor:
        for table in ("m", "t"):
            cursor.execute(f"SELECT * FROM {table}")
            rows[table] = sorted(cursor.fetchall(), key=repr)
    return Master(binlog, MARIADB_1011.name, rows)


def cut_inside_a_transaction(binlog: Path, directory: Path) -> Path:
    """The binlog as it stood while being written, under the same name: it ends a few bytes
    into the Xid of a transaction in the middle that updated the MyISAM table too."""
    commits, touched = [], False
    for positioned in read_binlog(binlog):
        event = positioned.event
        touched = touched or (isinstance(event, Table_map_log_event) and event.table == "m") or "UPDATE m " in getattr(event, "query", "")
        if isinstance(event, Xid_log_event):
            commits += [positioned.position] if touched else []
            touched = False
    assert commits, "the workload's transactions update the MyISAM table"
    partial = directory / binlog.name
    directory.mkdir()
    partial.write_bytes(binlog.read_bytes()[: commits[len(commits) // 2] + 5])
    return partial


def assert_nothing_or_bound(database: Path, binlog: Path) -> str:
    """After a kill: a database with nothing provisioned, or one bound to the binlog."""
    recorded = applied_position(database) if database.exists() else None
    if recorded is not None and recorded[0] == binlog.name:
        assert "p" in slave_tables(database), "bound to the binlog but not provisioned"
        return "bound"
    assert recorded in (None, ("", 0)), recorded
    assert slave_tables(database) == {} if database.exists() else True, "provisioned but bound to no binlog"
    return "nothing"


def replay_with_kills(command: list[str], database: Path, binlog: Path, kill_at: list[float]) -> list[str]:
    """Run `command` until it succeeds, SIGKILLing the first runs once they have used
    `kill_at` CPU seconds (a machine's load stretches wall time, not this); what every kill
    left, checked, then the last run's output."""
    left: list[str] = []
    for _ in range(len(kill_at) + 30):
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if len(left) < len(kill_at) and killed_at_cpu_seconds(process, kill_at[len(left)]):
            left.append(assert_nothing_or_bound(database, binlog))
            continue
        output, errors = process.communicate()
        assert process.returncode == 0, errors.decode()
        return [*left, output.decode()]
    pytest.fail("the replay never finished between kills")


def killed_at_cpu_seconds(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """SIGKILL `process` once it has used `seconds` of CPU; False if it ended before."""
    ticks = os.sysconf("SC_CLK_TCK")
    while process.poll() is None:
        try:
            fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            break
        if (int(fields[11]) + int(fields[12])) / ticks >= seconds:  # utime + stime
            os.kill(process.pid, signal.SIGKILL)
            process.communicate()
            return True
        time.sleep(0.005)
    return False


def cpu_seconds(command: list[str]) -> float:
    """The CPU seconds a run of `command` uses."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def killed_while_provisioning(command: list[str], database: Path, binlog: Path, cpu: float) -> str:
    """Run `command` on a new database and SIGKILL it once it has used `cpu` more CPU
    seconds after its file appeared, inside provisioning or around its commit; what the
    kill left, checked. A run this machine made faster than the timing run may end before
    the kill point of a late step: then it must have ended well."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not database.exists() and process.poll() is None:
        time.sleep(0.002)
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    if not killed_at_cpu_seconds(process, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") + cpu):
        assert cpu > 0 and process.wait() == 0, "the replay ended before the kill, and not well"
    return assert_nothing_or_bound(database, binlog)


def kill_replays(master: Master, tmp_path: Path) -> None:
    schema = tmp_path / "slave.sql"
    schema.write_text("CREATE TABLE p (id INT PRIMARY KEY, s VARCHAR(30));\n" + "".join(f"INSERT INTO p VALUES ({i}, 'provisioned {i}');\n" for i in range(PROVISIONED_ROWS)))
    options = ["--flavor", master.flavor, "--slave-schema", str(schema)]
    reference = tmp_path / "reference.duckdb"
    assert main(["replay", str(master.binlog), "--db", str(reference), *options]) == 0
    # Kill times follow this machine's speed in CPU seconds: the process's start-up, then
    # what provisioning alone (starting at the binlog's end), or with a whole replay, takes.
    end = master.binlog.stat().st_size
    replay = [sys.executable, "-m", "harness.cli", "replay", str(master.binlog), *options, "--db"]
    # The least of three: one start on a busy machine (caches, page faults) may cost more
    # than the replays' own start, and kills timed past their end would miss.
    startup = min(cpu_seconds([sys.executable, "-c", "import harness.cli"]) for _ in range(3))
    provisioning = max(cpu_seconds([*replay, str(tmp_path / "provisioned.duckdb"), "--start-position", str(end)]) - startup, 0.05)
    work = max(cpu_seconds([*replay, str(tmp_path / "timing.duckdb")]) - startup, 0.1)
    partial = cut_inside_a_transaction(master.binlog, tmp_path / "partial")
    # Kills from the database's creation through provisioning to its commit, each on a new
    # database: the first leave nothing, later ones may leave a bound database; the last,
    # run again, ends equal to the reference.
    databases = [tmp_path / f"killed-{step}.duckdb" for step in range(4)]
    left = [killed_while_provisioning([*replay, str(database)], database, master.binlog, provisioning * step / 3) for step, database in enumerate(databases)]
    assert left[0] == "nothing", left
    assert subprocess.run([*replay, str(databases[-1])], cwd=ROOT, capture_output=True).returncode == 0
    assert slave_tables(databases[-1]) == slave_tables(reference)
    # From nothing: a binlog cut inside a transaction, then the whole one, killed at random
    # points of both. Kill points are CPU seconds measured beforehand, which a loaded
    # machine can skew past the replays' end: where no kill landed, the pair runs again on
    # a new database with kill points drawn earlier.
    generator = random.Random(2026)
    for attempt in range(3):
        database = tmp_path / f"random-{attempt}.duckdb"
        command = [sys.executable, "-m", "harness.cli", "replay", "--db", str(database), *options]

        def kill_points() -> list[float]:
            return [startup + generator.uniform(0.05, 0.35) * work / 2**attempt for _ in range(2)]

        first = replay_with_kills([*command, str(partial)], database, master.binlog, kill_points())
        assert "waits for the rest" in first[-1], first[-1]  # the partial binlog ends inside a transaction
        second = replay_with_kills([*command, str(master.binlog)], database, master.binlog, kill_points())
        if len(first) + len(second) > 2:
            break
    assert len(first) + len(second) > 2, (first, second)  # some runs were killed while applying
    assert applied_position(database) == applied_position(reference) == (master.binlog.name, end)
    expected = {**master.tables, "p": [(i, f"provisioned {i}") for i in range(PROVISIONED_ROWS)]}
    assert slave_tables(database) == slave_tables(reference) == {name: sorted(rows, key=repr) for name, rows in expected.items()}


def test_replay_killed_at_random_points_of_a_simulated_binlog_ends_equal_to_the_master(tmp_path) -> None:
    kill_replays(simulated_master(tmp_path), tmp_path)


def test_replay_killed_at_random_points_of_a_real_mariadb_binlog_ends_equal_to_the_master(tmp_path, mariadb_binlogs) -> None:
    kill_replays(mariadb_master(mariadb_binlogs), tmp_path)
