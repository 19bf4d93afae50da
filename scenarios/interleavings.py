"""Which interleavings of a workload's sessions to run: all that differ, or a seeded sample.

Two interleavings that differ only by swapping adjacent statements of different sessions
that commute (`GeneratedStatement.conflicts_with`) run alike: they are one Mazurkiewicz
trace, and running one of them is enough. Each trace is represented by its lexicographic
normal form, the least of its interleavings when sessions are ordered as in the workload,
so the choice never depends on how a trace was reached.

Statements on disjoint tables still share the server's clock and generators, so in two
equivalent interleavings NOW() or UUID() may give other values; those values replicate
(or are unsafe) alike in both, which is what a run judges.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from scenarios.workload import GeneratedStatement, Interleaving, Workload

# Random interleavings `sample_interleavings` draws per one asked for before it settles for
# fewer: a workload with fewer traces than asked, or some very unlikely ones, runs out.
DRAWS_PER_SAMPLE = 20


def count_interleavings(workload: Workload) -> int:
    """How many interleavings the sessions have, equivalent or not: the multinomial
    coefficient (n1 + ... + nk)! / (n1! ... nk!)."""
    lengths = workload.lengths().values()
    count = math.factorial(sum(lengths))
    for length in lengths:
        count //= math.factorial(length)
    return count


def representatives(workload: Workload, limit: int) -> list[Interleaving]:
    """The normal forms of the workload's traces, one per trace, the first `limit` in
    lexicographic order."""
    return list(islice(_NormalForms(workload).search(), limit))


def normal_form(workload: Workload, interleaving: Sequence[str]) -> Interleaving:
    """The representative of `interleaving`'s trace: at each step, the first session (in
    workload order) whose next statement waits for no step that `interleaving` puts before
    it and that is still to be taken."""
    steps = workload.statements_in(interleaving)
    # waiting[j]: earlier steps that must stay before step j (same session, or conflicting).
    waiting = [0] * len(steps)
    unblocks: list[list[int]] = [[] for _ in steps]
    for later, (session, statement) in enumerate(steps):
        for earlier in range(later):
            other_session, other = steps[earlier]
            if other_session == session or statement.conflicts_with(other):
                waiting[later] += 1
                unblocks[earlier].append(later)
    heads = {session: deque(place for place, (owner, _) in enumerate(steps) if owner == session) for session in workload.sessions}
    order: list[str] = []
    while len(order) < len(steps):
        session = next(name for name, queue in heads.items() if queue and waiting[queue[0]] == 0)
        for later in unblocks[heads[session].popleft()]:
            waiting[later] -= 1
        order.append(session)
    return tuple(order)


def sample_interleavings(workload: Workload, count: int, rng_seed: int) -> list[Interleaving]:
    """Up to `count` representatives of distinct traces, in the order drawn: interleavings
    drawn uniformly (a seeded shuffle of the steps), each replaced by its normal form.
    Gives fewer only when `count * DRAWS_PER_SAMPLE` draws found no more traces."""
    rng = random.Random(rng_seed)
    deck = [session for session, statements in workload.sessions.items() for _ in statements]
    found: dict[Interleaving, None] = {}
    for _ in range(count * DRAWS_PER_SAMPLE):
        if len(found) >= count:
            break
        rng.shuffle(deck)
        found.setdefault(normal_form(workload, deck))
    return list(found)


def explore(workload: Workload, limit: int, rng_seed: int = 0) -> list[Interleaving]:
    """The interleavings to run: every trace's representative when there are at most
    `limit` traces, else a seeded sample of `limit` of them."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    every = representatives(workload, limit + 1)
    if len(every) <= limit:
        return every
    return sample_interleavings(workload, limit, rng_seed)


@dataclass
class _Frame:
    """One node of the search: the sessions asleep there (each tried sibling joins them) and
    the next session to try."""

    asleep: set[int]
    next_session: int = 0


class _NormalForms:
    """Depth-first search over interleavings with sleep sets, sessions tried in workload order.

    After the subtree below step `s` is done, `s` sleeps in its later siblings' subtrees
    until a statement that conflicts with it runs: any interleaving taking `s` later without
    such a statement in between is equivalent to one already found. Because siblings are
    tried in order, the complete interleavings the search reaches are exactly the
    lexicographic normal forms. A branch in which some sleeping step can never wake is cut
    at once rather than walked to its dead end.
    """

    def __init__(self, workload: Workload) -> None:
        self.names = list(workload.sessions)
        self.statements = [workload.sessions[name] for name in self.names]
        self.total = sum(len(statements) for statements in self.statements)
        self.positions = [0] * len(self.names)
        self.path: list[int] = []

    def search(self) -> Iterator[Interleaving]:
        """The normal forms in lexicographic order; one frame per step of the current path."""
        frames = [_Frame(set())]
        while frames:
            frame = frames[-1]
            if len(self.path) == self.total:
                yield tuple(self.names[session] for session in self.path)
                self._backtrack(frames)
                continue
            session = next((s for s in range(frame.next_session, len(self.names)) if self._enabled(s) and s not in frame.asleep), None)
            if session is None:
                self._backtrack(frames)
                continue
            frame.next_session = session + 1
            step = self._next(session)
            still_asleep = {other for other in frame.asleep if not step.conflicts_with(self._next(other))}
            self.path.append(session)
            self.positions[session] += 1
            if self._can_wake(still_asleep):
                frames.append(_Frame(still_asleep))
            else:
                self._undo(frame)

    def _backtrack(self, frames: list[_Frame]) -> None:
        """Leave the current frame: its subtree is done, and so is the step that led to it."""
        frames.pop()
        if frames:
            self._undo(frames[-1])

    def _undo(self, frame: _Frame) -> None:
        """Take back the path's last step, which then sleeps in `frame`'s later siblings."""
        session = self.path.pop()
        self.positions[session] -= 1
        frame.asleep.add(session)

    def _enabled(self, session: int) -> bool:
        return self.positions[session] < len(self.statements[session])

    def _next(self, session: int) -> GeneratedStatement:
        return self.statements[session][self.positions[session]]

    def _can_wake(self, sleeping: set[int]) -> bool:
        """Whether every sleeping session may still be woken by a statement that can run
        before its next one (the awake sessions' statements, and those of sessions woken
        in turn); one that cannot would leave every path below unfinished."""
        pending = set(sleeping)
        runnable = [statement for session, statements in enumerate(self.statements) if session not in pending for statement in statements[self.positions[session] :]]
        woke = True
        while pending and woke:
            woke = False
            for session in sorted(pending):
                head = self._next(session)
                if any(head.conflicts_with(statement) for statement in runnable):
                    pending.discard(session)
                    runnable.extend(self.statements[session][self.positions[session] :])
                    woke = True
        return not pending
