"""DO expr, ...: the expressions evaluated for what they do, their values thrown away, never
logged; its grammar has no FROM, WHERE or INTO (recorded: do-statements)."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db


@pytest.fixture
def db() -> Db:
    server = Db(flavor=MARIADB_1011)
    server.ok("CREATE TABLE t (a INT) ENGINE=InnoDB")
    server.ok("INSERT INTO t VALUES (4), (7)")
    return server


@pytest.mark.parametrize(
    ("sql", "variables"),
    [
        ("DO @x := 5", {"x": 5}),
        ("DO 1, @x := 2, @y := @x + 1", {"x": 2, "y": 3}),
        ("DO @x := (SELECT MAX(a) FROM t)", {"x": 7}),  # MAX inside the subquery: the item aggregates nothing
        ("DO GET_LOCK('a', 0), RELEASE_LOCK('a')", {}),
    ],
)
def test_do_evaluates_its_expressions_and_gives_no_rows(db: Db, sql: str, variables: dict[str, int]) -> None:
    outcome = db.ok(sql)
    assert outcome.rows == []
    assert {name: db.session.user_variables[name] for name in variables} == variables


@pytest.mark.parametrize(
    ("sql", "code", "near"),
    [
        ("DO", 1064, ""),
        ("DO 1 FROM t", 1064, "FROM t"),
        ("DO a FROM t WHERE a > 1", 1064, "FROM t WHERE a > 1"),
        ("DO nosuch()", 1305, None),
        ("DO b", 1054, None),
    ],
)
def test_do_errors(db: Db, sql: str, code: int, near: str | None) -> None:
    error = db.error(sql)
    assert error.code == code
    if near is not None:
        assert f"near '{near}' at line 1" in error.message


def test_do_warns_as_a_select_of_its_expressions_does() -> None:
    server = Db(flavor=MYSQL_80)
    assert [(w.code) for w in server.ok("DO 1 / 0").warnings] == [1365]
