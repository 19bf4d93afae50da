"""WL#2687 layer 2: where a statement's events go, decided from facts alone.

Given how the statement is logged, what it wrote and changed, and the session's
transaction state, `route_events` says for the statement event and for each changed row
whether it goes to the transaction cache, the statement cache, the binlog at once, or
nowhere. It builds no event and touches no cache, so seed 004's tables test it directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from server_sim.statement import StatementKind

from .binlog_cache import LogTarget
from .decision import LoggingFormat, TransactionState


@dataclass(frozen=True)
class TableUse:
    """A table a statement wrote or changed a row of, as the routing sees it."""

    transactional: bool
    temporary: bool = False
    replicated: bool = True  # False: a no_replicate table, whose rows never reach the binlog


@dataclass(frozen=True)
class RoutingInput:
    """What layer 2 needs to know about one executed statement."""

    format: LoggingFormat
    kind: StatementKind
    state: TransactionState
    writes: tuple[TableUse, ...] = ()  # the tables the statement writes (Analysis.writes)
    changes: tuple[TableUse, ...] = ()  # the table of each row it changed, in order
    temporary: bool = False  # CREATE/DROP TEMPORARY TABLE
    creates_from_select: bool = False
    executed: bool = True
    failed: bool = False
    mixed_stmt_unsafe: bool = False  # is_mixed_stmt_unsafe(): a statement event must go to the trx cache (moot with a T-write)
    logged_despite_error: bool = False  # failed DDL that changed the catalog all the same

    @cached_property
    def kept(self) -> tuple[bool, ...]:
        """Per change: whether the binlog may carry it. A failed statement's transactional
        changes are undone; a no_replicate table's never reach the binlog."""
        return tuple(not (self.failed and c.transactional) and c.replicated for c in self.changes)


@dataclass(frozen=True)
class Routing:
    """Where each of a statement's events goes; None: dropped, never written."""

    statement: LogTarget | None = None  # the statement event and its context events
    statement_nontransactional: bool = False  # the statement event records an N-change in its cache
    create_table: LogTarget | None = None  # CREATE ... SELECT in row format: the new table's CREATE
    rows: tuple[LogTarget | None, ...] = ()  # per change of RoutingInput.changes

    @property
    def logged_as(self) -> LoggingFormat | None:
        """The format of what reached the caches or the binlog (StepResult.logged_as)."""
        if self.statement is not None:
            return LoggingFormat.STATEMENT
        if self.create_table is not None or any(target is not None for target in self.rows):
            return LoggingFormat.ROW
        return None


def route_events(facts: RoutingInput) -> Routing:
    """Layer 2 of WL#2687: the cache (or the binlog) for each of the statement's events."""
    dropped = (None,) * len(facts.changes)
    if not facts.executed:
        return Routing(rows=dropped)
    if facts.format is LoggingFormat.STATEMENT:
        return _route_statement(facts, dropped)
    return _route_rows(facts)


def _route_statement(facts: RoutingInput, dropped: tuple[None, ...]) -> Routing:
    """CACHE_STMT: the trx cache once it holds changes or the statement writes a T-table or
    is mixed-unsafe; DDL goes to the binlog with its implicit commit."""
    kept_nontransactional = any(kept and not c.transactional for c, kept in zip(facts.changes, facts.kept))
    if facts.failed and not kept_nontransactional and not facts.logged_despite_error:
        return Routing(rows=dropped)  # an error with no non-transactional change is not logged
    if facts.kind.is_ddl and not facts.temporary:
        return Routing(statement=LogTarget.BINLOG, rows=dropped)
    if facts.temporary and not facts.state.multi_statement:
        # Query_log_event: CREATE/DROP TEMPORARY TABLE uses a cache only inside a transaction.
        return Routing(statement=LogTarget.BINLOG, rows=dropped)
    to_trx = (
        any(t.transactional for t in facts.writes)
        or facts.mixed_stmt_unsafe
        or (not facts.state.direct and facts.state.trx_cache_nonempty)
    )
    nontransactional = any(not t.transactional for t in facts.writes) or facts.kind.is_ddl
    target = LogTarget.TRX_CACHE if to_trx else LogTarget.STMT_CACHE
    return Routing(statement=target, statement_nontransactional=nontransactional, rows=dropped)


def _route_rows(facts: RoutingInput) -> Routing:
    """CACHE_ROW: a transactional table's rows to the trx cache, the others' to the stmt
    cache; temporary tables' rows are not logged, nor anything when only they changed."""
    create = LogTarget.BINLOG if facts.creates_from_select and not facts.failed and not facts.temporary else None
    kept = facts.kept
    if not any(k and not c.temporary for c, k in zip(facts.changes, kept)):
        return Routing(create_table=create, rows=(None,) * len(facts.changes))
    rows: list[LogTarget | None] = []
    for change, keep in zip(facts.changes, kept):
        if not keep:
            rows.append(None)
        elif not change.transactional:
            # A temporary non-transactional table's rows go along once a logged row does
            # (a multi-table UPDATE of t and a temporary MyISAM table): the server logs no
            # temporary table's rows in row format, and the slave has no such table.
            # Known divergence, kept until it is fixed on its own.
            rows.append(LogTarget.STMT_CACHE)
        else:
            rows.append(None if change.temporary else LogTarget.TRX_CACHE)
    return Routing(create_table=create, rows=tuple(rows))
