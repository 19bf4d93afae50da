"""Seed 004 (WL#2687): its definition tables for layer 1 (format and warning) and layers 2
and 3 (cache and flush), row by row and format by format, on the real master.

T writes the InnoDB table t, N the MyISAM table n. The simulator takes no multi-table
UPDATE or trigger, so an M-statement (N- and T-tables, changing one) is INSERT ... SELECT,
in both directions: "M writes N" (INSERT INTO n SELECT ... FROM t) and "M writes T"
(INSERT INTO t SELECT ... FROM n); every row with an M runs once with each.

Where MySQL 8.0 (server-internals.md) does what the 2009 worklog did not foresee, the
row's expectation is the server's, listed in SERVER_DIFFERS with the reason; every
other cell is the seed's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from master_sim.binlog_cache import LogTarget
from master_sim.master import Master
from master_sim.results import StepResult
from server_sim.binlog.events import Query_log_event, Rows_query_log_event, Xid_log_event
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MYSQL_80

STATEMENT, ROW, MIXED = "STATEMENT", "ROW", "MIXED"
SEED_FORMATS = (STATEMENT, ROW, MIXED)  # the seed's column order
M_WRITES_N, M_WRITES_T = "M writes N", "M writes T"

SCHEMA = [
    "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "CREATE TABLE n (a INT PRIMARY KEY, b INT) ENGINE=MyISAM",
    "INSERT INTO t VALUES (1, 1), (2, 2)",
    "INSERT INTO n VALUES (3, 3), (2, 2)",  # MyISAM scans in this order
]


def statement_sql(token: str, variant: str, key: int) -> str:
    """The SQL of one statement class; `key` keeps every statement's rows apart."""
    if token == "T":
        return f"INSERT INTO t VALUES ({key}, {key})"
    if token == "N":
        return f"INSERT INTO n VALUES ({key}, {key})"
    if token == "T!":  # fails on t's row 1 after writing its first row
        return f"INSERT INTO t VALUES ({key}, {key}), (1, 1)"
    if token == "M":
        return f"INSERT INTO n SELECT a + {key}, b FROM t" if variant == M_WRITES_N else f"INSERT INTO t SELECT a + {key}, b FROM n"
    if token == "M!":  # writes one row, then fails on row 2, which both tables have
        return "INSERT INTO n SELECT a, b FROM t" if variant == M_WRITES_N else "INSERT INTO t SELECT a, b FROM n"
    raise ValueError(token)


def written_class(token: str, variant: str) -> str:
    """T or N: the kind of table a statement's row events are for."""
    if token.startswith("M"):
        return "N" if variant == M_WRITES_N else "T"
    return token.rstrip("!")


@dataclass
class Run:
    master: Master
    steps: list[StepResult]
    schema_end: int
    positions: list[int]  # binlog position after each step


@pytest.fixture
def run_row(tmp_path: Path) -> Iterator:
    masters: list[Master] = []

    def run(binlog_format: str, statements: list[str]) -> Run:
        settings = {"binlog_format": binlog_format, "binlog_rows_query_log_events": "ON"}
        master = Master(MYSQL_80, settings, tmp_path / f"m{len(masters)}.binlog", seed=1)
        masters.append(master)
        for sql in SCHEMA:
            assert master.submit("setup", sql).error is None
        schema_end = master.writer.position
        steps, positions = [], []
        for index, sql in enumerate(statements, 1):
            steps.append(master.submit("con1", sql, index))
            positions.append(master.writer.position)
        master.finish()
        return Run(master, steps, schema_end, positions)

    yield run
    for master in masters:
        master.close()


def _with_variants(rows: list[tuple]) -> Iterator[tuple[str, str, tuple]]:
    """Each row once, or once per M variant when it has an M-statement."""
    for row in rows:
        if "M" in row[0].split(")", 1)[1]:
            yield from ((row[0], variant, row) for variant in (M_WRITES_N, M_WRITES_T))
        else:
            yield row[0], "", row


