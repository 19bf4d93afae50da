"""`rplharness import mysqltest`: mtr's dialect read into a scenario, what it does not
understand listed with file and line, and every bundled scenario written as a mysqltest
file by the harness and imported back to an equivalent scenario."""

from __future__ import annotations

import re

from pathlib import Path

import pytest

from harness.importers.build import build_scenarios
from harness.importers.model import ImportFailure
from harness.importers.mysqltest_rules import MTR_DEFAULT_SETTINGS
from harness.importers.mysqltest import import_mysqltest
from harness.mysqltest import _connection_names, scenario_to_mysqltest
from harness.runner import run_variant
from scenarios.loader import load_paths, load_scenario
from scenarios.model import Scenario
from server_sim.errors import ErrorCode
from server_sim.flavor import DEFAULT_FLAVOR, MYSQL_80
from server_sim.sysvars import VariableRegistry
from tests.support import ROOT

BUNDLED = sorted(
    (scenario for scenario in load_paths([ROOT / "scenarios" / "suites", ROOT / "scenarios" / "oracle", ROOT / "scenarios" / "workloads"]).scenarios),
    key=lambda scenario: scenario.name,
)
REGISTRY = VariableRegistry(DEFAULT_FLAVOR)

HELPER_INC = """# sourced by the test
INSERT INTO t1 VALUES (100, 0);
--let $n= 4
"""
TEST = """# A test in mtr's dialect
--source include/have_binlog_format_mixed_or_row.inc
--source include/master-slave.inc
--source include/have_innodb.inc

--connection master
CREATE TABLE t1 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
CREATE TABLE t2 (a INT) ENGINE=MyISAM;
INSERT INTO t2 VALUES (1);
--sync_slave_with_master
--connection slave
ALTER TABLE t2 ADD COLUMN b INT DEFAULT 7;
SET @saved_exec_mode = @@GLOBAL.slave_exec_mode;
SET GLOBAL slave_exec_mode = 'IDEMPOTENT';

--connection master
connect (con1,localhost,root,,test,$MASTER_MYPORT,);
connect (con2,localhost,root,,test,$MASTER_MYPORT,);
connection con1;
--source helper.inc
--disable_warnings
eval INSERT INTO t1 VALUES ($n, 1);
--enable_warnings
--error ER_DUP_ENTRY
INSERT INTO t1 VALUES (4, 2);
BEGIN;
UPDATE t1 SET v = 5 WHERE id = 4;
--connection con2
--send UPDATE t1 SET v = 6 WHERE id = 4
--connection con1
COMMIT;
--connection con2
--error 0,1205
--reap
--echo # done
error 1062,0;
INSERT INTO t1 VALUES (4, 9);
delimiter |;
INSERT INTO t2 VALUES (2); INSERT INTO t2 VALUES (3)|
delimiter ;|
SELECT * FROM t1;
--frobnicate now
--source include/unknown_helper.inc
--let $id= `SELECT CONNECTION_ID()`
eval INSERT INTO t1 VALUES ($id, 0);
if ($n) {
  INSERT INTO t1 VALUES (99, 0);
}
--disconnect con1
--connection master
--sync_slave_with_master
--let $diff_tables= master:t1, slave:t1
--source include/diff_tables.inc
--connection master
DROP TABLE t1, t2;
--sync_slave_with_master
--source include/rpl_end.inc
"""


