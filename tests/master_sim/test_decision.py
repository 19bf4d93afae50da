"""decide_logging_format against seed 000's decision table (WL#3303) and seed 001's errors."""

from __future__ import annotations

import pytest

from master_sim.analysis import Analysis, analyze
from master_sim.decision import LoggingFormat, TransactionState, decide_logging_format
from master_sim.unsafe import UnsafeReason
from server_sim.catalog import system_table
from server_sim.table import Column, Table
from server_sim.engines import BUILTIN_ENGINES, Engine
from server_sim.execute.executor import Executor
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from server_sim.parser import parse_statement
from server_sim.server import Server, ServerIdentity
from server_sim.system_tables import TableCategory
from server_sim.types import ColumnType

STATEMENT, MIXED, ROW = "STATEMENT", "MIXED", "ROW"
ERROR = "error"

# Seed 000's table: safe/unsafe x BINLOG_FORMAT x RLC x SLC -> error/warning and logging format.
DECISION_TABLE = [
    ("safe", STATEMENT, False, False, ERROR, None),
    ("safe", STATEMENT, False, True, None, STATEMENT),
    ("safe", STATEMENT, True, False, ERROR, None),
    ("safe", STATEMENT, True, True, None, STATEMENT),
    ("safe", MIXED, False, False, ERROR, None),
    ("safe", MIXED, False, True, None, STATEMENT),
    ("safe", MIXED, True, False, None, ROW),
    ("safe", MIXED, True, True, None, STATEMENT),
    ("safe", ROW, False, False, ERROR, None),
    ("safe", ROW, False, True, ERROR, None),
    ("safe", ROW, True, False, None, ROW),
    ("safe", ROW, True, True, None, ROW),
    ("unsafe", STATEMENT, False, False, ERROR, None),
    ("unsafe", STATEMENT, False, True, "warning", STATEMENT),
    ("unsafe", STATEMENT, True, False, ERROR, None),
    ("unsafe", STATEMENT, True, True, "warning", STATEMENT),
    ("unsafe", MIXED, False, False, ERROR, None),
    ("unsafe", MIXED, False, True, ERROR, None),
    ("unsafe", MIXED, True, False, None, ROW),
    ("unsafe", MIXED, True, True, None, ROW),
    ("unsafe", ROW, False, False, ERROR, None),
    ("unsafe", ROW, False, True, ERROR, None),
    ("unsafe", ROW, True, False, None, ROW),
    ("unsafe", ROW, True, True, None, ROW),
]


def _table(name: str, engine: Engine) -> Table:
    return Table(name, [Column("a", ColumnType("INT"))], [], engine, storage_name=name)


def _analysis(safe: bool, engine: Engine) -> Analysis:
    sql = "UPDATE t SET a = 1" if safe else "UPDATE t SET a = 1 LIMIT 1"
    table = _table("t", engine)
    return Analysis(parse_statement(sql), writes=[table], reads=[table], unsafe=[] if safe else [UnsafeReason.LIMIT])


def _state(binlog_format: str, **overrides: object) -> TransactionState:
    values: dict[str, object] = {
        "binlog_format": binlog_format,
        "isolation": "REPEATABLE-READ",
        "direct": False,
        "multi_statement": False,
        "trx_cache_nonempty": False,
    }
    values.update(overrides)
    return TransactionState(**values)  # type: ignore[arg-type]


def _row_id(row: tuple) -> str:
    safety, binlog_format, rlc, slc, *_ = row
    return f"{safety}-{binlog_format}-RLC={'Y' if rlc else 'N'}-SLC={'Y' if slc else 'N'}"


@pytest.mark.parametrize(("safety", "binlog_format", "rlc", "slc", "message", "logged_as"), DECISION_TABLE, ids=[_row_id(r) for r in DECISION_TABLE])
def test_wl3303_decision_table(safety: str, binlog_format: str, rlc: bool, slc: bool, message: str | None, logged_as: str | None) -> None:
    engine = Engine("ENGINE_UNDER_TEST", transactional=False, row_capable=rlc, statement_capable=slc)
    decision = decide_logging_format(_analysis(safety == "safe", engine), _state(binlog_format), MYSQL_80)
    if message == ERROR:
        assert decision.error is not None and decision.format is None
        assert 1661 <= decision.error.code <= 1667
    else:
        assert decision.error is None
        assert decision.format is LoggingFormat(logged_as)
        assert decision.warn_unsafe is (message == "warning")


