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
from server_sim.server import Server


ROOT = Path(__file__).resolve().parent.parent


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


@pytest.mark.parametrize("suite", ["scenarios/suites", "scenarios/oracle"])
def test_the_mirror_holds_what_duckdb_holds_after_the_bundled_scenarios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite: str) -> None:
    compared = check_mirrors_at_each_dump(monkeypatch)
    for path in sorted((ROOT / suite).rglob("*.yaml")):
        if path.parent.name == "expected":
            continue
        scenario = load_scenario(path)
        for variant in scenario.variants():
            record = run_variant(scenario, variant, MYSQL_80, tmp_path, 0)
            assert record.error is None, (path.name, record.error)
    assert len(compared) > 100