def test_a_test_in_mtr_dialect_becomes_its_scenario(tmp_path: Path) -> None:
    (tmp_path / "helper.inc").write_text(HELPER_INC)
    path = tmp_path / "rpl_sample.test"
    path.write_text(TEST)
    capture = import_mysqltest(path)
    [imported] = build_scenarios(capture, tmp_path / "out", "rpl_sample")
    imported.write()
    scenario = load_scenario(imported.path)
    assert scenario.matrix == {"binlog_format": ("MIXED", "ROW")}
    assert scenario.master_schema == ("CREATE TABLE t1 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "CREATE TABLE t2 (a INT) ENGINE=MyISAM", "INSERT INTO t2 VALUES (1)")
    assert scenario.slave_schema == ("ALTER TABLE t2 ADD COLUMN b INT DEFAULT 7",)
    # mtr's default configuration (include/default_mysqld.cnf) is every server's.
    assert scenario.settings["log_bin_trust_function_creators"] == "ON"
    assert scenario.slave_settings == {"log_bin_trust_function_creators": "ON", "slave_exec_mode": "IDEMPOTENT"}
    assert [(step.session, step.sql, step.errors) for step in scenario.steps if not step.disconnect] == [
        ("con1", "INSERT INTO t1 VALUES (100, 0)", ()),
        ("con1", "INSERT INTO t1 VALUES (4, 1)", ()),
        ("con1", "INSERT INTO t1 VALUES (4, 2)", ("ER_DUP_ENTRY",)),
        ("con1", "BEGIN", ()),
        ("con1", "UPDATE t1 SET v = 5 WHERE id = 4", ()),
        ("con2", "UPDATE t1 SET v = 6 WHERE id = 4", (0, 1205)),
        ("con1", "COMMIT", ()),
        ("con2", "", ()),  # the reap: con2's client waits for its UPDATE's answer
        ("con2", "INSERT INTO t1 VALUES (4, 9)", (1062, 0)),
        ("con2", "INSERT INTO t2 VALUES (2)", ()),
        ("con2", "INSERT INTO t2 VALUES (3)", ()),
    ]
    # The test's last `--disconnect con1` is the run's end, which ends every session anyway.
    assert not [step for step in scenario.steps if step.disconnect]
    assert not scenario.tolerate_errors
    assert [(skip.origin.line, skip.reason.split(":")[0]) for skip in capture.skipped] == [
        (42, "mysqltest command 'frobnicate' is not imported"),
        (43, "source include/unknown_helper.inc"),
        (45, "eval uses a variable whose value the file does not give (set from a query, or mtr's own)"),
        (46, "mysqltest command 'if' is not imported"),
    ]
    assert capture.dropped["clean-up after the last check"] == 1 and capture.dropped["read-only"] == 1


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("--source include/master-slave.inc\nCREATE TABLE t (a INT);\nINSERT INTO t VALUES ('cut\n", 3, "the file ends inside a statement"),
        ("--source include/master-slave.inc\nCREATE TABLE t (a INT);\n--shutdown_server\nINSERT INTO t VALUES (1);\n", 3, "mysqltest command 'shutdown_server'"),
        ("--source include/master-slave.inc\nCREATE TABLE t (a INT);\n--error S42000\nINSERT INTO t VALUES (1);\n", 3, "--error S42000"),
        ("CREATE TABLE t (a INT);\n--reap\nINSERT INTO t VALUES (1);\n", 2, "reap with no statement sent"),
        ("CREATE TABLE t (a INT);\neval INSERT INTO t VALUES ($MYSQLTEST_VARDIR);\nINSERT INTO t VALUES (1);\n", 2, "eval uses a variable whose value"),
        ("CREATE TABLE t (a INT);\nUSE other;\nINSERT INTO t VALUES (1);\nUSE test;\nINSERT INTO t VALUES (2);\n", 3, "runs in database other"),
        ("CREATE TABLE t (a INT);\n-- a comment line\n-- echo text\nINSERT INTO t VALUES (1);\n--nosuchcommand\n", 5, "mysqltest command 'nosuchcommand'"),
        ("CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\nINSERT INTO other.t VALUES (1);\nINSERT INTO test.t VALUES (2);\n", 3, "names tables of database other"),
    ],
    ids=["truncated", "unknown-command", "sqlstate", "reap-without-send", "undefined-variable", "other-database", "dash-comment", "qualified-name"],
)
def test_what_is_not_understood_is_listed_and_the_rest_imports(tmp_path: Path, text: str, line: int, reason: str) -> None:
    path = tmp_path / "bad.test"
    path.write_text(text)
    capture = import_mysqltest(path)
    assert [(skip.origin.line, reason in skip.reason) for skip in capture.skipped] == [(line, True)]
    assert capture.statements or capture.master_schema


