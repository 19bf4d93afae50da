"""`rplharness explain`: what the master decides for one statement, and where its events go."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from server_sim.binlog.base64_events import binlog_statement
from server_sim.binlog.binary.columns import column_info
from server_sim.binlog.events import Format_description_log_event, Row, Table_map_log_event, Write_rows_log_event
from server_sim.parser import split_statements
from server_sim.types import ColumnType

SCHEMA = """
CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB;
CREATE TABLE n (a INT PRIMARY KEY, b VARCHAR(10) DEFAULT 'x;y') ENGINE=MyISAM;  -- a ';' in a string does not split
CREATE TABLE e (a INT) ENGINE=EXAMPLE;
INSERT INTO t VALUES (1, 1), (2, 2);
"""
MYSQL, MARIADB = "mysql-8.0", "mariadb-10.11"


@pytest.fixture
def schema(tmp_path: Path) -> Path:
    path = tmp_path / "schema.sql"
    path.write_text(SCHEMA, encoding="utf-8")
    return path


def explain_json(capsys: pytest.CaptureFixture[str], schema: Path, *arguments: str) -> dict:
    assert main(["explain", "--schema", str(schema), "--json", *arguments]) == 0
    return json.loads(capsys.readouterr().out)


def explain_text(capsys: pytest.CaptureFixture[str], schema: Path, *arguments: str) -> str:
    assert main(["explain", "--schema", str(schema), *arguments]) == 0
    return capsys.readouterr().out


def test_json_document_has_the_documented_keys(capsys, schema: Path) -> None:
    document = explain_json(capsys, schema, "UPDATE t SET b = 5 WHERE a = 1")
    assert list(document) == ["flavor", "statement", "variables", "transaction", "row_injection", "reads", "writes", "triggers", "views", "unsafe", "decision", "result", "caches", "body", "functions"]
    assert document["flavor"] == MYSQL
    assert document["variables"] == {
        "binlog_format": "ROW",
        "transaction_isolation": "REPEATABLE-READ",
        "binlog_direct_non_transactional_updates": "OFF",
        "binlog_row_image": "FULL",
    }
    assert document["transaction"] == {"multi_statement": False, "trx_cache_nonempty": False}
    assert document["writes"] == [{"table": "t", "engine": "InnoDB", "transactional": True, "temporary": False, "replicated": True}]
    assert document["triggers"] == []
    assert document["decision"] == {"format": "ROW", "error": None}
    assert document["result"] == {"error": None, "affected_rows": 1, "notes": []}
    assert document["caches"] == [
        {
            "cache": "trx_cache",
            "flushed_at": "statement_end",
            "on_rollback": None,
            "events": [
                {"type": "Table_map", "info": "table_id: 100 (test.t)"},
                {"type": "Update_rows", "info": "table_id: 100 flags: STMT_END_F"},
            ],
        }
    ]


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_limit_under_statement_is_unsafe_and_logged_with_note_1592(capsys, schema: Path, flavor: str) -> None:
    document = explain_json(capsys, schema, "--flavor", flavor, "--set", "binlog_format=STATEMENT", "UPDATE t SET b = 0 LIMIT 1")
    assert [u["reason"] for u in document["unsafe"]] == ["LIMIT"]
    assert document["unsafe"][0]["code"] == 1668
    assert document["decision"]["format"] == "STATEMENT"
    notes = document["result"]["notes"]
    assert [(n["level"], n["code"], n["name"]) for n in notes] == [("Note", 1592, "ER_BINLOG_UNSAFE_STATEMENT")]
    assert notes[0]["message"].endswith(document["unsafe"][0]["message"])
    assert [e["type"] for e in document["caches"][0]["events"]] == ["Query"]


@pytest.mark.parametrize(
    ("flavor", "isolation_name", "binlog_format"),
    [(MYSQL, "transaction_isolation", "ROW"), (MARIADB, "tx_isolation", "MIXED")],
    ids=[MYSQL, MARIADB],
)
def test_the_flavor_default_binlog_format_and_variable_names_are_shown(capsys, schema: Path, flavor: str, isolation_name: str, binlog_format: str) -> None:
    document = explain_json(capsys, schema, "--flavor", flavor, "DELETE FROM t WHERE a = 2")
    assert document["variables"]["binlog_format"] == binlog_format
    assert isolation_name in document["variables"]


def test_mariadb_default_mixed_switches_an_unsafe_statement_to_row(capsys, schema: Path) -> None:
    document = explain_json(capsys, schema, "--flavor", MARIADB, "UPDATE t SET b = 0 LIMIT 1")
    assert document["decision"]["format"] == "ROW"
    assert document["result"]["notes"] == []


@pytest.mark.parametrize(
    ("flavor", "unsafe", "notes"),
    [(MYSQL, ["SYSTEM_FUNCTION"], [1592]), (MARIADB, [], [])],
    ids=["mysql-8.0 flags RAND()", "mariadb-10.11 carries the seed in a RAND event"],
)
def test_rand_in_insert_values(capsys, schema: Path, flavor: str, unsafe: list[str], notes: list[int]) -> None:
    document = explain_json(capsys, schema, "--flavor", flavor, "--set", "binlog_format=STATEMENT", "INSERT INTO t VALUES (3, RAND() * 10)")
    assert [u["reason"] for u in document["unsafe"]] == unsafe
    assert [n["code"] for n in document["result"]["notes"]] == notes
    assert [e["type"] for e in document["caches"][0]["events"]] == ["RAND", "Query"]


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_innodb_at_read_committed_under_statement_is_error_1665_with_innodb_sentence(capsys, schema: Path, flavor: str) -> None:
    text = explain_text(capsys, schema, "--flavor", flavor, "--set", "binlog_format=STATEMENT", "--set", "transaction_isolation=READ-COMMITTED", "UPDATE t SET b = 0")
    assert "decision     error 1665 ER_BINLOG_STMT_MODE_AND_ROW_ENGINE: Cannot execute statement" in text
    assert text.rstrip().endswith("events       none")
    assert "InnoDB is limited to row-logging when transaction isolation level is READ COMMITTED or READ UNCOMMITTED." in text
    assert "result       not executed" in text


@pytest.mark.parametrize(
    ("flavor", "decision"),
    [(MYSQL, {"format": "STATEMENT", "error": None}), (MARIADB, {"format": None, "error": 1663})],
    ids=["mysql-8.0 logs it with a note", "mariadb-10.11 refuses it"],
)
def test_unsafe_statement_on_a_statement_only_engine_under_statement(capsys, schema: Path, flavor: str, decision: dict) -> None:
    document = explain_json(capsys, schema, "--flavor", flavor, "--set", "binlog_format=STATEMENT", "DELETE FROM e LIMIT 1")
    error = document["decision"]["error"]
    assert document["decision"]["format"] == decision["format"]
    assert (error["code"] if error else None) == decision["error"]
    if error:
        assert error["name"] == "ER_BINLOG_UNSAFE_AND_STMT_ENGINE"


@pytest.mark.parametrize(
    ("binlog_format", "direct", "cache", "flushed_at", "on_rollback", "unsafe"),
    [
        ("STATEMENT", "OFF", "trx_cache", "commit", "logged", ["NONTRANS_AFTER_TRANS"]),
        ("STATEMENT", "ON", "stmt_cache", "statement_end", None, []),
        ("ROW", "OFF", "stmt_cache", "statement_end", None, ["NONTRANS_AFTER_TRANS"]),
    ],
    ids=["STATEMENT, direct OFF", "STATEMENT, direct ON", "ROW"],
)
def test_second_statement_of_a_transaction_n_after_t(
    capsys, schema: Path, binlog_format: str, direct: str, cache: str, flushed_at: str, on_rollback: str | None, unsafe: list[str]
) -> None:
    document = explain_json(
        capsys,
        schema,
        "--set",
        f"binlog_format={binlog_format}",
        "--set",
        f"binlog_direct_non_transactional_updates={direct}",
        "--before",
        "BEGIN",
        "--before",
        "INSERT INTO t VALUES (3, 3)",
        "INSERT INTO n VALUES (1, 'a')",
    )
    assert document["transaction"] == {"multi_statement": True, "trx_cache_nonempty": True}
    assert [u["reason"] for u in document["unsafe"]] == unsafe
    assert [(c["cache"], c["flushed_at"], c["on_rollback"]) for c in document["caches"]] == [(cache, flushed_at, on_rollback)]


def test_text_names_tables_decision_and_where_the_events_wait(capsys, schema: Path) -> None:
    text = explain_text(capsys, schema, "--set", "binlog_format=STATEMENT", "--before", "BEGIN", "--before", "UPDATE t SET b = 9 WHERE a = 1", "UPDATE t SET b = 8 WHERE a = 2")
    assert text.splitlines() == [
        "statement    UPDATE t SET b = 8 WHERE a = 2",
        "flavor       mysql-8.0",
        "session      binlog_format=STATEMENT transaction_isolation=REPEATABLE-READ binlog_direct_non_transactional_updates=OFF binlog_row_image=FULL",
        "transaction  inside a multi-statement transaction; the transaction cache holds earlier changes",
        "reads        t (InnoDB, transactional)",
        "writes       t (InnoDB, transactional)",
        "unsafe       no",
        "decision     STATEMENT",
        "result       1 row(s) affected",
        "events       transaction cache: waits for COMMIT; a ROLLBACK discards it",
        "               Query  UPDATE t SET b = 8 WHERE a = 2",
    ]


def test_an_update_that_changes_nothing_logs_no_rows(capsys, schema: Path) -> None:
    document = explain_json(capsys, schema, "UPDATE t SET b = 1 WHERE a = 1")
    assert document["decision"]["format"] == "ROW"
    assert document["result"]["affected_rows"] == 0
    assert document["caches"] == []


def test_ddl_is_written_directly_to_the_binlog(capsys, schema: Path) -> None:
    document = explain_json(capsys, schema, "CREATE TABLE u (a INT) ENGINE=InnoDB")
    assert [(c["cache"], c["flushed_at"]) for c in document["caches"]] == [("binlog", "statement_end")]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["SELEC 1"], "ERROR 1064 (ER_PARSE_ERROR)"),
        (["CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM t"], "ERROR 1235 (ER_NOT_SUPPORTED_YET)"),
        (["COMMIT"], "cannot explain a COMMIT statement"),
        (["--set", "binlog_fmt=ROW", "DELETE FROM t"], "--set binlog_fmt=ROW: ERROR 1193 (ER_UNKNOWN_SYSTEM_VARIABLE)"),
        (["--set", "binlog_format=ROWS", "DELETE FROM t"], "--set binlog_format=ROWS: ERROR 1231 (ER_WRONG_VALUE_FOR_VAR)"),
        (["--set", "binlog_format", "DELETE FROM t"], "expected VAR=VALUE"),
        (["--set", "binlog_format, @x=ROW", "DELETE FROM t"], "'binlog_format, @x' is not a variable name"),
        (["--before", "INSERT INTO t VALUES (1, 1)", "DELETE FROM t"], "--before 'INSERT INTO t VALUES (1, 1)': ERROR 1062 (ER_DUP_ENTRY)"),
        (["DELETE FROM missing"], "Table 'test.missing' doesn't exist: give its CREATE TABLE in --schema"),
        (["CREATE TABLE bp (doc BLOB, PRIMARY KEY (doc(10)))"], "support 'a PRIMARY key on the first 10 characters of doc (rows duplicate by their prefix)': the simulator does not model it"),
    ],
    ids=["unparsable", "not modelled", "transaction control", "unknown variable", "bad value", "no value", "not a name", "failing --before", "unknown table", "not modelled when run"],
)
def test_bad_input_is_a_usage_error(capsys, schema: Path, arguments: list[str], message: str) -> None:
    assert main(["explain", "--schema", str(schema), *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


@pytest.mark.parametrize(("flavor", "decision"), [(MYSQL, {"format": None, "code": 1666}), (MARIADB, {"format": "ROW", "code": None})])
def test_a_binlog_statement_is_explained_as_a_row_injection(capsys, schema: Path, flavor: str, decision: dict) -> None:
    description = binlog_statement([Format_description_log_event()])
    table_map = Table_map_log_event(table_id=1, database="test", table="t", columns=[column_info(ColumnType("INT"), False, 255), column_info(ColumnType("INT"), True, 255)])
    rows = binlog_statement([table_map, Write_rows_log_event(table_id=1, width=2, columns_after=[True, True], rows=[Row(after=[3, 3])])])
    arguments = ["--flavor", flavor, "--set", "binlog_format=STATEMENT", "--before", description, rows]
    document = explain_json(capsys, schema, *arguments)
    error = document["decision"]["error"]
    assert (document["row_injection"], document["decision"]["format"], error and error["code"]) == (True, decision["format"], decision["code"])
    assert document["writes"] == [{"table": "t", "engine": "InnoDB", "transactional": True, "temporary": False, "replicated": True}]
    text = explain_text(capsys, schema, *arguments)
    assert "\ninjection    row events (BINLOG '...'): only row format can log them\n" in text
    assert text.startswith(f"statement    BINLOG ' {rows.split(chr(10))[1][:20]}")  # on one line
    assert main(["explain", "--schema", str(schema), rows]) == 2  # no format description in the session
    assert "ERROR 1609" in capsys.readouterr().err
    assert main(["explain", "--schema", str(schema), description]) == 2
    assert "holds no row events" in capsys.readouterr().err


def test_a_failing_schema_statement_is_named(capsys, tmp_path: Path) -> None:
    path = tmp_path / "bad.sql"
    path.write_text("CREATE TABLE a (x INT);\nCREATE TABLE a (x INT);\n", encoding="utf-8")
    assert main(["explain", "--schema", str(path), "DELETE FROM a"]) == 2
    assert "schema statement 'CREATE TABLE a (x INT)': ERROR 1050 (ER_TABLE_EXISTS_ERROR)" in capsys.readouterr().err


def test_a_missing_schema_file_is_a_usage_error(capsys, tmp_path: Path) -> None:
    assert main(["explain", "--schema", str(tmp_path / "none.sql"), "DELETE FROM t"]) == 2
    assert "none.sql" in capsys.readouterr().err


def test_schema_scripts_split_on_semicolons_outside_strings_and_comments() -> None:
    assert split_statements(SCHEMA) == [
        "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
        "CREATE TABLE n (a INT PRIMARY KEY, b VARCHAR(10) DEFAULT 'x;y') ENGINE=MyISAM",
        "CREATE TABLE e (a INT) ENGINE=EXAMPLE",
        "INSERT INTO t VALUES (1, 1), (2, 2)",
    ]


def test_explain_lists_the_triggers_and_their_autoinc_reason(capsys, tmp_path: Path) -> None:
    path = tmp_path / "triggers.sql"
    path.write_text(
        "CREATE TABLE t1 (id INT PRIMARY KEY) ENGINE=InnoDB;"
        "CREATE TABLE audit (n INT AUTO_INCREMENT PRIMARY KEY, id INT) ENGINE=InnoDB;"
        "CREATE TRIGGER t1_audit AFTER INSERT ON t1 FOR EACH ROW INSERT INTO audit (id) VALUES (NEW.id)",
        encoding="utf-8",
    )
    document = explain_json(capsys, path, "--set", "binlog_format=STATEMENT", "INSERT INTO t1 VALUES (1)")
    assert document["triggers"] == [{"name": "t1_audit", "timing": "AFTER", "event": "INSERT", "table": "t1", "writes": ["audit"]}]
    assert [use["table"] for use in document["writes"]] == ["t1", "audit"]
    assert [reason["reason"] for reason in document["unsafe"]] == ["AUTOINC_COLUMNS"]
    assert explain_text(capsys, path, "INSERT INTO t1 VALUES (1)").count("t1_audit (AFTER INSERT ON t1, writes audit)") == 1


@pytest.mark.parametrize(
    ("flavor", "statement", "error", "notes"),
    [
        (MARIADB, "INSERT INTO t VALUES (3, short_label('abcdef'))", "ER_DATA_TOO_LONG", [4094]),
        (MYSQL, "INSERT INTO t VALUES (3, short_label('abcdef'))", "ER_DATA_TOO_LONG", []),
        (MARIADB, "INSERT INTO t VALUES (3, short_label('abc'))", None, []),
    ],
)
def test_explain_names_the_stored_functions_and_their_returns_type(capsys, tmp_path: Path, flavor: str, statement: str, error: str | None, notes: list[int]) -> None:
    path = tmp_path / "functions.sql"
    path.write_text(
        "CREATE TABLE t (a INT PRIMARY KEY, s VARCHAR(10)) ENGINE=InnoDB;"
        "CREATE FUNCTION short_label(x VARCHAR(20)) RETURNS VARCHAR(3) DETERMINISTIC RETURN x",
        encoding="utf-8",
    )
    document = explain_json(capsys, path, "--flavor", flavor, statement)
    assert document["functions"] == [{"name": "short_label", "returns": "VARCHAR(3)", "body": "inlined"}]
    assert (document["result"]["error"] or {}).get("name") == error
    assert [note["code"] for note in document["result"]["notes"]] == notes
    assert "short_label() RETURNS VARCHAR(3): RETURN expression evaluated row by row" in explain_text(capsys, path, "--flavor", flavor, statement)


def test_a_multi_table_update_writes_both_tables_and_maps_them_in_row_format(capsys, schema: Path) -> None:
    document = explain_json(
        capsys, schema, "--set", "binlog_format=ROW", "--before", "INSERT INTO n (a) VALUES (1)", "UPDATE t JOIN n ON t.a = n.a SET t.b = 7, n.b = 'z'"
    )
    assert [use["table"] for use in document["writes"]] == ["t", "n"]
    assert [use["table"] for use in document["reads"]] == ["t", "n"]
    infos = [event["type"] for cache in document["caches"] for event in cache["events"]]
    assert infos.count("Table_map") == 2


def test_a_multi_table_delete_reading_another_table_writes_only_its_target(capsys, schema: Path) -> None:
    document = explain_json(capsys, schema, "DELETE n FROM t JOIN n ON t.a = n.a")
    assert [use["table"] for use in document["writes"]] == ["n"]
    assert [use["table"] for use in document["reads"]] == ["t", "n"]


@pytest.mark.parametrize(("binlog_format", "decision"), [("STATEMENT", {"format": None, "code": 1844}), ("MIXED", {"format": "ROW", "code": None}), ("ROW", {"format": "ROW", "code": None})])
def test_a_multi_table_update_of_a_replicated_and_a_system_table(capsys, schema: Path, binlog_format: str, decision: dict) -> None:
    sql = "UPDATE t, performance_schema.setup_consumers c SET t.b = 7, c.ENABLED = 'NO' WHERE c.NAME = 'events_waits_current'"
    document = explain_json(capsys, schema, "--set", f"binlog_format={binlog_format}", sql)
    error = document["decision"]["error"]
    assert (document["decision"]["format"], error and error["code"]) == (decision["format"], decision["code"])
    assert [(use["table"], use["replicated"]) for use in document["writes"]] == [("t", True), ("performance_schema.setup_consumers", False)]
    mapped = [event["info"] for cache in document["caches"] for event in cache["events"] if event["type"] == "Table_map"]
    assert all("setup_consumers" not in info for info in mapped)


PROCEDURE = """
CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(40)) ENGINE=InnoDB;
CREATE PROCEDURE fill(IN n INT)
BEGIN
  DECLARE i INT DEFAULT 1;
  WHILE i <= n DO
    INSERT INTO t VALUES (i, UUID());
    SET i = i + 1;
  END WHILE;
  UPDATE t SET b = 'x' WHERE a = n;
