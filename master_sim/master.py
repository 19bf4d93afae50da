"""The master: runs a scenario's sessions step by step and writes the binlog.

The life of a statement: parse, analyze, decide_logging_format, lock, execute, log into
the statement or transaction cache, flush at statement or transaction end, respond.
A step that needs a lock another transaction holds waits, and runs as soon as that
transaction ends; the session's later steps queue behind it.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from sqlglot import exp

from server_sim.applier.row_applier import RowApplier
from server_sim.binlog.events import Log_event
from server_sim.binlog.file import BinlogWriter
from server_sim.catalog import Table, show_create_table
from server_sim.engines import EngineRegistry
from server_sim.errors import Condition, ErrorCode, SqlError, note
from server_sim.execute.executor import Executor
from server_sim.execute.outcome import Outcome
from server_sim.expressions import StatementContext
from server_sim.flavor import Flavor
from server_sim.parser import Statement, StatementKind, parse_statement
from server_sim.server import Server, ServerIdentity
from server_sim.session import Savepoint, Session
from server_sim.storage import Storage
from server_sim.statement import logged_create_trigger, source_nodes, target_tables

from .analysis import Analysis, analyze
from .binlog_cache import BinlogCache, CachedEvents, EventFactory, LogTarget
from .decision import Decision, LoggingFormat, TransactionState, ddl_decision, decide_logging_format, is_mixed_stmt_unsafe
from .locks import Deadlock, LockManager, LockMode, LockRequest
from .row_injection import check_events, inject, injected_rows

MASTER_SERVER_ID = 1
_ISOLATION = ("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE")


@dataclass
class StepResult:
    """What happened to one statement on the master."""

    index: int | None  # the scenario step (None for master_schema statements)
    session: str
    sql: str
    status: str = "ok"  # ok | error | blocked (waited and never ran)
    error: Condition | None = None
    notes: list[Condition] = field(default_factory=list)
    unsafe: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)  # "table (Engine)", every table accessed
    writes: list[str] = field(default_factory=list)
    logged_as: str = "none"  # STATEMENT | ROW | none: what reached the caches
    decision: Decision | None = None  # the logging decision, also when nothing ended up logged
    logged_to: list[CachedEvents] = field(default_factory=list)  # the caches the events went to
    affected_rows: int = 0
    blocked_by: str | None = None
    ran_after_step: int | None = None
    # Byte ranges of the binlog written while the statement ran, one per attempt that
    # wrote (a statement that waits for a lock runs again later): its own events, and a
    # transaction it committed (COMMIT, autocommit, DDL's implicit commit).
    binlog_ranges: list[tuple[int, int]] = field(default_factory=list)

    def fail(self, error: SqlError) -> None:
        self.status = "error"
        self.error = error.condition()


@dataclass(frozen=True)
class RowEffect:
    """One row a statement changed on the master: the step (None for master_schema), the
    table, and the row before and after (None for an insert's before, a delete's after)."""

    step: int | None
    table: str
    before: tuple | None
    after: tuple | None


@dataclass(frozen=True)
class BinlogSavepoint:
    """What the binlog's side of a transaction was when a savepoint was set."""

    # Where its SAVEPOINT event sits in the transaction cache; None when the binlog was no
    # participant of the transaction yet, and so was not told of the savepoint.
    position: int | None
    # Whether a transactional engine had joined the transaction with a change: one that
    # joins later leaves it again at ROLLBACK TO, and the commit then needs no Xid.
    touched_transactional: bool


@dataclass
class MasterSession:
    name: str
    session: Session
    trx_cache: BinlogCache = field(default_factory=BinlogCache)
    stmt_cache: BinlogCache = field(default_factory=BinlogCache)
    savepoints: dict[str, BinlogSavepoint] = field(default_factory=dict)
    # The binlog joins the transaction's participants with the first event it caches for it
    # (binlog_start_trans_and_stmt); ha_savepoint only reaches participants.
    binlog_participant: bool = False
    queue: deque[StepResult] = field(default_factory=deque)
    touched_transactional: bool = False


