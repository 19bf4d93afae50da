"""A statement's checkpoint: everything it may change, taken before it runs.

A statement that runs into another transaction's row lock is undone and runs again, from
the start, once the holder is done. Restoring the checkpoint makes the first attempt leave
no trace: its transactional rows, the written tables' auto-increment counters and row ids,
the session's generators and counters, and the server clock and UUID counters it advanced.
Taken wholesale, so a new piece of statement state cannot be forgotten one field at a time.
(Rows of non-transactional tables stay, as they would on the server.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .table import Table
from .server import GeneratorState, Server
from .session import Session, Transaction


@dataclass(slots=True)
class _TableCounters:
    table: Table
    auto_increment: int
    next_row_id: int


@dataclass(slots=True)
class _SessionState:
    rand_seeds: tuple[int, int]
    last_insert_id: int
    found_rows: int
    row_count: int
    user_variables: dict[str, object]
    transaction: Transaction | None  # the open transaction before the statement; None: it opened one
    undo_mark: int


@dataclass(slots=True)
class StatementCheckpoint:
    """The state one statement may change, to put back if it must wait and run again."""

    session: Session
    tables: tuple[_TableCounters, ...]
    session_state: _SessionState
    server: Server
    server_state: GeneratorState

    @classmethod
    def take(cls, server: Server, session: Session, written: Iterable[Table]) -> StatementCheckpoint:
        """Before the statement runs (and before it ticks the clock): `written` is every
        table it may write, its triggers' included."""
        seen: dict[int, Table] = {id(table): table for table in written}
        transaction = session.transaction
        return cls(
            session=session,
            tables=tuple(_TableCounters(t, t.auto_increment, t.next_row_id) for t in seen.values()),
            session_state=_SessionState(
                rand_seeds=(session.rand_seed1, session.rand_seed2),
                last_insert_id=session.last_insert_id,
                found_rows=session.found_rows,
                row_count=session.row_count,
                user_variables=dict(session.user_variables),
                transaction=transaction,
                undo_mark=len(transaction.undo) if transaction is not None else 0,
            ),
            server=server,
            server_state=server.generators(),
        )

    @property
    def rand_seeds(self) -> tuple[int, int]:
        """The session's RAND() seeds when the statement started (its Rand event's)."""
        return self.session_state.rand_seeds

    @property
    def last_insert_id(self) -> int:
        """LAST_INSERT_ID() when the statement started (its Intvar event's)."""
        return self.session_state.last_insert_id

    @property
    def undo_mark(self) -> int:
        """Where the statement's own changes start in its transaction's undo log."""
        return self.session_state.undo_mark

    def undo_changes(self) -> None:
        """Take back the statement's transactional row changes (a failed statement's too)."""
        transaction = self.session.transaction
        if transaction is not None:
            transaction.undo_to(self.undo_mark, self.server.storage)

    def restore(self) -> None:
        """Put everything back as it was before the statement ran."""
        self.undo_changes()
        for counters in self.tables:
            counters.table.auto_increment = counters.auto_increment
            counters.table.next_row_id = counters.next_row_id
        state, session = self.session_state, self.session
        session.rand_seed1, session.rand_seed2 = state.rand_seeds
        session.last_insert_id = state.last_insert_id
        session.found_rows, session.row_count = state.found_rows, state.row_count
        session.user_variables.clear()
        session.user_variables.update(state.user_variables)
        session.transaction = state.transaction
        self._restore_server()

    def _restore_server(self) -> None:
        self.server.restore_generators(self.server_state)
