"""A connection's state: variables, transaction and the undo log of its transactional changes.

Every change reaches storage at once, so other sessions see it (non-transactional tables
need exactly that). Changes to transactional tables are also recorded in the undo log,
which is how ROLLBACK, ROLLBACK TO SAVEPOINT and a failed statement take them back while
changes to non-transactional tables stay.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .table import Table
from .prepared import PreparedText
from .storage import Storage


class ChangeKind(Enum):
    WRITE = "write"
    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True)
class RowChange:
    """One row a statement wrote, updated or deleted: full before and after rows.

    `assigned` is the row's write set: the columns the statement gives values to, those
    filled by a default function or ON UPDATE CURRENT_TIMESTAMP, the auto-increment column
    of an insert. It is what a MINIMAL after image carries.
    """

    table: Table
    kind: ChangeKind
    row_id: int
    before: tuple | None
    after: tuple | None
    assigned: frozenset[str] = frozenset()


@dataclass
class Savepoint:
    name: str
    undo_mark: int


@dataclass
class Transaction:
    """The open transaction of one session (explicit, or implicit with autocommit=0)."""

    explicit: bool = False
    undo: list[RowChange] = field(default_factory=list)
    savepoints: list[Savepoint] = field(default_factory=list)
    # Engines' transactional tables changed: an XA-capable (transactional) commit ends with Xid.
    wrote_transactional: bool = False
    wrote_nontransactional: bool = False
    wrote_nontransactional_temporary: bool = False
    # A temporary table was created or dropped in it (the server's OPTION_KEEP_LOG).
    changed_temporary_tables: bool = False
    created_temporary_table: bool = False
    dropped_temporary_table: bool = False

    def record(self, change: RowChange) -> None:
        if change.table.engine.transactional and not change.table.temporary:
            self.wrote_transactional = True
        if not change.table.engine.transactional:
            self.wrote_nontransactional = True
            self.wrote_nontransactional_temporary |= change.table.temporary
        if change.table.engine.transactional:
            self.undo.append(change)

    def undo_to(self, mark: int, storage: Storage) -> None:
        """Take back every transactional change after `mark`, newest first."""
        while len(self.undo) > mark:
            change = self.undo.pop()
            table = change.table
            if change.kind is ChangeKind.WRITE:
                storage.delete(table, [change.row_id])
            elif change.kind is ChangeKind.UPDATE:
                storage.update(table, change.row_id, change.before or ())
            else:
                storage.insert(table, change.row_id, change.before or ())


@dataclass
class Session:
    """One client connection (or the slave's applier thread)."""

    thread_id: int
    variables: dict[str, str]
    user: str = "root@localhost"
    user_variables: dict[str, object] = field(default_factory=dict)
    prepared_statements: dict[str, PreparedText] = field(default_factory=dict)  # by lower-case name
    transaction: Transaction | None = None
    last_insert_id: int = 0
    found_rows: int = 0
    row_count: int = -1
    # BINLOG '...' statements: the format description one of them gave (the server keeps it
    # in the session's stand-in relay log); row events need one first.
    binlog_description_seen: bool = False
    rand_seed1: int = 0
    rand_seed2: int = 0
    # The slave's applier thread: GET_LOCK there answers 1 and takes no lock (everything
    # it runs is serialized already; Item_func_get_lock, thd->slave_thread).
    slave_thread: bool = False

    @property
    def autocommit(self) -> bool:
        return self.variables.get("autocommit", "ON") == "ON"

    @property
    def in_transaction(self) -> bool:
        return self.transaction is not None

    def begin(self, explicit: bool) -> Transaction:
        self.transaction = Transaction(explicit=explicit)
        return self.transaction

    def ensure_transaction(self) -> Transaction:
        """The open transaction, starting an implicit one for this statement if needed."""
        return self.transaction if self.transaction is not None else self.begin(explicit=False)

    @property
    def in_multi_statement_transaction(self) -> bool:
        """BEGIN ... or autocommit=0: the server's in_multi_stmt_transaction_mode()."""
        return (self.transaction is not None and self.transaction.explicit) or not self.autocommit

    def next_random(self) -> float:
        """MySQL's RAND(): the session's two-seed generator (my_rnd)."""
        max_value = 0x3FFFFFFF
        self.rand_seed1 = (self.rand_seed1 * 3 + self.rand_seed2) % max_value
        self.rand_seed2 = (self.rand_seed1 + self.rand_seed2 + 33) % max_value
        return self.rand_seed1 / max_value


def seeded_random_state(seed: int) -> tuple[int, int]:
    """The seeds RAND(N) starts from (MySQL's randominit for a constant N)."""
    max_value = 0x3FFFFFFF
    return (seed * 0x10001 + 55555555) % max_value, (seed * 0x10000001) % max_value
