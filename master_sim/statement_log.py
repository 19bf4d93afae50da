"""Logging one executed statement: its events built and put where route_events says.

A statement logged as a statement is its Query event after the context events the slave
needs (Intvar, Rand, User_var); one logged in row format is a table map per written
table and its row events, a cache's worth at a time.
"""

from __future__ import annotations

import re

from sqlglot import exp

from server_sim.binlog.events import Log_event
from server_sim.binlog.file import BinlogWriter
from server_sim.table import Table
from server_sim.checkpoint import StatementCheckpoint
from server_sim.compound.routine import logged_create_routine
from server_sim.errors import ErrorCode, note
from server_sim.execute.outcome import Outcome
from server_sim.execute.routine_ddl import routine_of
from server_sim.flavor import Flavor
from server_sim.functions.statement import StatementContext
from server_sim.server import Server
from server_sim.session import RowChange
from server_sim.show_create import show_create_table
from server_sim.statement import Statement, StatementKind, logged_create_trigger, logged_drop_table, target_tables
from server_sim.sysvars import rows_flags
from server_sim.views import logged_view

from .analysis import Analysis
from .binlog_cache import CachedEvents, EventFactory, LogTarget
from .decision import Decision, LoggingFormat, TransactionState, is_mixed_stmt_unsafe
from .results import StepResult
from .routing import Routing, RoutingInput, TableUse, route_events
from .sessions import MasterSession
from .transactions import unix_time


# The DELAYED keyword of INSERT/REPLACE DELAYED, for the servers that log the statement without it.
_DELAYED = re.compile(r"^(\s*(?:INSERT|REPLACE)\s)DELAYED\b", re.IGNORECASE)

_TABLE_USES = {(t, temporary, replicated): TableUse(t, temporary, replicated) for t in (True, False) for temporary in (True, False) for replicated in (True, False)}


def _use(table: Table) -> TableUse:
    """The routing's view of a table (one shared value per kind: a statement may change many rows)."""
    return _TABLE_USES[(bool(table.engine.transactional), bool(table.temporary), not table.no_replicate)]


