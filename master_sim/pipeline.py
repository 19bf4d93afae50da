"""The life of a statement on the master: parse, analyze, decide_logging_format, lock,
execute, log into the statement or transaction cache, flush at statement or transaction
end, respond. A statement that needs a lock another transaction holds reports that it
must wait, leaving no trace; the scheduler runs it again later."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from server_sim.applier.row_applier import RowApplier
from server_sim.checkpoint import StatementCheckpoint
from server_sim.errors import ErrorCode, SqlError, not_supported
from server_sim.execute.executor import Executor
from server_sim.execute.outcome import Outcome
from server_sim.execute.routine_ddl import check_body
from server_sim.flavor import Flavor
from server_sim.functions.statement import StatementContext
from server_sim.parser import parse_statement
from server_sim.server import Server
from server_sim.statement import Statement, StatementKind
from server_sim.view_expansion import expand_views

from .analysis import Analysis, analyze
from .decision import Decision, LoggingFormat, TransactionState, ddl_decision, decide_logging_format, locking_read_decision
from .prepared_statements import PreparedStatements
from .lock_requests import row_lock_requests, statement_lock_requests
from .locks import Deadlock, LockManager, LockRequest
from .results import RowEffect, StepResult
from .routine_call import CallHost, run_call
from .row_injection import check_events, inject, injected_rows
from .sessions import MasterSession
from .set_statement import SetStatement
from .statement_log import StatementLogger
from .table_locks import TableLockControl
from .transactions import TransactionControl, transaction_state
from .unsafe import UnsafeReason


class MustWait(Exception):
    """The statement needs a lock `holder` holds: it has been undone and runs later."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


@dataclass
class _Planned:
    """A statement analysed and decided, before it runs."""

    statement: Statement
    analysis: Analysis
    state: TransactionState
    decision: Decision
    logging: bool  # sql_log_bin
    injection: bool  # a BINLOG '...' statement


def _creation_logged(ms: MasterSession, statement: Statement, analysis: Analysis) -> bool:
    """DROP TEMPORARY TABLE is logged only when the slave has one of the tables: their
    CREATE was logged (MariaDB's table_creation_was_logged)."""
    if not statement.temporary or statement.kind is not StatementKind.DROP_TABLE:
        return True
    dropped = [table.name for table in analysis.writes if table.temporary]
    return not dropped or any(name in ms.logged_temporary for name in dropped)


