"""Regular expressions (server_sim/functions/regexp.py): the core of the syntax ICU, PCRE2
and Python agree on gives the servers' answers on both evaluators; everything outside it
is refused (1235) naming what. MariaDB's recorded answers: scenarios/oracle/functions-regexp.yaml."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

NOT_SUPPORTED = "This version of MySQL doesn't yet support '{}'"


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("expression", "mysql", "mariadb"),
    [
        # Case follows the collation (the default ones ignore it); MySQL's match_type overrides.
        ("'Hello' REGEXP '^h'", 1, 1),
        ("'abc' RLIKE 'B'", 1, 1),
        ("'abc' NOT REGEXP 'x'", 1, 1),
        ("REGEXP_LIKE('Abc', '^a', 'c')", 0, 1305),
        ("REGEXP_LIKE('Abc', '^a', 'ci')", 1, 1305),
        ("REGEXP_LIKE('a\nb', '^b', 'm')", 1, 1305),
        ("REGEXP_LIKE('a\nb', 'a.b', 'n')", 1, 1305),
        ("'a\nb' REGEXP 'a.b'", 0, 0),
        # Sets, classes, intervals, groups, lazy quantifiers, escapes.
        ("'2024-01-02' REGEXP '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'", 1, 1),
        ("'x y' REGEXP '[[:space:]]'", 1, 1),
        ("'a-b' REGEXP '^[a-]+b$'", 1, 1),
        ("'cat' REGEXP '^(dog|cat)s?$'", 1, 1),
        ("'axb' REGEXP 'a\\\\.b'", 0, 0),
        ("REGEXP_SUBSTR('<a><b>', '<.+?>')", "<a>", "<a>"),
        ("12345 REGEXP '^1[0-9]*5$'", 1, 1),
        # NULL in, NULL out.
        ("NULL REGEXP 'a'", None, None),
        ("'a' REGEXP NULL", None, None),
        ("REGEXP_REPLACE(NULL, 'a', 'b')", None, None),
        # Positions count characters from 1; a miss: 0, NULL (MySQL) or '' (MariaDB).
        ("REGEXP_INSTR('foobarbar', 'BAR')", 4, 4),
        ("REGEXP_INSTR('foobarbar', 'bar', 5)", 7, 1582),
        ("REGEXP_INSTR('foobarbar', 'bar', 1, 2, 1)", 10, 1582),
        ("REGEXP_INSTR('foo', 'z')", 0, 0),
        ("REGEXP_SUBSTR('abc', 'x')", None, ""),
        ("REGEXP_SUBSTR('a1b22c333', '[0-9]+', 1, 3)", "333", 1582),
        ("REGEXP_REPLACE('a1b2c3', '[0-9]', '#')", "a#b#c#", "a#b#c#"),
        ("REGEXP_REPLACE('a1b2c3', '[0-9]', '#', 3)", "a1b#c#", 1582),
        ("REGEXP_REPLACE('a1b2c3', '[0-9]', '#', 1, 2)", "a1b#c3", 1582),
    ],
)
def test_a_regular_expression_gives_the_servers_answer(expression: str, mysql: object, mariadb: object, fast_path: bool) -> None:
    for flavor, expected in ((MYSQL_80, mysql), (MARIADB_1011, mariadb)):
        db = Db(flavor=flavor, fast_path=fast_path)
        outcome = db.run(f"SELECT {expression}")
        if isinstance(expected, int) and expected > 1000:
            assert outcome.error is not None and outcome.error.code == expected, (flavor.name, outcome)
        else:
            assert outcome.error is None and outcome.rows == [(expected,)], (flavor.name, outcome)
        db.close()


@pytest.mark.parametrize(
    ("expression", "refused"),
    [
        ("'a' REGEXP ''", "REGEXP_LIKE() of the pattern '': an empty pattern (MySQL rejects it)"),
        ("'ab' REGEXP '(?=a)'", "REGEXP_LIKE() of the pattern '(?=a)': a (? construct other than (?:"),
        ("'aa' REGEXP '(a)\\\\1'", "REGEXP_LIKE() of the pattern '(a)\\\\1': the escape \\1"),
        ("'a' REGEXP '\\\\p{L}'", "REGEXP_LIKE() of the pattern '\\\\p{L}': the escape \\p"),
        ("'a' REGEXP '[[:punct:]]'", "REGEXP_LIKE() of the pattern '[[:punct:]]': the class [:punct:]"),
        ("'a' REGEXP '[a[b]]'", "REGEXP_LIKE() of the pattern '[a[b]]': a [ inside a bracket set (ICU reads a nested set)"),
        ("'a' REGEXP '[[:<:]]a'", "REGEXP_LIKE() of the pattern '[[:<:]]a': a [ inside a bracket set (ICU reads a nested set)"),
        ("'a' REGEXP 'a{2'", "REGEXP_LIKE() of the pattern 'a{2': a { that is no quantifier {n}, {n,} or {n,m}"),
        ("'a' REGEXP '*a'", "REGEXP_LIKE() of the pattern '*a': a quantifier that repeats nothing (the servers reject it)"),
        ("'a' REGEXP '(a'", "REGEXP_LIKE() of the pattern '(a': an unclosed ( (the servers reject it)"),
        ("'é' REGEXP 'e'", "REGEXP_LIKE() of a subject with text outside ASCII"),
        ("'a\rb' REGEXP 'a'", "REGEXP_LIKE() of a subject with a control character other than tab and newline (ICU's line ends differ)"),
        ("REGEXP_REPLACE('ab', '(a)', '$1')", "REGEXP_REPLACE() with the replacement '$1' (group references differ: $n in MySQL, \\n in MariaDB)"),
        ("REGEXP_REPLACE('aaa', 'x*', '-')", "REGEXP_REPLACE() of a pattern that matches the empty string more than once"),
        ("REGEXP_INSTR('abc', 'b', 5)", "REGEXP_INSTR() from position 5, outside the subject (MySQL's error 3686)"),
        ("REGEXP_INSTR('abc', '^b', 2)", "REGEXP_INSTR() from position 2 with an anchor or word bound (where the engines start reading differs)"),
        ("'aBc' REGEXP BINARY 'B'", "a string function of the binary string CAST('B' AS BINARY)"),
    ],
)
def test_a_regular_expression_outside_the_common_core_is_refused(expression: str, refused: str) -> None:
    db = Db(flavor=MYSQL_80)
    outcome = db.run(f"SELECT {expression}")
    assert outcome.error is not None and (outcome.error.code, outcome.error.message) == (1235, NOT_SUPPORTED.format(refused))
    db.close()


def test_a_regular_expression_chooses_the_rows_an_update_and_a_delete_change() -> None:
    db = Db(flavor=MYSQL_80)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20))")
    db.ok("INSERT INTO t VALUES (1, 'Hello World'), (2, '12345'), (3, NULL), (4, 'abc')")
    assert db.run("UPDATE t SET s = REGEXP_REPLACE(s, 'O', '0') WHERE s REGEXP 'o.*O'").affected_rows == 1
    assert db.run("DELETE FROM t WHERE s REGEXP '^[0-9]+$'").affected_rows == 1
    assert db.run("SELECT id, s FROM t ORDER BY id").rows == [(1, "Hell0 W0rld"), (3, None), (4, "abc")]
    db.close()
