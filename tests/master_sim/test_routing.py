"""route_events, WL#2687 layer 2, tested directly: seed 004's cache table row by row (the
same rows, ids and server differences tests/master_sim/test_wl2687_tables.py runs on the master), and
the cases the table leaves out (DDL, failures, temporary and no_replicate tables)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from master_sim.analysis import Analysis
from master_sim.binlog_cache import LogTarget
from master_sim.decision import LoggingFormat, TransactionState, is_mixed_stmt_unsafe
from master_sim.routing import Routing, RoutingInput, TableUse, route_events
from server_sim.statement import StatementKind
from tests.master_sim.test_wl2687_tables import LAYER_1, M_WRITES_N, _layer_1_params, _layers_2_3_params, _test_id, written_class

T = TableUse(transactional=True)
N = TableUse(transactional=False)
TRX, STMT, BINLOG = LogTarget.TRX_CACHE, LogTarget.STMT_CACHE, LogTarget.BINLOG
LETTER = {TRX: "T", STMT: "S", BINLOG: "B"}
FORMAT = {"S": LoggingFormat.STATEMENT, "R": LoggingFormat.ROW}


def state(binlog_format: str = "STATEMENT", multi: bool = True, trx_nonempty: bool = False, direct: bool = False) -> TransactionState:
    return TransactionState(binlog_format, "REPEATABLE-READ", direct, multi, trx_nonempty)


# -- seed 004's layer 2 table ------------------------------------------------------------


def _uses(token: str, variant: str) -> tuple[list[TableUse], list[TableUse], int, bool]:
    """(tables written, tables read, rows changed, failed) of one of the seed's statements,
    as tests/master_sim/test_wl2687_tables.py's statement_sql writes them."""
    written = T if written_class(token, variant) == "T" else N
    if token.startswith("M"):
        read = N if variant != M_WRITES_N else T
        return [written], [written, read], 1 if token.endswith("!") else 2, token.endswith("!")
    return [written], [written], 1, token.endswith("!")


def _mixed_stmt_unsafe(writes: list[TableUse], reads: list[TableUse], session: TransactionState) -> bool:
    """is_mixed_stmt_unsafe() itself, over stand-ins for the seed's tables t and n."""

    def table(use: TableUse) -> SimpleNamespace:
        return SimpleNamespace(engine=SimpleNamespace(transactional=use.transactional), temporary=use.temporary)

    analysis = Analysis(statement=None, writes=[table(t) for t in writes], reads=[table(t) for t in reads])  # type: ignore[arg-type]
    return is_mixed_stmt_unsafe(analysis, session)


def _cache_letters(routing: Routing) -> str:
    targets = {routing.statement} | set(routing.rows)
    return "".join(sorted(LETTER[t] for t in targets if t is not None)) or "-"


LAYER_1_FORMATS = {param.id: param.values[4] for param in _layer_1_params()}


def _layer_2_params() -> Iterator:
    """Each row of the seed's layer 2 and 3 table, per format (and M variant), with the
    formats its statements are logged in: the layer 1 row of the same number."""
    for param in _layers_2_3_params():
        binlog_format, variant, end, tokens, expected, reason = param.values
        number = param.id.split(".", 1)[0]
        row = next(row for row, *_ in LAYER_1 if row.startswith(f"{number})"))
        formats = LAYER_1_FORMATS[_test_id(row, binlog_format, variant)]
        yield pytest.param(binlog_format, variant, bool(end), tokens, [f[0] for f in formats], expected.split(), reason, id=param.id)


@pytest.mark.parametrize(("binlog_format", "variant", "multi", "tokens", "formats", "expected", "reason"), list(_layer_2_params()))
def test_layer_2_cache_of_each_statement(
    binlog_format: str, variant: str, multi: bool, tokens: list[str], formats: list[str], expected: list[str], reason: str
) -> None:
    """The seed's C column: S stmt-cache, T trx-cache. A statement the seed never writes
    (F - I) is dropped or left in the trx cache for the rollback to discard, never put
    in the statement cache, which its statement's end would write."""
    trx_nonempty = False
    for token, logged, pair in zip(tokens, formats, expected):
        writes, reads, rows, failed = _uses(token, variant)
        session = state(binlog_format, multi, trx_nonempty)
        facts = RoutingInput(
            format=FORMAT[logged],
            kind=StatementKind.INSERT,
            state=session,
            writes=tuple(writes),
            changes=tuple(writes) * rows,
            failed=failed,
            mixed_stmt_unsafe=_mixed_stmt_unsafe(writes, reads, session),
        )
        routing = route_events(facts)
        cache, flush = pair.split("/")
        observed = _cache_letters(routing)
        if flush == "I":
            assert observed in ("-", "T"), (token, reason)
        else:
            assert observed == cache, (token, reason)
        trx_nonempty = trx_nonempty or TRX in {routing.statement, *routing.rows}