@pytest.mark.parametrize(("content", "message"), [(b"\x00\x01\x02", "binary data"), (b"--echo nothing\n", "no statement to import")])
def test_a_file_with_nothing_to_import_is_refused(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "empty.test"
    path.write_bytes(content)
    with pytest.raises(ImportFailure, match=message):
        import_mysqltest(path)


def _declared_errors(scenario: Scenario) -> dict[int, int]:
    """The error each step declares first, as the code the harness writes with --error."""
    def code(error: int | str) -> int:
        return error if isinstance(error, int) else ErrorCode[error].value[0]

    return {step.index: code(step.errors[0]) for step in scenario.steps if step.errors and step.errors[0] != 0}


# Bundled scenarios about databases other than the one a scenario models.
OTHER_DATABASES = {"table-name-case-and-databases"}


@pytest.mark.parametrize("scenario", BUNDLED, ids=[scenario.name for scenario in BUNDLED])
def test_a_written_mysqltest_file_imports_back_to_an_equivalent_scenario(tmp_path: Path, scenario: Scenario) -> None:
    variant = scenario.variants()[0]
    errors = _declared_errors(scenario)
    path = tmp_path / f"{scenario.name}.test"
    path.write_text(scenario_to_mysqltest(scenario, variant, errors))
    capture = import_mysqltest(path, keep_reads=True)
    [imported] = build_scenarios(capture, tmp_path, scenario.name)
    back = imported.scenario
    names = _connection_names(scenario)
    if scenario.name in OTHER_DATABASES:
        # The import keeps one database: what creates, drops or uses another is left out.
        imported = [step.sql for step in back.steps]
        left_out = [step.sql for step in scenario.steps if step.sql not in imported]
        assert left_out and all(re.match(r"(CREATE|DROP) DATABASE|USE ", sql, re.IGNORECASE) for sql in left_out), left_out
        return
    assert not capture.skipped
    assert back.master_schema == scenario.master_schema and back.slave_schema == scenario.slave_schema
    # Written without the run's waits, each statement is waited for where it is sent: a reap
    # step comes back right after a statement that times out, wherever it was.
    reaped = [step.index for step in scenario.steps if errors.get(step.index) == ErrorCode.ER_LOCK_WAIT_TIMEOUT.code]
    written = [step for step in scenario.steps if not step.reap]
    assert [(step.session, step.sql, step.errors) for step in back.steps] == [
        item
        for step in written
        for item in [
            (names[step.session], step.sql.rstrip().removesuffix(";").rstrip(), (errors[step.index],) if step.index in errors else ()),
            *([(names[step.session], "", ())] if step.index in reaped else []),
        ]
    ]
    settings = {REGISTRY.lookup(name).name: value for name, value in variant.items() if name != "binlog_format" and not REGISTRY.lookup(name).read_only}
    # Both servers also get mtr's default configuration.
    assert {REGISTRY.lookup(name).name: value for name, value in back.settings.items()} == {**MTR_DEFAULT_SETTINGS, **settings}
    assert back.slave_settings == {**MTR_DEFAULT_SETTINGS, **scenario.slave_settings}
    assert back.matrix == {"binlog_format": (variant["binlog_format"],)}


DISCONNECT_TEST = """--source include/master-slave.inc
CREATE TABLE t (a INT) ENGINE=InnoDB;
--sync_slave_with_master
--connection master
--connect (con1,127.0.0.1,root,,test,$MASTER_MYPORT,)
BEGIN;
INSERT INTO t VALUES (1);
--disconnect con1
--connection master
--source include/wait_until_disconnected.inc
INSERT INTO t VALUES (2);
--connect (con1,127.0.0.1,root,,test,$MASTER_MYPORT,)
INSERT INTO t VALUES (3);
--disconnect con1
"""


def test_a_disconnect_becomes_a_step_that_ends_the_session(tmp_path: Path) -> None:
    path = tmp_path / "rpl_disconnect.test"
    path.write_text(DISCONNECT_TEST)
    [imported] = build_scenarios(import_mysqltest(path), tmp_path / "out", "rpl_disconnect")
    imported.write()
    scenario = load_scenario(imported.path)
    assert [(step.session, step.sql, step.disconnect) for step in scenario.steps] == [
        ("con1", "BEGIN", False),
        ("con1", "INSERT INTO t VALUES (1)", False),
        ("con1", "", True),
        ("master", "INSERT INTO t VALUES (2)", False),
        ("con1", "INSERT INTO t VALUES (3)", False),
    ]


def test_the_servers_option_files_become_settings_and_what_is_not_modelled_is_listed(tmp_path: Path) -> None:
    """mtr starts the servers with `t/NAME-master.opt` and `t/NAME-slave.opt`: variables the
    simulator models become settings, the binlog format the matrix, the rest a skipped line."""
    test = tmp_path / "t" / "binlog_opts.test"
    test.parent.mkdir()
    test.write_text("create table t1 (a int);\ninsert into t1 values (1);\n")
    test.with_name("binlog_opts-master.opt").write_text(
        "--default-storage-engine=MyISAM --binlog-direct-non-transactional-updates=FALSE\n"
        "--innodb_lock_wait_timeout=2 --binlog-format=row --loose-skip-sql-log-bin $SOME_PLUGIN_OPT --innodb-buffer-pool-size=64M\n"
    )
    test.with_name("binlog_opts-slave.opt").write_text("--default-storage-engine=MEMORY\n")
    capture = import_mysqltest(test)
    assert capture.settings["default_storage_engine"] == "MyISAM"
    assert capture.settings["binlog_direct_non_transactional_updates"] == "OFF" and capture.settings["sql_log_bin"] == "OFF"
    assert capture.slave_settings["default_storage_engine"] == "MEMORY"
    assert capture.matrix["binlog_format"] == ("ROW",)
    skipped = [str(line) for line in capture.skipped]
    assert capture.settings["innodb_lock_wait_timeout"] == "2"
    assert any("binlog_opts-master.opt:1: --innodb-buffer-pool-size=64M: not modelled" in line for line in skipped), skipped
    assert any("$SOME_PLUGIN_OPT: not an option" in line for line in skipped), skipped
    assert capture.replication is False


def test_statements_on_a_connection_never_opened_run_nowhere(tmp_path: Path) -> None:
    """A `connection` the test never opened (a server the import does not know) is listed,
    and so is each statement sent on it: none runs on the master in its place."""
    path = tmp_path / "nowhere.test"
    path.write_text("CREATE TABLE t (a INT);\n--connection nowhere\nINSERT INTO t VALUES (1);\n--connection default\nINSERT INTO t VALUES (2);\n")
    capture = import_mysqltest(path)
    assert [(skip.origin.line, skip.reason.split(",")[0].split(":")[0]) for skip in capture.skipped] == [
        (2, "connection nowhere was never opened"), (3, "statement on connection nowhere"),
    ]
    assert [statement.sql for statement in capture.statements] == ["CREATE TABLE t (a INT)", "INSERT INTO t VALUES (2)"]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("--let $rpl_topology= 1->2->3\n--source include/rpl_init.inc\n", "a replication topology of 3 servers ($rpl_topology=1->2->3)"),
        ("--let $rpl_server_count= 3\n--source include/rpl_init.inc\n", "a replication topology of 3 servers ($rpl_server_count=3)"),
        ("--source include/master-slave.inc\n--let $rpl_connection_name= s3\n--let $rpl_server_number= 3\n--source include/rpl_connect.inc\n", "a connection to server 3"),
    ],
)
def test_a_third_server_stops_the_import(tmp_path: Path, setup: str, message: str) -> None:
    path = tmp_path / "three.test"
    path.write_text(setup + "CREATE TABLE t (a INT);\n")
    with pytest.raises(ImportFailure, match=re.escape(message)):
        import_mysqltest(path)


