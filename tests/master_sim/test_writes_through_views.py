"""Statements through views on the master: what they read and write, their unsafe reasons
and how they are logged per format (the oracle scenario views checks them on MariaDB 10.11)."""

from __future__ import annotations

import pytest

from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MARIADB_1011, MYSQL_80

SCHEMA = [
    "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "CREATE TABLE k (a INT PRIMARY KEY, id VARCHAR(36)) ENGINE=InnoDB",
    "INSERT INTO t VALUES (1, 1), (2, 20)",
    "CREATE VIEW v AS SELECT a, b FROM t WHERE b > 0",
    "CREATE VIEW c (x, y) AS SELECT a, b FROM v WHERE b < 10 WITH CASCADED CHECK OPTION",
    "CREATE VIEW l AS SELECT a, b FROM v WHERE b < 10 WITH LOCAL CHECK OPTION",
    "CREATE VIEW u AS SELECT a, UUID() AS id FROM t",
    "CREATE VIEW g AS SELECT COUNT(*) AS n FROM t",
]


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("INSERT INTO v VALUES (3, 3)", [(1, 1), (2, 20), (3, 3)]),
        ("INSERT INTO c (x, y) VALUES (3, 3)", [(1, 1), (2, 20), (3, 3)]),
        ("INSERT INTO l VALUES (3, -3)", [(1, 1), (2, 20), (3, -3)]),  # LOCAL: l's own WHERE only
        ("UPDATE v SET b = b + 1 WHERE a > 0", [(1, 2), (2, 21)]),
        ("UPDATE c SET y = 5", [(1, 5), (2, 20)]),  # only the rows c shows
        ("DELETE FROM c", [(2, 20)]),
        ("UPDATE v AS x SET x.b = 7 WHERE x.a = 2", [(1, 1), (2, 7)]),
    ],
)
def test_writes_through_a_view_change_the_base_table(new_master, sql: str, rows: list[tuple]) -> None:
    master = new_master(SCHEMA, "ROW", MARIADB_1011)
    result = master.submit("con1", sql, 1)
    master.finish()
    assert result.error is None
    assert sorted(master.server.dump()["t"][1]) == rows


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("INSERT INTO c (x, y) VALUES (3, 30)", 1369),
        ("INSERT INTO c (x, y) VALUES (3, -3)", 1369),  # CASCADED: v's WHERE too
        ("UPDATE c SET y = 50", 1369),
        ("INSERT INTO g VALUES (1)", 1471),
        ("UPDATE g SET n = 1", 1288),
        ("DELETE FROM u", 1288),
        ("INSERT INTO u (a) VALUES (5)", 1471),
        ("INSERT INTO v (nosuch) VALUES (5)", 1054),
        ("DROP TABLE v", 1965),
        ("DROP VIEW t", 4092),
        ("CREATE VIEW v AS SELECT 1", 1050),
        ("ALTER VIEW nosuch AS SELECT 1", 1146),
        ("INSERT IGNORE INTO c VALUES (3, 30)", 1235),
    ],
)
def test_errors(new_master, sql: str, code: int) -> None:
    master = new_master(SCHEMA, "ROW", MARIADB_1011)
    result = master.submit("con1", sql, 1)
    master.finish()
    assert result.error is not None and result.error.code == code


@pytest.mark.parametrize(("flavor", "code"), [(MARIADB_1011, 4092), (MYSQL_80, 1051)])
def test_drop_view_of_a_missing_view_per_flavor(new_master, flavor, code: int) -> None:
    master = new_master(SCHEMA[:1], "ROW", flavor)
    result = master.submit("con1", "DROP VIEW nosuch", 1)
    master.finish()
    assert result.error.code == code


def test_a_view_whose_table_is_gone_is_invalid(new_master) -> None:
    master = new_master(SCHEMA, "ROW", MARIADB_1011)
    master.submit("con1", "DROP TABLE k", 1)
    master.submit("con1", "CREATE VIEW w AS SELECT a FROM k", 2)  # 1146: k is gone
    assert master.submit("con1", "CREATE TABLE k (a INT)", 3).error is None
    assert master.submit("con1", "CREATE VIEW w AS SELECT a FROM k", 4).error is None
    master.submit("con1", "DROP TABLE k", 5)
    selected = master.submit("con1", "SELECT * FROM w", 6)
    master.finish()
    assert selected.error.code == 1356


