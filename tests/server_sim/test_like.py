"""LIKE as the servers match (Item_func_like, my_wildcmp): backslash escapes unless ESCAPE
names another character, a lone escape character at the pattern's end matches itself,
strings from no column match under collation_connection, a column's collation decides
where one takes part, and NOT LIKE negates all of it. Recorded on MariaDB 10.11:
scenarios/oracle/like-matching.yaml."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        # strings from no column: collation_connection ignores case and accents
        ("'ABC' LIKE 'a%'", 1),
        ("'Ébc' LIKE 'e%'", 1),
        ("'abc' LIKE 'A_C'", 1),
        ("'ABC' NOT LIKE 'a%'", 0),
        ("CONCAT('A', 'B') LIKE 'a%'", 1),
        ("'AB' LIKE CONCAT('a', '%')", 1),
        # trailing spaces count, whatever the collation's padding
        ("'abc ' LIKE 'abc'", 0),
        ("'abc' LIKE 'abc '", 0),
        # backslash is the default escape character
        ("'a_b' LIKE 'a\\_b'", 1),
        ("'axb' LIKE 'a\\_b'", 0),
        ("'a%' LIKE 'a\\%'", 1),
        ("'ab' LIKE 'a\\b'", 0),  # the pattern is 'a' and a backspace
        ("'a\\\\b' LIKE 'a\\\\\\\\b'", 1),
        # a lone escape character ending the pattern matches itself
        ("'a\\\\' LIKE 'a\\\\'", 1),
        ("'a\\\\' LIKE 'a\\\\\\\\'", 1),
        ("'a!' LIKE 'a!' ESCAPE '!'", 1),
        ("'ab' LIKE 'a!' ESCAPE '!'", 0),
        # ESCAPE
        ("'a%' LIKE 'a!%' ESCAPE '!'", 1),
        ("'ab' LIKE 'a!%' ESCAPE '!'", 0),
        ("'a\\\\_' LIKE 'a\\\\!_' ESCAPE '!'", 1),
        ("'a_' LIKE 'a\\_' ESCAPE NULL", 1),
        ("'A%' NOT LIKE 'a!%' ESCAPE '!'", 0),
        # a number matches by its text
        ("5 LIKE 5", 1),
        ("15 LIKE '1_'", 1),
        ("5 NOT LIKE '5'", 0),
        ("'x' LIKE 5", 0),
        # NULL
        ("NULL LIKE 'a'", None),
        ("'a' LIKE NULL", None),
    ],
)
@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=["mysql", "mariadb"])
def test_like_of_values(flavor, expression: str, answer: int | None) -> None:
    db = Db(flavor=flavor)
    assert db.ok(f"SELECT {expression}").rows == [(answer,)]
    db.close()


@pytest.mark.parametrize(
    ("flavor", "expression", "answer"),
    [
        # MySQL: ESCAPE '' is no escape character; MariaDB falls back to backslash (recorded)
        (MYSQL_80, "'a_' LIKE 'a\\_' ESCAPE ''", 0),
        (MYSQL_80, "'a\\\\_' LIKE 'a\\\\_' ESCAPE ''", 1),
        (MARIADB_1011, "'a_' LIKE 'a\\_' ESCAPE ''", 1),
        (MARIADB_1011, "'a\\\\_' LIKE 'a\\\\_' ESCAPE ''", 0),
    ],
)
def test_an_empty_escape_clause(flavor, expression: str, answer: int) -> None:
    db = Db(flavor=flavor)
    assert db.ok(f"SELECT {expression}").rows == [(answer,)]
    db.close()


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("SELECT 'a' LIKE 'a' ESCAPE 'xy'", 1210, "Incorrect arguments to ESCAPE"),
        ("SELECT 'a' LIKE 'a' ESCAPE @e", 1235, "This version of MySQL doesn't yet support 'an ESCAPE character that is no string literal (@e)'"),
        ("SELECT 'a' LIKE 'a' ESCAPE '%'", 1235, "This version of MySQL doesn't yet support 'the wildcard '%' as LIKE's ESCAPE character'"),
        ("SELECT CONCAT('A', 'B') LIKE CONCAT('a', '%')", 1235, "This version of MySQL doesn't yet support 'LIKE of two computed strings under collation_connection (\"CONCAT('A', 'B') LIKE CONCAT('a', '%')\")'"),
    ],
)
def test_escape_clauses_the_simulator_refuses_or_the_server_rejects(sql: str, code: int, message: str) -> None:
    db = Db(flavor=MYSQL_80)
    error = db.error(sql)
    assert (error.code, error.message) == (code, message)
    db.close()


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=["mysql", "mariadb"])
@pytest.mark.parametrize(
    ("condition", "ids"),
    [
        ("v LIKE 'a%'", [1, 2, 3, 15]),  # the column's collation ignores case
        ("b LIKE 'a%'", [2, 3, 15]),  # a _bin column matches exactly
        ("v LIKE 'e%' OR b LIKE 'é%'", [5]),
        ("UPPER(v) LIKE 'a%'", [1, 2, 3, 15]),  # a value of the column keeps its collation
        ("id LIKE '1%'", [1, 15]),
        ("id NOT LIKE '1%'", [2, 3, 4, 5]),
        ("v LIKE v", [1, 2, 3, 4, 5, 15]),  # x\ is its own pattern: the lone backslash matches itself
        ("v LIKE 'a\\_%'", [2]),
        ("v LIKE '%!%%' ESCAPE '!'", [3]),
        ("v NOT LIKE '%\\\\'", [1, 2, 3, 5, 15]),
    ],
)
def test_like_over_columns(flavor, condition: str, ids: list[int]) -> None:
    db = Db(flavor=flavor)
    db.ok("CREATE TABLE p (id INT PRIMARY KEY, v VARCHAR(20) CHARACTER SET utf8mb4, b VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)")
    db.ok("INSERT INTO p VALUES (1, 'ABC', 'ABC'), (2, 'a_c', 'a_c'), (3, 'a%c', 'a%c'), (4, 'x\\\\', 'x\\\\'), (5, 'Éte', 'Éte'), (15, 'abc', 'abc')")
    assert db.ok(f"SELECT id FROM p WHERE {condition} ORDER BY id").rows == [(i,) for i in ids]
    db.close()


@pytest.mark.parametrize(
    ("names", "answer"),
    [
        ("utf8mb4", [(1,)]),
        ("utf8mb4 COLLATE utf8mb4_0900_bin", []),  # a _bin collation matches code points
        ("utf8mb4 COLLATE utf8mb4_0900_as_cs", "comparing strings under collation_connection utf8mb4_0900_as_cs"),
    ],
)
def test_strings_from_no_column_match_under_the_connection_collation(new_master, names: str, answer: object) -> None:
    master = new_master(["CREATE TABLE r (v INT)"])
    assert master.submit("con1", f"SET NAMES {names}").error is None
    result = master.submit("con1", "INSERT INTO r SELECT 1 FROM DUAL WHERE 'ABC' LIKE 'a%'")
    if isinstance(answer, str):
        assert result.error is not None and (result.error.code, result.error.message) == (1235, f"This version of MySQL doesn't yet support '{answer}'")
    else:
        assert result.error is None, result.error
        assert result.affected_rows == len(answer)