END;
"""


@pytest.mark.parametrize(
    ("binlog_format", "formats", "first_events"),
    [
        ("STATEMENT", ["STATEMENT", "STATEMENT", "STATEMENT"], ["Query"]),
        ("MIXED", ["ROW", "ROW", "STATEMENT"], ["Annotate_rows", "Table_map", "Write_rows"]),
        ("ROW", ["ROW", "ROW", "ROW"], ["Annotate_rows", "Table_map", "Write_rows"]),
    ],
)
def test_a_call_is_explained_statement_by_statement(capsys, tmp_path: Path, binlog_format: str, formats: list[str], first_events: list[str]) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text(PROCEDURE, encoding="utf-8")
    document = explain_json(capsys, schema, "--flavor", MARIADB, "--set", f"binlog_format={binlog_format}", "CALL fill(2)")
    assert document["decision"]["format"] is None and document["caches"] == []
    body = document["body"]
    assert [statement["statement"] for statement in body] == [
        "INSERT INTO t VALUES ( NAME_CONST('i',1), UUID())",
        "INSERT INTO t VALUES ( NAME_CONST('i',2), UUID())",
        "UPDATE t SET b = 'x' WHERE a = NAME_CONST('n',2)",
    ]
    assert [statement["decision"]["format"] for statement in body] == formats
    assert [[u["reason"] for u in statement["unsafe"]] for statement in body] == [["SYSTEM_FUNCTION"], ["SYSTEM_FUNCTION"], []]
    assert [event["type"] for event in body[0]["caches"][0]["events"]] == first_events
    assert [note["code"] for note in document["result"]["notes"]] == ([1592, 1592] if binlog_format == "STATEMENT" else [])


def test_explain_lists_a_compound_trigger_with_the_tables_its_statements_write(capsys, tmp_path: Path) -> None:
    path = tmp_path / "triggers.sql"
    path.write_text(
        "CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=InnoDB;"
        "CREATE TABLE audit (id INT, what VARCHAR(40)) ENGINE=InnoDB;"
        "CREATE TRIGGER t1_bi BEFORE INSERT ON t1 FOR EACH ROW BEGIN DECLARE k VARCHAR(10) DEFAULT 'x';"
        " SET NEW.v = CONCAT(k, UUID()); INSERT INTO audit VALUES (NEW.id, NEW.v); END;",
        encoding="utf-8",
    )
    document = explain_json(capsys, path, "--flavor", MARIADB, "--set", "binlog_format=MIXED", "INSERT INTO t1 VALUES (1, 'a')")
    assert document["triggers"] == [{"name": "t1_bi", "timing": "BEFORE", "event": "INSERT", "table": "t1", "writes": ["audit"]}]
    assert [reason["reason"] for reason in document["unsafe"]] == ["SYSTEM_FUNCTION"]
    assert document["decision"]["format"] == "ROW"
