"""The session variables dump files and drivers set: what SET accepts, refuses and stores,
and what the statements logged after it carry (a Query event's flags2 and charset, a row
event's flags) for the slave to run them with."""

from __future__ import annotations

import pytest

from master_sim.master import Master
from server_sim.binlog.events import (
    NO_FOREIGN_KEY_CHECKS_F,
    OPTION_AUTO_IS_NULL,
    OPTION_NO_FOREIGN_KEY_CHECKS,
    OPTION_NOT_AUTOCOMMIT,
    OPTION_RELAXED_UNIQUE_CHECKS,
    RELAXED_UNIQUE_CHECKS_F,
    STMT_END_F,
    Query_log_event,
    Rows_log_event,
)
from server_sim.binlog.file import BinlogReader, read_binlog
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor

SCHEMA = ["CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, b INT) ENGINE=InnoDB"]


def _master(new_master, flavor: Flavor = MARIADB_1011, binlog_format: str = "STATEMENT") -> Master:
    return new_master(SCHEMA, binlog_format, flavor)


@pytest.mark.parametrize(
    ("sql", "error", "variables"),
    [
        ("SET FOREIGN_KEY_CHECKS=0", None, {"foreign_key_checks": "OFF"}),
        ("SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0", None, {"unique_checks": "OFF"}),
        ("/*!40014 SET FOREIGN_KEY_CHECKS=0 */", None, {"foreign_key_checks": "OFF"}),
        ("SET sql_auto_is_null = TRUE", None, {"sql_auto_is_null": "ON"}),
        ("SET foreign_key_checks = 2", 1231, {"foreign_key_checks": "ON"}),
        ("SET NAMES utf8mb4", None, {"character_set_client": "utf8mb4", "character_set_connection": "utf8mb4", "character_set_results": "utf8mb4", "collation_connection": "utf8mb4_general_ci"}),
        ("SET NAMES utf8 COLLATE utf8mb3_bin", None, {"character_set_client": "utf8mb3", "collation_connection": "utf8mb3_bin"}),
        ("SET NAMES utf8mb4 COLLATE latin1_bin", 1253, {"character_set_client": "utf8mb4"}),
        ("SET NAMES koi9", 1115, {"character_set_client": "utf8mb4"}),
        ("SET CHARACTER SET utf8mb4", None, {"character_set_client": "utf8mb4", "character_set_results": "utf8mb4", "character_set_connection": "latin1"}),
        ("SET character_set_results = NULL", None, {"character_set_results": "NULL"}),
        ("SET collation_connection = 'nope_ci'", 1273, {"collation_connection": "utf8mb4_general_ci"}),
        ("SET timestamp = 1500000000", None, {"timestamp": "1500000000"}),
        ("SET @@session.timestamp = 1500000000", None, {"timestamp": "1500000000"}),
        ("SET timestamp = 0", None, {"timestamp": ""}),
        ("SET timestamp = 'soon'", 1232, {"timestamp": ""}),
        ("SET insert_id = 7", None, {"insert_id": "7"}),
        ("SET insert_id = NULL", 1232, {"insert_id": "0"}),
        ("SET sql_mode = 'NO_SUCH_MODE'", 1231, {}),
        ("SET sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')", None, {"sql_mode": "NO_AUTO_VALUE_ON_ZERO,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"}),
        ("SET sql_mode = ''", None, {"sql_mode": ""}),  # non-strict mode (server_sim/lenient_values.py)
        ("SET sql_mode = 'STRICT_ALL_TABLES'", None, {"sql_mode": "STRICT_ALL_TABLES"}),
        ("SET sql_mode = 'ANSI_QUOTES'", 1235, {}),
        # Fractional seconds truncated instead of rounded (MySQL's mode; MariaDB's opposite TIME_ROUND_FRACTIONAL): not modelled.
        ("SET sql_mode = CONCAT(@@sql_mode, ',TIME_TRUNCATE_FRACTIONAL')", 1235, {}),
        ("SET sql_mode = CONCAT(@@sql_mode, ',TIME_ROUND_FRACTIONAL')", 1235, {}),
        ("SET time_zone = '+00:00'", None, {"time_zone": "+00:00"}),
        ("SET time_zone = '+02:00'", 1235, {"time_zone": "SYSTEM"}),
        ("SET time_zone = '-0:00'", None, {"time_zone": "+00:00"}),
        # Named zones need the mysql.time_zone tables, empty on a server as installed.
        ("SET time_zone = 'Europe/Paris'", 1298, {"time_zone": "SYSTEM"}),
        ("SET time_zone = 'UTC'", 1298, {"time_zone": "SYSTEM"}),
        ("SET time_zone = '+14:01'", 1298, {"time_zone": "SYSTEM"}),
        ("SET time_zone = '+1:75'", 1298, {"time_zone": "SYSTEM"}),
        ("SET lc_time_names = 'de_DE'", 1235, {"lc_time_names": "en_US"}),
        ("SET sql_select_limit = 1", 1235, {}),
        ("SET max_execution_time = 10", 1235, {}),
        ("SET no_such_variable = 1", 1193, {}),
    ],
)
def test_set(new_master, sql: str, error: int | None, variables: dict[str, str]) -> None:
    master = _master(new_master)
    result = master.submit("con1", sql)
    assert (result.error.code if result.error else None) == error, result.error
    session = master.sessions["con1"].session.variables
    assert {name: session[name] for name in variables} == variables