class StatementPipeline:
    """Runs one statement of one session through the stages of a statement's life."""

    def __init__(
        self,
        server: Server,
        flavor: Flavor,
        locks: LockManager,
        transactions: TransactionControl,
        logger: StatementLogger,
        effects: list[RowEffect],
        binlog_reset: Callable[[], None] | None = None,
    ) -> None:
        self.server = server
        self.flavor = flavor
        self.executor = Executor(server)
        self.applier = RowApplier(self.executor)  # for BINLOG '...' statements
        self.locks = locks
        self.transactions = transactions
        self.logger = logger
        self.set_statement = SetStatement(server, self.executor, transactions)
        self.prepared = PreparedStatements(server, self.executor)
        self.table_locks = TableLockControl(server, locks, transactions)
        self.effects = effects
        self.binlog_reset = binlog_reset  # None: a replica is connected (RESET MASTER is refused)

    def execute(self, ms: MasterSession, result: StepResult) -> bool:
        """Run `result`'s statement; False when it must wait for a lock."""
        try:
            statement = parse_statement(result.sql, self.flavor.comment_rules)
            check_body(statement)
        except SqlError as error:
            result.fail(error)
            return True
        try:
            if statement.prepared is not None:
                statement = self.prepared.run(ms, statement)  # EXECUTE's statement, run as sent
                if statement is None:
                    return True
            if statement.kind is StatementKind.CALL:
                result.restart()  # a CALL that waited runs again from its start
                run_call(CallHost(self.server, self.executor, self._sub_statement, ms, result), statement)
            elif statement.kind is StatementKind.SET:
                self.table_locks.check_opened(ms, statement)  # a subquery's tables
                result.notes.extend(self.set_statement.run(ms, statement))
            elif statement.kind in (StatementKind.LOCK_TABLES, StatementKind.UNLOCK_TABLES):
                self._wait_for(ms, lambda: self.table_locks.run(ms, statement))
            elif statement.kind.is_transaction_control:
                self.transactions.run(ms, statement, result)
            elif statement.kind is StatementKind.RESET_MASTER:
                self._reset_master(ms, result)
            else:
                self._run(ms, statement, result)
        except MustWait as wait:
            result.blocked_by = wait.holder
            return False
        except SqlError as error:
            result.fail(error)
        return True

    def _reset_master(self, ms: MasterSession, result: StepResult) -> None:
        """RESET MASTER: the open transaction is committed (CF_AUTO_COMMIT_TRANS), then the
        binlog starts anew; the statement itself is never logged."""
        if self.binlog_reset is None:
            raise not_supported("RESET MASTER on a master with a replica connected (the servers leave undefined what the replica reads next)")
        if ms.name in self.locks.table_locks:
            raise not_supported("RESET MASTER while the session holds LOCK TABLES")
        self.transactions.commit(ms)
        self.binlog_reset()
        result.reset_binlog = True

    def _sub_statement(self, ms: MasterSession, statement: Statement, result: StepResult, carried: frozenset[UnsafeReason], restartable: bool) -> Outcome | None:
        """One statement of a procedure's body, run as a statement of its own (with the
        unsafe reasons it `carried` from earlier CALLs). When it must wait for a lock, the
        whole CALL waits and runs again from its start if nothing before it changed a row,
        a user variable or the binlog (`restartable`); otherwise the wait is refused: what
        ran before cannot run again."""
        try:
            if statement.kind is StatementKind.RESET_MASTER:
                raise not_supported("RESET MASTER inside a stored procedure")
            if statement.kind is StatementKind.SET:
                self.set_statement.run(ms, statement)
            elif statement.kind.is_transaction_control:
                self.transactions.run(ms, statement, result)
            else:
                return self._run(ms, statement, result, carried)
        except MustWait:
            if restartable:
                raise
            raise not_supported("a statement of a procedure that waits for a lock another transaction holds after the procedure changed rows") from None
        except SqlError as error:
            result.fail(error)
        return None

    def _run(self, ms: MasterSession, statement: Statement, result: StepResult, carried: frozenset[UnsafeReason] = frozenset()) -> Outcome | None:
        """A statement that reads or writes tables: DML, DDL, SELECT, BINLOG '...'."""
        self.table_locks.check_opened(ms, statement)
        ddl = statement.kind.is_ddl and not statement.temporary
        if ddl:
            self.transactions.commit(ms)  # DDL commits the open transaction first
        statement = expand_views(statement, self.server.catalog, ms.session.thread_id, self.flavor)  # as written, over base tables
        planned = self._plan(ms, statement, result, carried)
        if planned is None or planned.decision.error is not None:
            return None
        self.table_locks.check_analysed(ms, planned.analysis, planned.logging and planned.decision.format is LoggingFormat.ROW)
        self._wait_for(ms, lambda: self.table_locks.open(ms, statement, planned.analysis))
        self._lock(ms, statement_lock_requests(self.server.catalog, ms.name, ms.session, statement, planned.analysis))
        checkpoint = StatementCheckpoint.take(self.server, ms.session, [*planned.analysis.writes, *planned.analysis.prelocked_writes])
        outcome, context = self._execute(ms, planned)
        try:
            self._lock(ms, row_lock_requests(outcome))
        except MustWait:
            # InnoDB would have stopped at that row, before the statement changed anything
            # the others could see: it runs again, from the start, once the holder is done.
            checkpoint.restore()
            raise
        if outcome.insert_id is not None and ms.session.variables.get("insert_id", "0") != "0":
            ms.session.variables["insert_id"] = "0"  # SET insert_id serves the first value generated
        self._respond(outcome, checkpoint, result)
        if statement.temporary and outcome.error is None and ms.session.transaction is not None:
            ms.session.transaction.changed_temporary_tables = True
            ms.session.transaction.created_temporary_table |= statement.kind is StatementKind.CREATE_TABLE
            ms.session.transaction.dropped_temporary_table |= statement.kind is StatementKind.DROP_TABLE
        if planned.logging and planned.decision.format is not None:
            self.logger.log(ms, statement, planned.analysis, planned.decision, planned.state, outcome, context, checkpoint, result)
        self._note_row_format(ms, planned)
        if ddl:
            self.transactions.commit(ms)
        self.transactions.end_statement(ms, failed=outcome.error is not None)
        return outcome

    def _note_row_format(self, ms: MasterSession, planned: _Planned) -> None:
        """MIXED on MariaDB: a row-logged statement keeps the session in row format until it
        has no temporary table left (THD::reset_current_stmt_binlog_format_row)."""
        if not self.flavor.mixed_row_sticks_with_temporary_tables or planned.state.binlog_format != "MIXED":
            ms.row_sticks = False
            return
        row = planned.statement.kind.is_dml and planned.decision.format is LoggingFormat.ROW
        thread_id = ms.session.thread_id
        has_temporary = any(table.owner == thread_id for table in self.server.catalog.temporary.values())
        ms.row_sticks = (ms.row_sticks or row) and has_temporary

    def _plan(self, ms: MasterSession, statement: Statement, result: StepResult, carried: frozenset[UnsafeReason] = frozenset()) -> _Planned | None:
        """Analyze and decide_logging_format; None for a BINLOG statement with no rows."""
        session = ms.session
        injection = statement.kind is StatementKind.BINLOG
        if injection:
            check_events(statement, session)
            if not injected_rows(statement):
                return None  # a format description alone: remembered, nothing to apply or log
        analysis = analyze(statement, self.server.catalog, session.thread_id, self.flavor)
        if carried:
            analysis.unsafe = sorted({*analysis.unsafe, *carried}, key=list(UnsafeReason).index)
        state = replace(transaction_state(ms), row_injection=injection)
        logging = session.variables.get("sql_log_bin", "ON") == "ON"
        decision = self._decide(statement, analysis, state, logging and _creation_logged(ms, statement, analysis))
        result.unsafe = [reason.name for reason in decision.unsafe]
        result.decision = decision
        result.reads = [f"{t.name} ({t.engine.name})" for t in analysis.reads]
        result.writes = [f"{t.name} ({t.engine.name})" for t in analysis.writes]
        if decision.error is not None:
            result.fail(decision.error)
        return _Planned(statement, analysis, state, decision, logging, injection)

    def _decide(self, statement: Statement, analysis: Analysis, state: TransactionState, logging: bool) -> Decision:
        """The logging format, or the error that stops the statement; format None: not logged."""
        temporary_logged = not statement.temporary or state.binlog_format in self.flavor.temporary_tables_logged_formats
        if state.row_sticks and statement.temporary and statement.kind is not StatementKind.DROP_TABLE:
            temporary_logged = False  # in row format a temporary table is not logged
        if (statement.kind.is_dml or statement.creates_from_select) and logging:
            decision = decide_logging_format(analysis, state, self.flavor)
            if not temporary_logged and decision.format is LoggingFormat.STATEMENT:
                decision.format = LoggingFormat.ROW  # which logs nothing of a temporary table
            return decision
        if statement.kind.is_ddl and logging and temporary_logged and not statement.local_only:
            return ddl_decision(analysis)
        if statement.kind is StatementKind.SELECT and logging:
            return locking_read_decision(analysis, state)
        return Decision(None, list(analysis.unsafe))

    def _lock(self, ms: MasterSession, requests: list[LockRequest]) -> None:
        """Take the locks, or raise MustWait; a deadlock rolls the transaction back (1213)."""
        self._wait_for(ms, lambda: self.locks.acquire(ms.name, requests))

    def _wait_for(self, ms: MasterSession, take: Callable[[], str | None]) -> None:
        """Raise MustWait when `take` names a session to wait for; a deadlock rolls the
        transaction back (1213)."""
        try:
            holder = take()
        except Deadlock:
            self.transactions.rollback(ms)
            raise SqlError(ErrorCode.ER_LOCK_DEADLOCK) from None
        if holder is not None:
            raise MustWait(holder)

    def _execute(self, ms: MasterSession, planned: _Planned) -> tuple[Outcome, StatementContext]:
        """Run the statement in the session's transaction (an implicit one if none is open)."""
        session = ms.session
        session.ensure_transaction()
        timestamp = self.server.statement_time(session)
        context = self.server.statement_context(session, timestamp)
        if planned.injection:
            return inject(self.applier, session, planned.statement), context
        forced = session.variables.get("insert_id", "0")
        return self.executor.run(session, planned.statement, context, insert_id=None if forced == "0" else int(forced)), context

    def _respond(self, outcome: Outcome, checkpoint: StatementCheckpoint, result: StepResult) -> None:
        """The statement's error, affected rows, notes and row effects; a failed statement's
        transactional changes are undone."""
        failed = outcome.error is not None
        if failed:
            checkpoint.undo_changes()  # the statement's transactional changes go
            result.fail(outcome.error)
        self.effects.extend(
            RowEffect(result.index, change.table.name, change.before, change.after)
            for change in outcome.changes
            if not (failed and change.table.engine.transactional)
        )
        result.affected_rows = outcome.affected_rows
        result.notes.extend(outcome.warnings)
