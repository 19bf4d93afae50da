"""BINLOG '...' statements: parsing, the server's checks, applying rows on a master, logging them."""

from __future__ import annotations

import base64
import re

import pytest

from harness.cli import main
from server_sim.binlog.base64_events import binlog_statement
from server_sim.binlog.binary.codec import FormatContext, MYSQL
from server_sim.binlog.binary.columns import column_info
from server_sim.binlog.binary.registry import encode_event
from server_sim.binlog.events import (
    Delete_rows_log_event,
    Format_description_log_event,
    Query_log_event,
    Row,
    Table_map_log_event,
    Write_rows_log_event,
    type_name_of,
)
from server_sim.binlog.file import read_binlog
from server_sim.binlog.show import show
from server_sim.errors import SqlError
from server_sim.flavor import MARIADB_1011, MYSQL_80
from server_sim.parser import parse_statement
from server_sim.statement import StatementKind
from server_sim.types import ColumnType

_BINLOG = re.compile(r"BINLOG '.*?'", re.DOTALL)

DESCRIPTION = binlog_statement([Format_description_log_event(server_version="8.0.39")])
INT = ColumnType("INT")
TABLE_T = Table_map_log_event(table_id=7, database="test", table="t", columns=[column_info(INT, False, 255), column_info(INT, True, 255)])


def write_rows(*rows: tuple[int, int | None], table_map: Table_map_log_event = TABLE_T) -> str:
    event = Write_rows_log_event(table_id=table_map.table_id, width=2, columns_after=[True, True], rows=[Row(after=list(row)) for row in rows])
    return binlog_statement([table_map, event])


SCHEMA = ("CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",)


# -- the statement -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "sql"),
    [
        ("one line", f"BINLOG '{DESCRIPTION.removeprefix('BINLOG ').strip(chr(39)).replace(chr(10), '')}'"),
        ("as mysqlbinlog wraps it", DESCRIPTION),
        ("with mysqlbinlog's comment and semicolon", DESCRIPTION + "/*!*/;"),
        ("in lower case, double-quoted", DESCRIPTION.replace("BINLOG '", 'binlog "').removesuffix("'") + '"'),
    ],
)
def test_binlog_statement_is_parsed_with_its_events(case: str, sql: str) -> None:
    statement = parse_statement(sql)
    assert statement.kind is StatementKind.BINLOG and statement.kind.is_dml
    assert [type_name_of(event) for event in statement.events] == ["Format_desc"]


@pytest.mark.parametrize(
    ("case", "sql", "code"),
    [
        ("empty string", "BINLOG ''", 1149),
        ("only whitespace", "BINLOG '  \n '", 1149),
        ("not base64", "BINLOG 'abc!'", 1575),
        ("base64 of no event", "BINLOG 'YWJj'", 1149),
    ],
)
def test_a_binlog_statement_that_holds_no_events_fails_as_the_server_does(case: str, sql: str, code: int) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)
    assert raised.value.code == code


def test_row_events_need_a_format_description_first_in_the_same_session(new_master) -> None:
    master = new_master(SCHEMA)
    assert master.submit("con1", write_rows((1, 10))).error.code == 1609
    assert master.submit("con1", DESCRIPTION).error is None
    assert master.submit("con1", write_rows((1, 10))).error is None
    refused = master.submit("con2", write_rows((2, 20)))  # another session has seen none
    assert (refused.error.code, refused.error.message) == (
        1609,
        "The BINLOG statement of type `Table_map` was not preceded by a format description BINLOG statement.",
    )
    assert master.server.dump()["t"][1] == [(1, 10)]


def test_only_format_descriptions_and_row_events_are_allowed(new_master) -> None:
    master = new_master(SCHEMA)
    sql = binlog_statement([Format_description_log_event(), Query_log_event(query="DELETE FROM t")])
    result = master.submit("con1", sql)
    assert (result.error.code, result.error.name) == (1730, "ER_ONLY_FD_AND_RBR_EVENTS_ALLOWED_IN_BINLOG_STATEMENT")
    assert "(but Query was provided)" in result.error.message


def test_a_row_event_without_its_table_map_is_an_error(new_master) -> None:
    master = new_master(SCHEMA)
    event = Write_rows_log_event(table_id=9, width=2, columns_after=[True, True], rows=[Row(after=[1, 1])])
    ctx = FormatContext(MYSQL)
    encode_event(Table_map_log_event(table_id=9, database="test", table="t", columns=TABLE_T.columns), ctx, 0)
    payload = base64.b64encode(encode_event(Format_description_log_event(server_version="8.0.39"), ctx, 0) + encode_event(event, ctx, 0))
    result = master.submit("con1", f"BINLOG '{payload.decode()}'")
    assert result.error.code == 1105 and "table id 9" in result.error.message


# -- the decision: a row injection (WL#3303, server-internals §2.2 step 6) ------------------