@pytest.mark.parametrize(("binlog_format", "logged_as"), [("STATEMENT", "STATEMENT"), ("MIXED", "ROW"), ("ROW", "ROW")])
def test_uuid_through_a_view_makes_the_statement_unsafe(new_master, binlog_format: str, logged_as: str) -> None:
    master = new_master(SCHEMA, binlog_format, MARIADB_1011)
    result = master.submit("con1", "INSERT INTO k SELECT a, id FROM u", 1)
    master.finish()
    assert (result.unsafe, result.logged_as) == (["SYSTEM_FUNCTION"], logged_as)


def test_statement_format_logs_the_write_as_written(new_master) -> None:
    master = new_master(SCHEMA, "STATEMENT", MARIADB_1011)
    master.submit("con1", "UPDATE v SET b = 3 WHERE a = 1", 1)
    master.finish()
    queries = [p.event.query for p in read_binlog(master.binlog_path) if isinstance(p.event, Query_log_event)]
    assert "UPDATE v SET b = 3 WHERE a = 1" in queries
    assert "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS SELECT a, b FROM t WHERE b > 0" in queries


@pytest.mark.parametrize("flavor", [MARIADB_1011, MYSQL_80])
@pytest.mark.parametrize(("binlog_format", "logging_format"), [("STATEMENT", "STATEMENT"), ("ROW", "ROW")])
def test_explain_shows_each_views_own_unsafe_reasons(flavor, binlog_format: str, logging_format: str) -> None:
    from master_sim.explain import explain

    schema = [*SCHEMA[:2], SCHEMA[6], "CREATE VIEW w AS SELECT * FROM u"]
    explained = explain("INSERT INTO k SELECT a, id FROM w", flavor, schema, {"binlog_format": binlog_format}, [])
    assert [(use.name, use.unsafe) for use in explained.views] == [("w", []), ("u", ["SYSTEM_FUNCTION"])]
    assert [reason.reason for reason in explained.unsafe] == ["SYSTEM_FUNCTION"] and explained.logging_format == logging_format
    assert [use.table for use in explained.reads] == ["k", "t"]


@pytest.mark.parametrize(
    ("sql", "code", "logged"),
    [
        ("DROP VIEW v, nosuch", 4092, True),  # v went: logged with the error
        ("DROP VIEW nosuch, v", 4092, True),
        ("DROP VIEW nosuch", 4092, False),
        ("DROP VIEW IF EXISTS nosuch", None, True),
    ],
)
def test_drop_view_is_logged_once_a_view_went(new_master, sql: str, code: int | None, logged: bool) -> None:
    master = new_master(SCHEMA, "ROW", MARIADB_1011)
    result = master.submit("con1", sql, 1)
    master.finish()
    assert (result.error.code if result.error else None, result.logged_as) == (code, "STATEMENT" if logged else "none")


@pytest.mark.parametrize(("sql", "code", "warnings"), [("SHOW CREATE VIEW v", None, []), ("SHOW CREATE VIEW t", 1347, []), ("SHOW CREATE VIEW nosuch", 1146, []), ("SHOW COLUMNS FROM v", None, []), ("SHOW CREATE VIEW gone", None, [1356])])
def test_show_create_view(new_master, sql: str, code: int | None, warnings: list[int]) -> None:
    master = new_master([*SCHEMA, "CREATE TABLE x (a INT)", "CREATE VIEW gone AS SELECT a FROM x", "DROP TABLE x"], "ROW", MARIADB_1011)
    result = master.submit("con1", sql, 1)
    master.finish()
    assert (result.error.code if result.error else None, [n.code for n in result.notes]) == (code, warnings)


def test_check_option_stops_at_the_failing_row_of_a_non_transactional_table(new_master) -> None:
    master = new_master(["CREATE TABLE m (a INT PRIMARY KEY, b INT) ENGINE=MyISAM", "CREATE VIEW mv AS SELECT a, b FROM m WHERE b < 10 WITH CHECK OPTION"], "STATEMENT", MARIADB_1011)
    result = master.submit("con1", "INSERT INTO mv VALUES (1, 1), (2, 50), (3, 3)", 1)
    master.finish()
    assert result.error.code == 1369 and result.logged_as == "STATEMENT"
    assert master.server.dump()["m"][1] == [(1, 1)]


