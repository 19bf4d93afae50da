"""Shrinking a finding: the smallest scenario that still gives it (delta debugging).

A divergence found among dozens of statements is only useful to a server engineer once
everything that does not matter is gone. `shrink` runs the SQL edits of `sql_edits`
(sessions, steps, tables, schema statements, rows, columns, clauses) through the generic
delta debugging of `core`, keeping each cut the predicate still accepts. Rounds repeat
until one changes nothing or the budget of predicate runs is spent.

Steps keep their original numbers while shrinking, so the result can say which were
cut; the predicate and the result see them numbered 1..n.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from scenarios.model import Scenario

from .core import PassStats, Predicate, minimize
from .sql_edits import PASSES, volatile_left
from .statements import identity, numbered

DEFAULT_BUDGET = 500


@dataclass(frozen=True)
class ShrinkResult:
    """The shrunk scenario (steps numbered 1..n, no expectations) and what it took."""

    scenario: Scenario
    runs: int  # candidates the predicate was run on
    removed_steps: tuple[int, ...]  # the numbers, in the scenario given, of the steps cut
    exhausted: bool  # the budget ran out before a round changed nothing
    passes: tuple[PassStats, ...] = ()  # per pass, in order: candidates tried, run and kept


def shrink(scenario: Scenario, reproduces: Callable[[Scenario], bool], budget: int = DEFAULT_BUDGET) -> ShrinkResult:
    """The smallest scenario `reproduces` still accepts, found with at most `budget` runs of it.

    `scenario` must already reproduce; it is not run again. The result keeps `scenario`'s
    settings, matrix and engines and drops its expectations, which speak of steps that
    may be gone.
    """
    current = replace(scenario, expect=())
    predicate = Predicate(lambda candidate: reproduces(numbered(candidate)), budget, identity, current)
    current = minimize(current, PASSES, predicate, identity)
    kept = {step.index for step in current.steps}
    removed = tuple(step.index for step in scenario.steps if step.index not in kept)
    current = replace(current, volatile=volatile_left(current))
    return ShrinkResult(numbered(current), predicate.runs, removed, predicate.exhausted, tuple(predicate.stats))
