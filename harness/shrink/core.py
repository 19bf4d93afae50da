"""Delta debugging, independent of what is being shrunk.

ddmin (Zeller and Hildebrandt 2002) finds a 1-minimal part of a list of units; `minimize`
repeats named passes, each cutting some kind of unit with ddmin, until a round changes
nothing or the budget of predicate runs is spent. The predicate sits behind a cache,
since passes and rounds often rebuild the same candidate, and every pass keeps count of
the candidates it tried and kept, so a slow shrink says which pass spent the runs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Unit = TypeVar("Unit")
Subject = TypeVar("Subject")


class Unbuildable(Exception):
    """A cut that leaves a candidate unable to stand: it is skipped, not run."""


@dataclass
class PassStats:
    """What one pass did over all rounds: candidates it put to the predicate (answered
    from memory included, refused for a spent budget not), how many of those were new
    runs of the predicate, and how many it accepted and kept."""

    name: str
    tried: int = 0
    runs: int = 0
    kept: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "tried": self.tried, "runs": self.runs, "kept": self.kept}


class Predicate(Generic[Subject]):
    """The caller's predicate behind a run budget and a cache keyed by `key`; counts go
    to the pass that is running (`begin`)."""

    def __init__(self, test: Callable[[Subject], bool], budget: int, key: Callable[[Subject], Hashable], accepted: Subject) -> None:
        self._test = test
        self._budget = budget
        self._key = key
        self._answers: dict[Hashable, bool] = {key(accepted): True}
        self._stats: dict[str, PassStats] = {}
        self._current = PassStats("")
        self.runs = 0
        self.exhausted = False

    def begin(self, name: str) -> None:
        """Count what follows for pass `name`."""
        self._current = self._stats.setdefault(name, PassStats(name))

    @property
    def stats(self) -> list[PassStats]:
        """One entry per pass, in the order the passes first ran."""
        return list(self._stats.values())

    def __call__(self, candidate: Subject) -> bool:
        key = self._key(candidate)
        if key not in self._answers:
            if self.runs >= self._budget:
                self.exhausted = True
                return False
            self.runs += 1
            self._current.runs += 1
            self._answers[key] = self._test(candidate)
        self._current.tried += 1
        if self._answers[key]:
            self._current.kept += 1
        return self._answers[key]


@dataclass(frozen=True)
class Pass(Generic[Subject]):
    """A named way of cutting a subject: it returns the subject, smaller when it could."""

    name: str
    run: Callable[[Subject, Predicate[Subject]], Subject]


def minimize(subject: Subject, passes: Sequence[Pass[Subject]], predicate: Predicate[Subject], key: Callable[[Subject], Hashable]) -> Subject:
    """Rounds of every pass, coarsest first, until one changes nothing or the budget is spent."""
    current = subject
    while not predicate.exhausted:
        before = key(current)
        for cut_pass in passes:
            predicate.begin(cut_pass.name)
            current = cut_pass.run(current, predicate)
        if key(current) == before:
            break
    return current


def ddmin(units: Sequence[Unit], accepts: Callable[[list[Unit]], bool], keep_one: bool = False) -> list[Unit]:
    """A 1-minimal sublist of `units` that `accepts` still takes: removing any single unit
    of it is refused (Zeller's ddmin: try each chunk alone, then each complement, then
    finer chunks). `units` itself is assumed accepted; with `keep_one` the empty list is
    never tried."""
    kept = list(units)
    granularity = 2
    while len(kept) >= 2:
        size = -(-len(kept) // granularity)
        chunks = [kept[start : start + size] for start in range(0, len(kept), size)]
        complements = [[unit for other in chunks if other is not chunk for unit in other] for chunk in chunks]
        subset = next((chunk for chunk in chunks if accepts(chunk)), None)
        if subset is not None:
            kept, granularity = subset, 2
            continue
        complement = next((rest for rest in complements if accepts(rest)), None) if len(chunks) > 2 else None
        if complement is not None:
            kept, granularity = complement, max(granularity - 1, 2)
            continue
        if granularity >= len(kept):
            break
        granularity = min(2 * granularity, len(kept))
    if not keep_one and len(kept) == 1 and accepts([]):
        return []
    return kept


def cut(
    current: Subject,
    units: Sequence[Unit],
    build: Callable[[list[Unit]], Subject],
    predicate: Callable[[Subject], bool],
    keep_one: bool = False,
) -> Subject:
    """`current` rebuilt from the smallest part of `units` the predicate still accepts;
    `current` itself when nothing can go (so what was not cut stays exactly as it was).
    A `build` that raises Unbuildable refuses the part without a run."""

    def accepts(part: list[Unit]) -> bool:
        try:
            candidate = build(part)
        except Unbuildable:
            return False
        return predicate(candidate)

    kept = ddmin(units, accepts, keep_one)
    return current if len(kept) == len(units) else build(kept)