def _test_id(row: str, binlog_format: str, variant: str) -> str:
    return ", ".join(part for part in (row, binlog_format, variant) if part)


# -- Layer 1 -------------------------------------------------------------------------------

# Per statement of the row: the format it is logged in, S or R, and "!" when Note 1592 is
# raised for it (the seed's W; its I is no mark). Seed cells: F = format, E = error. The
# format is decided before the transaction ends, so a C/R row runs once, ending in COMMIT.
LAYER_1 = [
    # row, statements, STMT, ROW, MIXED
    ("1) B T T C/R", "T T", "S S", "R R", "S S"),  # F - S / R / S, E - I
    ("2) B T N C/R", "T N", "S S!", "R R", "S R"),  # STMT E - W(N) I(T); MIXED F - R(N) S(T)
    ("3) T", "T", "S", "R", "S"),
    ("4) N", "N", "S", "R", "S"),
    ("5) M", "M", "S!", "R", "R"),  # STMT E - W; MIXED F - R
    ("6) B N N T C/R", "N N T", "S S S", "R R R", "S S S"),
    ("7) B N N C/R", "N N", "S S", "R R", "S S"),
    ("8) B M T C/R", "M T", "S! S", "R R", "R S"),  # STMT E - W(M) I(T); MIXED F - R(N) R(T) S(T): M's rows, T as a statement
    ("9) B M N C/R", "M N", "S! S!", "R R", "R R"),  # STMT E - W(M) W(N); MIXED F - R(N) R(T)
    ("10) B N M C/R", "N M", "S S!", "R R", "S R"),  # STMT E - W(M) I(N); MIXED F - S(N) R(N) R(T)
    ("11) B T M C/R", "T M", "S S!", "R R", "S R"),  # STMT E - W(M) I(N), the I meaning the T; MIXED F - R(N) R(T) S(T)
]

# Why the server departs from the seed (each reason names its source).
AUTOCOMMIT_M = (
    "outside a multi-statement transaction is_mixed_stmt_unsafe() applies only its isolation rule, so at "
    "REPEATABLE-READ an M-statement is safe (server-internals.md §2.4); the seed marks every M-statement unsafe"
)
M_WRITES_N_FIRST = (
    "a statement that writes N and reads T is unsafe only once the transaction cache holds changes "
    "(binlog_unsafe_map case 9, server-internals.md §2.4), and an N-statement after it still finds that cache "
    "empty; the seed marks every M-statement unsafe"
)
SAFE_N_TO_STMT_CACHE = (
    "; a statement logged as a statement that writes no T-table, while the transaction cache is empty and the "
    "statement is safe, goes to the statement cache and is written when it ends (server-internals.md §2.5)"
)
NOT_LOGGED_WITHOUT_N_CHANGE = (
    "M writes T changes no N-table: failing, it is not logged at all (seed 001 R-log-statement-format)"
)
ROLLBACK_WITHOUT_N_CHANGE = (
    "ROLLBACK writes the transaction cache only when it holds a non-transactional change (seed 001 "
    "R-log-rollback, server-internals.md §2.5; the seed's own 1.b agrees)"
)
M_WRITES_T_ROLLBACK = "M writes T changes no N-table; " + ROLLBACK_WITHOUT_N_CHANGE


def _layer_1_params() -> Iterator:
    for row, variant, (_, statements, *cells) in _with_variants(LAYER_1):
        multi = "B " in row
        for binlog_format, expected in zip(SEED_FORMATS, cells):
            test_id = _test_id(row, binlog_format, variant)
            expected, reason = LAYER_1_SERVER_DIFFERS.get(test_id, (expected, ""))
            yield pytest.param(binlog_format, variant, multi, statements.split(), expected.split(), reason, id=test_id)