@pytest.mark.parametrize(
    ("sql", "error", "sql_mode"),
    [
        # mysqldump's and legacy applications' settings drop ONLY_FULL_GROUP_BY and the zero-date members.
        ("SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'", None, "NO_AUTO_VALUE_ON_ZERO"),
        ("SET sql_mode = ''", None, ""),
        ("SET sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION'", None, "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"),
        # The frameworks' way: a REPLACE() sqlglot reads as a statement unless parenthesized.
        ("SET sql_mode = REPLACE(@@sql_mode, 'ONLY_FULL_GROUP_BY,', '')", None, "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"),
        ("SET SESSION sql_mode = (SELECT REPLACE(@@sql_mode, 'ONLY_FULL_GROUP_BY', ''))", None, "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"),
        ("SET @m = 1, sql_mode = REPLACE(REPLACE(@@sql_mode, 'NO_ZERO_DATE,', ''), 'NO_ZERO_IN_DATE,', '')", None, "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"),
        ("SET sql_mode = 'ANSI_QUOTES'", 1235, MYSQL_80.default_sql_mode),
    ],
)
def test_set_sql_mode_on_mysql(new_master, sql: str, error: int | None, sql_mode: str) -> None:
    master = _master(new_master, MYSQL_80)
    result = master.submit("con1", sql)
    assert (result.error.code if result.error else None) == error, result.error
    assert master.sessions["con1"].session.variables["sql_mode"] == sql_mode


@pytest.mark.parametrize(
    ("flavor", "sql_mode", "warns"),
    [
        (MYSQL_80, "STRICT_ALL_TABLES", True),  # strict mode without its three future members
        (MYSQL_80, "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION", True),
        (MYSQL_80, "ERROR_FOR_DIVISION_BY_ZERO", True),  # a member without strict mode
        (MYSQL_80, "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO", False),
        (MYSQL_80, "NO_AUTO_VALUE_ON_ZERO", False),
        (MYSQL_80, "", False),
        (MARIADB_1011, "STRICT_ALL_TABLES", False),
    ],
)
def test_mysql_warns_where_sql_mode_splits_strict_mode_from_its_members(new_master, flavor: Flavor, sql_mode: str, warns: bool) -> None:
    """MySQL 8.0's Warning 3135 (sys_vars.cc, check_sub_modes_of_strict_mode); binlog_unsafe.result shows it."""
    master = _master(new_master, flavor)
    result = master.submit("con1", f"SET SESSION sql_mode = '{sql_mode}'")
    assert result.error is None, result.error
    assert [(n.level, n.code) for n in result.notes] == ([("Warning", 3135)] if warns else [])


