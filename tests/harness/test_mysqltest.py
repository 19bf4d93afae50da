"""The mysqltest writer: the rpl includes, one connection per session, the steps in order
on their connections, expected errors, lock waits, and diff_tables for every table."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from harness.mysqltest import scenario_to_mysqltest, write_mysqltest
from scenarios.loader import load_scenario
from scenarios.model import Scenario, Step
from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import ROOT

SCENARIOS = ROOT / "scenarios"


def bundled(name: str) -> Scenario:
    return next(load_scenario(path) for path in SCENARIOS.glob(f"*/{name}.yaml"))


def queries(text: str) -> list[tuple[str, str]]:
    """(connection, statement) for each SQL statement mysqltest would send, in order."""
    sent: list[tuple[str, str]] = []
    connection, delimiter, pending = "default", ";", ""
    for line in text.splitlines():
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending and line.startswith("--"):
            command, _, argument = line[2:].partition(" ")
            if command == "connection":
                connection = argument
            elif command == "connect":
                connection = argument.strip("(").split(",")[0]
            elif command == "delimiter":
                delimiter = argument
            continue
        pending = f"{pending}\n{line}" if pending else line
        if pending.endswith(delimiter):
            sent.append((connection, pending[: -len(delimiter)]))
            pending = ""
    return sent


def test_a_bundled_scenario_becomes_an_rpl_test() -> None:
    scenario = bundled("unsafe-limit")

    text = scenario_to_mysqltest(scenario, {"binlog_format": "STATEMENT"})
    lines = text.splitlines()

    assert lines[0] == "# Scenario unsafe-limit, binlog_format=STATEMENT."
    assert lines.index("--source include/have_binlog_format_statement.inc") < lines.index("--source include/master-slave.inc")
    assert lines[-1] == "--source include/rpl_end.inc"
    assert queries(text) == [
        ("master", 'CALL mtr.add_suppression("Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT")'),
        ("master", "CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, c INT DEFAULT 0, PRIMARY KEY (a)) ENGINE=InnoDB"),
        ("master", "INSERT INTO t (a, b) VALUES (1, 20), (2, 10)"),
        ("slave", "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b)"),
        ("con1", "UPDATE t SET c = 1 LIMIT 1"),
        ("master", "DROP TABLE t"),
    ]
    slave_schema = lines.index("ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b);")
    assert lines[slave_schema - 2 : slave_schema] == ["--sync_slave_with_master", "--connection slave"]
    assert "--connect (con1,127.0.0.1,root,,test,$MASTER_MYPORT,)" in lines
    diff = lines.index("--let $diff_tables= master:test.t, slave:test.t")
    assert lines[diff + 1] == "--source include/diff_tables.inc"
    assert lines.index("--disconnect con1") < lines.index("--sync_slave_with_master", slave_schema) < diff


def test_two_sessions_and_two_tables() -> None:
    scenario = bundled("wl2687-interleaved-updates")

    text = scenario_to_mysqltest(scenario, {"binlog_format": "MIXED"})

    assert "--source include/have_binlog_format_mixed.inc" in text
    assert "add_suppression" not in text  # MIXED logs unsafe statements as rows, without a warning
    steps = [(connection, sql) for connection, sql in queries(text) if connection.startswith("con")]
    assert steps == [(step.session, step.sql) for step in scenario.steps]
    for table in ("innodb_t", "myisam_t"):
        assert f"--let $diff_tables= master:test.{table}, slave:test.{table}\n--source include/diff_tables.inc\n" in text
    assert ("master", "DROP TABLE innodb_t, myisam_t") in queries(text)


def test_semicolons_newlines_and_expected_errors() -> None:
    scenario = replace(
        bundled("unsafe-limit"),
        steps=(
            Step(1, "con1", "INSERT INTO t (a, b) VALUES (3, 1)"),
            Step(2, "con1", "INSERT INTO t (a, b, c) VALUES (3, 2, LENGTH('a;b|c'))"),
            Step(3, "con1", "UPDATE t\nSET c = 2\nWHERE a = 1"),
            Step(4, "con1", "DELETE FROM t;"),
        ),
    )

    text = scenario_to_mysqltest(scenario, {"binlog_format": "ROW"}, errors={2: 1062})

    assert "--delimiter //\n--error 1062\nINSERT INTO t (a, b, c) VALUES (3, 2, LENGTH('a;b|c'))//\n--delimiter ;\n" in text
    assert [sql for connection, sql in queries(text) if connection == "con1"] == [step.sql.rstrip(";") for step in scenario.steps]
    assert text.count("--error") == 1


def test_settings_per_session_and_on_the_slave() -> None:
    scenario = replace(
        bundled("unsafe-limit"),
        slave_settings={"slave_exec_mode": "IDEMPOTENT", "slave_transaction_retries": "3"},
        steps=(Step(1, "con1", "UPDATE t SET c = 1 LIMIT 1"), Step(2, "con2", "DELETE FROM t")),
    )
    variant = {"binlog_format": "ROW", "binlog_row_image": "MINIMAL", "tx_isolation": "READ-COMMITTED", "auto_increment_increment": "2"}

    mysql = scenario_to_mysqltest(scenario, variant)
    mariadb = scenario_to_mysqltest(scenario, variant, flavor=MARIADB_1011)

    settings = [
        "SET SESSION binlog_row_image = 'MINIMAL'",
        "SET SESSION transaction_isolation = 'READ-COMMITTED'",
        "SET SESSION auto_increment_increment = 2",
    ]
    for connection in ("master", "con1", "con2"):
        assert [sql for on, sql in queries(mysql) if on == connection][: len(settings)] == settings
    assert "SET SESSION tx_isolation = 'READ-COMMITTED';" in mariadb
    assert "binlog_format =" not in mysql
    assert (
        "--connection slave\n--source include/stop_slave.inc\n"
        "SET @saved_slave_exec_mode = @@GLOBAL.slave_exec_mode;\nSET GLOBAL slave_exec_mode = 'IDEMPOTENT';\n"
        "SET @saved_slave_transaction_retries = @@GLOBAL.slave_transaction_retries;\nSET GLOBAL slave_transaction_retries = 3;\n"
        "--source include/start_slave.inc\n"
    ) in mysql
    assert mysql.endswith(
        "--source include/stop_slave.inc\nSET GLOBAL slave_exec_mode = @saved_slave_exec_mode;\n"
        "SET GLOBAL slave_transaction_retries = @saved_slave_transaction_retries;\n"
        "--source include/start_slave.inc\n--source include/rpl_end.inc\n"
    )


def test_a_step_that_waits_for_a_lock_is_sent_and_reaped_after_the_step_it_waited_for() -> None:
    scenario = replace(
        bundled("blocked-update-innodb"),
        steps=bundled("blocked-update-innodb").steps + (Step(5, "con2", "DELETE FROM t WHERE a = 2"),),
    )
    # con2's UPDATE (step 3) waits for con1's COMMIT (step 4), and fails there; con2's
    # next step waits behind it in its session.
    text = scenario_to_mysqltest(scenario, {"binlog_format": "ROW"}, errors={3: 1213}, waits={3: 4})

    assert (
        "# Step 3\n--connection con2\n--send\nUPDATE t SET b = 2 WHERE a = 1;\n--connection master\n"
        "--let $wait_condition= SELECT COUNT(*) = 1 FROM information_schema.processlist WHERE id = $con2_id"
    ) in text
    assert "# Step 4\n--connection con1\nCOMMIT;\n\n# Step 3 ends\n--connection con2\n--error 1213\n--reap\n\n# Step 5\nDELETE FROM t WHERE a = 2;\n" in text
    assert "--let $con2_id= `SELECT CONNECTION_ID()`" in text


def test_tables_created_and_dropped_by_steps() -> None:
    scenario = replace(
        bundled("unsafe-limit"),
        steps=(
            Step(1, "con1", "CREATE TABLE u (a INT) ENGINE=InnoDB"),
            Step(2, "con1", "CREATE TEMPORARY TABLE tmp (a INT)"),
            Step(3, "con1", "CREATE TABLE v (a INT) ENGINE=InnoDB"),
            Step(4, "con1", "DROP TABLE v"),
            Step(5, "con1", "CREATE TABLE t (a INT)"),
        ),
    )

    text = scenario_to_mysqltest(scenario, {"binlog_format": "ROW"}, errors={5: 1050})

    diffs = [line for line in text.splitlines() if line.startswith("--let $diff_tables")]
    assert diffs == ["--let $diff_tables= master:test.t, slave:test.t", "--let $diff_tables= master:test.u, slave:test.u"]
    assert ("master", "DROP TABLE t, u") in queries(text)


def test_session_names_become_mtr_connection_names() -> None:
    scenario = replace(bundled("unsafe-limit"), steps=(Step(1, "master", "DELETE FROM t"), Step(2, "con 2", "DELETE FROM t")))

    text = scenario_to_mysqltest(scenario, {"binlog_format": "ROW"})

    assert [connection for connection, sql in queries(text) if sql == "DELETE FROM t"] == ["master2", "con_2"]


def test_write_mysqltest(tmp_path: Path) -> None:
    path = tmp_path / "t" / "rpl_finding.test"
    scenario = bundled("unsafe-limit")

    write_mysqltest(scenario, {"binlog_format": "STATEMENT"}, path, flavor=MYSQL_80)

    assert path.read_text() == scenario_to_mysqltest(scenario, {"binlog_format": "STATEMENT"})


def test_a_statement_that_timed_out_is_reaped_at_the_reap_step_with_its_error() -> None:
    scenario = bundled("lock-wait-timeout")
    # con2's UPDATE (step 6) waited until the reap step (8) and failed with 1205 there; its
    # next statement (7) queued behind it.
    text = scenario_to_mysqltest(scenario, {"binlog_format": "ROW"}, errors={6: 1205}, waits={6: 8, 7: 8})
    assert "# Step 6\n--send\nUPDATE t SET v = v + 100 WHERE id >= 1;\n" in text
    assert "# Step 6 ends\n--connection con2\n--error 1205\n--reap\n\n# Step 7\nUPDATE t SET v = 22 WHERE id = 2;\n" in text
    assert ("con2", "") not in queries(text)
