"""Single-table UPDATE and DELETE, the SELECT of INSERT ... SELECT, and the join of a
multi-table UPDATE or DELETE, answered from the mirror, against DuckDB answering them: each
statement runs on two servers holding the same rows, one evaluating its condition, order,
SET values, select list and join in Python (server_sim/mirror_scan), one with the server's fast_path
switch off; the rows changed, in order, the errors,
warnings and the tables left must be the same, and the Python path must answer (or
decline) as the case says."""

from __future__ import annotations

import pytest

from server_sim.declined import Declined
from server_sim.execute import fast_path
from server_sim.execute.executor import Executor
from server_sim.execute.fast_path import FastPath
from server_sim.flavor import MYSQL_80
from server_sim.mirror.plans import RowValues, ScanPlan
from server_sim.parser import parse_statement
from server_sim.server import Server, ServerIdentity

SCHEMA = [
    "CREATE TABLE inno (id INT NOT NULL, k INT UNSIGNED, v INT, d DECIMAL(6,2), s VARCHAR(10), n TINYINT, ts DATETIME, PRIMARY KEY (id)) ENGINE=InnoDB",
    "CREATE TABLE heap (id INT, k INT UNSIGNED, v INT, d DECIMAL(6,2), s VARCHAR(10), n TINYINT, ts DATETIME) ENGINE=MyISAM",
    "CREATE TABLE accented (id INT NOT NULL, v INT, s VARCHAR(10), PRIMARY KEY (id)) ENGINE=InnoDB",
    "CREATE TABLE named (name VARCHAR(10) NOT NULL, v INT, PRIMARY KEY (name)) ENGINE=InnoDB",
    "CREATE TABLE nokey (id INT, v INT) ENGINE=InnoDB",
    "CREATE TABLE target (id INT NOT NULL AUTO_INCREMENT, v INT, d DECIMAL(6,2), s VARCHAR(10), ts DATETIME, PRIMARY KEY (id), UNIQUE KEY (s)) ENGINE=InnoDB",
]
TABLES = ("inno", "heap", "accented", "named", "nokey", "target")
# Inserted out of key order, with NULLs, ties on v, 'a'/'A' and the type limits.
ROWS = "(5, 1, 2, 1.50, 'a', 127, '2026-01-01 00:00:00'), (1, NULL, 2, NULL, 'A', 0, NULL), (3, 2, NULL, 2.00, 'b', -128, NULL), (2, 0, 1, -1.25, NULL, 5, NULL), (6, 4, 2, 0.00, 'B', NULL, NULL)"
DATA = [
    f"INSERT INTO inno VALUES {ROWS}",
    f"INSERT INTO heap VALUES {ROWS}",
    "UPDATE inno SET d = 2.50 WHERE id = 1",  # a row changed after the insert
    "INSERT INTO accented VALUES (2, 1, 'e'), (1, 2, 'é'), (3, 3, 'E')",
    "INSERT INTO named VALUES ('B', 1), ('a', 2), ('c', 3), ('A2', 4)",
    "INSERT INTO nokey VALUES (1, 1), (2, 2), (3, 3)",
    "UPDATE heap SET v = 3 WHERE id = 1",
]
# Taken back after DATA: the row returns with its row id, last in DuckDB's storage order.
UNDONE = "DELETE FROM nokey WHERE id = 1"