def _rows(master: Master) -> list[tuple]:
    return sorted(row[1:] for row in master.storage.rows(master.server.catalog.get("t")))


def _logged(master: Master, kind: type) -> list:
    return [p.event for p in read_binlog(master.binlog_path) if isinstance(p.event, kind)]


@pytest.mark.parametrize(
    ("settings", "flags2"),
    [
        ([], 0),
        (["SET foreign_key_checks = 0"], OPTION_NO_FOREIGN_KEY_CHECKS),
        (["SET unique_checks = 0"], OPTION_RELAXED_UNIQUE_CHECKS),
        (["SET sql_auto_is_null = 1"], OPTION_AUTO_IS_NULL),
        (["SET autocommit = 0"], OPTION_NOT_AUTOCOMMIT),
        (["SET foreign_key_checks = 0, unique_checks = 0", "SET foreign_key_checks = 1"], OPTION_RELAXED_UNIQUE_CHECKS),
    ],
)
def test_a_logged_statement_carries_the_sessions_option_bits(new_master, settings: list[str], flags2: int) -> None:
    master = _master(new_master)
    for sql in [*settings, "INSERT INTO t VALUES (1, 1)", "COMMIT"]:
        assert master.submit("con1", sql).error is None
    master.finish()
    (insert,) = [e for e in _logged(master, Query_log_event) if e.query.startswith("INSERT")]
    assert insert.flags2 == flags2


@pytest.mark.parametrize(
    ("flavor", "settings", "charset"),
    [
        (MARIADB_1011, [], (45, 45, 8)),  # a client's utf8mb4 connection to a latin1 server
        (MARIADB_1011, ["SET NAMES latin1"], (8, 8, 8)),
        (MARIADB_1011, ["SET NAMES utf8mb4"], (45, 45, 8)),
        (MARIADB_1011, ["SET NAMES utf8mb4 COLLATE utf8mb4_bin"], (45, 46, 8)),
        (MYSQL_80, [], (255, 255, 255)),
        (MYSQL_80, ["SET NAMES latin1"], (8, 8, 255)),
        (MYSQL_80, ["SET character_set_client = 'binary'"], (63, 255, 255)),
    ],
)
def test_a_logged_statement_carries_the_sessions_character_sets(new_master, flavor: Flavor, settings: list[str], charset: tuple[int, int, int]) -> None:
    master = _master(new_master, flavor)
    for sql in [*settings, "INSERT INTO t VALUES (1, 1)"]:
        assert master.submit("con1", sql).error is None
    master.finish()
    (insert,) = [e for e in _logged(master, Query_log_event) if e.query.startswith("INSERT")]
    assert insert.charset == charset


@pytest.mark.parametrize(
    ("settings", "flags"),
    [
        ([], STMT_END_F),
        (["SET foreign_key_checks = 0"], STMT_END_F | NO_FOREIGN_KEY_CHECKS_F),
        (["SET unique_checks = 0"], STMT_END_F | RELAXED_UNIQUE_CHECKS_F),
    ],
)
def test_row_events_carry_the_checks_switched_off(new_master, settings: list[str], flags: int) -> None:
    master = _master(new_master, binlog_format="ROW")
    for sql in [*settings, "INSERT INTO t VALUES (1, 1)"]:
        assert master.submit("con1", sql).error is None
    master.finish()
    assert [e.rows_flags for e in _logged(master, Rows_log_event)] == [flags]


