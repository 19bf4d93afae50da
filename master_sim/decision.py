"""THD::decide_logging_format(): statement or row format, or the error that stops the statement.

Runs after the tables are known and before execution. It adds the table-derived unsafe
reasons (the WL#2687 mixed-engine rules), then applies WL#3303's decision table over the
written tables' engine capabilities and the session's binlog_format.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum

from server_sim.table import Table
from server_sim.errors import ErrorCode, SqlError
from server_sim.flavor import Flavor
from server_sim.statement import StatementKind
from server_sim.system_tables import TableCategory

from .analysis import Analysis
from .unsafe import UnsafeReason

_ISOLATION = ("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE")


class LoggingFormat(str, Enum):
    STATEMENT = "STATEMENT"
    ROW = "ROW"


@dataclass(frozen=True)
class TransactionState:
    """The inputs of the mixed-engine rules that come from the session, not the statement."""

    binlog_format: str
    isolation: str
    direct: bool  # binlog_direct_non_transactional_updates
    multi_statement: bool  # inside BEGIN ... or autocommit=0
    trx_cache_nonempty: bool
    row_injection: bool = False
    row_sticks: bool = False  # MIXED: the session's statements stay in row format (Flavor.mixed_row_sticks_with_temporary_tables)


@dataclass
class Decision:
    format: LoggingFormat | None  # None: nothing to log for this statement
    unsafe: list[UnsafeReason] = field(default_factory=list)
    error: SqlError | None = None

    @property
    def warn_unsafe(self) -> bool:
        """Note 1592 per reason: the statement is unsafe yet logged as a statement."""
        return self.format is LoggingFormat.STATEMENT and bool(self.unsafe)


class _Access(Enum):
    """stmt_accessed_table_flag bits: what the statement reads and writes (LEX::binlog_unsafe_map)."""

    READS_TRANS = 0
    READS_NON_TRANS = 1
    READS_TEMP_TRANS = 2
    READS_TEMP_NON_TRANS = 3
    WRITES_TRANS = 4
    WRITES_NON_TRANS = 5
    WRITES_TEMP_TRANS = 6
    WRITES_TEMP_NON_TRANS = 7


def _access(analysis: Analysis) -> set[_Access]:
    flags: set[_Access] = set()
    for table in analysis.reads:
        flags.add(_Access(_kind_index(table)))
    for table in analysis.writes:
        flags.add(_Access(4 + _kind_index(table)))
    return flags


def _kind_index(table: Table) -> int:
    return (0 if table.engine.transactional else 1) + (2 if table.temporary else 0)


# The 13 seeded pairs of LEX::binlog_unsafe_map (server-internals.md §2.4): (one access,
# other access, when the pair is unsafe inside a multi-statement transaction).
_A = _Access
_ALWAYS = "always"
_DIRECT_ON = "direct"
_TRX_NONEMPTY = "trx"
_DIRECT_ON_AND_TRX_NONEMPTY = "direct+trx"
_DIRECT_OFF_AND_TRX_NONEMPTY = "!direct+trx"
MIXED_PAIRS: list[tuple[_Access, _Access, str]] = [
    (_A.WRITES_TRANS, _A.WRITES_NON_TRANS, _ALWAYS),
    (_A.WRITES_TRANS, _A.READS_NON_TRANS, _ALWAYS),
    (_A.WRITES_NON_TRANS, _A.WRITES_TEMP_TRANS, _ALWAYS),
    (_A.WRITES_TEMP_TRANS, _A.READS_NON_TRANS, _ALWAYS),
    (_A.WRITES_TRANS, _A.WRITES_TEMP_NON_TRANS, _DIRECT_ON),
    (_A.WRITES_TRANS, _A.READS_TEMP_NON_TRANS, _DIRECT_ON),
    (_A.WRITES_TEMP_TRANS, _A.WRITES_TEMP_NON_TRANS, _DIRECT_ON),
    (_A.WRITES_TEMP_TRANS, _A.READS_TEMP_NON_TRANS, _DIRECT_ON),
    (_A.WRITES_NON_TRANS, _A.READS_TRANS, _TRX_NONEMPTY),
    (_A.WRITES_NON_TRANS, _A.READS_TEMP_TRANS, _TRX_NONEMPTY),
    (_A.WRITES_TEMP_NON_TRANS, _A.READS_TRANS, _DIRECT_ON_AND_TRX_NONEMPTY),
    (_A.WRITES_TEMP_NON_TRANS, _A.READS_TEMP_TRANS, _DIRECT_ON_AND_TRX_NONEMPTY),
    (_A.WRITES_TEMP_NON_TRANS, _A.READS_NON_TRANS, _DIRECT_OFF_AND_TRX_NONEMPTY),
]


def _condition_holds(condition: str, state: TransactionState) -> bool:
    return {
        _ALWAYS: True,
        _DIRECT_ON: state.direct,
        _TRX_NONEMPTY: state.trx_cache_nonempty,
        _DIRECT_ON_AND_TRX_NONEMPTY: state.direct and state.trx_cache_nonempty,
        _DIRECT_OFF_AND_TRX_NONEMPTY: not state.direct and state.trx_cache_nonempty,
    }[condition]


def is_mixed_stmt_unsafe(analysis: Analysis, state: TransactionState) -> bool:
    """LEX::is_mixed_stmt_unsafe() plus the isolation rule that applies even in autocommit."""
    flags = _access(analysis)
    below_rr = _ISOLATION.index(state.isolation) < _ISOLATION.index("REPEATABLE-READ")
    if below_rr and (flags & {_A.WRITES_NON_TRANS, _A.WRITES_TEMP_NON_TRANS}) and _A.READS_TRANS in flags:
        return True
    if not state.multi_statement:
        return False
    return any(a in flags and b in flags and _condition_holds(cond, state) for a, b, cond in MIXED_PAIRS)


def _autoinc_not_first(table: Table) -> bool:
    """The auto-increment column is a later part of the key that drives it (MyISAM allows that)."""
    auto = table.auto_increment_column
    if auto is None:
        return False
    key = next((k for k in table.keys if auto.name.lower() in (c.lower() for c in k.columns)), None)
    return key is not None and key.columns[0].lower() != auto.name.lower()


def _table_reasons(analysis: Analysis, state: TransactionState) -> list[UnsafeReason]:
    reasons: list[UnsafeReason] = []
    writes = analysis.writes
    statement = analysis.statement
    if state.binlog_format != "ROW":
        if any(t.auto_increment_column for t in writes) and analysis.read_only:
            reasons.append(UnsafeReason.WRITE_AUTOINC_SELECT)
        if any(_autoinc_not_first(table) for table in writes):
            reasons.append(UnsafeReason.AUTOINC_NOT_FIRST)
        # A trigger writing an AUTO_INCREMENT table may take its values in another order on
        # the slave, however many times it runs (decide_logging_format: requires_prelocking
        # and has_write_table_with_auto_increment over the prelocked tables).
        if any(t.auto_increment_column for t in analysis.prelocked_writes):
            reasons.append(UnsafeReason.AUTOINC_COLUMNS)
    ast = statement.ast
    if statement.kind is StatementKind.INSERT and ast is not None and ast.args.get("conflict") is not None:
        if any(len(table.unique_keys()) > 1 for table in writes):
            reasons.append(UnsafeReason.INSERT_TWO_KEYS)
    writes_non_temp_nontrans = any(not t.engine.transactional and not t.temporary for t in writes)
    if is_mixed_stmt_unsafe(analysis, state):
        reasons.append(UnsafeReason.MIXED_STATEMENT)
    elif state.multi_statement and state.trx_cache_nonempty and not state.direct and writes_non_temp_nontrans:
        reasons.append(UnsafeReason.NONTRANS_AFTER_TRANS)
    engines = {t.engine.name for t in analysis.reads}
    if len(engines) > 1 and any(t.engine.self_logging for t in analysis.reads) and not _self_logging_among_written_engines(writes):
        reasons.append(UnsafeReason.MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE)
    return reasons


def _self_logging_among_written_engines(writes: list[Table]) -> bool:
    """More than one engine written, one of them self-logging: error 1667, not the unsafe reason."""
    return len({t.engine.name for t in writes}) > 1 and any(t.engine.self_logging for t in writes)


def decide_logging_format(analysis: Analysis, state: TransactionState, flavor: Flavor) -> Decision:
    """The logging format of a DML statement (WL#3303 decision table), or the error 1661-1667
    or 1844; format None when the statement writes only tables that are not replicated.

    A no_replicate table (log and performance_schema tables) makes the statement unsafe
    (SYSTEM_TABLE). One it writes takes no part in the rest of the decision; one it only
    reads is an ordinary read.
    """
    unsafe = list(analysis.unsafe)
    if any(t.no_replicate for t in analysis.reads):
        unsafe.append(UnsafeReason.SYSTEM_TABLE)
    not_replicated = [t for t in analysis.writes if t.no_replicate]
    if not not_replicated:
        return _decide(analysis, state, flavor, unsafe)
    skipped = {id(t) for t in not_replicated}
    replicated = dataclasses.replace(
        analysis,
        writes=[t for t in analysis.writes if id(t) not in skipped],
        reads=[t for t in analysis.reads if id(t) not in skipped],
    )
    decision = _decide(replicated, state, flavor, unsafe)
    if decision.error is not None:
        return decision
    if not replicated.writes:
        return Decision(None, decision.unsafe)  # filtered: nothing replicated changes
    if decision.format is not LoggingFormat.ROW:
        return Decision(None, decision.unsafe, SqlError(ErrorCode.ER_BINLOG_STMT_MODE_AND_NO_REPL_TABLES))
    return decision


def locking_read_decision(analysis: Analysis, state: TransactionState) -> Decision:
    """SELECT logs nothing, but one that locks its rows for writing (FOR UPDATE) opens its
    tables with a write lock, and InnoDB's external_lock refuses that under STATEMENT below
    REPEATABLE READ (1665) as it refuses the writes themselves."""
    locks = analysis.statement.ast.args.get("locks") if analysis.statement.ast is not None else None
    if state.binlog_format == "STATEMENT" and locks and any(lock.args.get("update") for lock in locks):
        row_only = next((t.engine for t in analysis.reads if not t.engine.statement_capable_at(state.isolation)), None)
        if row_only is not None:
            return Decision(None, list(analysis.unsafe), SqlError(ErrorCode.ER_BINLOG_STMT_MODE_AND_ROW_ENGINE, row_only.row_only_reason))
    return Decision(None, list(analysis.unsafe))


def ddl_decision(analysis: Analysis) -> Decision:
    """DDL is logged as a statement, except on performance_schema tables, which TRUNCATE opens
    like DML and decide_logging_format filters (log tables are truncated by the logger
    itself, outside that decision, and logged)."""
    if analysis.writes and all(t.category is TableCategory.PERFORMANCE for t in analysis.writes):
        return Decision(None)
    return Decision(LoggingFormat.STATEMENT)


def _decide(analysis: Analysis, state: TransactionState, flavor: Flavor, unsafe: list[UnsafeReason]) -> Decision:
    statement = analysis.statement
    for reason in _table_reasons(analysis, state):
        if reason not in unsafe:
            unsafe.append(reason)
    unsafe.sort(key=lambda reason: list(UnsafeReason).index(reason))
    writes = analysis.writes
    if _self_logging_among_written_engines(writes):
        return Decision(None, unsafe, SqlError(ErrorCode.ER_BINLOG_MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE))
    # Capabilities common to every written table; a statement writing nothing has both.
    row_capable = all(t.engine.row_capable for t in writes)
    stmt_capable = all(t.engine.statement_capable_at(state.isolation) for t in writes)
    binlog_format = state.binlog_format
    generates_rows = statement.kind.is_dml
    if not row_capable and not stmt_capable:
        return Decision(None, unsafe, SqlError(ErrorCode.ER_BINLOG_ROW_ENGINE_AND_STMT_ENGINE))
    if not row_capable:
        if state.row_injection:
            return Decision(None, unsafe, SqlError(ErrorCode.ER_BINLOG_ROW_INJECTION_AND_STMT_ENGINE))
        if binlog_format == "ROW" and generates_rows:
            return Decision(None, unsafe, SqlError(ErrorCode.ER_BINLOG_ROW_MODE_AND_STMT_ENGINE))
        if unsafe and binlog_format in flavor.unsafe_stmt_engine_error_formats:
            return Decision(None, unsafe, SqlError(ErrorCode.ER_BINLOG_UNSAFE_AND_STMT_ENGINE, unsafe[0].text))
        return Decision(LoggingFormat.STATEMENT, unsafe)
    if binlog_format == "STATEMENT":
        if state.row_injection:
            if flavor.row_injection_in_statement_error:
                return Decision(None, unsafe, SqlError(ErrorCode.ER_BINLOG_ROW_INJECTION_AND_STMT_MODE))
            return Decision(LoggingFormat.ROW, unsafe)
        if not stmt_capable and generates_rows:
            row_only = next(t.engine for t in writes if not t.engine.statement_capable_at(state.isolation))
            return Decision(None, unsafe, SqlError(ErrorCode.ER_BINLOG_STMT_MODE_AND_ROW_ENGINE, row_only.row_only_reason))
        return Decision(LoggingFormat.STATEMENT, unsafe)
    if binlog_format == "MIXED":
        # Where MIXED keeps temporary tables out of the binlog (MySQL 8.0), the slave has no
        # copy of them: a statement that touches one is logged in row format.
        unlogged_temporary = "MIXED" not in flavor.temporary_tables_logged_formats and any(t.temporary for t in analysis.reads)
        go_row = bool(unsafe) or state.row_injection or not stmt_capable or unlogged_temporary or state.row_sticks
        return Decision(LoggingFormat.ROW if go_row else LoggingFormat.STATEMENT, unsafe)
    return Decision(LoggingFormat.ROW, unsafe)