class StatementLogger:
    """Builds a statement's events and routes them into its session's caches or the binlog."""

    def __init__(self, server: Server, flavor: Flavor, writer: BinlogWriter, events: EventFactory) -> None:
        self.server = server
        self.flavor = flavor
        self.writer = writer
        self.events = events

    def log(
        self,
        ms: MasterSession,
        statement: Statement,
        analysis: Analysis,
        decision: Decision,
        state: TransactionState,
        outcome: Outcome,
        context: StatementContext,
        checkpoint: StatementCheckpoint,
        result: StepResult,
    ) -> None:
        """Log a statement that has a logging format (decision.format is not None)."""
        assert decision.format is not None
        if decision.format is LoggingFormat.ROW and statement.kind in (StatementKind.UPDATE, StatementKind.DELETE):
            blackholes = [t.name for t in analysis.writes if not t.engine.stores_rows]
            if blackholes:
                result.notes.append(note(ErrorCode.ER_BLACKHOLE_ROWS_NOT_LOGGED, statement.kind.name, ",".join(blackholes), level="Warning"))
        if not outcome.executed:
            return
        failed = outcome.error is not None
        created = self._created_temporary(ms, statement, outcome)
        facts = RoutingInput(
            format=decision.format,
            kind=statement.kind,
            state=state,
            writes=tuple(_use(t) for t in [*analysis.writes, *created]),
            changes=tuple(_use(c.table) for c in outcome.changes),
            temporary=statement.temporary,
            creates_from_select=statement.creates_from_select,
            failed=failed,
            mixed_stmt_unsafe=_mixed_stmt_unsafe(statement, analysis, decision, state),
            logged_despite_error=outcome.logged_despite_error,
        )
        kept = [change for change, keep in zip(outcome.changes, facts.kept) if keep]
        # ha_rollback_trans warns only when the statement is the whole transaction.
        if failed and not state.multi_statement and any(not c.table.engine.transactional for c in kept):
            result.notes.append(note(ErrorCode.ER_WARNING_NOT_COMPLETE_ROLLBACK, level="Warning"))
        _note_engines_joined(ms, statement, analysis, outcome, kept)
        routing = route_events(facts)
        dropped = analysis.writes if statement.temporary and statement.kind is StatementKind.DROP_TABLE and not failed else []
        _remember_temporary(ms, created, routing.statement is not None, dropped)
        timestamp = unix_time(context.timestamp)
        if routing.statement is not None:
            events = self._statement_events(ms, statement, analysis, outcome, context, checkpoint, timestamp)
            self._cache(ms, result, routing.statement, events, routing.statement_nontransactional)
            if decision.warn_unsafe and (statement.kind.is_dml or statement.creates_from_select):
                result.notes.extend(reason.note(self.flavor) for reason in decision.unsafe)
        if routing.create_table is not None:
            # Seed 001: the table's CREATE statement first, then its rows in a transaction.
            created = self.server.catalog.get(target_tables(statement)[0].name)
            self.writer.write_group([self.events.query(show_create_table(created), timestamp, ms.session.thread_id, 0, ms.session.variables)])
        self._log_rows(ms, statement, analysis, outcome, routing, timestamp, result)
        if routing.logged_as is not None:
            result.logged_as = routing.logged_as.value

    def _created_temporary(self, ms: MasterSession, statement: Statement, outcome: Outcome) -> list[Table]:
        """The temporary table CREATE TEMPORARY TABLE made: its engine says which cache the
        statement goes to inside a transaction (the statement found no table to analyze)."""
        if not statement.temporary or statement.kind is not StatementKind.CREATE_TABLE or outcome.error is not None:
            return []
        created = self.server.catalog.find(target_tables(statement)[0].name, ms.session.thread_id)
        return [created] if created is not None and created.temporary else []

    def _statement_events(
        self,
        ms: MasterSession,
        statement: Statement,
        analysis: Analysis,
        outcome: Outcome,
        context: StatementContext,
        checkpoint: StatementCheckpoint,
        timestamp: int,
    ) -> list[Log_event]:
        """The Query event, after the context events a DML statement's needs."""
        events: list[Log_event] = []
        if statement.kind.is_dml or statement.kind is StatementKind.SELECT or statement.creates_from_select or statement.view is not None:
            events = self.events.context(
                timestamp,
                checkpoint.rand_seeds if analysis.uses_rand else None,
                checkpoint.last_insert_id if analysis.uses_last_insert_id else None,
                outcome.insert_id,
                {name: context.user_variables.get(name) for name in analysis.user_variables},
            )
        error_code = outcome.error.code if outcome.error is not None else 0
        text = statement.sql
        if statement.trigger is not None:
            text = logged_create_trigger(statement.trigger, ms.session.user)
        elif statement.view is not None:
            text = logged_view(statement.view, ms.session.user)


        elif statement.kind is StatementKind.CREATE_PROCEDURE or (statement.kind is StatementKind.CREATE_FUNCTION and statement.udf is None):
            variables = ms.session.variables
            text = logged_create_routine(routine_of(statement.sql), ms.session.user, variables["character_set_database"], variables["collation_database"])
        elif statement.kind is StatementKind.DROP_TABLE and isinstance(statement.ast, exp.Drop):
            row_form = statement.temporary and ms.row_sticks
            text = logged_drop_table(statement.ast, statement.temporary, self.server.catalog.database if row_form else None)
        if statement.delayed and self.flavor.insert_delayed_logged_without_keyword:
            text = _DELAYED.sub(r"\1", text, count=1)
        events.append(self.events.query(text, timestamp, ms.session.thread_id, error_code, ms.session.variables))
        return events

    def _log_rows(
        self, ms: MasterSession, statement: Statement, analysis: Analysis, outcome: Outcome, routing: Routing, timestamp: int, result: StepResult
    ) -> None:
        """Row events, one group per cache: the transaction cache's first."""
        variables = ms.session.variables
        annotate = variables.get(self.flavor.rows_query_variable, self.flavor.rows_query_default) == "ON"
        row_image = variables["binlog_row_image"]
        # One annotation per statement (write_locked_table_maps writes it with the first
        # table map), in the cache of its first logged row, with the text of the statement
        # that wrote that row: a trigger's or a stored function's when its row comes first.
        first = next((target for target in routing.rows if target is not None), None)
        for target in (LogTarget.TRX_CACHE, LogTarget.STMT_CACHE):
            changes: list[RowChange] = [c for c, routed in zip(outcome.changes, routing.rows) if routed is target]
            if not changes:
                continue
            # Every table the statement locked for writing in this cache's kind of engine is mapped.
            text = outcome.statement_of(changes[0], statement.sql) if annotate and target is first else None
            kind = changes[0].table.engine.transactional
            maps = [t for t in analysis.table_maps if t.engine.transactional == kind and not t.temporary]
            triggered = frozenset(t.table.lower() for t in self.server.catalog.triggers) if self.flavor.table_map_marks_triggers else frozenset()
            events = self.events.rows(changes, timestamp, row_image, text, maps, rows_flags(variables), triggered)
            self._cache(ms, result, target, events, nontransactional=target is LogTarget.STMT_CACHE)

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


def _remember_temporary(ms: MasterSession, created: list[Table], logged: bool, dropped: list[Table]) -> None:
    """Which temporary tables the slave has: those whose CREATE was logged."""
    for table in dropped:
        if table.temporary and table.name in ms.logged_temporary:
            ms.logged_temporary.remove(table.name)
    for table in created:
        if table.name in ms.logged_temporary:
            ms.logged_temporary.remove(table.name)
        if logged:
            ms.logged_temporary.append(table.name)


def _mixed_stmt_unsafe(statement: Statement, analysis: Analysis, decision: Decision, state: TransactionState) -> bool:
    """is_mixed_stmt_unsafe(), asked only where route_events reads it: a statement event of
    a statement that writes no transactional table and is not DDL (it costs a table walk)."""
    if decision.format is not LoggingFormat.STATEMENT or (statement.kind.is_ddl and not statement.temporary):
        return False
    return not any(t.engine.transactional for t in analysis.writes) and is_mixed_stmt_unsafe(analysis, state)


def _note_engines_joined(ms: MasterSession, statement: Statement, analysis: Analysis, outcome: Outcome, kept: list[RowChange]) -> None:
    """Whether a transactional engine joined the transaction read-write, so its commit ends
    with Xid. An engine joins when the handler is asked to write a row
    (handler::mark_trx_read_write), even one a duplicate key refuses; a DML statement that
    reached no row leaves InnoDB read-only, and its transaction then ends with COMMIT, not
    Xid. DDL (CREATE ... SELECT's new table) writes its tables outright."""
    failed = outcome.error is not None
    written = [c.table for c in kept] + ([] if failed else [table for table, _ in outcome.duplicates])
    if not statement.kind.is_dml:
        written += analysis.writes
    if any(t.engine.transactional and not t.temporary for t in written):
        ms.touched_transactional = True