@pytest.mark.parametrize(
    ("case", "flavor", "engine", "binlog_format", "error", "logged_as"),
    [
        ("MySQL, ROW", MYSQL_80, "InnoDB", "ROW", None, "ROW"),
        ("MySQL, MIXED", MYSQL_80, "InnoDB", "MIXED", None, "ROW"),
        ("MySQL, STATEMENT: 1666", MYSQL_80, "InnoDB", "STATEMENT", 1666, "none"),
        ("MariaDB, STATEMENT: logged in row format", MARIADB_1011, "InnoDB", "STATEMENT", None, "ROW"),
        ("statement-only engine, ROW: 1664", MYSQL_80, "EXAMPLE", "ROW", 1664, "none"),
        ("statement-only engine, STATEMENT: 1664", MYSQL_80, "EXAMPLE", "STATEMENT", 1664, "none"),
        ("MariaDB, statement-only engine: 1664", MARIADB_1011, "EXAMPLE", "MIXED", 1664, "none"),
    ],
)
def test_a_row_injection_is_logged_in_row_format_or_refused(new_master, case, flavor, engine, binlog_format, error, logged_as) -> None:
    master = new_master([f"CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE={engine}"], binlog_format, flavor)
    master.submit("con1", DESCRIPTION)
    result = master.submit("con1", write_rows((1, 10), (2, None)))
    assert (result.error.code if result.error else None, result.logged_as) == (error, logged_as)
    assert master.server.dump()["t"][1] == ([] if error else [(1, 10), (2, None)])


# -- applying ------------------------------------------------------------------------------


def test_a_missing_row_fails_the_statement_and_undoes_its_transactional_rows(new_master) -> None:
    master = new_master(SCHEMA)
    master.submit("con1", DESCRIPTION)
    master.submit("con1", "INSERT INTO t VALUES (1, 10)")
    delete = Delete_rows_log_event(table_id=7, width=2, columns_before=[True, True], rows=[Row(before=[1, 10]), Row(before=[5, 50])])
    result = master.submit("con1", binlog_statement([TABLE_T, delete]))
    assert (result.error.code, result.logged_as) == (1032, "none")
    assert master.server.dump()["t"][1] == [(1, 10)]


def test_rows_for_a_table_the_master_lacks_fail_with_1146(new_master) -> None:
    master = new_master(SCHEMA)
    master.submit("con1", DESCRIPTION)
    other = Table_map_log_event(table_id=8, database="test", table="nope", columns=TABLE_T.columns)
    assert master.submit("con1", write_rows((1, 1), table_map=other)).error.code == 1146


def test_replaying_mysqlbinlog_output_rebuilds_the_tables_and_logs_rows_with_the_replaying_masters_image(new_master) -> None:
    """Point-in-time recovery: a ROW binlog printed with --base64-output=AUTO, replayed."""
    schema = (
        "CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(20)) ENGINE=InnoDB",
        "CREATE TABLE n (a INT, b TEXT) ENGINE=MyISAM",
    )
    source = new_master(schema)
    for sql in [
        "INSERT INTO t VALUES (1, 10, 'é'), (2, NULL, 'b'), (3, 30, NULL)",
        "UPDATE t SET v = 21 WHERE id = 2",
        "DELETE FROM t WHERE id = 1",
        "INSERT INTO n VALUES (1, 'x'), (1, 'x'), (2, NULL)",
        "DELETE FROM n WHERE b IS NULL",
    ]:
        assert source.submit("con1", sql).error is None
    source.finish()
    statements = _BINLOG.findall(show(read_binlog(source.binlog_path), "AUTO"))
    assert len(statements) == 1 + 5  # the format description, then one per statement

    target = new_master(schema, binlog_row_image="MINIMAL")
    for sql in statements:
        result = target.submit("replay", sql)
        assert result.error is None, result.error
    assert target.server.dump() == source.server.dump()
    target.finish()
    # MINIMAL: the before image is the primary key; the after image is the write set, which
    # for an applied row is every column its injected (FULL) after image carried.
    updates = [p.event for p in read_binlog(target.binlog_path) if type_name_of(p.event) == "Update_rows"]
    assert [(u.columns_before, u.columns_after) for u in updates] == [([True, False, False], [True, True, True])]


def test_binlog_show_prints_binlog_statements_with_base64_output_auto(new_master, capsys: pytest.CaptureFixture[str]) -> None:
    master = new_master(SCHEMA)
    master.submit("con1", "INSERT INTO t VALUES (1, 10)")
    master.finish()
    assert main(["binlog", "show", str(master.binlog_path), "--base64-output=auto"]) == 0
    printed = capsys.readouterr().out
    statements = _BINLOG.findall(printed)
    assert [[type_name_of(e) for e in parse_statement(s).events] for s in statements] == [["Format_desc"], ["Table_map", "Write_rows"]]
    assert main(["binlog", "show", str(master.binlog_path)]) == 0  # AUTO is the default, as mysqlbinlog's
    assert capsys.readouterr().out == printed
    assert main(["binlog", "show", str(master.binlog_path), "--base64-output=decode-rows"]) == 0
    assert "BINLOG '" not in capsys.readouterr().out


def test_events_encoded_one_by_one_as_mysqlbinlog_prints_them_are_one_statement(new_master) -> None:
    """mysqlbinlog encodes each event of a BINLOG statement on its own, so the text is
    several base64 chunks, each with its padding; the server decodes them in turn."""
    master = new_master(SCHEMA)
    master.submit("con1", DESCRIPTION)
    ctx = FormatContext(MYSQL)
    events = [Write_rows_log_event(table_id=7, width=2, columns_after=[True, True], rows=[Row(after=[key, 10])]) for key in (1, 2)]
    chunks = [base64.b64encode(encode_event(part, ctx, 0)).decode() for part in (TABLE_T, *events)]
    assert chunks[1].endswith("=")  # padding in the middle of the text
    result = master.submit("con1", "BINLOG '\n" + "\n".join(chunks) + "\n'")
    assert result.error is None and master.server.dump()["t"][1] == [(1, 10), (2, 10)]
