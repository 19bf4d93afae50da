"""The scenario writer: every bundled scenario and a scenario of awkward values survive a
write and a load unchanged, in the bundled files' layout."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from scenarios.loader import load_scenario
from scenarios.model import EngineDeclaration, EventPattern, Expectation, Scenario, Step, Verdict
from scenarios.writer import scenario_to_yaml, write_scenario
from tests.support import ROOT

BUNDLED = ROOT / "scenarios"
BUNDLED_FILES = sorted(BUNDLED.glob("suites/*.yaml")) + sorted(BUNDLED.glob("oracle/*.yaml"))


def read_back(scenario: Scenario, tmp_path: Path) -> Scenario:
    path = tmp_path / "written.yaml"
    path.write_text(scenario_to_yaml(scenario), encoding="utf-8")
    return replace(load_scenario(path), source=None)


@pytest.mark.parametrize("path", BUNDLED_FILES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_a_bundled_scenario_reads_back_equal(path: Path, tmp_path: Path) -> None:
    original = replace(load_scenario(path), source=None)

    assert read_back(original, tmp_path) == original


AWKWARD = Scenario(
    name="123",
    source=None,
    description='Two lines:\nthe second with "quotes", a colon: and a # hash. ' + "long " * 40 + "end.",
    settings={"sql_mode": "", "auto_increment_increment": "2", "autocommit": "OFF", "time_zone": "+00:00", "x": "YES", "y": "010", "z": "NULL"},
    slave_settings={"slave_exec_mode": "IDEMPOTENT", "slave_type_conversions": "ALL_LOSSY,ALL_NON_LOSSY"},
    matrix={"binlog_format": ("ROW", "MIXED"), "binlog_row_image": ("FULL",)},
    engines={"ODD": EngineDeclaration(transactional=True, row_capable=False, statement_capable=True, self_logging=True)},
    master_schema=("CREATE TABLE t (a INT, b VARCHAR(20)) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 'a: b'), (2, '#x')", "INSERT INTO t\nVALUES (3, 'multi\nline')"),
    slave_schema=("ALTER TABLE t ADD COLUMN c INT DEFAULT 7",),
    steps=(
        Step(1, "con1", "INSERT INTO t VALUES (4, 'it''s \"quoted\" \\\\ and; semicolon')"),
        Step(2, "con 2", "UPDATE t\n  SET b = 'ü'\n  WHERE a = 1"),
        Step(3, "con1", "SELECT " + ", ".join(f"a + {n}" for n in range(60)) + " FROM t"),
    ),
    expect=(
        Expectation(when={}, verdict=Verdict.CONSISTENT),
        Expectation(
            when={"binlog_format": ("ROW",), "binlog_row_image": ("FULL", "MINIMAL")},
            slave_error=1032,
            step=2,
            notes=("LIMIT", 1062),
            error=0,
            events=(EventPattern("Query", "BEGIN"), EventPattern("Query", "UPDATE t SET b = 1, c = 2"), EventPattern("Xid")),
        ),
        Expectation(when={"binlog_format": ("STATEMENT",)}, step=1, events=()),
    ),
    volatile=("t.a", "t.b"),
)


def test_awkward_values_read_back_equal(tmp_path: Path) -> None:
    assert read_back(AWKWARD, tmp_path) == AWKWARD


def test_the_layout_is_the_bundled_files_one() -> None:
    text = scenario_to_yaml(AWKWARD)

    assert text.startswith("name: '123'\ndescription: ")
    assert "\nsettings:\n  sql_mode: ''\n  auto_increment_increment: 2\n  autocommit: OFF\n" in text
    assert "  x: 'YES'\n  y: '010'\n  z: 'NULL'\n" in text
    assert "\nmatrix:\n  binlog_format: [ROW, MIXED]\n  binlog_row_image: [FULL]\n" in text
    assert "\nmaster_schema:\n  - CREATE TABLE t (a INT, b VARCHAR(20)) ENGINE=InnoDB\n" in text
    assert "\nslave_schema:\n  - ALTER TABLE t ADD COLUMN c INT DEFAULT 7\n" in text
    assert "  - {session: con1, sql: \"SELECT a + 0, a + 1," in text  # a long statement stays on one line
    assert "  - when: {binlog_format: ROW, binlog_row_image: [FULL, MINIMAL]}\n" in text
    assert "\nvolatile: [t.a, t.b]\n" in text
    assert all(len(line) <= 100 for line in text.split("\nmaster_schema:")[0].splitlines())  # the description is folded


def test_write_scenario_replaces_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "findings" / "finding.yaml"
    path.parent.mkdir()
    path.write_text("an older finding")

    write_scenario(AWKWARD, path)

    assert replace(load_scenario(path), source=None) == AWKWARD
    assert [entry.name for entry in path.parent.iterdir()] == ["finding.yaml"]
