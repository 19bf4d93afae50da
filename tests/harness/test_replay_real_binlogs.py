"""Real files in: the slave replaying the binlog a real MariaDB 10.11 master wrote for an
oracle run (the one the oracle keeps), with the scenario's slave schema run where the real
replica ran it (after the master schema's events), ends with the real replica's tables, or
stops with the real replica's error.

Representative runs of `scenarios/oracle`, every variant of each: all of them (310 runs,
2.5 s or more each on two servers) take 11 to 40 minutes here, too long for every change;
`RPLHARNESS_REPLAY_ALL=1` runs every scenario of the suite instead (docs/fidelity.md gives
the last figure). These cover a replica that stops (1062, 1032, 1677), statement context
events (Intvar, Rand), BLACKHOLE transactions (GTID events with flags_extra), savepoints,
text columns of every modelled charset (the real master's latin1 CHAR(10) is 10 bytes, as
the simulated slave's column is) and, on a master with log_bin_compress=ON and
binlog_checksum=NONE, compressed Query and Rows events in checksum-free files,
multi-table updates among them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.compare import diff_snapshots
from harness.observation import observe_tables
from harness.oracle.client import OracleClient
from harness.oracle.mariadb import ServerError, find_program
from harness.oracle.replication import ReplicationPair
from harness.runner import engine_registry, snapshot
from scenarios.loader import load_scenario
from server_sim.flavor import MARIADB_1011
from server_sim.sysvars import VariableRegistry
from slave_sim.slave import Slave
from tests.support import ROOT


def _installed() -> bool:
    try:
        find_program("mariadbd", "mysqld")
    except ServerError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _installed(), reason="MariaDB 10.11 is not installed (.ci/install-mariadb installs it)")

PLAIN: tuple[str, ...] = ()
COMPRESSED_NO_CHECKSUM = ("--log-bin-compress=ON", "--log-bin-compress-min-len=10", "--binlog-checksum=NONE")
RUNS = [
    ("slave-duplicate-row-insert", PLAIN),  # the replica stops with 1062
    ("slave-missing-row-update", PLAIN),  # 1032
    ("autoinc-interval-from-intvar", PLAIN),  # Intvar events
    ("rand-insert-values", PLAIN),  # Rand events
    ("blackhole-master-myisam-slave", PLAIN),  # GTID events with flags_extra
    ("rollback-to-savepoint-after-nontrans-change", PLAIN),
    ("slave-duplicate-row-insert", COMPRESSED_NO_CHECKSUM),
    ("multi-table-update", COMPRESSED_NO_CHECKSUM),
    ("column-charsets", PLAIN),  # latin1, utf8mb3, utf8mb4 and ascii columns
    ("column-charsets-slave-differs", PLAIN),  # a utf8mb4 replica column for a latin1 one: 1677
    ("row-image-slave-pk-differs", PLAIN),  # VARCHAR columns under MINIMAL images
    ("stored-functions", PLAIN),  # MariaDB logs CREATE FUNCTION without DETERMINISTIC; the applier is trusted
]
if os.environ.get("RPLHARNESS_REPLAY_ALL"):
    RUNS = [(path.stem, PLAIN) for path in sorted((ROOT / "scenarios" / "oracle").glob("*.yaml"))]


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, ...], OracleClient]]:
    """One oracle pair per master option set, started when a run first needs it."""
    with contextlib.ExitStack() as stack:
        started: dict[tuple[str, ...], OracleClient] = {}

        class Clients(dict):
            def __missing__(self, options: tuple[str, ...]) -> OracleClient:
                pair = stack.enter_context(ReplicationPair(MARIADB_1011, master_options=options))
                client = self[options] = OracleClient(pair, binlog_dir=tmp_path_factory.mktemp("kept"))
                return client

        yield Clients(started)


def _replayed(binlog: Path, schema_end: int, scenario, variant: dict[str, str]) -> tuple[object, object]:
    """The slave's status and tables after the binlog, the slave schema run at schema_end."""
    registry = VariableRegistry(MARIADB_1011)
    slave = Slave(MARIADB_1011, registry.validate(scenario.slave_settings), 0, engine_registry(scenario))
    try:
        slave.apply(binlog, stop=schema_end)
        for sql in scenario.slave_schema:
            slave.execute_local(sql)
        return slave.apply(binlog, start=schema_end), snapshot(slave.server)
    finally:
        slave.close()


@pytest.mark.parametrize(("name", "options"), RUNS, ids=[f"{name}{'-compressed-no-checksum' if options else ''}" for name, options in RUNS])
def test_replaying_the_real_masters_binlog_ends_as_the_real_replica(clients: dict[tuple[str, ...], OracleClient], name: str, options: tuple[str, ...]) -> None:
    client = clients[options]
    scenario = load_scenario(ROOT / "scenarios" / "oracle" / f"{name}.yaml")
    for variant in scenario.variants():
        record = client.run_variant(scenario, variant).record
        assert record.error is None and record.slave is not None and record.schema_end is not None, (name, variant, record.error)
        (binlog,) = record.server_binlogs
        status, tables = _replayed(binlog, record.schema_end, scenario, variant)
        real_error = record.slave.error.code if record.slave.error else None
        assert (status.error.code if status.error else None) == real_error, (name, variant, status.error, record.slave.error)
        if real_error is None:
            assert _rows(record.slave_snapshot, scenario.volatile) == _rows(tables, scenario.volatile), (name, variant, diff_snapshots(record.slave_snapshot, tables).tables)


def _rows(snapshot, volatile: tuple[str, ...]) -> dict[str, list[str]]:
    """Each table's rows as a sorted multiset, the scenario's volatile columns (values of
    clocks and generators, which two systems cannot share) only as NULL or not NULL."""
    masked = {name.lower() for name in volatile}
    out = {}
    for table, observed in observe_tables(snapshot).items():
        hidden = [f"{table}.{column}".lower() in masked for column in observed.columns]
        out[table] = sorted(repr([value if value is None or not hide else "NOT NULL" for value, hide in zip(row, hidden)]) for row in observed.rows)
    return out