IMPOSSIBLE_TO_LOG = [
    # (seed 001 reason, engines written, binlog_format, unsafe, row injection, MySQL error)
    ("row-incapable and statement-incapable engines", [(False, True), (True, False)], MIXED, False, False, 1661),
    ("ROW with a statement-only engine", [(False, True)], ROW, False, False, 1662),
    ("unsafe in MIXED with a statement-only engine", [(False, True)], MIXED, True, False, 1663),
    ("row injection with a statement-only engine", [(False, True)], STATEMENT, False, True, 1664),
    ("STATEMENT with a row-only engine", [(True, False)], STATEMENT, False, False, 1665),
    ("row injection under STATEMENT", [(True, True)], STATEMENT, False, True, 1666),
]


@pytest.mark.parametrize(("reason", "capabilities", "binlog_format", "unsafe", "injection", "code"), IMPOSSIBLE_TO_LOG, ids=[r[0] for r in IMPOSSIBLE_TO_LOG])
def test_impossible_to_log_errors(reason: str, capabilities: list[tuple[bool, bool]], binlog_format: str, unsafe: bool, injection: bool, code: int) -> None:
    tables = [_table(f"t{i}", Engine(f"E{i}", False, rlc, slc)) for i, (rlc, slc) in enumerate(capabilities)]
    analysis = Analysis(parse_statement("UPDATE t0 SET a = 1"), writes=tables, reads=tables, unsafe=[UnsafeReason.LIMIT] if unsafe else [])
    decision = decide_logging_format(analysis, _state(binlog_format, row_injection=injection), MYSQL_80)
    assert decision.error is not None and decision.error.code == code


def test_multiple_engines_with_a_self_logging_one_is_error_1667() -> None:
    tables = [_table("n", BUILTIN_ENGINES["NDB"]), _table("i", BUILTIN_ENGINES["INNODB"])]
    analysis = Analysis(parse_statement("UPDATE n SET a = 1"), writes=tables, reads=tables)
    assert decide_logging_format(analysis, _state(ROW), MYSQL_80).error.code == 1667


def test_innodb_at_read_committed_is_row_only_and_statement_gives_1665_with_innodb_text() -> None:
    table = _table("t", BUILTIN_ENGINES["INNODB"])
    analysis = Analysis(parse_statement("UPDATE t SET a = 1"), writes=[table], reads=[table])
    decision = decide_logging_format(analysis, _state(STATEMENT, isolation="READ-COMMITTED"), MYSQL_80)
    assert decision.error.code == 1665
    assert "InnoDB is limited to row-logging when transaction isolation level is READ COMMITTED" in decision.error.message
    assert decide_logging_format(analysis, _state(MIXED, isolation="READ-COMMITTED"), MYSQL_80).format is LoggingFormat.ROW


@pytest.mark.parametrize(
    ("flavor", "expected_code"),
    [(MYSQL_80, None), (MARIADB_1011, 1663)],
    ids=["mysql-8.0-warns", "mariadb-10.11-errors"],
)
def test_unsafe_statement_on_statement_only_engine_under_statement_differs_by_flavor(flavor: Flavor, expected_code: int | None) -> None:
    decision = decide_logging_format(_analysis(False, BUILTIN_ENGINES["EXAMPLE"]), _state(STATEMENT), flavor)
    assert (decision.error.code if decision.error else None) == expected_code


def test_mariadb_logs_row_injection_under_statement_as_rows() -> None:
    table = _table("t", BUILTIN_ENGINES["INNODB"])
    analysis = Analysis(parse_statement("UPDATE t SET a = 1"), writes=[table], reads=[table])
    decision = decide_logging_format(analysis, _state(STATEMENT, row_injection=True), MARIADB_1011)
    assert decision.error is None and decision.format is LoggingFormat.ROW


