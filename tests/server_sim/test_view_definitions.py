"""A view's definition as written, and the CREATE / ALTER VIEW text the server logs
(checked on MariaDB 10.11 by the oracle scenario views)."""

from __future__ import annotations

import pytest

from server_sim.errors import SqlError
from server_sim.parser import parse_statement
from server_sim.statement import StatementKind
from server_sim.views import check_view_query, logged_view, parse_view


@pytest.mark.parametrize(
    ("sql", "logged"),
    [
        ("CREATE VIEW v AS SELECT a, b FROM t WHERE b > 0", "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS SELECT a, b FROM t WHERE b > 0"),
        (
            "CREATE OR REPLACE ALGORITHM=MERGE VIEW v2 (x, y) AS select a,b from t where b<10 with check option",
            "CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v2`(`x`, `y`) AS select a,b from t where b<10 with check option",
        ),
        ("create definer=CURRENT_USER sql security invoker view v3 as select a from v", "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW `v3` AS select a from v"),
        ("CREATE DEFINER='app'@'%' VIEW v AS SELECT 1", "CREATE ALGORITHM=UNDEFINED DEFINER=`app`@`%` SQL SECURITY DEFINER VIEW `v` AS SELECT 1"),
        ("ALTER ALGORITHM=TEMPTABLE VIEW v AS SELECT a, b FROM t", "ALTER ALGORITHM=TEMPTABLE DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS SELECT a, b FROM t"),
        ("CREATE VIEW test.w6 AS SELECT a FROM t WITH LOCAL CHECK OPTION", "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `w6` AS SELECT a FROM t WITH LOCAL CHECK OPTION"),
        ("CREATE VIEW `my view` AS SELECT 'x''y' AS s", "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `my view` AS SELECT 'x''y' AS s"),
    ],
)
def test_create_and_alter_view_are_logged_with_every_option(sql: str, logged: str) -> None:
    statement = parse_statement(sql)
    assert statement.kind is StatementKind.CREATE_VIEW and statement.view is not None
    assert logged_view(statement.view, "root@localhost") == logged


@pytest.mark.parametrize(
    ("sql", "check_option"),
    [
        ("CREATE VIEW v AS SELECT a FROM t", None),
        ("CREATE VIEW v AS SELECT a FROM t WITH CHECK OPTION", "CASCADED"),
        ("CREATE VIEW v AS SELECT a FROM t WITH CASCADED CHECK OPTION", "CASCADED"),
        ("CREATE VIEW v AS SELECT a FROM t WITH LOCAL CHECK OPTION", "LOCAL"),
    ],
)
def test_check_option(sql: str, check_option: str | None) -> None:
    assert parse_view(sql).check_option == check_option


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("CREATE VIEW v AS SELECT @@server_id", 1351),
        ("CREATE VIEW v AS SELECT a FROM t WHERE a = @x", 1351),
        ("CREATE VIEW v (p, q) AS SELECT 1", 1353),
        ("CREATE VIEW v AS SELECT a, a FROM t", 1060),
    ],
)
def test_definitions_the_server_refuses(sql: str, code: int) -> None:
    with pytest.raises(SqlError) as error:
        check_view_query(parse_view(sql))
    assert error.value.code == code


@pytest.mark.parametrize(("sql", "code"), [("CREATE VIEW v AS DELETE FROM t", 1064), ("CREATE VIEW v AS", 1064), ("CREATE VIEW IF NOT EXISTS v AS SELECT 1", 1235)])
def test_malformed_or_unmodelled(sql: str, code: int) -> None:
    with pytest.raises(SqlError) as error:
        parse_statement(sql)
    assert error.value.code == code


@pytest.mark.parametrize(
    ("sql", "query"),
    [
        ("CREATE VIEW v AS (SELECT a FROM t)", "SELECT a FROM t"),
        ("CREATE VIEW v AS WITH c AS (SELECT a FROM t) SELECT a FROM c", "WITH c AS (SELECT a FROM t) SELECT a FROM c"),
        ("CREATE VIEW v AS SELECT a FROM t UNION SELECT b FROM u", "SELECT a FROM t UNION SELECT b FROM u"),
    ],
)
def test_the_query_after_as(sql: str, query: str) -> None:
    assert parse_view(sql).query.sql(dialect="mysql") == query


def test_drop_view_is_its_own_kind() -> None:
    assert parse_statement("DROP VIEW IF EXISTS a, b").kind is StatementKind.DROP_VIEW


def test_views_survive_the_dictionary_with_their_star_expanded(db) -> None:
    from server_sim.dictionary import catalog_from_json, catalog_to_json

    db.ok("CREATE TABLE t (a INT, b INT)")
    db.ok("CREATE VIEW v (x, y) AS SELECT * FROM t WITH LOCAL CHECK OPTION")
    db.ok("ALTER TABLE t ADD COLUMN c INT")
    view = catalog_from_json(catalog_to_json(db.server.catalog)).views["v"]
    assert (view.columns, view.check_option, view.query.sql(dialect="mysql")) == (("x", "y"), "LOCAL", "SELECT a, b FROM t")
