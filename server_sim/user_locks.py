"""User-level locks (GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK, RELEASE_ALL_LOCKS):
named locks a session holds, as often as it took them, until it releases them. They are
no transaction's: a rollback keeps them. A request for a lock another session holds with
timeout 0 fails at once (0); with a timeout it would wait, which the simulator does not
model: it refuses the statement instead (1235).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .functions.unmodelled import Unmodelled


@dataclass
class UserLock:
    owner: int  # the holding session's thread id
    count: int  # how many times it took the lock (each RELEASE_LOCK gives one back)


@dataclass
class UserLocks:
    """One server's user-level locks, by name (`case_sensitive` as the flavor compares names)."""

    case_sensitive: bool
    held: dict[str, UserLock] = field(default_factory=dict)

    def _key(self, name: str) -> str:
        return name if self.case_sensitive else name.lower()

    def get(self, name: str, owner: int, timeout: float | None = None) -> int:
        """GET_LOCK: 1 once the session holds it (again, if it did already); 0 when another
        session holds it and the timeout is 0."""
        lock = self.held.get(self._key(name))
        if lock is None:
            self.held[self._key(name)] = UserLock(owner, 1)
        elif lock.owner == owner:
            lock.count += 1
        elif timeout == 0:
            return 0
        else:
            raise Unmodelled(f"GET_LOCK('{name}') of a lock another session holds (a user-level lock wait)")
        return 1

    def release(self, name: str, owner: int) -> int | None:
        """RELEASE_LOCK: 1 released once, 0 held by another session, NULL held by none."""
        key = self._key(name)
        lock = self.held.get(key)
        if lock is None:
            return None
        if lock.owner != owner:
            return 0
        lock.count -= 1
        if not lock.count:
            del self.held[key]
        return 1

    def release_all(self, owner: int) -> int:
        """RELEASE_ALL_LOCKS: every lock of the session, counting each time it was taken."""
        mine = [key for key, lock in self.held.items() if lock.owner == owner]
        released = sum(self.held[key].count for key in mine)
        for key in mine:
            del self.held[key]
        return released

    def is_free(self, name: str) -> int:
        return 0 if self._key(name) in self.held else 1

    def holder(self, name: str) -> int | None:
        """IS_USED_LOCK: the holding session's connection id, NULL when free."""
        lock = self.held.get(self._key(name))
        return lock.owner if lock is not None else None