LAYER_1_SERVER_DIFFERS: dict[str, tuple[str, str]] = {
    "5) M, STATEMENT, M writes N": ("S", AUTOCOMMIT_M),
    "5) M, MIXED, M writes N": ("S", AUTOCOMMIT_M),
    "5) M, STATEMENT, M writes T": ("S", AUTOCOMMIT_M),
    "5) M, MIXED, M writes T": ("S", AUTOCOMMIT_M),
    "8) B M T C/R, STATEMENT, M writes N": ("S S", M_WRITES_N_FIRST),
    "8) B M T C/R, MIXED, M writes N": ("S S", M_WRITES_N_FIRST),
    "9) B M N C/R, STATEMENT, M writes N": ("S S", M_WRITES_N_FIRST),
    "9) B M N C/R, MIXED, M writes N": ("S S", M_WRITES_N_FIRST),
    "10) B N M C/R, STATEMENT, M writes N": ("S S", M_WRITES_N_FIRST),
    "10) B N M C/R, MIXED, M writes N": ("S S", M_WRITES_N_FIRST),
}


@pytest.mark.parametrize(("binlog_format", "variant", "multi", "tokens", "expected", "reason"), list(_layer_1_params()))
def test_layer_1_format_and_warning(run_row, binlog_format: str, variant: str, multi: bool, tokens: list[str], expected: list[str], reason: str) -> None:
    sqls = [statement_sql(token, variant, 10 * index) for index, token in enumerate(tokens, 1)]
    run = run_row(binlog_format, ["BEGIN", *sqls, "COMMIT"] if multi else sqls)
    results = run.steps[1:-1] if multi else run.steps
    observed = []
    for result in results:
        assert result.error is None, result.error
        warned = any(note.code == 1592 for note in result.notes)
        observed.append(result.logged_as[0] + ("!" if warned else ""))
    assert observed == expected, reason


# -- Layers 2 and 3 ------------------------------------------------------------------------

# Per row and format: (C, F) as the seed writes them. C: stmt-cache S, trx-cache T;
# F: flushed when the statement ends D, at COMMIT C, at ROLLBACK R, never I. A letter with
# a class in parentheses holds for that class; without one, for every statement.
LAYERS_2_3 = [
    # row, statements, end, STMT, ROW, MIXED
    ("1.a) B T T C", "T T", "COMMIT", ("T", "C"), ("T", "C"), ("T", "C")),
    ("1.b) B T T R", "T T", "ROLLBACK", ("T", "I"), ("T", "I"), ("T", "I")),
    ("2.a) B T N C", "T N", "COMMIT", ("T", "C"), ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)")),
    ("2.b) B T N R", "T N", "ROLLBACK", ("T", "R"), ("S(N) T(T)", "D(N) I(T)"), ("S(N) T(T)", "D(N) I(T)")),
    ("3.a) T", "T", "", ("T", "C"), ("T", "C"), ("T", "C")),
    ("3.b) T with error", "T!", "", ("T", "I"), ("T", "I"), ("T", "I")),
    ("4.a) N", "N", "", ("S", "D"), ("S", "D"), ("S", "D")),
    ("5.a) M", "M", "", ("T", "C"), ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)")),
    ("5.b) M with error", "M!", "", ("T", "R"), ("S(N) T(T)", "D(N) I(T)"), ("S(N) T(T)", "D(N) I(T)")),
    ("6.a) B N N T C", "N N T", "COMMIT", ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)")),
    ("6.b) B N N T R", "N N T", "ROLLBACK", ("S(N) T(T)", "D(N) R(T)"), ("S(N) T(T)", "D(N) I(T)"), ("S(N) T(T)", "D(N) I(T)")),
    ("7.a) B N N C", "N N", "COMMIT", ("S(N)", "D(N)"), ("S(N)", "D(N)"), ("S(N)", "D(N)")),
    ("7.b) B N N R", "N N", "ROLLBACK", ("S(N)", "D(N)"), ("S(N)", "D(N)"), ("S(N)", "D(N)")),
    ("8.a) B M T C", "M T", "COMMIT", ("T", "C"), ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)")),
    ("8.b) B M T R", "M T", "ROLLBACK", ("T", "R"), ("S(N) T(T)", "D(N) I(T)"), ("S(N) T(T)", "D(N) I(T)")),
    ("9.a) B M N C", "M N", "COMMIT", ("T", "C"), ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)")),
    ("10.a) B N M C", "N M", "COMMIT", ("S(N) T(M)", "D(N) C(M)"), ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)")),
    ("10.b) B N M R", "N M", "ROLLBACK", ("S(N) T(M)", "D(N) R(M)"), ("S(N) T(T)", "D(N) I(T)"), ("S(N) T(T)", "D(N) I(T)")),
    ("11.a) B T M C", "T M", "COMMIT", ("T", "C"), ("S(N) T(T)", "D(N) C(T)"), ("S(N) T(T)", "D(N) C(T)")),
    ("11.b) B T M R", "T M", "ROLLBACK", ("T", "R"), ("S(N) T(T)", "D(N) I(T)"), ("S(N) T(T)", "D(N) I(T)")),
]

