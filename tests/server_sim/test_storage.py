"""The storage's mirror of each table's rows: exactly what DuckDB holds, value, type and
storage order, once DuckDB has received the changes held back, after the generator's
workloads have run on master and slave."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.fuzz import FuzzConfig, WorkloadRunner
from harness.runner import run_variant
from scenarios.loader import load_scenario
from server_sim.flavor import MYSQL_80
from server_sim.execute.executor import Executor
from server_sim.parser import parse_statement
from server_sim.server import Server, ServerIdentity
from tests.support import ROOT




def check_mirrors_at_each_dump(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every snapshot first compare each table's mirror with DuckDB; the names of the
    tables compared are collected in the list returned."""
    compared: list[str] = []
    dump = Server.dump

    def checked_dump(server: Server):
        storage = server.storage
        for table in server.catalog.tables.values():
            mirror = storage._mirrors.get(table.storage_name)
            if not table.engine.stores_rows or mirror is None:
                continue  # a mirror not made yet is loaded from DuckDB when first needed
            read = storage.rows(table)  # DuckDB's storage order: what a scan without ORDER BY gives
            stored = {row_id: tuple(values) for row_id, *values in read}
            mirrored = mirror.rows
            assert mirrored == stored, table.name
            assert list(mirrored) == [row_id for row_id, *_ in read], table.name
            for row_id, values in stored.items():
                assert [type(value) for value in mirrored[row_id]] == [type(value) for value in values], table.name
            compared.append(table.name)
        return dump(server)

    monkeypatch.setattr(Server, "dump", checked_dump)
    return compared


@pytest.mark.parametrize("seed", [3, 4])
def test_the_mirror_holds_what_duckdb_holds_after_generated_workloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    compared = check_mirrors_at_each_dump(monkeypatch)
    runner = WorkloadRunner(FuzzConfig(count=40, seed=seed), MYSQL_80, tmp_path)
    for index in range(40):
        for run in runner(index).runs:
            assert run.record.error is None, run.record.error
    assert len(compared) > 100


@pytest.mark.parametrize(("suite", "every"), [("scenarios/suites", 1), ("scenarios/oracle", 2)])
def test_the_mirror_holds_what_duckdb_holds_after_the_bundled_scenarios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite: str, every: int) -> None:
    """Each file of the suites, every second one of the (large) recorded suite."""
    compared = check_mirrors_at_each_dump(monkeypatch)
    for path in sorted((ROOT / suite).rglob("*.yaml"))[::every]:
        if path.parent.name == "expected":
            continue
        scenario = load_scenario(path)
        for variant in scenario.variants():
            record = run_variant(scenario, variant, MYSQL_80, tmp_path, 0)
            assert record.error is None, (path.name, record.error)
    assert len(compared) > 100


def test_many_row_changes_reach_duckdb_in_parts() -> None:
    """More rows than one statement carries: inserted, updated and deleted in parts, DuckDB
    ends with the mirror's rows in the mirror's order."""
    server = Server(MYSQL_80, ServerIdentity(1, "master", 7))
    try:
        executor = Executor(server)
        session = server.new_session("root@localhost")
        context = server.statement_context(session, server.tick())
        assert executor.run(session, parse_statement("CREATE TABLE t (id INT PRIMARY KEY, v INT)"), context).error is None
        table = server.catalog.require(None, "t", 0)
        storage = server.storage
        for row_id in range(1, 2501):
            storage.insert(table, row_id, (row_id, 0))
        storage.flush()
        for row_id in range(1, 2501, 2):
            storage.update(table, row_id, (row_id, 1))
        storage.delete(table, range(1, 1300))
        storage.insert(table, 5, (5, 5))  # a deleted row back, last
        read = storage.rows(table)  # brings DuckDB up to date first
        assert [(row_id, *values) for row_id, values in storage.mirrored(table).items()] == read
        assert len(read) == 1202 and read[-1] == (5, 5, 5)
    finally:
        server.close()