# -- what the table leaves out ---------------------------------------------------------------

CASES = [
    # id, input, expected routing
    (
        "CACHE_STMT: an N-statement with an empty trx cache goes to the stmt cache",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.INSERT, state(), writes=(N,), changes=(N,)),
        Routing(statement=STMT, statement_nontransactional=True, rows=(None,)),
    ),
    (
        "CACHE_STMT: an N-statement after a T-change goes to the trx cache",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.INSERT, state(trx_nonempty=True), writes=(N,), changes=(N,)),
        Routing(statement=TRX, statement_nontransactional=True, rows=(None,)),
    ),
    (
        "binlog_direct_non_transactional_updates keeps an N-statement in the stmt cache",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.INSERT, state(trx_nonempty=True, direct=True), writes=(N,), changes=(N,)),
        Routing(statement=STMT, statement_nontransactional=True, rows=(None,)),
    ),
    (
        "a mixed-unsafe statement goes to the trx cache",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.INSERT, state(), writes=(N,), changes=(N,), mixed_stmt_unsafe=True),
        Routing(statement=TRX, statement_nontransactional=True, rows=(None,)),
    ),
    (
        "DDL goes to the binlog with its implicit commit",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.CREATE_TABLE, state(), writes=(T,)),
        Routing(statement=BINLOG),
    ),
    (
        "temporary DDL is cached and marks an N-change",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.CREATE_TABLE, state(), temporary=True),
        Routing(statement=STMT, statement_nontransactional=True),
    ),
    (
        "temporary DDL of a transactional engine goes to the trx cache",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.CREATE_TABLE, state(), writes=(TableUse(True, temporary=True),), temporary=True),
        Routing(statement=TRX, statement_nontransactional=True),
    ),
    (
        "temporary DDL outside a transaction uses no cache (Query_log_event's use_cache)",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.DROP_TABLE, state(multi=False), writes=(TableUse(True, temporary=True),), temporary=True),
        Routing(statement=BINLOG),
    ),
    (
        "a failed statement that changed only T-rows is dropped",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.INSERT, state(), writes=(T,), changes=(T,), failed=True),
        Routing(rows=(None,)),
    ),
    (
        "a failed statement that changed an N-row is logged, with its error",
        RoutingInput(LoggingFormat.STATEMENT, StatementKind.INSERT, state(), writes=(N,), changes=(N,), failed=True),
        Routing(statement=STMT, statement_nontransactional=True, rows=(None,)),
    ),
    (
        "a statement that did not run logs nothing",
        RoutingInput(LoggingFormat.ROW, StatementKind.UPDATE, state(), writes=(T,), changes=(T,), executed=False),
        Routing(rows=(None,)),
    ),
    (
        "CACHE_ROW: each row by its table's kind, a failed statement's T-rows dropped",
        RoutingInput(LoggingFormat.ROW, StatementKind.UPDATE, state(), writes=(T, N), changes=(T, N, T), failed=True),
        Routing(rows=(None, STMT, None)),
    ),
    (
        "rows of a no_replicate table never reach the binlog",
        RoutingInput(LoggingFormat.ROW, StatementKind.INSERT, state(), changes=(TableUse(False, replicated=False), T)),
        Routing(rows=(None, TRX)),
    ),
    (
        "a temporary table's rows alone are not logged",
        RoutingInput(LoggingFormat.ROW, StatementKind.INSERT, state(), changes=(TableUse(True, temporary=True), TableUse(False, temporary=True))),
        Routing(rows=(None, None)),
    ),
    (
        "CREATE ... SELECT in row format: the CREATE to the binlog, its rows to the trx cache",
        RoutingInput(LoggingFormat.ROW, StatementKind.CREATE_TABLE, state(), writes=(T,), changes=(T, T), creates_from_select=True),
        Routing(create_table=BINLOG, rows=(TRX, TRX)),
    ),
    (
        "a failed CREATE ... SELECT writes nothing",
        RoutingInput(LoggingFormat.ROW, StatementKind.CREATE_TABLE, state(), writes=(T,), changes=(T,), creates_from_select=True, failed=True),
        Routing(rows=(None,)),
    ),
]


@pytest.mark.parametrize(("facts", "expected"), [pytest.param(facts, expected, id=name) for name, facts, expected in CASES])
def test_route_events(facts: RoutingInput, expected: Routing) -> None:
    assert route_events(facts) == expected


def test_logged_as_is_the_format_of_what_was_routed() -> None:
    assert Routing(statement=STMT).logged_as is LoggingFormat.STATEMENT
    assert Routing(create_table=BINLOG, rows=(None,)).logged_as is LoggingFormat.ROW
    assert Routing(rows=(None, TRX)).logged_as is LoggingFormat.ROW
    assert Routing(rows=(None,)).logged_as is None