# Multi-table statements through the analysis: the targets are written, every other table
# of the join is only read (server-internals §1, §2.2 steps 3 and 5).
MULTI_TABLE_SCHEMA = [
    "CREATE TABLE i (id INT PRIMARY KEY, a INT) ENGINE=InnoDB",
    "CREATE TABLE i2 (id INT PRIMARY KEY, a INT) ENGINE=InnoDB",
    "CREATE TABLE n (id INT PRIMARY KEY, a INT) ENGINE=NDB",
    "CREATE TABLE auto (id INT AUTO_INCREMENT PRIMARY KEY, a INT) ENGINE=InnoDB",
]
_SELF = UnsafeReason.MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE
_AUTOINC = UnsafeReason.WRITE_AUTOINC_SELECT
MULTI_TABLE_DECISIONS = [
    # (case, statement, binlog_format, error, unsafe reasons, logged as)
    ("update-writes-innodb-and-ndb-statement", "UPDATE i JOIN n ON i.id = n.id SET i.a = 1, n.a = 2", STATEMENT, 1667, [], None),
    ("update-writes-innodb-and-ndb-mixed", "UPDATE i JOIN n ON i.id = n.id SET i.a = 1, n.a = 2", MIXED, 1667, [], None),
    ("update-writes-innodb-and-ndb-row", "UPDATE i, n SET i.a = 1, n.a = 2 WHERE i.id = n.id", ROW, 1667, [], None),
    ("delete-from-innodb-and-ndb", "DELETE i, n FROM i JOIN n ON i.id = n.id", ROW, 1667, [], None),
    ("update-writes-innodb-reads-ndb-statement", "UPDATE i JOIN n ON i.id = n.id SET i.a = n.a", STATEMENT, None, [_SELF], STATEMENT),
    ("update-writes-innodb-reads-ndb-mixed", "UPDATE i JOIN n ON i.id = n.id SET i.a = n.a", MIXED, None, [_SELF], ROW),
    ("delete-innodb-reads-ndb-mixed", "DELETE FROM i USING i, n WHERE i.id = n.id", MIXED, None, [_SELF], ROW),
    ("update-writes-ndb-reads-ndb", "UPDATE n AS x JOIN n AS y ON x.id = y.id SET x.a = y.a", MIXED, None, [], STATEMENT),
    ("update-autoinc-reads-other-statement", "UPDATE auto JOIN i ON auto.id = i.id SET auto.a = i.a", STATEMENT, None, [_AUTOINC], STATEMENT),
    ("update-autoinc-reads-other-mixed", "UPDATE auto JOIN i ON auto.id = i.id SET auto.a = i.a", MIXED, None, [_AUTOINC], ROW),
    ("update-autoinc-reads-other-row", "UPDATE auto JOIN i ON auto.id = i.id SET auto.a = i.a", ROW, None, [], ROW),
    ("update-writes-autoinc-and-other-reads-nothing-else", "UPDATE auto JOIN i ON auto.id = i.id SET auto.a = 1, i.a = 2", MIXED, None, [], STATEMENT),
    ("delete-autoinc-reads-other", "DELETE auto FROM auto JOIN i ON auto.id = i.id", MIXED, None, [_AUTOINC], ROW),
    ("multi-table-update-ignore-not-flagged", "UPDATE IGNORE i JOIN i2 ON i.id = i2.id SET i.a = 1, i2.a = 1", MIXED, None, [], STATEMENT),
]


@pytest.mark.parametrize(("case", "sql", "binlog_format", "code", "unsafe", "logged_as"), MULTI_TABLE_DECISIONS, ids=[r[0] for r in MULTI_TABLE_DECISIONS])
def test_multi_table_statement_decision(case: str, sql: str, binlog_format: str, code: int | None, unsafe: list[UnsafeReason], logged_as: str | None) -> None:
    server = Server(MYSQL_80, ServerIdentity(1, "master", 7))
    try:
        session = server.new_session("root@localhost")
        executor = Executor(server)
        for ddl in MULTI_TABLE_SCHEMA:
            assert executor.run(session, parse_statement(ddl), server.statement_context(session, server.tick())).error is None
        analysis = analyze(parse_statement(sql), server.catalog, session.thread_id, MYSQL_80)
        decision = decide_logging_format(analysis, _state(binlog_format), MYSQL_80)
    finally:
        server.close()
    assert (decision.error.code if decision.error else None) == code
    assert decision.unsafe == unsafe
    assert (decision.format.value if decision.format else None) == logged_as