REAP_TEST = """--source include/master-slave.inc
--connect (con1,localhost,root,,)
--connect (con2,localhost,root,,)
--connection master
CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB;
--sync_slave_with_master
--connection con1
BEGIN;
INSERT INTO t VALUES (1);
--connection con2
send INSERT INTO t VALUES (1);
--connection con1
INSERT INTO t VALUES (2);
--connection con2
--error ER_LOCK_WAIT_TIMEOUT
reap;
--connection con1
COMMIT;
"""


def test_a_reap_becomes_a_step_where_a_statement_still_waiting_times_out(tmp_path: Path) -> None:
    """The test waits at `reap` for con2's INSERT, which waits for con1's row lock until it
    times out: the reap is a step, and the INSERT's `--error` is its own."""
    path = tmp_path / "rpl_reap.test"
    path.write_text(REAP_TEST)
    [imported] = build_scenarios(import_mysqltest(path), tmp_path / "out", "rpl_reap")
    imported.write()
    scenario = load_scenario(imported.path)
    assert [(step.session, step.sql, step.errors, step.reap) for step in scenario.steps] == [
        ("con1", "BEGIN", (), False),
        ("con1", "INSERT INTO t VALUES (1)", (), False),
        ("con2", "INSERT INTO t VALUES (1)", ("ER_LOCK_WAIT_TIMEOUT",), False),
        ("con1", "INSERT INTO t VALUES (2)", (), False),
        ("con2", "", (), True),
        ("con1", "COMMIT", (), False),
    ]
    record = run_variant(scenario, scenario.variants()[0], MYSQL_80, tmp_path / "binlogs")
    assert [(step.error.code if step.error else None) for step in record.steps] == [None, None, 1205, None, None, None]
