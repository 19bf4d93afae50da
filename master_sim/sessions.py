"""A master session: the server session plus its binlog caches and its place in the queue."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from server_sim.session import Session

from .binlog_cache import BinlogCache
from .results import StepResult
from .unsafe import UnsafeReason


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
    """One client connection of the master and the binlog's view of its transaction."""

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
    # The session's temporary tables whose CREATE reached the binlog, oldest first: the
    # slave has them, so the session's end drops them there.
    logged_temporary: list[str] = field(default_factory=list)
    # MIXED on a flavor whose row format sticks while the session has temporary tables:
    # the session's current statement format is row.
    row_sticks: bool = False
    # Unsafe reasons a procedure's statement keeps from earlier CALLs of the session, by
    # the statement's id (the statement itself kept with them, so the id stays its own).
    routine_unsafe: dict[int, tuple[object, set[UnsafeReason]]] = field(default_factory=dict)