# "-" for the cache of a statement that is never written: nothing of it can be seen.
LAYERS_2_3_SERVER_DIFFERS: dict[str, tuple[str, str]] = {
    "5.a) M, STATEMENT, M writes N": ("S/D", AUTOCOMMIT_M + SAFE_N_TO_STMT_CACHE),
    "5.b) M with error, STATEMENT, M writes N": ("S/D", AUTOCOMMIT_M + SAFE_N_TO_STMT_CACHE + ", with its error code"),
    "5.b) M with error, STATEMENT, M writes T": ("-/I", NOT_LOGGED_WITHOUT_N_CHANGE),
    "6.b) B N N T R, STATEMENT": ("S/D S/D -/I", ROLLBACK_WITHOUT_N_CHANGE),
    "8.a) B M T C, STATEMENT, M writes N": ("S/D T/C", M_WRITES_N_FIRST + SAFE_N_TO_STMT_CACHE),
    "8.b) B M T R, STATEMENT, M writes N": ("S/D -/I", M_WRITES_N_FIRST + SAFE_N_TO_STMT_CACHE + "; " + ROLLBACK_WITHOUT_N_CHANGE),
    "8.b) B M T R, STATEMENT, M writes T": ("-/I -/I", M_WRITES_T_ROLLBACK),
    "9.a) B M N C, STATEMENT, M writes N": ("S/D S/D", M_WRITES_N_FIRST + SAFE_N_TO_STMT_CACHE),
    "10.a) B N M C, STATEMENT, M writes N": ("S/D S/D", M_WRITES_N_FIRST + SAFE_N_TO_STMT_CACHE),
    "10.b) B N M R, STATEMENT, M writes N": ("S/D S/D", M_WRITES_N_FIRST + SAFE_N_TO_STMT_CACHE),
    "10.b) B N M R, STATEMENT, M writes T": ("S/D -/I", M_WRITES_T_ROLLBACK),
    "11.b) B T M R, STATEMENT, M writes T": ("-/I -/I", M_WRITES_T_ROLLBACK),
}


def _cell(text: str) -> dict[str, str]:
    """'S(N) T(T)' -> {'N': 'S', 'T': 'T'}; 'T' -> {'*': 'T'}."""
    letters: dict[str, str] = {}
    for part in text.split():
        letter, _, rest = part.partition("(")
        letters[rest.rstrip(")") or "*"] = letter
    return letters


def _layers_2_3_params() -> Iterator:
    for row, variant, (_, statements, end, *cells) in _with_variants(LAYERS_2_3):
        for binlog_format, (caching, flushing) in zip(SEED_FORMATS, cells):
            test_id = _test_id(row, binlog_format, variant)
            tokens = statements.split()
            expected = " ".join(_expected_pair(tokens, _cell(caching), _cell(flushing), variant, binlog_format))
            expected, reason = LAYERS_2_3_SERVER_DIFFERS.get(test_id, (expected, ""))
            yield pytest.param(binlog_format, variant, end, tokens, expected, reason, id=test_id)