class _Run:
    """A server holding SCHEMA and DATA, whether its scans may use the mirror or not."""

    def __init__(self, mirror: bool) -> None:
        self.server = Server(MYSQL_80, ServerIdentity(1, "master", 7))
        self.executor = Executor(self.server)
        self.session = self.server.new_session("root@localhost")
        self.answers: list[str] = []
        for sql in SCHEMA + DATA:
            assert self.run(sql).error is None, sql
        transaction = self.session.ensure_transaction()
        mark = len(transaction.undo)
        assert self.run(UNDONE).error is None
        transaction.undo_to(mark, self.server.storage)
        self.server.fast_path = mirror  # the statement under test: the mirror answers, or DuckDB alone

    def run(self, sql: str):
        context = self.server.statement_context(self.session, self.server.tick())
        return self.executor.run(self.session, parse_statement(sql), context)

    def result(self, sql: str) -> tuple:
        outcome = self.run(sql)
        changes = [(c.kind, c.row_id, c.before, c.after) for c in outcome.changes]
        error = outcome.error.code if outcome.error is not None else None
        tables = {name: self.server.storage.rows(self.server.catalog.require(None, name, 0)) for name in TABLES}
        self.server.close()
        return error, changes, outcome.warnings, outcome.affected_rows, tables


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the Python path did: 'answered' or 'declined', each time it was asked."""
    answers: list[str] = []
    plan_of, rows, values_of, of = fast_path.scan_plan, ScanPlan.rows, fast_path.row_values, RowValues.of
    mirrored_select = FastPath.mirrored_select
    join_rows = fast_path.join_rows

    def recorded(function):
        def call(*args, **kwargs):
            try:
                result = function(*args, **kwargs)
            except Declined:
                answers.append("declined")
                raise
            answers.append("declined" if result is None else "answered")
            return result

        return call

    monkeypatch.setattr(fast_path, "scan_plan", recorded(plan_of))
    monkeypatch.setattr(ScanPlan, "rows", recorded(rows))
    monkeypatch.setattr(fast_path, "row_values", recorded(values_of))
    monkeypatch.setattr(RowValues, "of", recorded(of))
    monkeypatch.setattr(FastPath, "mirrored_select", recorded(mirrored_select))
    monkeypatch.setattr(fast_path, "join_rows", recorded(join_rows))
    monkeypatch.setattr(FastPath, "mirrored_subqueries", recorded(FastPath.mirrored_subqueries))
    return answers


ANSWERED, DECLINED = "answered", "declined"

CASES = [
    # (case, statement, whether Python answers all of it)
    ("every row", "DELETE FROM inno", ANSWERED),
    ("every row in insertion order", "DELETE FROM heap", ANSWERED),
    ("equality on the key", "DELETE FROM inno WHERE id = 3", ANSWERED),
    ("IN list", "DELETE FROM heap WHERE id IN (1, 3, 7)", ANSWERED),
    ("IN list with NULL", "DELETE FROM inno WHERE v IN (1, NULL)", ANSWERED),
    ("NOT IN with NULL matches nothing", "DELETE FROM inno WHERE NOT v IN (1, NULL)", ANSWERED),
    ("NOT IN", "DELETE FROM inno WHERE v NOT IN (1, 7)", ANSWERED),
    ("greater than", "DELETE FROM inno WHERE v > 1", ANSWERED),
    ("greater or equal", "DELETE FROM heap WHERE v >= 2", ANSWERED),
    ("less than", "DELETE FROM inno WHERE v < 2", ANSWERED),
    ("less or equal", "DELETE FROM heap WHERE v <= 1", ANSWERED),
    ("not equal <>", "DELETE FROM inno WHERE v <> 2", ANSWERED),
    ("not equal !=", "DELETE FROM heap WHERE v != 2", ANSWERED),
    ("IS NULL", "DELETE FROM inno WHERE k IS NULL", ANSWERED),
    ("IS NOT NULL", "DELETE FROM heap WHERE k IS NOT NULL", ANSWERED),
    ("IS NULL on a DATETIME", "DELETE FROM inno WHERE ts IS NULL", ANSWERED),
    ("= NULL matches nothing", "DELETE FROM inno WHERE v = NULL", ANSWERED),
    ("three-valued NOT and OR", "DELETE FROM inno WHERE NOT (v = 2) OR k IS NULL", ANSWERED),
    ("three-valued AND", "DELETE FROM heap WHERE v = 2 AND NOT k = 1", ANSWERED),
    ("text equality ignores case", "DELETE FROM inno WHERE s = 'a'", ANSWERED),
    ("text order ignores case", "DELETE FROM heap WHERE s < 'b'", ANSWERED),
    ("text IN ignores case", "DELETE FROM inno WHERE s IN ('A', 'b')", ANSWERED),
    ("decimal column, decimal literal", "DELETE FROM inno WHERE d > 1.5", ANSWERED),
    ("decimal column, integer literal", "DELETE FROM heap WHERE d = 2", ANSWERED),
    ("decimal column, negative literal", "DELETE FROM inno WHERE d < -1", ANSWERED),
    ("integer column, decimal literal", "DELETE FROM inno WHERE v < 1.5", ANSWERED),
    ("unsigned column, negative literal", "DELETE FROM heap WHERE k > -1", ANSWERED),
    ("tinyint at its limit", "DELETE FROM inno WHERE n = -128", ANSWERED),
    ("arithmetic in the condition", "DELETE FROM inno WHERE v + 1 > 2", ANSWERED),
    ("ORDER BY with ties, LIMIT", "DELETE FROM inno ORDER BY v LIMIT 3", ANSWERED),
    ("ORDER BY DESC, NULL last", "DELETE FROM heap ORDER BY v DESC LIMIT 4", ANSWERED),
    ("ORDER BY with NULL first", "DELETE FROM inno WHERE id > 1 ORDER BY k LIMIT 2", ANSWERED),
    ("ORDER BY text, then DESC", "DELETE FROM heap ORDER BY s, v DESC LIMIT 4", ANSWERED),
    ("ORDER BY decimal DESC", "DELETE FROM inno ORDER BY d DESC LIMIT 2", ANSWERED),
    ("LIMIT 0", "DELETE FROM inno LIMIT 0", ANSWERED),
    ("text primary key orders without case", "DELETE FROM named LIMIT 3", ANSWERED),
    ("an alias qualifies the columns", "UPDATE inno AS x SET x.v = 9 WHERE x.v = 2 ORDER BY x.id DESC LIMIT 2", ANSWERED),
    ("text beyond ASCII in the rows", "DELETE FROM accented WHERE s = 'e'", DECLINED),
    ("text beyond ASCII in the literal", "DELETE FROM inno WHERE s = 'é'", DECLINED),
    ("ORDER BY text beyond ASCII", "DELETE FROM accented ORDER BY s LIMIT 1", DECLINED),
    ("a number compared with a string", "DELETE FROM inno WHERE v = '2'", DECLINED),
    ("a DATETIME compared with a string", "DELETE FROM inno WHERE ts = '2026-01-01 00:00:00'", DECLINED),
    ("RAND() once a row", "DELETE FROM inno WHERE v < FLOOR(RAND() * 4)", ANSWERED),
    ("RAND() on rows with NULL too, ORDER BY, LIMIT", "DELETE FROM heap WHERE v < FLOOR(RAND() * 4) ORDER BY id LIMIT 2", ANSWERED),
    ("RAND() compared with a constant", "DELETE FROM heap WHERE FLOOR(RAND() * 4) > 1", ANSWERED),
    ("RAND() with AND", "DELETE FROM inno WHERE v < FLOOR(RAND() * 4) AND k > 0", DECLINED),
    ("RAND() twice", "DELETE FROM inno WHERE FLOOR(RAND() * 4) < FLOOR(RAND() * 4)", DECLINED),
    ("RAND() with a decimal literal", "DELETE FROM inno WHERE RAND() < 0.5", DECLINED),
    ("RAND() with a decimal column", "DELETE FROM inno WHERE d < FLOOR(RAND() * 4)", DECLINED),
    ("RAND(N)", "DELETE FROM inno WHERE v < FLOOR(RAND(7) * 4)", DECLINED),
    ("RAND() drawn, then declined: drawn again", "UPDATE accented SET v = FLOOR(RAND() * 100) WHERE FLOOR(RAND() * 4) < 9 ORDER BY s", DECLINED),
    ("a function", "DELETE FROM inno WHERE v < ABS(k)", DECLINED),
    ("IN a subquery", "DELETE FROM inno WHERE id IN (SELECT v FROM heap)", ANSWERED),
    ("NOT IN a subquery with NULL", "DELETE FROM heap WHERE id NOT IN (SELECT k FROM inno)", ANSWERED),
    ("NOT IN a subquery without NULL", "DELETE FROM heap WHERE id NOT IN (SELECT id FROM nokey)", ANSWERED),
    ("IN an empty subquery", "UPDATE inno SET v = 0 WHERE id IN (SELECT v FROM heap WHERE v > 9) OR k = 4", ANSWERED),
    ("IN a subquery with a condition and LIMIT", "UPDATE inno SET v = 0 WHERE id IN (SELECT id FROM heap WHERE v = 2 ORDER BY id LIMIT 2)", ANSWERED),
    ("IN a subquery of text", "DELETE FROM heap WHERE s IN (SELECT name FROM named)", ANSWERED),
    ("IN two subqueries", "DELETE FROM inno WHERE id IN (SELECT v FROM heap) AND v IN (SELECT v FROM nokey)", ANSWERED),
    ("IN a subquery, number against text", "DELETE FROM inno WHERE id IN (SELECT s FROM heap)", DECLINED),
    ("IN a subquery of text beyond ASCII", "DELETE FROM inno WHERE s IN (SELECT s FROM accented)", DECLINED),
    ("IN a correlated subquery", "DELETE FROM inno WHERE id IN (SELECT v FROM heap WHERE heap.k = inno.k)", DECLINED),
    ("IN a subquery of two columns", "DELETE FROM inno WHERE id IN (SELECT v, k FROM heap)", DECLINED),
    ("IN a subquery of every column", "DELETE FROM inno WHERE id IN (SELECT * FROM nokey)", DECLINED),
    ("IN a subquery with DISTINCT", "DELETE FROM inno WHERE id IN (SELECT DISTINCT v FROM heap)", DECLINED),
    ("a float literal", "DELETE FROM inno WHERE v = 1e0", DECLINED),
    ("a bare column as condition", "DELETE FROM inno WHERE v", DECLINED),
    ("ORDER BY an expression", "DELETE FROM inno ORDER BY v + 1 LIMIT 2", DECLINED),
    ("an unknown column", "DELETE FROM inno WHERE nope = 1", DECLINED),
    ("the table name where an alias is given", "UPDATE inno AS x SET v = 1 WHERE inno.v = 2", DECLINED),
    # SET values
    ("SET v = v + 1 with NULL", "UPDATE inno SET v = v + 1", ANSWERED),
    ("SET v = v - 1 and a literal", "UPDATE heap SET v = v - 1, s = 'x' WHERE v IS NOT NULL", ANSWERED),
    ("SET decimal + 1", "UPDATE inno SET d = d + 1", ANSWERED),
    ("SET a column from another", "UPDATE heap SET v = k WHERE k > 0", ANSWERED),
    ("SET left to right", "UPDATE inno SET v = v + 1, k = v WHERE v IS NOT NULL", ANSWERED),
    ("SET 1 + v, ORDER BY DESC", "UPDATE inno SET v = 1 + v ORDER BY id DESC LIMIT 2", ANSWERED),
    ("SET tinyint past its range", "UPDATE inno SET n = n + 1", DECLINED),
    ("SET unsigned below zero", "UPDATE heap SET k = k - 1", DECLINED),
    ("SET decimal past its precision", "UPDATE inno SET d = d + 9999", DECLINED),
    ("SET a function", "UPDATE inno SET s = UUID() WHERE id = 1", DECLINED),
    ("SET RAND()", "UPDATE inno SET v = FLOOR(RAND() * 4)", ANSWERED),
    ("SET and WHERE RAND()", "UPDATE heap SET v = FLOOR(RAND() * 4), n = FLOOR(RAND() * 100) WHERE v < FLOOR(RAND() * 4)", ANSWERED),
    ("SET RAND(), then past a range", "UPDATE inno SET v = FLOOR(RAND() * 4), n = n + 1", DECLINED),
    # values of the statement's context, as the translation gives them
    ("SET a system variable and CURRENT_USER()", "UPDATE heap SET v = @@server_id, s = CURRENT_USER() WHERE v = 2", ANSWERED),
    ("SET a user variable never set", "UPDATE inno SET v = @nothing WHERE id = 1", ANSWERED),
    ("SET a text variable", "UPDATE inno SET s = @@binlog_format", ANSWERED),
    ("SET an unknown variable", "UPDATE inno SET v = @@no_such_variable", DECLINED),
    ("SET NOW()", "UPDATE inno SET ts = NOW()", DECLINED),
    ("SELECT a system variable and USER()", "INSERT INTO target (v, s) SELECT @@server_id, USER() FROM inno WHERE id > 1", ANSWERED),
    ("SELECT CONNECTION_ID() and DATABASE()", "INSERT INTO target (v, s) SELECT CONNECTION_ID(), DATABASE() FROM heap", ANSWERED),
    # VALUES rows
    ("VALUES RAND(), row after row", "INSERT INTO target (v, d) VALUES (FLOOR(RAND() * 4), (2)), (FLOOR(RAND() * 100), RAND() * 8)", ANSWERED),
    ("VALUES RAND(N)", "INSERT INTO target (v) VALUES (FLOOR(RAND(3) * 4))", DECLINED),
    ("SET a product", "UPDATE inno SET v = v * 2", DECLINED),
    ("SET a DATETIME from a column", "UPDATE inno SET ts = ts WHERE id = 5", ANSWERED),
    # INSERT ... SELECT: the SELECT's rows, values and order
    ("SELECT columns, key order", "INSERT INTO target (v, d, s) SELECT v, d, s FROM inno WHERE id > 1", ANSWERED),
    ("SELECT in insertion order", "INSERT INTO target (v, d, ts) SELECT v, d, ts FROM heap", ANSWERED),
    ("SELECT NULLs", "INSERT INTO target (v, d, s) SELECT k, d, s FROM inno WHERE k IS NULL OR s IS NULL", ANSWERED),
    ("SELECT into NOT NULL", "INSERT INTO inno (id, v) SELECT k, v FROM heap", ANSWERED),
    ("SELECT literals", "INSERT INTO target (v, d, s, ts) SELECT 7, 2.5, 'lit', '2026-01-01 00:00:00' FROM heap LIMIT 1", ANSWERED),
    ("SELECT NULL and negative literals", "INSERT INTO target (v, d) SELECT -3, NULL FROM inno WHERE v = 2", ANSWERED),
    ("SELECT decimal into INT rounds", "INSERT INTO target (v) SELECT d FROM heap", ANSWERED),
    ("SELECT decimal arithmetic", "INSERT INTO target (d, v) SELECT d + 1, v - 1 FROM inno WHERE d > 1.5", ANSWERED),
    ("SELECT text condition ignores case", "INSERT INTO target (v, s) SELECT v, s FROM heap WHERE s < 'b'", ANSWERED),
    ("SELECT ORDER BY key DESC LIMIT", "INSERT INTO target (v, s) SELECT id, s FROM inno ORDER BY id DESC LIMIT 2", ANSWERED),
    ("SELECT ORDER BY with NULL first", "INSERT INTO target (v, d) SELECT id, d FROM heap ORDER BY d LIMIT 3", ANSWERED),
    ("SELECT ORDER BY DESC, NULL last", "INSERT INTO target (v) SELECT k FROM heap ORDER BY k DESC", ANSWERED),
    ("SELECT ORDER BY text", "INSERT INTO target (s, v) SELECT name, v FROM named ORDER BY name DESC", ANSWERED),
    ("SELECT ORDER BY, ties past the LIMIT", "INSERT INTO target (v) SELECT id FROM inno ORDER BY v LIMIT 2", ANSWERED),
    ("SELECT LIMIT 0", "INSERT INTO target (v) SELECT v FROM inno LIMIT 0", ANSWERED),
    ("SELECT nothing", "INSERT INTO target (v) SELECT v FROM inno WHERE v = NULL", ANSWERED),
    ("SELECT * from another table", "INSERT INTO heap SELECT * FROM inno WHERE v = 2", ANSWERED),
    ("SELECT with an alias for the table", "INSERT INTO target (v, s) SELECT x.v, x.s FROM heap AS x WHERE x.v > 1 ORDER BY x.id LIMIT 1", ANSWERED),
    ("SELECT in storage order after an undone DELETE", "INSERT INTO target (v) SELECT id FROM nokey", ANSWERED),
    ("SELECT from the target itself", "INSERT INTO heap SELECT * FROM heap", ANSWERED),
    ("SELECT from the target, new keys", "INSERT INTO inno (id, v, s) SELECT id + 10, v, s FROM inno", ANSWERED),
    ("SELECT from the target, a duplicate", "INSERT INTO inno SELECT * FROM inno WHERE id = 5", ANSWERED),
    ("INSERT IGNORE ... SELECT from the target", "INSERT IGNORE INTO inno SELECT * FROM inno ORDER BY id DESC", ANSWERED),
    ("duplicate text key stops the statement", "INSERT INTO target (v, s) SELECT v, s FROM inno", ANSWERED),
    ("INSERT IGNORE ... SELECT, duplicate text", "INSERT IGNORE INTO target (v, s) SELECT v, s FROM heap", ANSWERED),
    ("REPLACE ... SELECT", "REPLACE INTO target (v, s) SELECT v, s FROM inno", ANSWERED),
    ("ON DUPLICATE KEY UPDATE ... SELECT", "INSERT INTO target (v, s) SELECT v, s FROM heap ON DUPLICATE KEY UPDATE v = v + 1", ANSWERED),
    ("SELECT ORDER BY with ties", "INSERT INTO target (v) SELECT id FROM inno ORDER BY v LIMIT 3", DECLINED),
    ("SELECT ORDER BY text with ties", "INSERT INTO target (v) SELECT id FROM heap ORDER BY s", DECLINED),
    ("SELECT text beyond ASCII", "INSERT INTO target (v, s) SELECT v, s FROM accented WHERE s = 'e'", DECLINED),
    ("SELECT DISTINCT", "INSERT INTO target (v) SELECT DISTINCT v FROM inno", DECLINED),
    ("SELECT GROUP BY", "INSERT INTO target (v) SELECT v FROM heap GROUP BY v", DECLINED),
    ("SELECT an aggregate", "INSERT INTO target (v) SELECT COUNT(*) FROM inno", DECLINED),
    ("SELECT a join", "INSERT INTO target (v) SELECT inno.v FROM inno JOIN heap ON inno.id = heap.id", DECLINED),
    ("SELECT a subquery", "INSERT INTO target (v) SELECT v FROM inno WHERE id IN (SELECT v FROM heap)", DECLINED),
    ("SELECT a UNION", "INSERT INTO target (v) SELECT v FROM inno UNION ALL SELECT v FROM heap", DECLINED),
    ("SELECT an alias ORDER BY sorts", "INSERT INTO target (v) SELECT v AS id FROM inno ORDER BY id LIMIT 2", DECLINED),
    ("SELECT with OFFSET", "INSERT INTO target (v) SELECT v FROM inno ORDER BY id LIMIT 1, 2", DECLINED),
    ("SELECT table.*", "INSERT INTO heap SELECT inno.* FROM inno", DECLINED),
    ("SELECT a function", "INSERT INTO target (v) SELECT ABS(v) FROM inno", DECLINED),
    ("SELECT a float", "INSERT INTO target (v) SELECT 1e0 FROM inno", DECLINED),
    ("SELECT a number compared with a string", "INSERT INTO target (v) SELECT v FROM inno WHERE v = '2'", DECLINED),
    ("SELECT past a type's range", "INSERT INTO target (v) SELECT n + 1 FROM inno", DECLINED),
    ("SELECT an unknown column", "INSERT INTO target (v) SELECT nope FROM inno", DECLINED),
    ("SELECT an unknown table", "INSERT INTO target (v) SELECT v FROM missing", DECLINED),
    ("SELECT a column count that differs", "INSERT INTO target (v, s) SELECT v FROM inno", ANSWERED),
    # multi-table UPDATE and DELETE: the join's rows, in the order a nested loop reads them
    ("join by a table list", "UPDATE inno, heap SET inno.v = heap.v WHERE inno.id = heap.id AND heap.k > 0", ANSWERED),
    ("join ON, both tables changed", "UPDATE inno JOIN heap ON inno.id = heap.v SET inno.s = 'j', heap.s = 'h'", ANSWERED),
    ("join with aliases, SET arithmetic", "UPDATE inno AS x JOIN heap AS y ON x.id = y.id SET x.v = y.v + 1 WHERE y.v IS NOT NULL", ANSWERED),
    ("join smallest table first", "UPDATE nokey JOIN inno ON nokey.v = inno.v SET inno.k = nokey.id", ANSWERED),
    ("LEFT JOIN, missing rows NULL", "UPDATE inno LEFT JOIN nokey ON inno.id = nokey.id SET inno.v = nokey.v", ANSWERED),
    ("LEFT JOIN with a condition on its table", "UPDATE inno LEFT JOIN nokey ON inno.id = nokey.id AND nokey.v > 1 SET inno.k = nokey.v", ANSWERED),
    ("three tables, two deleted from", "DELETE inno, nokey FROM inno JOIN heap ON inno.id = heap.id JOIN nokey ON nokey.id = heap.v", ANSWERED),
    ("join on text ignores case", "DELETE heap FROM heap JOIN named ON heap.s = named.name", ANSWERED),
    ("join without a condition", "DELETE nokey FROM nokey, inno WHERE inno.v = 2", ANSWERED),
    ("join, unqualified column of one table", "UPDATE inno JOIN named ON inno.s = name SET inno.v = 0", ANSWERED),
    ("DELETE ... USING", "DELETE FROM heap USING inno JOIN heap WHERE inno.id = heap.id AND inno.d > 0", ANSWERED),
    ("join, a column both tables have", "UPDATE inno JOIN heap ON inno.id = heap.id SET inno.v = 0 WHERE k > 0", DECLINED),
    ("join, a function", "UPDATE inno JOIN heap ON inno.id = heap.id SET inno.v = ABS(heap.v)", DECLINED),
    ("join on text beyond ASCII", "DELETE accented FROM accented JOIN inno ON accented.s = inno.s", DECLINED),
    ("join, a number compared with a string", "DELETE inno FROM inno JOIN heap ON inno.id = heap.s", DECLINED),
    ("join, SET past a type's range", "UPDATE inno JOIN heap ON inno.id = heap.id SET inno.n = heap.n + 1", DECLINED),
    ("LEFT JOIN ON a later table", "UPDATE inno LEFT JOIN heap ON heap.id = nokey.id JOIN nokey ON nokey.id = inno.id SET inno.v = 1", DECLINED),
]


@pytest.mark.parametrize("sql, expected", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_python_scan_matches_duckdb(monkeypatch: pytest.MonkeyPatch, sql: str, expected: str) -> None:
    by_duckdb = _Run(mirror=False).result(sql)
    answers = _spy(monkeypatch)
    by_python = _Run(mirror=True).result(sql)
    assert by_python == by_duckdb
    assert answers, "the Python path was never asked"
    assert (DECLINED if DECLINED in answers else ANSWERED) == expected, answers

