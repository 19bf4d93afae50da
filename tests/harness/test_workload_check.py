"""`rplharness check-workload` and `fuzz --from`: a workload judged per statement shape
under every format and row image, and in other interleavings of its sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.digest import digest
from harness.workload_check import check_workload
from server_sim.flavor import MYSQL_80
from tests.support import scenario_from

UUID_WORKLOAD = """
name: uuid-in-trx
master_schema:
  - CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(36)) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1, 'a')"}
  - {session: con1, sql: "BEGIN"}
  - {session: con1, sql: "INSERT INTO t VALUES (2, UUID())"}
  - {session: con2, sql: "UPDATE t SET v = 'b' WHERE id = 1"}
  - {session: con1, sql: "COMMIT"}
  - {session: con2, sql: "INSERT INTO t VALUES (3, 'c')"}
"""
SAFE_WORKLOAD = """
name: safe
master_schema:
  - CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1, 1), (2, 2)"}
  - {session: con2, sql: "UPDATE t SET v = v + 1 WHERE id IN (1, 2)"}
"""
# The captured order (con2's DELETE first) replicates under STATEMENT; with the DELETE
# between con1's MyISAM INSERT and its COMMIT, the INSERT reaches the binlog after it.
REORDERED = """
name: nontrans-reorder
master_schema:
  - CREATE TABLE innodb_t (a INT PRIMARY KEY) ENGINE=InnoDB
  - CREATE TABLE myisam_t (a INT) ENGINE=MyISAM
steps:
  - {session: con2, sql: "DELETE FROM myisam_t"}
  - {session: con1, sql: "BEGIN"}
  - {session: con1, sql: "INSERT INTO innodb_t VALUES (1)"}
  - {session: con1, sql: "INSERT INTO myisam_t VALUES (10)"}
  - {session: con1, sql: "COMMIT"}
"""


@pytest.mark.parametrize(
    ("sql", "shape"),
    [
        ("INSERT INTO t VALUES (1, 'a'), (2, 'b')", "INSERT INTO t VALUES (...)"),
        ("update t set v=5   where id in (1,2,3)", "UPDATE t SET v=? WHERE id IN (...)"),
        ("SELECT c FROM t1 WHERE id BETWEEN 2 AND 5 -- note", "SELECT c FROM t1 WHERE id BETWEEN ? AND ?"),
        ("INSERT INTO t2 VALUES (-1.5e3, 0x1F, \"x\")", "INSERT INTO t2 VALUES (...)"),
        ("INSERT INTO a (token) VALUES (UUID())", "INSERT INTO a (token) VALUES (UUID())"),
        ("UPDATE t1 SET a = a + 1 WHERE b = @x;", "UPDATE t1 SET a = a + ? WHERE b = @x"),
        ("DELETE FROM t /* why */ WHERE s = 'it''s'", "DELETE FROM t WHERE s = ?"),
    ],
)
def test_a_statement_shape_is_its_digest(sql: str, shape: str) -> None:
    assert digest(sql) == shape


def test_each_variant_and_shape_is_reported(tmp_path: Path) -> None:
    scenario = scenario_from(tmp_path, UUID_WORKLOAD)
    result = check_workload(scenario, MYSQL_80, tmp_path / "work")
    outcomes = {variant.label: variant for variant in result.variants}
    assert len(outcomes) == 7
    statement = outcomes["binlog_format=STATEMENT"]
    # Rolled back when a prefix ends inside the transaction, the UUID row first differs at COMMIT.
    assert (statement.outcome, statement.tables, statement.first_step, statement.last_writer) == ("divergent", ["t"], 5, 3)
    assert {variant.outcome for label, variant in outcomes.items() if label != "binlog_format=STATEMENT"} == {"consistent"}
    shapes = {shape.shape: shape for shape in result.shapes}
    uuid = shapes["INSERT INTO t VALUES (?, UUID())"]
    assert list(uuid.unsafe) == ["SYSTEM_FUNCTION"] and uuid.logged_as == {"STATEMENT": {"STATEMENT"}, "MIXED": {"ROW"}, "ROW": {"ROW"}}
    assert shapes["COMMIT"].diverged_under == ["binlog_format=STATEMENT"]
    assert shapes["INSERT INTO t VALUES (...)"].steps == [1, 6]


@pytest.mark.parametrize(("text", "code", "outcome"), [(UUID_WORKLOAD, 1, "divergent"), (SAFE_WORKLOAD, 0, "consistent")])
def test_check_workload_command(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, code: int, outcome: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(text)
    assert main(["check-workload", str(path), "--formats", "statement", "--out", str(tmp_path / "out")]) == code
    report = json.loads((tmp_path / "out" / "check-workload.json").read_text())
    assert [variant["outcome"] for variant in report["variants"]] == [outcome]
    assert outcome in capsys.readouterr().out


def test_check_workload_with_the_replicas_own_schema(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(SAFE_WORKLOAD)
    slave = tmp_path / "slave.sql"
    slave.write_text("ALTER TABLE t ADD COLUMN extra INT DEFAULT 7;\n")
    assert main(["check-workload", str(path), "--formats", "ROW", "--row-images", "FULL", "--slave-schema", str(slave), "--out", str(tmp_path / "out")]) in (0, 1)
    assert json.loads((tmp_path / "out" / "check-workload.json").read_text())["variants"][0]["outcome"] != "simulator error"


def test_fuzz_from_finds_a_shape_that_diverges_only_in_another_interleaving(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "reorder.yaml"
    path.write_text(REORDERED)
    assert main(["fuzz", "--from", str(path), "--interleavings", "10", "--out", str(tmp_path / "out")]) == 1
    report = json.loads((tmp_path / "out" / "interleavings.json").read_text())
    [shape] = report["shapes"]
    assert shape["shape"] == "DELETE FROM myisam_t" and not shape["under_captured"]
    assert all(variants == ["binlog_format=STATEMENT,binlog_row_image=FULL"] for variants in shape["under_others"].values())
    assert Path(shape["example"]).exists() and "diverges only under other interleavings" in capsys.readouterr().out


def test_fuzz_from_a_missing_scenario_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["fuzz", "--from", str(tmp_path / "none.yaml"), "--out", str(tmp_path / "out")]) == 2
