"""GET_LOCK of a lock another session holds: 0 at once with timeout 0, refused (a wait the
simulator does not model) with any other timeout; the holder takes it again."""

from __future__ import annotations

import pytest

from server_sim.functions.unmodelled import Unmodelled
from server_sim.user_locks import UserLocks


@pytest.mark.parametrize(
    ("requester", "timeout", "answer"),
    [
        (1, 0, 1),  # the holder takes it again
        (1, 10, 1),
        (2, 0, 0),  # another session, no wait
        (2, 0.0, 0),
        (2, 10, None),  # another session would wait: refused
        (2, -1, None),
        (2, None, None),
    ],
)
def test_get_lock_of_a_held_lock(requester: int, timeout: float | None, answer: int | None) -> None:
    locks = UserLocks(case_sensitive=False)
    assert locks.get("a", 1) == 1
    if answer is None:
        with pytest.raises(Unmodelled):
            locks.get("A", requester, timeout)
    else:
        assert locks.get("A", requester, timeout) == answer
    assert locks.holder("a") == 1
