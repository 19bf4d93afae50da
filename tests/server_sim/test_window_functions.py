"""Window functions (server_sim/functions/window.py): what the engines cannot answer
differently runs, the rest is refused (1235), and a window function outside a SELECT's
list and ORDER BY is each server's error. MariaDB's recorded answers:
scenarios/oracle/window-functions.yaml."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

NOT_SUPPORTED = "This version of MySQL doesn't yet support '{}'"
TIED = (
    "{}() over rows its PARTITION BY and ORDER BY leave tied (the engines order ties as each chooses;"
    " order by a primary or NOT NULL unique key of the one table read)"
)
UNORDERED = (
    "the order of the rows of a SELECT with a window function (the server's window sort breaks ties as it"
    " chooses; an ORDER BY of a primary or NOT NULL unique key fixes it)"
)
ROWS = [(1, 1, 10, 5, None), (2, 1, 20, 4, 1), (3, 2, 20, 3, None), (4, 2, None, 2, 2), (5, 1, 20, 1, 3)]


@pytest.fixture(params=[MYSQL_80, MARIADB_1011], ids=["mysql", "mariadb"])
def db(request: pytest.FixtureRequest) -> Db:
    db = Db(flavor=request.param)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT, u INT NOT NULL, w INT, UNIQUE KEY (u), UNIQUE KEY (w))")
    db.ok("INSERT INTO t VALUES " + ", ".join(str(row).replace("None", "NULL") for row in ROWS))
    yield db
    db.close()


@pytest.mark.parametrize(
    ("select", "rows"),
    [
        # Peers share a value: any order among them gives the same answer.
        ("RANK() OVER (PARTITION BY g ORDER BY v DESC), DENSE_RANK() OVER (ORDER BY v)", [(3, 2), (1, 3), (1, 3), (2, 1), (1, 3)]),
        ("SUM(v) OVER (PARTITION BY g), COUNT(*) OVER (ORDER BY v), MAX(v) OVER ()", [(50, 2, 20), (50, 5, 20), (20, 5, 20), (20, 1, 20), (50, 5, 20)]),
        # Functions that tell rows apart, over an order a key makes whole.
        ("ROW_NUMBER() OVER (ORDER BY id DESC), NTILE(2) OVER (ORDER BY id)", [(5, 1), (4, 1), (3, 1), (2, 2), (1, 2)]),
        ("LAG(v) OVER (PARTITION BY g ORDER BY id), LEAD(v, 2) OVER (ORDER BY t.id)", [(None, 20), (10, None), (None, 20), (20, None), (20, None)]),
        ("ROW_NUMBER() OVER (ORDER BY u), FIRST_VALUE(v) OVER (PARTITION BY g ORDER BY u)", [(5, 20), (4, 20), (3, None), (2, None), (1, 20)]),
    ],
)
def test_a_window_function_the_engines_answer_alike_runs(db: Db, select: str, rows: list[tuple]) -> None:
    outcome = db.run(f"SELECT {select} FROM t ORDER BY id")
    assert outcome.error is None and outcome.rows == rows, outcome.error
    assert db.run("SELECT MAX(v) OVER () FROM t ORDER BY id LIMIT 1").rows == [(20,)]  # LIMIT after an order by the key


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("SELECT ROW_NUMBER() OVER (ORDER BY v) FROM t", TIED.format("ROW_NUMBER")),
        ("SELECT LAG(v) OVER (ORDER BY w) FROM t", TIED.format("LAG")),  # w is unique but nullable
        ("SELECT ROW_NUMBER() OVER (ORDER BY x.id) FROM t, t AS x", TIED.format("ROW_NUMBER")),
        ("SELECT PERCENT_RANK() OVER (ORDER BY v) FROM t", "PERCENT_RANK() (a fraction each server rounds to its own precision)"),
        ("SELECT SUM(v) OVER (ORDER BY g ROWS 1 PRECEDING) FROM t", "a ROWS frame (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) over rows its PARTITION BY and ORDER BY leave tied (order by a primary or NOT NULL unique key of the one table read)"),
        ("SELECT RANK() OVER (ORDER BY id ROWS 1 PRECEDING) FROM t", "a window frame (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) on RANK(), which does not read one"),
        ("SELECT SUM(v) OVER (ORDER BY g, v RANGE 1 PRECEDING) FROM t", "a RANGE frame with offsets over other than one ORDER BY item (RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)"),
        ("SELECT SUM(v) OVER (ORDER BY id ROWS 1.5 PRECEDING) FROM t", "a window frame offset other than an integer (ROWS BETWEEN 1.5 PRECEDING AND CURRENT ROW)"),
        ("SELECT SUM(v) OVER x FROM t WINDOW w AS (ORDER BY id)", "the window x (unknown, or defined on another named window)"),
        ("SELECT SUM(v) OVER (w ORDER BY v) FROM t WINDOW w AS (ORDER BY id)", "a window that changes the ORDER of the named window w"),
        ("SELECT COUNT(DISTINCT v) OVER () FROM t", "COUNT() as a window function"),
        ("SELECT id, RANK() OVER (ORDER BY v) FROM t LIMIT 2", UNORDERED),
        ("INSERT INTO t (id, g, v, u) SELECT id + 10, RANK() OVER (ORDER BY v), 0, u + 10 FROM t", UNORDERED),
        ("INSERT INTO t (id, g, v, u) SELECT id + 10, RANK() OVER (ORDER BY v), 0, u + 10 FROM t ORDER BY g", UNORDERED),
    ],
)
def test_a_window_function_the_engines_may_answer_differently_is_refused(db: Db, sql: str, refused: str) -> None:
    outcome = db.run(sql)
    assert outcome.error is not None and (outcome.error.code, outcome.error.message) == (1235, NOT_SUPPORTED.format(refused))


@pytest.mark.parametrize(
    ("select", "rows"),
    [
        # ROWS frames over the key's order, RANGE frames over any order (peers come along).
        ("SUM(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", [(10,), (30,), (40,), (20,), (20,)]),
        ("COUNT(*) OVER (ORDER BY v RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING)", [(4,), (4,), (4,), (1,), (4,)]),
        ("FIRST_VALUE(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)", [(20,), (20,), (None,), (None,), (None,)]),
        # A named window, used as it is and completed.
        ("SUM(v) OVER w, MAX(v) OVER (w ORDER BY id ROWS 1 PRECEDING) FROM t WINDOW w AS (PARTITION BY g)", [(50, 10), (50, 20), (20, 20), (20, 20), (50, 20)]),
    ],
)
def test_a_frame_or_a_named_window_the_engines_answer_alike_runs(db: Db, select: str, rows: list[tuple]) -> None:
    outcome = db.run(f"SELECT {select} ORDER BY id" if " FROM " in select else f"SELECT {select} FROM t ORDER BY id")
    assert outcome.error is None and outcome.rows == rows, outcome.error


def test_an_insert_select_ordered_by_a_key_writes_its_rows_in_that_order(db: Db) -> None:
    outcome = db.run("INSERT INTO t (id, g, v, u) SELECT id + 10, RANK() OVER (ORDER BY v), 0, u + 10 FROM t ORDER BY id DESC")
    assert outcome.error is None
    assert [change.after[:2] for change in outcome.changes] == [(15, 3), (14, 1), (13, 3), (12, 3), (11, 2)]


@pytest.mark.parametrize(
    ("sql", "mysql", "mariadb"),
    [
        ("SELECT id FROM t WHERE RANK() OVER (ORDER BY v) > 1", (3593, "You cannot use the window function 'rank' in this context.'"), 4015),
        ("UPDATE t SET v = ROW_NUMBER() OVER (ORDER BY id)", (3593, "You cannot use the window function 'row_number' in this context.'"), 4015),
        ("SELECT g FROM t GROUP BY RANK() OVER (ORDER BY g)", (3593, "You cannot use the window function 'rank' in this context.'"), 4015),
        ("SELECT LAG(v, 1, 0) OVER (ORDER BY id) FROM t", None, 1235),  # MariaDB's parser takes no default
    ],
)
def test_a_window_function_where_the_server_rejects_it(db: Db, sql: str, mysql: tuple[int, str] | None, mariadb: int) -> None:
    outcome = db.run(sql)
    if db.server.flavor is MYSQL_80:
        if mysql is None:
            assert outcome.error is None
        else:
            assert outcome.error is not None and (outcome.error.code, outcome.error.message) == mysql
    else:
        assert outcome.error is not None and outcome.error.code == mariadb