class Master:
    """A master server with its sessions, lock manager and binlog."""

    def __init__(self, flavor: Flavor, settings: dict[str, str], binlog_path: Path, seed: int, engines: EngineRegistry | None = None) -> None:
        self.flavor = flavor
        self.server = Server(flavor, ServerIdentity(MASTER_SERVER_ID, "master", seed), engines)
        self.server.global_variables.update(settings)
        self.executor = Executor(self.server)
        self.applier = RowApplier(self.executor)  # for BINLOG '...' statements
        self.locks = LockManager()
        self.events = EventFactory(flavor, MASTER_SERVER_ID, self.server.catalog.database)
        self.binlog_path = binlog_path
        self.writer = BinlogWriter(binlog_path, flavor.server_version, flavor.name, MASTER_SERVER_ID, self._unix(self.server.now()))
        self.sessions: dict[str, MasterSession] = {}
        self.results: list[StepResult] = []
        # Every row change a statement made, in the order they happened: what traces a
        # row that differs on the slave back to the step that wrote it.
        self.effects: list[RowEffect] = []
        self._last_step: int | None = None

    @property
    def storage(self) -> Storage:
        return self.server.storage

    # -- running steps ---------------------------------------------------------------------

    def submit(self, session_name: str, sql: str, index: int | None = None) -> StepResult:
        """Send one statement; it runs now, or waits behind its session's blocked statement."""
        master_session = self._session(session_name)
        result = StepResult(index, session_name, sql)
        self.results.append(result)
        self._last_step = index if index is not None else self._last_step
        master_session.queue.append(result)
        if len(master_session.queue) == 1:
            self._drain(master_session)
        self._wake()
        return result

    def finish(self) -> None:
        """Disconnect every session: open transactions roll back, waiting steps then run."""
        for _ in range(len(self.sessions) + 2):
            # Idle sessions disconnect, including those whose waiting statement just ran.
            for master_session in self.sessions.values():
                if not master_session.queue:
                    self._rollback(master_session)
            if not any(ms.queue for ms in self.sessions.values()):
                break
            self._wake()
        for master_session in self.sessions.values():
            for result in master_session.queue:
                result.status = "blocked"
            master_session.queue.clear()
        self.writer.close()

    def close(self) -> None:
        self.server.close()

    def _session(self, name: str) -> MasterSession:
        if name not in self.sessions:
            self.sessions[name] = MasterSession(name, self.server.new_session("root@localhost"))
        return self.sessions[name]

    def _drain(self, master_session: MasterSession) -> bool:
        """Run queued statements of one session until one has to wait; True if any ran."""
        progressed = False
        while master_session.queue:
            result = master_session.queue[0]
            start = self.writer.position
            ran = self._execute(master_session, result)
            if self.writer.position > start:
                result.binlog_ranges.append((start, self.writer.position))
            if not ran:
                return progressed
            if result.blocked_by is not None:
                result.ran_after_step = self._last_step
            master_session.queue.popleft()
            progressed = True
        return progressed

    def _wake(self) -> None:
        """Give waiting sessions another try after locks were released."""
        progressed = True
        while progressed:
            progressed = False
            for master_session in self.sessions.values():
                if master_session.queue and master_session.queue[0].blocked_by is not None:
                    progressed = self._drain(master_session) or progressed

    # -- one statement ---------------------------------------------------------------------

    def _execute(self, ms: MasterSession, result: StepResult) -> bool:
        """Run `result`'s statement; False when it must wait for a lock."""
        try:
            statement = parse_statement(result.sql)
        except SqlError as error:
            result.fail(error)
            return True
        kind = statement.kind
        try:
            if kind is StatementKind.SET:
                self._set(ms, statement)
            elif kind is StatementKind.BEGIN:
                self._commit(ms)
                ms.session.begin(explicit=True)
            elif kind is StatementKind.COMMIT:
                self._commit(ms)
            elif kind is StatementKind.ROLLBACK:
                self._warn_incomplete_rollback(ms, result)
                self._rollback(ms)
            elif kind in (StatementKind.SAVEPOINT, StatementKind.ROLLBACK_TO_SAVEPOINT, StatementKind.RELEASE_SAVEPOINT):
                self._savepoint(ms, statement)
                if kind is StatementKind.ROLLBACK_TO_SAVEPOINT:
                    self._warn_incomplete_rollback(ms, result)
            else:
                return self._run(ms, statement, result)
        except SqlError as error:
            result.fail(error)
        return True

    def _run(self, ms: MasterSession, statement: Statement, result: StepResult) -> bool:
        session = ms.session
        ddl = statement.kind.is_ddl and not statement.temporary
        if ddl:
            self._commit(ms)  # DDL commits the open transaction first
        injection = statement.kind is StatementKind.BINLOG
        if injection:
            check_events(statement, session)
            if not injected_rows(statement):
                return True  # a format description alone: remembered, nothing to apply or log
        analysis = analyze(statement, self.server.catalog, session.thread_id, self.flavor)
        state = replace(self.transaction_state(ms.name), row_injection=injection)
        logging = session.variables.get("sql_log_bin", "ON") == "ON"
        temporary_logged = not statement.temporary or state.binlog_format in self.flavor.temporary_tables_logged_formats
        if (statement.kind.is_dml or statement.creates_from_select) and logging:
            decision = decide_logging_format(analysis, state, self.flavor)
            if not temporary_logged and decision.format is LoggingFormat.STATEMENT:
                decision.format = LoggingFormat.ROW  # which logs nothing of a temporary table
        elif statement.kind.is_ddl and logging and temporary_logged:
            decision = ddl_decision(analysis)
        else:
            decision = Decision(None, list(analysis.unsafe))
        result.unsafe = [reason.name for reason in decision.unsafe]
        result.decision = decision
        result.reads = [f"{t.name} ({t.engine.name})" for t in analysis.reads]
        result.writes = [f"{t.name} ({t.engine.name})" for t in analysis.writes]
        if decision.error is not None:
            result.fail(decision.error)
            return True
        try:
            holder = self.locks.acquire(ms.name, self._lock_requests(ms, statement, analysis))
        except Deadlock:
            self._rollback(ms)
            result.fail(SqlError(ErrorCode.ER_LOCK_DEADLOCK))
            return True
        if holder is not None:
            result.blocked_by = holder
            return False
        opened = session.transaction is None
        transaction = session.ensure_transaction()
        mark = len(transaction.undo)
        timestamp = self.server.tick()
        rand_seeds = (session.rand_seed1, session.rand_seed2)
        last_insert_id = session.last_insert_id
        counters = [(table, table.auto_increment) for table in analysis.writes]
        context = self.server.statement_context(session, timestamp)
        outcome = inject(self.applier, session, statement) if injection else self.executor.run(session, statement, context)
        try:
            holder = self.locks.acquire(ms.name, _row_locks(outcome))
        except Deadlock:
            self._rollback(ms)
            result.fail(SqlError(ErrorCode.ER_LOCK_DEADLOCK))
            return True
        if holder is not None:
            # InnoDB would have stopped at that row, before the statement changed anything
            # the others could see: it runs again, from the start, once the holder is done.
            transaction.undo_to(mark, self.storage)
            for table, counter in counters:
                table.auto_increment = counter
            session.rand_seed1, session.rand_seed2 = rand_seeds
            session.last_insert_id = last_insert_id
            if opened:
                session.transaction = None
            result.blocked_by = holder
            return False
        if outcome.error is not None:
            transaction.undo_to(mark, self.storage)  # the statement's transactional changes go
            result.fail(outcome.error)
        failed = outcome.error is not None
        self.effects.extend(
            RowEffect(result.index, change.table.name, change.before, change.after)
            for change in outcome.changes
            if not (failed and change.table.engine.transactional)
        )
        result.affected_rows = outcome.affected_rows
        result.notes.extend(outcome.warnings)
        if logging and decision.format is not None:
            self._log(ms, statement, analysis, decision, state, outcome, context, rand_seeds, last_insert_id, result)
        if ddl:
            self._commit(ms)
        self._end_statement(ms)
        return True

    def transaction_state(self, session_name: str) -> TransactionState:
        """What decide_logging_format gets from the session for its next statement."""
        ms = self._session(session_name)
        variables = ms.session.variables
        return TransactionState(
            binlog_format=variables["binlog_format"],
            isolation=variables["transaction_isolation"],
            direct=variables["binlog_direct_non_transactional_updates"] == "ON",
            multi_statement=ms.session.in_multi_statement_transaction,
            trx_cache_nonempty=not ms.trx_cache.empty,
        )

    def _log(
        self,
        ms: MasterSession,
        statement: Statement,
        analysis: Analysis,
        decision: Decision,
        state: TransactionState,
        outcome: Outcome,
        context: StatementContext,
        rand_seeds: tuple[int, int],
        last_insert_id: int,
        result: StepResult,
    ) -> None:
        if decision.format is LoggingFormat.ROW and statement.kind in (StatementKind.UPDATE, StatementKind.DELETE):
            blackholes = [t.name for t in analysis.writes if not t.engine.stores_rows]
            if blackholes:
                verb = statement.kind.name
                result.notes.append(note(ErrorCode.ER_BLACKHOLE_ROWS_NOT_LOGGED, verb, ",".join(blackholes), level="Warning"))
        if not outcome.executed:
            return
        failed = outcome.error is not None
        # Rows of no_replicate tables never reach the binlog.
        kept = [c for c in outcome.changes if not (failed and c.table.engine.transactional) and not c.table.no_replicate]
        nontransactional = [c for c in kept if not c.table.engine.transactional]
        if failed and nontransactional:
            result.notes.append(note(ErrorCode.ER_WARNING_NOT_COMPLETE_ROLLBACK, level="Warning"))
        timestamp = self._unix(context.timestamp)
        # An engine joins the transaction read-write when the handler is asked to write a row
        # (handler::mark_trx_read_write), even one a duplicate key refuses; a DML statement
        # that reached no row leaves InnoDB read-only, and its transaction then ends with
        # COMMIT, not Xid. DDL (CREATE ... SELECT's new table) writes its tables outright.
        written = [c.table for c in kept] + ([] if failed else [table for table, _ in outcome.duplicates])
        if not statement.kind.is_dml:
            written += analysis.writes
        if any(t.engine.transactional and not t.temporary for t in written):
            ms.touched_transactional = True
        if decision.format is LoggingFormat.STATEMENT:
            if failed and not nontransactional:
                return  # an error with no non-transactional change is not logged
            events: list[Log_event] = []
            if statement.kind.is_dml or statement.kind is StatementKind.SELECT or statement.creates_from_select:
                events = self.events.context(
                    timestamp,
                    rand_seeds if analysis.uses_rand else None,
                    last_insert_id if analysis.uses_last_insert_id else None,
                    outcome.insert_id,
                    {name: context.user_variables.get(name) for name in analysis.user_variables},
                )
            error_code = outcome.error.code if outcome.error is not None else 0
            text = statement.sql if statement.trigger is None else logged_create_trigger(statement.trigger, ms.session.user)
            events.append(self.events.query(text, timestamp, ms.session.thread_id, error_code, ms.session.variables))
            if statement.kind.is_ddl and not statement.temporary:
                self._cache(ms, result, LogTarget.BINLOG, events)
            else:
                to_trx = (
                    any(t.engine.transactional for t in analysis.writes)
                    or is_mixed_stmt_unsafe(analysis, state)
                    or (not state.direct and state.trx_cache_nonempty)
                )
                writes_nontrans = any(not t.engine.transactional for t in analysis.writes) or statement.kind.is_ddl
                self._cache(ms, result, LogTarget.TRX_CACHE if to_trx else LogTarget.STMT_CACHE, events, writes_nontrans)
            result.logged_as = LoggingFormat.STATEMENT.value
            if decision.warn_unsafe and (statement.kind.is_dml or statement.creates_from_select):
                result.notes.extend(reason.note(self.flavor) for reason in decision.unsafe)
            return
        if statement.creates_from_select and not failed and not statement.temporary:
            # Seed 001: the table's CREATE statement first, then its rows in a transaction.
            created = self.server.catalog.get(target_tables(statement)[0].name)
            self.writer.write_group([self.events.query(show_create_table(created), timestamp, ms.session.thread_id, 0, ms.session.variables)])
            result.logged_as = LoggingFormat.ROW.value
        logged = [c for c in kept if not c.table.temporary]
        if not logged:
            return
        variables = ms.session.variables
        annotate = variables.get(self.flavor.rows_query_variable, self.flavor.rows_query_default) == "ON"
        row_image = variables["binlog_row_image"]
        transactional = [c for c in logged if c.table.engine.transactional]
        for changes, target in ((transactional, LogTarget.TRX_CACHE), (nontransactional, LogTarget.STMT_CACHE)):
            if not changes:
                continue
            # The annotation is the text of the statement that wrote the first row: a
            # trigger's when its row comes first. Every table the statement locked for
            # writing in this cache's kind of engine is mapped.
            text = outcome.statement_of(changes[0], statement.sql) if annotate else None
            kind = changes[0].table.engine.transactional
            maps = [t for t in analysis.table_maps if t.engine.transactional == kind and not t.temporary]
            self._cache(ms, result, target, self.events.rows(changes, timestamp, row_image, text, maps), nontransactional=target is LogTarget.STMT_CACHE)
        result.logged_as = LoggingFormat.ROW.value

    def _cache(self, ms: MasterSession, result: StepResult, target: LogTarget, events: list[Log_event], nontransactional: bool = False) -> None:
        """Put a statement's events where they go, and remember where that was."""
        if not events:
            return
        if target is LogTarget.BINLOG:
            self.writer.write_group(events)
        else:
            (ms.trx_cache if target is LogTarget.TRX_CACHE else ms.stmt_cache).add(events, nontransactional)
            ms.binlog_participant = True
        result.logged_to.append(CachedEvents(target, list(events)))

    def _end_statement(self, ms: MasterSession) -> None:
        """Flush the statement cache; in autocommit the statement's transaction ends too."""
        self._flush(ms, ms.stmt_cache, "COMMIT", xid=False)
        if not ms.session.in_multi_statement_transaction:
            self._commit(ms)

    def _flush(self, ms: MasterSession, cache: BinlogCache, end: str, xid: bool) -> None:
        if cache.empty:
            return
        timestamp = cache.events[0].timestamp
        now = self._unix(self.server.now())
        closing = self.events.xid(now) if xid else self.events.query(end, now, ms.session.thread_id)
        begin = self.events.query("BEGIN", timestamp, ms.session.thread_id)
        self.writer.write_group([begin, *cache.events, closing])
        cache.clear()

    def _commit(self, ms: MasterSession) -> None:
        """COMMIT (or an implicit commit): BEGIN + transaction cache + Xid or COMMIT."""
        self._flush(ms, ms.trx_cache, "COMMIT", xid=ms.touched_transactional)
        self._end_transaction(ms)

    @staticmethod
    def _warn_incomplete_rollback(ms: MasterSession, result: StepResult) -> None:
        """Warning 1196: the transaction changed tables a rollback cannot restore."""
        transaction = ms.session.transaction
        if transaction is not None and transaction.wrote_nontransactional:
            result.notes.append(note(ErrorCode.ER_WARNING_NOT_COMPLETE_ROLLBACK, level="Warning"))

    def _rollback(self, ms: MasterSession) -> None:
        """ROLLBACK: transactional changes undone; the cache is logged only if it holds N-changes."""
        transaction = ms.session.transaction
        if transaction is not None:
            transaction.undo_to(0, self.storage)
        self._rollback_binlog(ms, ms.trx_cache.has_nontransactional)
        self._end_transaction(ms)

    def _rollback_binlog(self, ms: MasterSession, logged: bool) -> None:
        """The binlog's part of a rollback: the transaction cache is logged with ROLLBACK when
        the changes cannot all be undone, else dropped; the binlog leaves the participants."""
        if logged:
            self._flush(ms, ms.trx_cache, "ROLLBACK", xid=False)
        ms.trx_cache.clear()
        ms.binlog_participant = False

    def _end_transaction(self, ms: MasterSession) -> None:
        ms.session.transaction = None
        ms.savepoints.clear()
        ms.binlog_participant = False
        ms.touched_transactional = False
        self.locks.release(ms.name)

    def _savepoint(self, ms: MasterSession, statement: Statement) -> None:
        transaction = ms.session.transaction
        name = statement.savepoint or ""
        if statement.kind is StatementKind.SAVEPOINT:
            if transaction is None:
                return
            transaction.savepoints = [s for s in transaction.savepoints if s.name.lower() != name.lower()]
            transaction.savepoints.append(Savepoint(name, len(transaction.undo)))
            position = len(ms.trx_cache.events) if ms.binlog_participant else None
            ms.savepoints[name.lower()] = BinlogSavepoint(position, ms.touched_transactional)
            if position is None:
                return
            timestamp = self._unix(self.server.tick())
            ms.trx_cache.add([self.events.query(f"SAVEPOINT `{name}`", timestamp, ms.session.thread_id)], nontransactional=False)
            return
        savepoint = next((s for s in (transaction.savepoints if transaction else []) if s.name.lower() == name.lower()), None)
        if savepoint is None or transaction is None:
            raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST_SAVEPOINT, name)
        saved = ms.savepoints[name.lower()]
        keep = transaction.savepoints.index(savepoint) + (1 if statement.kind is StatementKind.ROLLBACK_TO_SAVEPOINT else 0)
        for dropped in transaction.savepoints[keep:]:
            ms.savepoints.pop(dropped.name.lower(), None)
        transaction.savepoints = transaction.savepoints[:keep]
        if statement.kind is StatementKind.RELEASE_SAVEPOINT:
            return
        transaction.undo_to(savepoint.undo_mark, self.storage)
        # ha_rollback_to_savepoint rolls back, whole, each participant that joined after the
        # savepoint; the others go back to it. The binlog keeps a record of the rollback
        # (binlog_savepoint_rollback) when the transaction changed a non-transactional table.
        ms.touched_transactional = ms.touched_transactional and saved.touched_transactional
        if saved.position is None:
            self._rollback_binlog(ms, transaction.wrote_nontransactional)
        elif transaction.wrote_nontransactional:
            timestamp = self._unix(self.server.tick())
            ms.trx_cache.add([self.events.query(f"ROLLBACK TO `{name}`", timestamp, ms.session.thread_id)], nontransactional=False)
        else:
            ms.trx_cache.truncate(saved.position)

    def _set(self, ms: MasterSession, statement: Statement) -> None:
        session = ms.session
        for item in statement.ast.expressions:
            if item.args.get("kind") == "TRANSACTION":
                level = " ".join(e.name for e in item.expressions).upper().replace("ISOLATION LEVEL", "").strip()
                session.variables["transaction_isolation"] = self.server.registry.lookup("transaction_isolation").normalise(level.replace(" ", "-"))
                continue
            assignment = item.this
            if not isinstance(assignment, exp.EQ):
                raise SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, f"SET {item.sql(dialect='mysql')}")
            target, value_node = assignment.this, assignment.expression
            if isinstance(target, exp.Parameter):
                session.user_variables[target.name.lower()] = self._evaluate(ms, value_node)
                continue
            if isinstance(target, exp.SessionParameter):
                scope = (target.args.get("kind") or "SESSION").upper()
            elif isinstance(target, exp.Column):
                scope = (item.args.get("kind") or "SESSION").upper()
            else:
                raise SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, f"SET {item.sql(dialect='mysql')}")
            variable = self.server.registry.lookup(target.name)
            if variable.read_only:
                raise SqlError(ErrorCode.ER_UNKNOWN_ERROR, message=f"Variable '{variable.name}' is a read only variable")
            raw = value_node.name if isinstance(value_node, (exp.Var, exp.Column)) else self._evaluate(ms, value_node)
            value = variable.default if str(raw).upper() == "DEFAULT" else variable.normalise(raw)
            if scope == "GLOBAL":
                self.server.global_variables[variable.name] = value
                continue
            if variable.name == "binlog_format" and session.in_transaction and session.in_multi_statement_transaction:
                raise SqlError(ErrorCode.ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_BINLOG_FORMAT)
            if variable.name == "autocommit" and value == "ON" and not session.autocommit:
                session.variables[variable.name] = value
                self._commit(ms)  # switching autocommit on commits the open transaction
                continue
            session.variables[variable.name] = value

    def _evaluate(self, ms: MasterSession, node: exp.Expression) -> object:
        context = self.server.statement_context(ms.session, self.server.now())
        return self.executor.evaluate(ms.session, context, [node])[0]

    def _lock_requests(self, ms: MasterSession, statement: Statement, analysis: Analysis) -> list[LockRequest]:
        """InnoDB-like locks: rows reached by full primary-key equality, else the whole table."""
        requests: list[LockRequest] = []
        ast = statement.ast
        if statement.kind.is_ddl:
            for node in target_tables(statement):
                table = self.server.catalog.find(node.name, ms.session.thread_id)
                if table is not None and not table.temporary:
                    requests.append(LockRequest(_lock_name(table), LockMode.EXCLUSIVE))
            return requests
        if ast is not None and ast.find(exp.With) is None and any(
            self.server.catalog.resolve(node.db, node.name, ms.session.thread_id) is None for node in source_nodes(statement)
        ):
            return []  # the server fails opening the tables (1146) before it locks any
        locking_read: LockMode | None = None
        if statement.kind is StatementKind.SELECT:
            lock = next(iter(ast.args.get("locks") or []), None) if ast is not None else None
            if lock is None:
                return []
            locking_read = LockMode.EXCLUSIVE if lock.args.get("update") else LockMode.SHARED
        isolation = ms.session.variables["transaction_isolation"]
        reads_lock = locking_read or (
            LockMode.SHARED if _ISOLATION.index(isolation) >= _ISOLATION.index("REPEATABLE-READ") else None
        )
        for table in analysis.writes:
            if not _locks_rows(table):
                continue
            keys = analysis.key_reach.get(table.name.lower())
            if keys is not None:
                requests.extend(LockRequest(_lock_name(table), LockMode.EXCLUSIVE, tuple(_key_text(v) for v in key)) for key in keys)
            elif table.name.lower() in analysis.inserts_only:
                # New rows take fresh keys: they only conflict with whole-table locks.
                requests.append(LockRequest(_lock_name(table), LockMode.EXCLUSIVE, ("insert", ms.name)))
            else:
                requests.append(LockRequest(_lock_name(table), LockMode.EXCLUSIVE))
        if reads_lock is not None and (statement.kind.is_dml or locking_read is not None):
            for table in analysis.read_only if locking_read is None else analysis.reads:
                if _locks_rows(table):
                    requests.append(LockRequest(_lock_name(table), reads_lock))
        return requests

    # -- results ---------------------------------------------------------------------------

    @staticmethod
    def _unix(moment: dt.datetime) -> int:
        return int(moment.replace(tzinfo=dt.timezone.utc).timestamp())


def _row_locks(outcome: Outcome) -> list[LockRequest]:
    """The record locks of the rows a statement changed (before and after) or ran into on a
    unique key: by primary key, as the statement-level requests name rows, and by each
    unique key, which an insert's duplicate check reads."""
    requests: list[LockRequest] = []
    changed = [(change.table, row, LockMode.EXCLUSIVE) for change in outcome.changes for row in (change.before, change.after) if row is not None]
    for table, row, mode in changed + [(table, row, LockMode.SHARED) for table, row in outcome.duplicates]:
        if not _locks_rows(table):
            continue
        primary = table.primary_key
        for key in table.unique_keys():
            values = [row[table.column_index(column)] for column in key.columns]
            if any(value is None for value in values):
                continue
            text = tuple(_key_text(value) for value in values)
            requests.append(LockRequest(_lock_name(table), mode, text if key is primary else ("unique", key.name.lower(), *text)))
    return requests


def _locks_rows(table: Table) -> bool:
    return table.engine.transactional and not table.temporary


def _lock_name(table: Table) -> str:
    return table.name.lower()


def _key_text(value: object) -> object:
    return value.casefold() if isinstance(value, str) else value