@pytest.mark.parametrize(
    ("steps", "rows"),
    [
        (["SET insert_id = 100", "INSERT INTO t (b) VALUES (1), (2)", "INSERT INTO t (b) VALUES (3)"], [(100, 1), (101, 2), (102, 3)]),
        (["SET insert_id = 100", "UPDATE t SET b = 0", "INSERT INTO t VALUES (5, 1)", "INSERT INTO t (b) VALUES (2)"], [(5, 1), (100, 2)]),
        (["INSERT INTO t VALUES ()", "INSERT INTO t () VALUES (), ()"], [(1, None), (2, None), (3, None)]),
        (["INSERT INTO t VALUES (0, 1)"], [(1, 1)]),
        (["SET sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')", "INSERT INTO t VALUES (0, 1)"], [(0, 1)]),
    ],
)
def test_auto_increment_settings(new_master, steps: list[str], rows: list[tuple]) -> None:
    master = _master(new_master)
    for sql in steps:
        assert master.submit("con1", sql).error is None, sql
    assert _rows(master) == rows


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("INSERT INTO t (b) VALUES ()", 1136),
        ("INSERT INTO t VALUES (), (1, 2)", 1136),
        ("INSERT INTO t VALUES (1, 2), ()", 1136),
    ],
)
def test_values_lists_that_are_not_all_defaults(new_master, sql: str, error: int) -> None:
    assert _master(new_master).submit("con1", sql).error.code == error


def test_set_timestamp_fixes_the_statement_time_and_the_event_time(new_master) -> None:
    master = _master(new_master)
    for sql in ["SET timestamp = 1500000000", "INSERT INTO t VALUES (1, UNIX_TIMESTAMP())", "SET timestamp = DEFAULT", "INSERT INTO t VALUES (2, 0)"]:
        assert master.submit("con1", sql).error is None
    master.finish()
    fixed, clock = [e for e in _logged(master, Query_log_event) if e.query.startswith("INSERT")]
    assert fixed.timestamp == 1500000000 and clock.timestamp > 1700000000
    assert _rows(master)[0] == (1, 1500000000)


@pytest.mark.parametrize(
    ("setting", "sql", "error"),
    [
        ("SET sql_auto_is_null = 0", "SELECT * FROM t WHERE id IS NULL", None),
        ("SET sql_auto_is_null = 1", "SELECT * FROM t WHERE id IS NULL", 1235),  # the last insert id's row: not modelled
        ("SET sql_auto_is_null = 1", "SELECT * FROM t WHERE b IS NULL", None),
        ("SET sql_auto_is_null = 1", "DELETE FROM t WHERE id IS NULL", 1235),
    ],
)
def test_sql_auto_is_null_is_refused_where_it_changes_a_statement(new_master, setting: str, sql: str, error: int | None) -> None:
    master = _master(new_master)
    for statement in [setting, "INSERT INTO t (b) VALUES (1)"]:
        assert master.submit("con1", statement).error is None
    result = master.submit("con1", sql)
    assert (result.error.code if result.error else None) == error


@pytest.mark.parametrize(
    ("setting", "sql", "error"),
    [
        ("SET NAMES utf8mb4", "INSERT INTO t VALUES (1, CHAR_LENGTH('é'))", None),
        ("SET NAMES latin1", "INSERT INTO t VALUES (1, 1)", None),
        ("SET NAMES latin1", "INSERT INTO t VALUES (1, CHAR_LENGTH('é'))", 1235),  # the server would read the bytes as latin1
    ],
)
def test_text_the_client_character_set_would_read_differently_is_refused(new_master, setting: str, sql: str, error: int | None) -> None:
    master = _master(new_master)
    assert master.submit("con1", setting).error is None
    result = master.submit("con1", sql)
    assert (result.error.code if result.error else None) == error