@pytest.mark.parametrize(
    ("case", "flavor", "temporary_read", "temporary_written", "expected"),
    [
        ("MySQL, INSERT ... SELECT from a temporary table", MYSQL_80, True, False, ROW),
        ("MySQL, a write to a temporary table", MYSQL_80, False, True, ROW),
        ("MySQL, no temporary table", MYSQL_80, False, False, STATEMENT),
        ("MariaDB logs temporary tables under MIXED", MARIADB_1011, True, False, STATEMENT),
    ],
)
def test_mixed_logs_statements_on_temporary_tables_in_row_format_where_it_does_not_log_them(
    case: str, flavor: Flavor, temporary_read: bool, temporary_written: bool, expected: str
) -> None:
    innodb = BUILTIN_ENGINES["INNODB"]
    target = Table("t", [Column("a", ColumnType("INT"))], [], innodb, storage_name="t", temporary=temporary_written)
    source = Table("s", [Column("a", ColumnType("INT"))], [], innodb, storage_name="s", temporary=temporary_read)
    analysis = Analysis(parse_statement("INSERT INTO t SELECT a FROM s"), writes=[target], reads=[target, source])
    decision = decide_logging_format(analysis, _state(MIXED), flavor)
    assert decision.error is None and decision.format is LoggingFormat(expected)


# server-internals §2.2 steps 1 and 7: what a no_replicate table (log, performance_schema)
# does to the decision. (case, tables read only, tables written, binlog_format, format
# or None when the statement is not logged, error code, Note 1592 SYSTEM_TABLE).
_T, _P = "innodb t", "performance_schema table"
NO_REPLICATE = [
    ("reads a system table under STATEMENT", [_P], [_T], STATEMENT, STATEMENT, None, True),
    ("reads a system table under MIXED", [_P], [_T], MIXED, ROW, None, False),
    ("reads a system table under ROW", [_P], [_T], ROW, ROW, None, False),
    ("writes only a system table under STATEMENT", [], [_P], STATEMENT, None, None, False),
    ("writes only a system table under MIXED", [], [_P], MIXED, None, None, False),
    ("writes only a system table under ROW", [], [_P], ROW, None, None, False),
    ("writes a system table reading a replicated one", [_T], [_P], STATEMENT, None, None, False),
    ("writes both kinds under STATEMENT", [], [_T, _P], STATEMENT, None, 1844, False),
    ("writes both kinds under MIXED", [], [_T, _P], MIXED, ROW, None, False),
    ("writes both kinds under ROW", [], [_T, _P], ROW, ROW, None, False),
]


@pytest.mark.parametrize(("case", "read", "written", "binlog_format", "logged_as", "code", "note"), NO_REPLICATE, ids=[r[0] for r in NO_REPLICATE])
@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda flavor: flavor.name)
def test_no_replicate_tables(flavor: Flavor, case: str, read: list[str], written: list[str], binlog_format: str, logged_as: str | None, code: int | None, note: bool) -> None:
    system = next(spec for spec in flavor.system_tables if spec.category is TableCategory.PERFORMANCE)
    tables = {_T: _table("t", BUILTIN_ENGINES["INNODB"]), _P: system_table(system)}
    writes = [tables[name] for name in written]
    analysis = Analysis(parse_statement("UPDATE t SET a = 1"), writes=writes, reads=writes + [tables[name] for name in read])
    decision = decide_logging_format(analysis, _state(binlog_format), flavor)
    assert decision.unsafe == [UnsafeReason.SYSTEM_TABLE]
    assert (decision.error.code if decision.error else None) == code
    assert decision.format is (LoggingFormat(logged_as) if logged_as else None)
    assert decision.warn_unsafe is note
