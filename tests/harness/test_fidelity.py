"""The fidelity comparison, on recorded observations: no server needed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.fidelity import KnownDifference, compare_observations, explain, load_known_differences
from harness.observation import (
    Diagnostic,
    EventObservation,
    Observation,
    RowImage,
    StepObservation,
    TableObservation,
    image_value,
    load_observation,
    save_observation,
    unsafe_reason,
)
from harness.oracle.events import decode_rows, observe_events
from tests.support import ROOT

ORACLE_SUITE = ROOT / "scenarios" / "oracle"
WORKLOADS = ROOT / "scenarios" / "workloads"

MARIADB_BINLOG_VV = """\
# at 689
# at 758
#261121 12:49:32 server id 1  end_log_pos 758 CRC32 0x5da4bb10 \tAnnotate_rows:
#Q> INSERT INTO test.t VALUES (1,1,'x'),(2,2,NULL)
#261121 12:49:32 server id 1  end_log_pos 806 CRC32 0x5701cca8 \tTable_map: `test`.`t` mapped to number 18
# at 806
#261121 12:49:32 server id 1  end_log_pos 859 CRC32 0xad63c945 \tWrite_rows: table id 18 flags: STMT_END_F
### INSERT INTO `test`.`t`
### SET
###   @1=1 /* INT meta=0 nullable=0 is_null=0 */
###   @2=1 /* INT meta=0 nullable=1 is_null=0 */
###   @3='x' /* VARSTRING(10) meta=10 nullable=1 is_null=0 */
### INSERT INTO `test`.`t`
### SET
###   @1=2 /* INT meta=0 nullable=0 is_null=0 */
###   @2=2 /* INT meta=0 nullable=1 is_null=0 */
###   @3=NULL /* VARSTRING(10) meta=10 nullable=1 is_null=1 */
# Number of rows: 2
# at 1034
#261121 12:49:32 server id 1  end_log_pos 1090 CRC32 0xad63c945 \tUpdate_rows: table id 18 flags: STMT_END_F
### UPDATE `test`.`t`
### WHERE
###   @1=1 /* INT meta=0 nullable=0 is_null=0 */
###   @4=1.50 /* DECIMAL(5,2) meta=1282 nullable=1 is_null=0 */
### SET
###   @1=1 /* INT meta=0 nullable=0 is_null=0 */
###   @4=1767268800 /* TIMESTAMP(0) meta=0 nullable=1 is_null=0 */
###   @3='it's' /* VARSTRING(10) meta=10 nullable=1 is_null=0 */
# Number of rows: 1
"""

SHOW_BINLOG_EVENTS = [
    ("master-bin.000001", 4, "Format_desc", 1, 256, "Server ver: 10.11.18-MariaDB-log, Binlog ver: 4"),
    ("master-bin.000001", 256, "Gtid_list", 1, 285, "[]"),
    ("master-bin.000001", 329, "Gtid", 1, 371, "GTID 0-1-1"),
    ("master-bin.000001", 371, "Query", 1, 458, "use `test`; CREATE TABLE t (a INT)"),
    ("master-bin.000001", 647, "Gtid", 1, 689, "BEGIN GTID 0-1-3"),
    ("master-bin.000001", 689, "Annotate_rows", 1, 758, "INSERT INTO test.t VALUES (1,1,'x'),(2,2,NULL)"),
    ("master-bin.000001", 758, "Table_map", 1, 806, "table_id: 18 (test.t)"),
    ("master-bin.000001", 806, "Write_rows_v1", 1, 859, "table_id: 18 flags: STMT_END_F"),
    ("master-bin.000001", 859, "Xid", 1, 890, "COMMIT /* xid=22 */"),
    ("master-bin.000001", 900, "Intvar", 1, 930, "INSERT_ID=7"),
    ("master-bin.000001", 930, "User var", 1, 960, "@`a`=5"),
    ("master-bin.000001", 960, "RAND", 1, 990, "rand_seed1=1,rand_seed2=2"),
]


def test_decode_rows_reads_images_by_event_position() -> None:
    rows = decode_rows(MARIADB_BINLOG_VV)
    assert rows[806] == [RowImage(None, {1: 1, 2: 1, 3: "x"}), RowImage(None, {1: 2, 2: 2, 3: None})]
    (update,) = rows[1034]
    assert update.before == {1: 1, 4: "1.5"}  # DECIMAL compares by number
    assert update.after == {1: 1, 4: "2026-01-01 12:00:00", 3: "it's"}  # TIMESTAMP in the servers' UTC


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        (b"h\xe9llo", "h\u00e9llo"),  # a latin1 column's bytes: read as latin1
        (b"h\xc3\xa9llo \xce\xa9", "h\u00e9llo \u03a9"),  # a utf8mb4 column's: UTF-8
        (b"a\\x01", "a\x01"),  # a control byte, which mariadb-binlog escapes
        (b"\x81\\\xd5'", "\x81\\\xd5'"),  # a backslash and a quote: printed as they are
    ],
)
def test_row_values_are_read_from_the_bytes_mariadb_binlog_prints(printed: bytes, value: str) -> None:
    """mariadb-binlog prints a string's bytes as they are; read as the simulator's own
    binlog values are (observation.binlog_text), so both sides read one value alike."""
    output = MARIADB_BINLOG_VV.encode().replace(b"@3='x'", b"@3='" + printed + b"'").decode("utf-8", "surrogateescape")
    assert decode_rows(output)[806][0].after[3] == value


GROUPED_STATEMENT = """\
# at 1050
#261121 13:00:42 server id 1  end_log_pos 1100 CRC32 0x0 \tTable_map: `test`.`dst` mapped to number 19
# at 1100
# at 1150
#261121 13:00:42 server id 1  end_log_pos 1150 CRC32 0x1 \tWrite_rows: table id 19
#261121 13:00:42 server id 1  end_log_pos 1210 CRC32 0x2 \tUpdate_rows: table id 19 flags: STMT_END_F
### INSERT INTO `test`.`dst`
### SET
###   @1=10 /* INT meta=0 nullable=0 is_null=0 */
### UPDATE `test`.`dst`
### WHERE
###   @1=10 /* INT meta=0 nullable=0 is_null=0 */
### SET
###   @1=11 /* INT meta=0 nullable=0 is_null=0 */
# at 1300
#261121 13:00:42 server id 1  end_log_pos 1350 CRC32 0x3 \tDelete_rows: table id 19 flags: STMT_END_F
### DELETE FROM `test`.`dst`
### WHERE
###   @1=11 /* INT meta=0 nullable=0 is_null=0 */
"""


def test_rows_printed_after_a_statements_last_event_go_to_their_own_events() -> None:
    rows = decode_rows(GROUPED_STATEMENT)
    assert rows == {
        1100: [RowImage(None, {1: 10})],
        1150: [RowImage({1: 10}, {1: 11})],
        1300: [RowImage({1: 11}, None)],
    }


TRIGGER_STATEMENT = """\
# at 1661
# at 1707
#261121 17:38:35 server id 1  end_log_pos 1707 CRC32 0x1 \tTable_map: `test`.`t1` mapped to number 29
# at 1753
#261121 17:38:35 server id 1  end_log_pos 1753 CRC32 0x2 \tTable_map: `test`.`t2` mapped to number 25
# at 1795
# at 1837
# at 1879
#261121 17:38:35 server id 1  end_log_pos 1795 CRC32 0x3 \tWrite_rows_v1: table id 29
#261121 17:38:35 server id 1  end_log_pos 1837 CRC32 0x4 \tWrite_rows_v1: table id 25
#261121 17:38:35 server id 1  end_log_pos 1879 CRC32 0x5 \tWrite_rows_v1: table id 29
#261121 17:38:35 server id 1  end_log_pos 1921 CRC32 0x6 \tWrite_rows_v1: table id 25 flags: STMT_END_F
### INSERT INTO `test`.`t1`
### SET
###   @1=1 /* INT meta=0 nullable=0 is_null=0 */
### INSERT INTO `test`.`t2`
### SET
###   @1=1 /* INT meta=0 nullable=0 is_null=0 */
### INSERT INTO `test`.`t1`
### SET
###   @1=2 /* INT meta=0 nullable=0 is_null=0 */
### INSERT INTO `test`.`t2`
### SET
###   @1=2 /* INT meta=0 nullable=0 is_null=0 */
"""


def test_rows_of_a_statement_alternating_between_tables_go_to_their_tables_events() -> None:
    rows = decode_rows(TRIGGER_STATEMENT)
    assert [rows[position] for position in (1753, 1795, 1837, 1879)] == [[RowImage(None, {1: n})] for n in (1, 1, 2, 2)]


# A multi-table UPDATE: one Update_rows event per table, both tables' rows after the last.
MULTI_TABLE_STATEMENT = """\
# at 2000
# at 2050
#261121 13:00:42 server id 1  end_log_pos 2050 CRC32 0x0 \tTable_map: `test`.`t1` mapped to number 18
#261121 13:00:42 server id 1  end_log_pos 2100 CRC32 0x1 \tTable_map: `test`.`t2` mapped to number 22
# at 2100
# at 2160
#261121 13:00:42 server id 1  end_log_pos 2160 CRC32 0x2 \tUpdate_rows: table id 18
#261121 13:00:42 server id 1  end_log_pos 2220 CRC32 0x3 \tUpdate_rows: table id 22 flags: STMT_END_F
### UPDATE `test`.`t1`
### WHERE
###   @1=1 /* INT meta=0 nullable=0 is_null=0 */
### SET
###   @1=2 /* INT meta=0 nullable=0 is_null=0 */
### UPDATE `test`.`t2`
### WHERE
###   @1=5 /* INT meta=0 nullable=0 is_null=0 */
### SET
###   @1=6 /* INT meta=0 nullable=0 is_null=0 */
"""


def test_rows_of_a_multi_table_statement_go_to_their_tables_events() -> None:
    assert decode_rows(MULTI_TABLE_STATEMENT) == {
        2100: [RowImage({1: 1}, {1: 2})],
        2160: [RowImage({1: 5}, {1: 6})],
    }


def test_observe_events_maps_gtid_begin_and_server_type_names() -> None:
    events = observe_events(SHOW_BINLOG_EVENTS, decode_rows(MARIADB_BINLOG_VV))
    assert [event.header for event in events] == [
        "Query: CREATE TABLE t (a INT)",
        "Query: BEGIN",
        "Annotate_rows: INSERT INTO test.t VALUES (1,1,'x'),(2,2,NULL)",
        "Table_map: test.t",
        "Write_rows: test.t",
        "Xid",
        "Intvar: INSERT_ID=7",
        "User_var: @a",
        "Rand",
    ]
    assert len(events[4].rows) == 2


def test_unsafe_reason_is_the_sentence_after_the_format() -> None:
    message = "Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT. The statement is unsafe because it uses a LIMIT clause."
    assert unsafe_reason(message) == "The statement is unsafe because it uses a LIMIT clause."


def _observation(system: str, **changes: object) -> Observation:
    base = dict(
        scenario="s",
        variant="binlog_format=ROW",
        system=system,
        steps=[StepObservation(1, "con1", "ok", None, (), False)],
        events=[EventObservation("Query", "BEGIN"), EventObservation("Write_rows", "test.t", (RowImage(None, {1: 1, 2: "u1"}),)), EventObservation("Xid")],
        master_tables={"t": TableObservation(("a", "u"), ((1, "u1"),))},
        slave_tables={"t": TableObservation(("a", "u"), ((1, "u1"),))},
        verdict="consistent",
    )
    base.update(changes)
    return Observation(**base)


def test_identical_observations_agree_in_every_category() -> None:
    run = compare_observations(_observation("simulator"), _observation("server"))
    assert run.agrees
    assert run.compared == {"steps": 1, "diagnostics": 1, "blocking": 1, "binlog": 1, "replica": 1, "tables": 2, "verdict": 1}


@pytest.mark.parametrize(
    ("category", "server_changes"),
    [
        ("steps", {"steps": [StepObservation(1, "con1", "error", 1062, (), False)]}),
        ("diagnostics", {"steps": [StepObservation(1, "con1", "ok", None, (Diagnostic("Note", 1592, "LIMIT"),), False)]}),
        ("blocking", {"steps": [StepObservation(1, "con1", "ok", None, (), True)]}),
        ("binlog", {"events": [EventObservation("Query", "BEGIN"), EventObservation("Query", "INSERT INTO t VALUES (1, 'u1')"), EventObservation("Xid")]}),
        ("replica", {"replica_running": False, "replica_error": 1032}),
        ("tables", {"slave_tables": {"t": TableObservation(("a", "u"), ())}}),
        ("verdict", {"verdict": "divergent"}),
    ],
)
def test_each_category_reports_its_disagreement(category: str, server_changes: dict[str, object]) -> None:
    run = compare_observations(_observation("simulator"), _observation("server", **server_changes))
    assert {d.category for d in run.disagreements} == {category}
    assert run.agreed[category] < run.compared[category]


def test_row_image_values_are_compared_event_by_event() -> None:
    server = _observation("server", events=[EventObservation("Query", "BEGIN"), EventObservation("Write_rows", "test.t", (RowImage(None, {1: 2, 2: "u1"}),)), EventObservation("Xid")])
    (disagreement,) = compare_observations(_observation("simulator"), server).disagreements
    assert disagreement.where == "event 2 (Write_rows: test.t) rows"
    assert '"@1":1' in disagreement.simulator and '"@1":2' in disagreement.server


@pytest.mark.parametrize(
    ("printed", "type_text", "ours", "type_name"),
    [
        ("2", "ENUM(1 byte)", 2, "ENUM"),
        ("257", "ENUM(2 bytes)", 257, "ENUM"),
        ("b'00000101'", "SET(1 bytes)", 5, "SET"),
        ("b'0000000000000001'", "SET(2 bytes)", 256, "SET"),
    ],
)
def test_enum_and_set_values_compare_by_number(printed: str, type_text: str, ours: int, type_name: str) -> None:
    """mariadb-binlog prints an ENUM's index and a SET's bytes as bits; the simulator's
    events hold the numbers."""
    assert image_value(printed, type_text) == image_value(str(ours), type_name)


def test_volatile_columns_compare_only_as_null_or_not() -> None:
    server = _observation(
        "server",
        events=[EventObservation("Query", "BEGIN"), EventObservation("Write_rows", "test.t", (RowImage(None, {1: 1, 2: "other"}),)), EventObservation("Xid")],
        master_tables={"t": TableObservation(("a", "u"), ((1, "other"),))},
        slave_tables={"t": TableObservation(("a", "u"), ((1, "other"),))},
    )
    assert not compare_observations(_observation("simulator"), server).agrees
    assert compare_observations(_observation("simulator"), server, volatile=("t.u",)).agrees
    null_on_server = _observation("server", master_tables={"t": TableObservation(("a", "u"), ((1, None),))})
    assert not compare_observations(_observation("simulator"), null_on_server, volatile=("t.u",)).agrees


def test_known_differences_explain_matching_disagreements(tmp_path: Path) -> None:
    path = tmp_path / "known-differences.yaml"
    path.write_text("- {scenario: s, category: verdict, reason: timing}\n- {scenario: other*, reason: x}\n")
    known = load_known_differences(path)
    assert known[0] == KnownDifference(scenario="s", category="verdict", reason="timing")
    run = compare_observations(_observation("simulator"), _observation("server", verdict="divergent", replica_error=1032, replica_running=False))
    explain([run], known)
    assert {(d.category, d.known) for d in run.disagreements} == {("verdict", "timing"), ("replica", None)}


def test_a_bad_known_differences_entry_names_its_index(tmp_path: Path) -> None:
    path = tmp_path / "known-differences.yaml"
    path.write_text("- {scenario: s, reason: r}\n- {scenario: s, category: nonsense, reason: r}\n")
    with pytest.raises(ValueError, match=r"entry \[1\]"):
        load_known_differences(path)


def test_observations_round_trip_through_json(tmp_path: Path) -> None:
    observation = _observation("10.11", steps=[StepObservation(1, "con1", "ok", None, (Diagnostic("Note", 1592, "LIMIT"),), True)])
    save_observation(observation, tmp_path / "run.json")
    assert load_observation(tmp_path / "run.json") == observation


def test_a_corrupt_recording_is_reported_with_its_file(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"format_version": 99}))
    with pytest.raises(ValueError, match=r"run\.json.*format_version 99"):
        load_observation(path)


@pytest.mark.parametrize("suite", [ORACLE_SUITE, WORKLOADS], ids=["oracle", "workloads"])
def test_check_fidelity_on_the_recorded_suite_passes(spark, suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The simulator against the recorded MariaDB results: every disagreement is a known
    one (the bundled sysbench- and TPC-C-style workloads have none)."""
    code = main(["check-fidelity", str(suite), "--out", str(tmp_path / "out")])
    output = capsys.readouterr().out
    assert code == 0, output
    assert "DISAGREES" not in output and "MISSING" not in output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["fidelity"]["rates"]["runs"]["compared"] == len(list((suite / "expected").glob("*.json")))
    if suite == WORKLOADS:
        assert report["fidelity"]["rates"]["overall"]["agreed"] == report["fidelity"]["rates"]["overall"]["compared"]


def test_check_fidelity_fails_on_an_unexplained_disagreement(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "suite"
    (suite / "expected").mkdir(parents=True)
    name = "blocked-update-innodb"
    shutil.copy(ORACLE_SUITE / f"{name}.yaml", suite)
    for recorded in (ORACLE_SUITE / "expected").glob(f"{name}__*.json"):
        document = json.loads(recorded.read_text())
        document["verdict"] = "divergent"  # pretend the server said otherwise
        (suite / "expected" / recorded.name).write_text(json.dumps(document))
    code = main(["check-fidelity", str(suite), "--out", str(tmp_path / "out")])
    output = capsys.readouterr().out
    assert code == 1
    assert "verdict verdict: simulator consistent | server divergent" in output


def test_check_fidelity_reports_a_missing_recording(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ORACLE_SUITE / "blocked-update-innodb.yaml", suite)
    assert main(["check-fidelity", str(suite), "--out", str(tmp_path / "out")]) == 1
    assert "MISSING" in capsys.readouterr().out
