"""`rplharness import binlog`: a binary binlog made into a scenario whose steps make the
binlog's changes again. The round trip is the proof: every bundled scenario's binlog,
imported with its row events as row changes and run again, leaves the master with the
tables the first run left, under both flavors, each row image and MIXED."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from harness.cli import main
from harness.importers.binlog import ROWS_AS_CHANGES, ROWS_AS_STATEMENT, import_binlog
from harness.importers.binlog_text import user_variable_value
from harness.importers.build import build_scenarios
from harness.importers.model import ImportFailure
from harness.importers.row_statements import sql_literal
from harness.runner import run_variant
from scenarios.loader import load_scenario
from scenarios.model import Scenario, Step
from server_sim.flavor import FLAVORS

ROOT = Path(__file__).resolve().parents[2]
SUITE = sorted((ROOT / "scenarios" / "suites").glob("*.yaml"))
VARIANTS = (
    {"binlog_format": "ROW", "binlog_row_image": "FULL"},
    {"binlog_format": "ROW", "binlog_row_image": "MINIMAL"},
    {"binlog_format": "MIXED"},
)
# Where replaying the binlog's changes cannot give the first run's tables, and why.
NOT_REPRODUCIBLE = {
    "impossible-1661-row-engine-and-stmt-engine": "its engine is declared by the scenario; a binlog does not carry engine declarations",
    "unsafe-autoinc-columns": "the trigger fires again in the replay and takes its own AUTO_INCREMENT value, "
    "which a rolled-back insert had moved in the first run",
    "replace-minimal-image/mariadb-10.11/MINIMAL": "MariaDB's MINIMAL after image lacks the column REPLACE reset: the binlog does not carry the change",
}
MYSQL_TESTDATA = ROOT.parent / "shared" / "testdata" / "binlogs" / "mysql-8.0"


def _tables(record) -> dict[str, Counter]:
    return {name: Counter(map(repr, table.rows)) for name, table in record.master_snapshot.tables.items()}


def _round_trip(scenario: Scenario, variant: dict[str, str], flavor: str, tmp_path: Path, rows_as: str):
    first = run_variant(scenario, variant, FLAVORS[flavor], tmp_path / "first")
    assert first.error is None
    capture = import_binlog(first.binlog, rows_as=rows_as)
    imported = build_scenarios(capture, tmp_path / "imported", scenario.name)
    assert len(imported) == 1
    again = run_variant(imported[0].scenario, variant, FLAVORS[flavor], tmp_path / "again")
    assert again.error is None
    return first, again, capture


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
@pytest.mark.parametrize("path", SUITE, ids=lambda path: path.stem)
def test_replaying_the_binlog_changes_gives_the_master_tables(path: Path, flavor: str, tmp_path: Path) -> None:
    scenario = load_scenario(path)
    for number, variant in enumerate(VARIANTS):
        image = variant.get("binlog_row_image", "")
        reason = NOT_REPRODUCIBLE.get(scenario.name) or NOT_REPRODUCIBLE.get(f"{scenario.name}/{flavor}/{image}")
        first, again, capture = _round_trip(scenario, variant, flavor, tmp_path / str(number), ROWS_AS_CHANGES)
        if reason:
            continue
        assert [step for step in again.steps if step.error is not None] == []
        assert _tables(again) == _tables(first), (variant, capture.skipped)


def test_the_exceptions_still_differ(tmp_path: Path) -> None:
    """Each listed exception is a real difference, not a stale entry."""
    for key in NOT_REPRODUCIBLE:
        name, flavor, image = (key.split("/") + ["mysql-8.0", "FULL"])[:3]
        scenario = load_scenario(ROOT / "scenarios" / "suites" / f"{name}.yaml")
        first, again, _ = _round_trip(scenario, {"binlog_format": "ROW", "binlog_row_image": image}, flavor, tmp_path / name, ROWS_AS_CHANGES)
        assert _tables(again) != _tables(first), key


def _import(tmp_path: Path, steps: list[tuple[str, str]], schema: list[str], flavor: str, variant: dict[str, str], rows_as: str = ROWS_AS_STATEMENT):
    scenario = Scenario(name="s", source=None, master_schema=tuple(schema), steps=tuple(Step(index, session, sql) for index, (session, sql) in enumerate(steps, 1)))
    record = run_variant(scenario, variant, FLAVORS[flavor], tmp_path)
    return import_binlog(record.binlog, rows_as=rows_as)


def _steps(capture) -> list[tuple[str, str]]:
    return [(statement.session, statement.sql) for statement in capture.statements]


def test_statement_events_keep_their_context_as_session_settings(tmp_path: Path) -> None:
    capture = _import(
        tmp_path,
        [("con1", "SET @v = 'x''y'"), ("con1", "INSERT INTO t (v) VALUES (@v)"), ("con2", "SET SESSION auto_increment_increment = 5"),
         ("con2", "INSERT INTO t (v) VALUES ('z')")],
        ["CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10)) ENGINE=InnoDB"],
        "mysql-8.0", {"binlog_format": "STATEMENT"},
    )
    steps = _steps(capture)
    assert steps[1:] == [
        ("conn2", "BEGIN"), ("conn2", "SET SESSION insert_id = 1"), ("conn2", "SET @`v` = 'x\\'y'"),
        ("conn2", "INSERT INTO t (v) VALUES (@v)"), ("conn2", "COMMIT"),
        ("conn3", "BEGIN"), ("conn3", "SET SESSION auto_increment_increment = 5, auto_increment_offset = 1"),
        ("conn3", "SET SESSION insert_id = 6"), ("conn3", "INSERT INTO t (v) VALUES ('z')"), ("conn3", "COMMIT"),
    ]


@pytest.mark.parametrize(
    ("flavor", "rows_as", "expected"),
    [
        # MariaDB annotates row events with their statement (binlog_annotate_row_events=ON).
        ("mariadb-10.11", ROWS_AS_STATEMENT, "UPDATE t SET v = v + 1 WHERE id > 1"),
        ("mariadb-10.11", ROWS_AS_CHANGES, "UPDATE `t` SET `id` = 2, `v` = 21 WHERE `id` = 2"),
        # MySQL does not (binlog_rows_query_log_events=OFF): the changes are all there is.
        ("mysql-8.0", ROWS_AS_STATEMENT, "UPDATE `t` SET `id` = 2, `v` = 21 WHERE `id` = 2"),
    ],
)
def test_row_events_become_their_statement_or_their_changes(flavor: str, rows_as: str, expected: str, tmp_path: Path) -> None:
    capture = _import(
        tmp_path, [("con1", "UPDATE t SET v = v + 1 WHERE id > 1")],
        ["CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 10), (2, 20)"],
        flavor, {"binlog_format": "ROW", "binlog_row_image": "FULL"}, rows_as,
    )
    assert expected in [sql for _, sql in _steps(capture)]


def test_context_the_simulator_does_not_model_is_listed_not_set(tmp_path: Path) -> None:
    """RAND()'s seeds and LAST_INSERT_ID(expr) travel in session variables the simulator
    refuses (1235): the import lists their events instead of writing steps that fail."""
    capture = _import(
        tmp_path, [("con1", "INSERT INTO t VALUES (1, RAND() * 0)"), ("con1", "SELECT LAST_INSERT_ID(5)"), ("con1", "INSERT INTO t VALUES (LAST_INSERT_ID() + 1, 0)")],
        ["CREATE TABLE t (id INT PRIMARY KEY, v DOUBLE)"], "mysql-8.0", {"binlog_format": "STATEMENT"},
    )
    assert [skipped.reason.split(":")[0] for skipped in capture.skipped] == ["RAND event", "Intvar event"]
    assert not any("rand_seed" in sql or "last_insert_id" in sql for _, sql in _steps(capture))


def test_a_table_without_a_key_is_found_by_its_whole_row(tmp_path: Path) -> None:
    capture = _import(
        tmp_path, [("con1", "DELETE FROM t WHERE v = 2")], ["CREATE TABLE t (a INT, v INT)", "INSERT INTO t VALUES (NULL, 2)"],
        "mysql-8.0", {"binlog_format": "ROW", "binlog_row_image": "FULL"},
    )
    assert "DELETE FROM `t` WHERE `a` <=> NULL AND `v` <=> 2 LIMIT 1" in [sql for _, sql in _steps(capture)]


def test_rows_of_a_table_without_create_table_are_skipped_until_the_schema_names_them(tmp_path: Path) -> None:
    steps = [("con1", "SET sql_log_bin = 0"), ("con1", "CREATE TABLE t2 (id INT PRIMARY KEY, v INT)"), ("con1", "SET sql_log_bin = 1"),
             ("con1", "INSERT INTO t2 VALUES (1, 2)")]
    capture = _import(tmp_path / "a", steps, [], "mysql-8.0", {"binlog_format": "ROW"})
    assert [skipped.reason for skipped in capture.skipped] == [
        "Write_rows event not imported: `test`.`t2` has no CREATE TABLE in the binlog or --schema, so its columns have no names"
    ]
    record_binlog = next((tmp_path / "a").glob("*.binlog"))
    named = import_binlog(record_binlog, schema=["CREATE TABLE t2 (id INT PRIMARY KEY, v INT)"])
    assert not named.skipped and "INSERT INTO `t2` (`id`, `v`) VALUES (1, 2)" in [sql for _, sql in _steps(named)]


def test_a_cut_binlog_imports_its_complete_transactions(tmp_path: Path) -> None:
    _import(tmp_path, [("con1", "INSERT INTO t VALUES (1)"), ("con1", "INSERT INTO t VALUES (2)")],
            ["CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB"], "mariadb-10.11", {"binlog_format": "STATEMENT"})
    data = next(tmp_path.glob("*.binlog")).read_bytes()
    cut = tmp_path / "cut.binlog"
    cut.write_bytes(data[: data.rindex(b"INSERT INTO t VALUES (2)") + 10])
    capture = import_binlog(cut)
    assert [sql for _, sql in _steps(capture)] == ["CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB", "BEGIN", "INSERT INTO t VALUES (1)", "COMMIT"]
    assert any("read stopped" in note and str(cut) in note for note in capture.notes)
    assert ["ends inside this transaction" in skipped.reason for skipped in capture.skipped] == [True]


@pytest.mark.parametrize("content", [b"", b"\xfebin", b"not a binlog at all", b"\xfebin" + b"\x00" * 40])
def test_what_is_not_a_binlog_is_refused_naming_the_file(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "bad.binlog"
    path.write_bytes(content)
    with pytest.raises(ImportFailure, match=str(path)):
        import_binlog(path)


@pytest.mark.parametrize(
    ("value", "type_code", "unsigned", "literal"),
    [
        (None, None, False, "NULL"),
        (-1, 3, True, "4294967295"),
        (-1, 3, False, "-1"),
        ("it's\n", None, False, "'it\\'s\\n'"),
        (b"\xff\x00", None, False, "X'ff00'"),
        (b"abc", None, False, "'abc'"),
        # A JSON document's decimal stays a number (the reader gives Decimal), keys as MySQL orders them.
        ({"e": Decimal("9.00"), "ab": [1, None]}, 245, False, r"""'{\"e\": 9.00, \"ab\": [1, null]}'"""),
        # A JSON column's NULL is SQL's NULL; a scalar document is JSON text, not a number.
        (None, 245, False, "NULL"),
        (5, 245, False, "'5'"),
        (True, 245, False, "'true'"),
        # A BIT column's value is its number.
        (4095, 16, False, "4095"),
    ],
)
def test_values_become_literals(value: object, type_code: int | None, unsigned: bool, literal: str) -> None:
    assert sql_literal(value, type_code, unsigned) == literal


def test_import_binlog_from_the_command_line_runs_consistent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = load_scenario(ROOT / "scenarios" / "suites" / "autoinc-interval-from-intvar.yaml")
    record = run_variant(scenario, {"binlog_format": "STATEMENT"}, FLAVORS["mysql-8.0"], tmp_path / "first")
    assert main(["import", "binlog", str(record.binlog), "-o", str(tmp_path / "imported")]) == 0
    text = next((tmp_path / "imported").glob("*.yaml")).read_text()
    assert "SET SESSION insert_id = 3" in text and "Imported by `rplharness import binlog`" in text
    assert main(["run", str(tmp_path / "imported"), "--compare", "python", "--out", str(tmp_path / "out")]) == 0
    assert "3 consistent" in capsys.readouterr().out


@pytest.mark.skipif(not MYSQL_TESTDATA.is_dir(), reason="MySQL 8.0 binlogs not in ../shared/testdata")
def test_real_mysql_binlogs_import_or_say_why(tmp_path: Path) -> None:
    """Files real MySQL servers wrote: each imports, or fails naming file and position."""
    for path in sorted(MYSQL_TESTDATA.iterdir()):
        if path.suffix in (".md",) or path.name.startswith("LICENSE"):
            continue
        try:
            capture = import_binlog(path)
        except ImportFailure as error:
            assert str(path) in str(error) and "position" in str(error)
            continue
        build_scenarios(capture, tmp_path, path.stem)
        assert capture.server


@pytest.mark.skipif(not (MYSQL_TESTDATA / "json.binlog.000001").is_file(), reason="MySQL 8.0 binlogs not in ../shared/testdata")
def test_partial_json_updates_become_json_functions_and_generated_columns_are_not_assigned() -> None:
    capture = import_binlog(MYSQL_TESTDATA / "json.binlog.000001")
    updates = [sql for _, sql in _steps(capture) if "JSON_REPLACE" in sql]
    assert updates[0] == "UPDATE `t` SET `json_col` = JSON_REPLACE(`json_col`, '$.age', CAST('26' AS JSON)) WHERE `id` = 1"
    assert len(updates) == 6
    assert not any("`name` =" in sql or "`age`)" in sql for _, sql in _steps(capture))


# -- mysqlbinlog text -----------------------------------------------------------------------

MARIADB_BINLOG = shutil.which("mariadb-binlog")


# Files mariadb-binlog cannot print, and why (the binary import reads them).
MARIADB_BINLOG_CANNOT_PRINT = {
    ("bit-json-columns", "mysql-8.0"): "mariadb-binlog has no printer for MySQL's JSON type (245): it stops at the first row event holding one",
}


def _printed(binlog: Path, *options: str) -> str:
    return subprocess.run([MARIADB_BINLOG, *options, str(binlog)], capture_output=True, text=True, check=False).stdout


@pytest.mark.skipif(MARIADB_BINLOG is None, reason="mariadb-binlog is not installed")
@pytest.mark.parametrize("flavor", sorted(FLAVORS))
@pytest.mark.parametrize("binlog_format", ["STATEMENT", "MIXED", "ROW"])
def test_the_text_mariadb_binlog_prints_imports_as_the_file_does(flavor: str, binlog_format: str, tmp_path: Path) -> None:
    """Every bundled scenario's binlog: its text (default --base64-output=AUTO, with -v)
    gives the steps the binary file gives, nothing skipped."""
    for path in SUITE:
        if (path.stem, flavor) in MARIADB_BINLOG_CANNOT_PRINT and binlog_format != "STATEMENT":
            continue
        record = run_variant(load_scenario(path), {"binlog_format": binlog_format}, FLAVORS[flavor], tmp_path / path.stem)
        text = tmp_path / path.stem / "printed.txt"
        text.write_text(_printed(record.binlog, "-v"))
        from_file, from_text = import_binlog(record.binlog, rows_as=ROWS_AS_CHANGES), import_binlog(text, rows_as=ROWS_AS_CHANGES)
        assert [(s.session, s.sql, s.errors) for s in from_text.statements] == [(s.session, s.sql, s.errors) for s in from_file.statements], path.stem
        assert [(str(x.origin.line), x.reason) for x in from_text.skipped] == [(str(x.origin.line), x.reason) for x in from_file.skipped]
        assert from_text.server == from_file.server


@pytest.mark.skipif(MARIADB_BINLOG is None, reason="mariadb-binlog is not installed")
def test_rows_printed_without_their_binlog_statement_are_listed(tmp_path: Path) -> None:
    _import(tmp_path, [("con1", "INSERT INTO t VALUES (1)")], ["CREATE TABLE t (id INT PRIMARY KEY)"], "mariadb-10.11", {"binlog_format": "ROW"})
    text = tmp_path / "decoded.txt"
    text.write_text(_printed(next(tmp_path.glob("*.binlog")), "-v", "--base64-output=decode-rows"))
    capture = import_binlog(text, rows_as=ROWS_AS_CHANGES)
    assert {skipped.reason for skipped in capture.skipped} == {
        "row event printed without its BINLOG statement (--base64-output=DECODE-ROWS): its values cannot be read back"
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("SELECT 1;\n", "nor mysqlbinlog text (no '# at N' lines"),
        (b"\xff\xfe\x00garbage", "byte 0 is not UTF-8"),
    ],
)
def test_text_that_is_not_mysqlbinlog_output_is_refused(content: str | bytes, message: str, tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(ImportFailure, match=re.escape(message)):
        import_binlog(path)


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("NULL", None),
        ("_utf8mb4 X'78' COLLATE `utf8mb4_general_ci`", "x"),
        ("_latin1 'it''s' COLLATE `latin1_swedish_ci`", "it's"),
        ("-12", -12),
        ("1.50", Decimal("1.50")),
        ("2.5e3", 2500.0),
    ],
)
def test_user_variable_values_read_back(printed: str, value: object) -> None:
    assert user_variable_value(printed) == value