def _expected_pair(tokens: list[str], caching: dict[str, str], flushing: dict[str, str], variant: str, binlog_format: str) -> Iterator[str]:
    """Per statement 'cache/flush', reading a class-specific cell by the statement's class in
    statement format and by its table's class in row format (the seed's own reading)."""
    for token in tokens:
        keys = [token.rstrip("!")] if binlog_format == STATEMENT else [written_class(token, variant)]
        keys.append("*")
        cache = next((caching[k] for k in keys if k in caching), "?")
        flush = next((flushing[k] for k in keys if k in flushing), "?")
        yield f"{cache}/{flush}"


_CACHE_LETTER = {LogTarget.STMT_CACHE: "S", LogTarget.TRX_CACHE: "T"}


def _written_by(run: Run) -> dict[str, tuple[int, str]]:
    """For each statement in the binlog after the schema: the step that wrote it and how its
    binlog transaction ends (COMMIT, also for Xid, or ROLLBACK). Row events are found by the
    Rows_query event before them."""
    written_by: dict[str, tuple[int, str]] = {}
    carried: list[str] = []
    step = 0
    for positioned in read_binlog(run.master.binlog_path):
        event = positioned.event
        if positioned.position < run.schema_end:
            continue
        while step < len(run.positions) and positioned.position >= run.positions[step]:
            step += 1
        if isinstance(event, Xid_log_event) or (isinstance(event, Query_log_event) and event.query in ("COMMIT", "ROLLBACK")):
            ending = "ROLLBACK" if isinstance(event, Query_log_event) and event.query == "ROLLBACK" else "COMMIT"
            written_by.update({sql: (step, ending) for sql in carried})
            carried = []
        elif isinstance(event, (Query_log_event, Rows_query_log_event)) and event.query != "BEGIN":
            carried.append(event.query)
    return written_by


def _observed_pair(run: Run, index: int, in_transaction: bool) -> str:
    """'cache/flush' of the statement at step `index`, seen in its caches and in the binlog."""
    result = run.steps[index]
    cache = "".join(sorted(_CACHE_LETTER[cached.target] for cached in result.logged_to)) or "-"
    written = _written_by(run).get(result.sql)
    if written is None:
        return f"{cache}/I"
    step, ending = written
    if step == index:  # at statement end: the statement cache, or an autocommit transaction
        flush = "C" if cache == "T" and not in_transaction else "D"
    else:
        assert step == len(run.steps) - 1, "written by a later statement, not by the transaction's end"
        flush = "R" if ending == "ROLLBACK" else "C"
    assert (ending == "ROLLBACK") == (flush == "R")
    return f"{cache}/{flush}"


@pytest.mark.parametrize(("binlog_format", "variant", "end", "tokens", "expected", "reason"), list(_layers_2_3_params()))
def test_layers_2_and_3_cache_and_flush(run_row, binlog_format: str, variant: str, end: str, tokens: list[str], expected: str, reason: str) -> None:
    sqls = [statement_sql(token, variant, 10 * index) for index, token in enumerate(tokens, 1)]
    statements = ["BEGIN", *sqls, end] if end else sqls
    run = run_row(binlog_format, statements)
    first = 1 if end else 0
    observed = [_observed_pair(run, first + offset, bool(end)) for offset in range(len(sqls))]
    # What is never written cannot be seen in a cache: an ignored statement's cache is not compared.
    assert [_unless_ignored(pair) for pair in observed] == [_unless_ignored(pair) for pair in expected.split()], reason


def _unless_ignored(pair: str) -> str:
    return "?/I" if pair.endswith("/I") else pair


@pytest.mark.parametrize(
    ("differences", "params"),
    [(LAYER_1_SERVER_DIFFERS, _layer_1_params), (LAYERS_2_3_SERVER_DIFFERS, _layers_2_3_params)],
    ids=["layer 1", "layers 2 and 3"],
)
def test_every_server_difference_names_a_row_of_the_table(differences: dict, params) -> None:
    assert set(differences) <= {param.id for param in params()}
