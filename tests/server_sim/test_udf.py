"""Loadable functions: CREATE/DROP FUNCTION ... SONAME, calling udf_example's myfunc_int(), and the UDF reason."""

from __future__ import annotations

import pytest

from server_sim.dictionary import catalog_from_json, catalog_to_json
from tests.support import Db

LOAD = "CREATE FUNCTION myfunc_int RETURNS INTEGER SONAME 'udf_example.so'"


@pytest.mark.parametrize(
    ("case", "arguments", "result"),
    [
        ("integers add", "1, 2, 3", 6),
        ("strings add their byte length", "'ab', 'é'", 4),
        ("reals add truncated toward zero", "2.7e0, -1.9e0", 1),
        ("decimals add nothing", "1.5, 2", 2),
        ("NULL adds nothing", "NULL, 5", 5),
        ("no arguments", "", 0),
        ("columns by their type", "id, s, d, f, dt", 1 + 5 + 0 + 2 + 10),
    ],
)
def test_myfunc_int_computes_what_udf_example_does(db: Db, case: str, arguments: str, result: int) -> None:
    db.ok(LOAD)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10), d DECIMAL(5,2), f DOUBLE, dt DATE)")
    db.ok("INSERT INTO t VALUES (1, 'hello', 1.50, 2.5, '2024-01-02')")
    assert db.value(f"SELECT myfunc_int({arguments}) FROM t") == result


@pytest.mark.parametrize(
    ("case", "sql", "code"),
    [
        ("a library the server cannot open", "CREATE FUNCTION myfunc_int RETURNS INTEGER SONAME 'nope.so'", 1126),
        ("a symbol the library does not export", "CREATE FUNCTION nothere RETURNS INTEGER SONAME 'udf_example.so'", 1127),
        ("a function of the library the simulator does not compute", "CREATE FUNCTION metaphon RETURNS STRING SONAME 'udf_example.so'", 1235),
        ("an aggregate UDF", "CREATE AGGREGATE FUNCTION avgcost RETURNS REAL SONAME 'udf_example.so'", 1235),
        ("a stored function not declared safe to log", "CREATE FUNCTION f() RETURNS INT RETURN 1", 1418),
        ("dropping a function nobody loaded", "DROP FUNCTION myfunc_int", 1305),
        ("calling a function nobody loaded", "SELECT myfunc_int(1)", 1305),
    ],
)
def test_udf_errors(db: Db, case: str, sql: str, code: int) -> None:
    assert db.error(sql).code == code


def test_loading_twice_and_dropping_with_if_exists(db: Db) -> None:
    db.ok(LOAD)
    assert db.error(LOAD).code == 1125
    assert [w.code for w in db.ok(LOAD.replace("FUNCTION", "FUNCTION IF NOT EXISTS")).warnings] == [1125]
    db.ok("DROP FUNCTION myfunc_int")
    assert [(w.level, w.code) for w in db.ok("DROP FUNCTION IF EXISTS myfunc_int").warnings] == [("Note", 1305)]
    assert db.error("SELECT myfunc_int(1)").code == 1305


def test_the_data_dictionary_keeps_loaded_functions(db: Db) -> None:
    db.ok(LOAD)
    restored = catalog_from_json(catalog_to_json(db.server.catalog))
    assert list(restored.udfs) == ["myfunc_int"] and restored.udfs["myfunc_int"].library == "udf_example.so"