@pytest.mark.parametrize(
    ("sql", "error", "value", "warning"),
    [
        ("SET auto_increment_increment = 0", None, "1", "Truncated incorrect auto_increment_increment value: '0'"),
        ("SET auto_increment_increment = -5", None, "1", "Truncated incorrect auto_increment_increment value: '-5'"),
        ("SET auto_increment_increment = 70000", None, "65535", "Truncated incorrect auto_increment_increment value: '70000'"),
        ("SET auto_increment_increment = 65535", None, "65535", None),
        ("SET auto_increment_increment = 1.5", 1232, "1", None),
        ("SET auto_increment_increment = 'a'", 1232, "1", None),
        ("SET auto_increment_offset = 0", None, "1", "Truncated incorrect auto_increment_offset value: '0'"),
        ("SET auto_increment_offset = 99999", None, "65535", "Truncated incorrect auto_increment_offset value: '99999'"),
    ],
)
def test_an_auto_increment_variable_is_clamped_to_its_range_with_warning_1292(new_master, sql: str, error: int | None, value: str, warning: str | None) -> None:
    master = _master(new_master)

    result = master.submit("con1", sql)

    assert (result.error.code if result.error else None) == error
    name = sql.split()[1]
    assert master.sessions["con1"].session.variables[name] == value
    assert [(note.code, note.message) for note in result.notes] == ([(1292, warning)] if warning else [])


@pytest.mark.parametrize(
    ("flavor", "sql", "error"),
    [
        (MYSQL_80, "SET GLOBAL log_output = 'TABLE,FILE'", None),
        (MARIADB_1011, "SET GLOBAL log_output = 'NONE'", None),
        (MYSQL_80, "SET log_output = 'FILE'", 1229),  # global only
        (MYSQL_80, "SET GLOBAL log_output = 'DISK'", 1231),
        (MYSQL_80, "SET GLOBAL log_error_verbosity = 3", None),
        (MARIADB_1011, "SET GLOBAL log_error_verbosity = 3", 1193),  # MariaDB has log_warnings
        (MYSQL_80, "SET GLOBAL init_replica = 'SET @x = 1'", None),  # 8.0.26's name of init_slave
        (MYSQL_80, "SET SESSION replica_exec_mode = 'IDEMPOTENT'", None),
        (MARIADB_1011, "SET GLOBAL init_replica = ''", 1193),
        (MYSQL_80, "SET GLOBAL general_log = ON", 1235),  # the log itself is not modelled
    ],
)
def test_server_log_and_applier_variables(new_master, flavor: Flavor, sql: str, error: int | None) -> None:
    """The logs' own settings, which no client or replica sees while the logs are off, and
    MySQL 8.0.26's replica_* names of the applier's variables."""
    result = new_master(SCHEMA, "STATEMENT", flavor).submit("con1", sql)
    assert (result.error.code if result.error else None) == error


@pytest.mark.parametrize("name", ["identity", "last_insert_id"])
def test_identity_and_last_insert_id_read_last_insert_id_and_carry_it(new_master, name: str) -> None:
    """@@identity and @@last_insert_id are LAST_INSERT_ID(): the statement that reads one is
    logged after an Intvar LAST_INSERT_ID event, as one calling the function is."""
    master = new_master([*SCHEMA, "CREATE TABLE r (x BIGINT) ENGINE=InnoDB"], "STATEMENT", MYSQL_80)
    assert master.submit("con1", "INSERT INTO t (b) VALUES (7), (8)").error is None
    after = master.writer.position
    assert master.submit("con1", f"INSERT INTO r VALUES (@@session.{name})").error is None
    assert master.submit("con1", f"SELECT @@global.{name}").error.code == 1238  # a SESSION variable
    assert master.submit("con1", f"SET {name} = 5").error.code == 1235
    logged = [(positioned.event.type_name, positioned.event.info()) for positioned in BinlogReader(master.binlog_path).events() if positioned.end_log_pos > after]
    assert [event for event in logged if event[0] in ("Intvar", "Query")] == [
        ("Query", "BEGIN"), ("Intvar", "LAST_INSERT_ID=1"), ("Query", f"INSERT INTO r VALUES (@@session.{name})"),
    ]