@pytest.mark.parametrize(
    ("view", "sql", "code"),
    [
        ("SELECT a, b, RAND() AS r FROM t", "UPDATE x SET b = 1", 1288),
        ("SELECT a, b, UUID_SHORT() AS r FROM t", "DELETE FROM x", 1288),
        ("SELECT a, b FROM t WHERE b < RAND() * 100", "UPDATE x SET b = 1", 1288),
        ("SELECT a, b FROM t WHERE a IN (SELECT a FROM t)", "UPDATE x SET b = 1", 1288),
        ("SELECT a, b FROM t LIMIT 5", "UPDATE x SET b = 1", 1288),
        ("SELECT a, b FROM t UNION SELECT a, b FROM t", "DELETE FROM x", 1288),
        ("SELECT DISTINCT a, b FROM t", "DELETE FROM x", 1288),
        ("SELECT a, b FROM t GROUP BY a, b", "UPDATE x SET b = 1", 1288),
        ("SELECT 1 AS one", "INSERT INTO x VALUES (1)", 1471),
        ("SELECT a, a AS a2, b FROM t", "INSERT INTO x (a, a2) VALUES (7, 7)", 1471),
        ("SELECT a, b, (SELECT 1) AS one FROM t", "INSERT INTO x (a, b) VALUES (7, 7)", 1471),
        ("SELECT a, b + 1 AS bb FROM t", "UPDATE x SET bb = 1", 1348),
        ("SELECT a, b, SYSDATE() AS s FROM t", "UPDATE x SET b = 1", None),
        ("SELECT a, b, NOW() AS s FROM t", "UPDATE x SET b = 1", None),
        ("SELECT a, b, (SELECT 1) AS one FROM t", "UPDATE x SET b = 1", None),
        ("SELECT a, a AS a2, b FROM t", "INSERT INTO x (a, b) VALUES (7, 7)", None),
        ("SELECT a, a AS a2, b FROM t", "UPDATE x SET a2 = 9 WHERE a = 1", None),
    ],
)
def test_which_views_take_writes(new_master, view: str, sql: str, code: int | None) -> None:
    master = new_master([*SCHEMA[:3], f"CREATE VIEW x AS {view}"], "ROW", MARIADB_1011)
    result = master.submit("con1", sql, 1)
    master.finish()
    assert (result.error.code if result.error else None) == code


def test_the_unsafe_calls_of_a_view_written_through_are_the_statements(new_master) -> None:
    master = new_master([*SCHEMA[:3], "CREATE VIEW x AS SELECT a, b, SYSDATE() AS s FROM t"], "STATEMENT", MARIADB_1011)
    result = master.submit("con1", "UPDATE x SET b = 1", 1)
    master.finish()
    assert (result.unsafe, [note.code for note in result.notes]) == (["SYSTEM_FUNCTION"], [1592])


def test_a_star_view_keeps_the_columns_it_was_created_with(new_master) -> None:
    master = new_master([*SCHEMA[:3], "CREATE VIEW x AS SELECT * FROM t", "ALTER TABLE t ADD COLUMN c INT"], "ROW", MARIADB_1011)
    inserted = master.submit("con1", "INSERT INTO x VALUES (5, 5)", 1)
    copied = master.submit("con1", "INSERT INTO k SELECT * FROM x WHERE a = 5", 2)
    master.finish()
    assert inserted.error is None and copied.error is None
    assert master.server.dump()["k"][1] == [(5, "5")]


def test_create_view_with_rand_is_logged_after_a_rand_event(new_master) -> None:
    from server_sim.binlog.events import Rand_log_event

    master = new_master(SCHEMA[:1], "ROW", MARIADB_1011)
    master.submit("con1", "CREATE VIEW r AS SELECT a, RAND() AS x FROM t", 1)
    master.finish()
    events = [p.event for p in read_binlog(master.binlog_path)]
    created = next(i for i, e in enumerate(events) if isinstance(e, Query_log_event) and "VIEW `r`" in e.query)
    assert isinstance(events[created - 1], Rand_log_event)


