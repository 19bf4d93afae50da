"""Locks that make interleavings behave like InnoDB's closely enough for replication order.

Transactional tables lock the rows a statement reaches through full primary-key equality
(found or not: the gap lock where a key would be) and the whole table otherwise, before
the statement runs. Once it has run, the rows it wrote and those its unique-key checks ran
into are locked by each of their unique keys; when one of them is another transaction's,
the statement is undone and waits, as InnoDB would have at that row. Locks last until the
transaction ends. Non-transactional tables lock only for the statement, so across steps
they never block. A request that would close a cycle of waits is a deadlock (1213) for
the requester.

LOCK TABLES locks are the session's, not the transaction's: they last until UNLOCK TABLES
(or another LOCK TABLES, or START TRANSACTION), over transaction ends, and bind every
engine. A WRITE lock keeps every other session out of the table, a READ lock lets them
read it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from enum import Enum


class LockMode(Enum):
    SHARED = "S"
    EXCLUSIVE = "X"

    def compatible(self, other: LockMode) -> bool:
        return self is LockMode.SHARED and other is LockMode.SHARED


@dataclass(frozen=True)
class LockRequest:
    table: str
    mode: LockMode
    key: tuple | None = None  # None: the whole table


class Deadlock(Exception):
    """Granting the request would make the requester wait for itself."""


class LockManager:
    def __init__(self) -> None:
        self._tables: dict[str, dict[str, LockMode]] = defaultdict(dict)
        self._rows: dict[tuple[str, tuple], dict[str, LockMode]] = defaultdict(dict)
        self.waiting: dict[str, str] = {}  # owner -> the owner it waits for
        self.table_locks: dict[str, dict[str, LockMode]] = {}  # LOCK TABLES: owner -> table -> mode
        # The tables each open transaction used (its metadata locks: SHARED read, EXCLUSIVE
        # written), which only LOCK TABLES waits for.
        self.opened: dict[str, dict[str, LockMode]] = defaultdict(dict)

    def blocker(self, owner: str, request: LockRequest) -> str | None:
        """Another owner whose lock conflicts with `request`, if any."""
        for holder, mode in self._tables[request.table].items():
            if holder != owner and not mode.compatible(request.mode):
                return holder
        if request.key is None:
            for (table, _), holders in self._rows.items():
                if table == request.table:
                    for holder, mode in holders.items():
                        if holder != owner and not mode.compatible(request.mode):
                            return holder
            return None
        for holder, mode in self._rows[(request.table, request.key)].items():
            if holder != owner and not mode.compatible(request.mode):
                return holder
        return None

    def acquire(self, owner: str, requests: list[LockRequest]) -> str | None:
        """Grant all requests, or none: returns the owner to wait for, raises Deadlock."""
        for request in requests:
            holder = self.blocker(owner, request)
            if holder is not None:
                if self._waits_for(holder, owner):
                    raise Deadlock(holder)
                self.waiting[owner] = holder
                return holder
        self.waiting.pop(owner, None)
        for request in requests:
            held = self._tables[request.table] if request.key is None else self._rows[(request.table, request.key)]
            if held.get(owner) is not LockMode.EXCLUSIVE:
                held[owner] = request.mode
        return None

    def lock_tables(self, owner: str, tables: dict[str, LockMode]) -> str | None:
        """LOCK TABLES: granted when no other session holds a conflicting lock (LOCK TABLES'
        or its open transaction's); returns the owner to wait for, raises Deadlock."""
        for table, mode in tables.items():
            holder = self._table_lock_holder(owner, table, mode) or self._opener(owner, table, mode) or self.blocker(owner, LockRequest(table, mode))
            if holder is not None:
                return self._wait(owner, holder)
        self.waiting.pop(owner, None)
        self.table_locks[owner] = dict(tables)
        return None

    def table_lock_blocker(self, owner: str, uses: dict[str, LockMode]) -> str | None:
        """The session whose LOCK TABLES lock a statement's use of tables (SHARED: read,
        EXCLUSIVE: written) conflicts with, now waited for; raises Deadlock."""
        for table, mode in uses.items():
            holder = self._table_lock_holder(owner, table, mode)
            if holder is not None:
                return self._wait(owner, holder)
        self.waiting.pop(owner, None)
        return None

    def open_tables(self, owner: str, uses: dict[str, LockMode]) -> None:
        """A statement of `owner`'s transaction used these tables."""
        opened = self.opened[owner]
        for table, mode in uses.items():
            if opened.get(table) is not LockMode.EXCLUSIVE:
                opened[table] = mode

    def _opener(self, owner: str, table: str, mode: LockMode) -> str | None:
        """Another open transaction that used `table` in a way `mode` conflicts with (LOCK
        TABLES READ waits for writers, WRITE for any user)."""
        for holder, tables in self.opened.items():
            used = tables.get(table)
            if holder != owner and used is not None and not used.compatible(mode):
                return holder
        return None

    def unlock_tables(self, owner: str) -> bool:
        """UNLOCK TABLES: True when the session held LOCK TABLES locks."""
        return self.table_locks.pop(owner, None) is not None

    def _table_lock_holder(self, owner: str, table: str, mode: LockMode) -> str | None:
        for holder, tables in self.table_locks.items():
            held = tables.get(table)
            if holder != owner and held is not None and not held.compatible(mode):
                return holder
        return None

    def _wait(self, owner: str, holder: str) -> str:
        if self._waits_for(holder, owner):
            raise Deadlock(holder)
        self.waiting[owner] = holder
        return holder

    def _waits_for(self, start: str, target: str) -> bool:
        seen = set()
        current: str | None = start
        while current is not None and current not in seen:
            if current == target:
                return True
            seen.add(current)
            current = self.waiting.get(current)
        return False

    def release(self, owner: str) -> None:
        for holders in list(self._tables.values()) + list(self._rows.values()):
            holders.pop(owner, None)
        self.opened.pop(owner, None)
        self.waiting.pop(owner, None)

    def stop_waiting(self, owner: str) -> None:
        self.waiting.pop(owner, None)
