"""The function library: each entry is found by the nodes and names that stand for it, the
translation and the fast path read a context value the same way, and the collation keys
text as the storage and the compiler both need it."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlglot
from sqlglot import exp

from server_sim.collation import equality_key, ordered_key, text_key
from server_sim.declined import Declined
from server_sim.expressions import Translator
from server_sim.functions import FUNCTIONS, function_name, is_udf_call, lookup
from server_sim.functions.statement import StatementContext
from server_sim.mirror.compiler import Compiler
from tests.support import Db

CONTEXT = StatementContext(
    timestamp=dt.datetime(2026, 1, 2, 3, 4, 5), user="root@localhost", thread_id=7, database="test", version="8.0.36",
    last_insert_id=4, found_rows=2, row_count=1, user_variables={"x": 5, "s": "a"}, system_variable=lambda name, scope: 1,
)


def _call(sql: str) -> exp.Expression:
    return sqlglot.parse_one(f"SELECT {sql}", read="mysql").expressions[0]


def test_every_entry_is_found_by_its_nodes_and_names() -> None:
    for function in FUNCTIONS:
        for node in function.nodes:
            assert lookup(node()) is function
        for name in function.names:
            assert lookup(exp.Anonymous(this=name, expressions=[])) is function
            assert not is_udf_call(exp.Anonymous(this=name.lower(), expressions=[]))


def test_a_function_the_library_does_not_hold_is_a_udf_call_or_refused() -> None:
    assert lookup(_call("my_udf(1)")) is None and is_udf_call(_call("my_udf(1)"))
    assert function_name(_call("SIN(1)")) == "SIN" and lookup(_call("SIN(1)")) is None


@pytest.mark.parametrize(
    ("sql", "value"),
    [("CONNECTION_ID()", 7), ("USER()", "root@localhost"), ("CURRENT_USER()", "root@localhost"), ("DATABASE()", "test"),
     ("LAST_INSERT_ID()", 4), ("FOUND_ROWS()", 2), ("ROW_COUNT()", 1), ("VERSION()", "8.0.36"), ("@x", 5), ("@s", "a"),
     ("@@server_id", 1), ("@nothing", None)],
)
def test_the_fast_path_reads_a_context_value_as_the_translation_does(sql: str, value: object) -> None:
    translator = Translator(CONTEXT, lambda table: table)
    node = _call(sql)
    assert Compiler([], context=translator.rewrite).operand(node).value(()) == value
    translated = translator.rewrite(node)
    assert translated.this == str(value) if value is not None else isinstance(translated, exp.Null)


@pytest.mark.parametrize("sql", ["NOW()", "CURDATE()", "UUID()", "SYSDATE()", "RAND(3)", "LAST_INSERT_ID(3)", "SLEEP(1)"])
def test_the_fast_path_declines_what_only_duckdb_evaluates(sql: str) -> None:
    translator = Translator(CONTEXT, lambda table: table)
    with pytest.raises(Declined):
        Compiler([], rand=lambda: 0.5, context=translator.rewrite).operand(_call(sql))


def test_rand_and_floor_are_evaluated_on_doubles() -> None:
    draws = iter([0.25, 0.75])
    compiled = Compiler([], rand=lambda: next(draws)).operand(_call("FLOOR(RAND() * 10)"))
    assert [compiled.value(()), compiled.value(())] == [2.0, 7.0]


def test_the_collation_keys_ascii_text_by_its_lower_case_and_declines_other_text() -> None:
    assert text_key("AbC") == "abc" and equality_key("AbC") == equality_key("abc")
    assert equality_key(3) == 3
    assert ordered_key(None, text=True) < ordered_key("A", text=True) == ordered_key("a", text=True)
    for key in (text_key, equality_key):
        with pytest.raises(Declined):
            key("é")


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("sql", "answer"),
    [
        ("SELECT LOCATE('x', a), HEX(a) FROM bt", [(1, "58")]),
        ("SELECT HEX(b), LOWER(HEX(b)) FROM bt", [("FF58", "ff58")]),  # a binary column's bytes
        ("SELECT LOCATE('x', b) FROM bt", "a string function of the binary column b"),
        ("SELECT LENGTH(b), MD5(b), CRC32(b), ASCII(b) FROM bt", [(2, "649467ae2b562d6af9ae2d60b80563e9", 3075290699, 255)]),  # functions of bytes read them
        ("UPDATE bt SET a = 'y' WHERE FIELD('x', b) > 0", "a string function of the binary column b"),
        # DuckDB would read the bytes as their escaped text ('\\xFFX'): the text functions are refused
        ("SELECT CONCAT(a, b) FROM bt", [(b"X\xffX",)]),  # CONCAT with a binary string: the bytes of each
        ("SELECT UPPER(b) FROM bt", "a string function of the binary column b"),
        ("SELECT LEFT(b, 1) FROM bt", "a string function of the binary column b"),
        ("SELECT CAST(b AS CHAR) FROM bt", "a string function of the binary column b"),
        ("SELECT GROUP_CONCAT(DISTINCT b ORDER BY b) FROM bt", "a string function of the binary column b"),
        ("SELECT HEX(CONCAT(a, UNHEX('E9'))) FROM bt", [("58E9",)]),
        ("SELECT UPPER(CONCAT(a, b)) FROM bt", "a string function of the binary string CONCAT(a, b)"),
        ("SELECT LENGTH(IF(id = 1, UNHEX('E9'), NULL)) FROM bt", [(1,)]),
        ("SELECT CHAR_LENGTH(IF(id = 1, UNHEX('E9'), NULL)) FROM bt", "a string function of the binary string IF(id = 1, UNHEX('E9'), NULL)"),
        ("SELECT CONCAT(a, id), UPPER(a), CAST(id AS CHAR), GROUP_CONCAT(DISTINCT a ORDER BY a) FROM bt GROUP BY id, a", [("X1", "X", "1", "X")]),
    ],
)
def test_a_binary_column_in_a_string_function_is_refused_but_hex_gives_its_bytes(sql: str, answer: object, fast_path: bool) -> None:
    """A binary column holds bytes the server compares exactly and counts one by one: a text
    function would read them as case-insensitive text, so it is refused (1235); a function
    of bytes (HEX, LENGTH, MD5, CRC32, ASCII) reads them."""
    db = Db(fast_path=fast_path)
    db.ok("CREATE TABLE bt (id INT PRIMARY KEY, a VARCHAR(10), b VARBINARY(10))")
    db.ok("INSERT INTO bt VALUES (1, 'X', UNHEX('FF58'))")
    outcome = db.run(sql)
    if isinstance(answer, str):
        assert outcome.error is not None and (outcome.error.code, outcome.error.message) == (1235, f"This version of MySQL doesn't yet support '{answer}'")
    else:
        assert outcome.error is None and outcome.rows == answer
    db.close()