NESTED = [
    "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "CREATE VIEW inner_local AS SELECT a, b FROM t WHERE b > 0 WITH LOCAL CHECK OPTION",
    "CREATE VIEW outer_plain AS SELECT a, b FROM inner_local WHERE b < 100",
    "CREATE VIEW outer_local AS SELECT a, b FROM inner_local WHERE b < 100 WITH LOCAL CHECK OPTION",
    "CREATE VIEW plain AS SELECT a, b FROM t WHERE b > 0",
    "CREATE VIEW over_plain AS SELECT a, b FROM plain WHERE b < 100 WITH LOCAL CHECK OPTION",
    "CREATE VIEW cascaded AS SELECT a, b FROM plain WHERE b < 100 WITH CASCADED CHECK OPTION",
]


@pytest.mark.parametrize(
    ("flavor", "sql", "code"),
    [
        # MariaDB: only the named view's option counts (checked on 10.11 by views.yaml).
        (MARIADB_1011, "INSERT INTO outer_plain VALUES (1, -1)", None),
        (MARIADB_1011, "INSERT INTO outer_local VALUES (1, -1)", None),
        (MARIADB_1011, "INSERT INTO over_plain VALUES (1, -1)", None),
        (MARIADB_1011, "INSERT INTO cascaded VALUES (1, -1)", 1369),
        (MARIADB_1011, "INSERT INTO outer_local VALUES (1, 200)", 1369),
        # MySQL: the underlying views' options too (its manual's rules for LOCAL and CASCADED).
        (MYSQL_80, "INSERT INTO outer_plain VALUES (1, -1)", 1369),
        (MYSQL_80, "INSERT INTO outer_local VALUES (1, -1)", 1369),
        (MYSQL_80, "INSERT INTO over_plain VALUES (1, -1)", None),
        (MYSQL_80, "INSERT INTO cascaded VALUES (1, -1)", 1369),
        (MYSQL_80, "INSERT INTO outer_plain VALUES (1, 200)", None),
    ],
)
def test_check_option_through_nested_views_per_flavor(new_master, flavor, sql: str, code: int | None) -> None:
    master = new_master(NESTED, "ROW", flavor)
    result = master.submit("con1", sql, 1)
    master.finish()
    assert (result.error.code if result.error else None) == code


@pytest.mark.parametrize(("flavor", "message"), [(MARIADB_1011, "CHECK OPTION failed `test`.`cascaded`"), (MYSQL_80, "CHECK OPTION failed 'test.cascaded'")])
def test_check_option_message_per_flavor(new_master, flavor, message: str) -> None:
    master = new_master(NESTED, "ROW", flavor)
    result = master.submit("con1", "INSERT INTO cascaded VALUES (1, -1)", 1)
    master.finish()
    assert result.error.message == message


@pytest.mark.parametrize(("flavor", "code", "left"), [(MARIADB_1011, 4092, []), (MYSQL_80, 1051, ["v"])])
def test_drop_view_with_a_missing_name_per_flavor(new_master, flavor, code: int, left: list[str]) -> None:
    master = new_master(SCHEMA[:1] + ["CREATE VIEW v AS SELECT a FROM t"], "ROW", flavor)
    result = master.submit("con1", "DROP VIEW v, nosuch", 1)
    master.finish()
    assert result.error.code == code and list(master.server.catalog.views) == left


@pytest.mark.parametrize(
    ("sql", "code", "notes"),
    [
        ("CREATE TABLE v (a INT)", 1050, []),
        ("CREATE TABLE IF NOT EXISTS v (a INT)", None, [1050]),
        ("CREATE TABLE copy AS SELECT a, b FROM v", 1235, []),
        ("CREATE TEMPORARY TABLE v (a INT)", None, []),  # a temporary table may shadow it
    ],
)
def test_create_table_and_views(new_master, sql: str, code: int | None, notes: list[int]) -> None:
    master = new_master(SCHEMA, "ROW", MARIADB_1011)
    result = master.submit("con1", sql, 1)
    master.finish()
    assert (result.error.code if result.error else None, [n.code for n in result.notes]) == (code, notes)


def test_a_trigger_body_that_uses_a_view_is_refused(new_master) -> None:
    schema = [*SCHEMA[:2], "CREATE TABLE log (a INT) ENGINE=InnoDB", "CREATE VIEW lv AS SELECT a FROM log", "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO lv VALUES (NEW.a)"]
    master = new_master(schema, "ROW", MARIADB_1011)
    result = master.submit("con1", "INSERT INTO t VALUES (7, 7)", 1)
    master.finish()
    assert result.error.code == 1235 and "trigger body that uses a view" in result.error.message
    assert master.server.dump()["t"][1] == []
