"""The interleaving explorer: counts, one representative per trace, seeded samples, bounds."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from scenarios.interleavings import count_interleavings, explore, normal_form, representatives, sample_interleavings
from scenarios.workload import GeneratedStatement, Workload

EVERY = 10**6  # a limit no test workload reaches


def workload(**sessions: list[GeneratedStatement]) -> Workload:
    return Workload(seed=0, index=0, master_schema=(), sessions={name: tuple(steps) for name, steps in sessions.items()})


def on(*tables: str) -> GeneratedStatement:
    return GeneratedStatement(f"UPDATE {tables[0]} SET v = 1", frozenset(tables))


def two_sessions(a: int, b: int, con1_table: str, con2_table: str) -> Workload:
    return workload(con1=[on(con1_table)] * a, con2=[on(con2_table)] * b)


def deck(work: Workload) -> list[str]:
    """Each session's name once per statement: an interleaving, before any shuffle."""
    return [session for session, steps in work.sessions.items() for _ in steps]


def every_interleaving(work: Workload) -> set[tuple[str, ...]]:
    return set(itertools.permutations(deck(work)))


def random_workload(seed: int) -> Workload:
    """Up to three sessions of up to three statements on three tables, some transaction control."""
    rng = random.Random(seed)
    sessions = {}
    for number in range(1, rng.randint(1, 3) + 1):
        sessions[f"con{number}"] = [
            GeneratedStatement(f"s{number}.{step}", frozenset(rng.sample(["t1", "t2", "t3"], rng.randint(0, 2))), rng.random() < 0.15)
            for step in range(rng.randint(1, 3))
        ]
    return workload(**sessions)


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 3), (4, 4), (10, 7)])
def test_two_sessions_have_a_plus_b_choose_a_interleavings(a: int, b: int) -> None:
    assert count_interleavings(two_sessions(a, b, "t1", "t1")) == math.comb(a + b, a)


def test_the_count_is_the_multinomial_coefficient() -> None:
    work = workload(con1=[on("t1")] * 2, con2=[on("t1")] * 3, con3=[on("t1")] * 4)

    assert count_interleavings(work) == math.factorial(9) // (math.factorial(2) * math.factorial(3) * math.factorial(4))


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 3), (4, 4)])
def test_with_every_step_conflicting_every_interleaving_is_its_own_representative(a: int, b: int) -> None:
    work = two_sessions(a, b, "t1", "t1")

    found = representatives(work, EVERY)

    assert len(found) == math.comb(a + b, a)
    assert set(found) == every_interleaving(work)


@pytest.mark.parametrize(("a", "b"), [(1, 1), (3, 2), (6, 6)])
def test_with_every_step_on_disjoint_tables_one_interleaving_stands_for_all(a: int, b: int) -> None:
    found = representatives(two_sessions(a, b, "t1", "t2"), EVERY)

    assert found == [("con1",) * a + ("con2",) * b]


def test_transaction_control_conflicts_with_every_statement() -> None:
    begin = GeneratedStatement("BEGIN", transaction_control=True)

    # con2's statement may swap with con1's UPDATE of another table, not with its BEGIN.
    assert representatives(workload(con1=[begin, on("t1")], con2=[on("t2")]), EVERY) == [("con1", "con1", "con2"), ("con2", "con1", "con1")]
    assert representatives(workload(con1=[on("t3"), on("t1")], con2=[on("t2")]), EVERY) == [("con1", "con1", "con2")]


@pytest.mark.parametrize("seed", range(40))
def test_representatives_are_exactly_one_normal_form_per_trace_in_lexicographic_order(seed: int) -> None:
    work = random_workload(seed)
    rank = {session: place for place, session in enumerate(work.sessions)}

    found = representatives(work, EVERY)

    assert set(found) == {normal_form(work, interleaving) for interleaving in every_interleaving(work)}
    assert len(found) == len(set(found))
    assert found == sorted(found, key=lambda interleaving: [rank[session] for session in interleaving])


@pytest.mark.parametrize("seed", range(10))
def test_a_normal_form_is_an_equivalent_interleaving_and_its_own_normal_form(seed: int) -> None:
    work = random_workload(seed)
    shuffled = deck(work)
    random.Random(seed).shuffle(shuffled)
    interleaving = tuple(shuffled)

    form = normal_form(work, interleaving)

    assert sorted(form) == sorted(interleaving)
    assert normal_form(work, form) == form
    # Equivalent: every pair of conflicting steps keeps its order.
    assert _conflicting_pairs(work, form) == _conflicting_pairs(work, interleaving)


def _conflicting_pairs(work: Workload, interleaving: tuple[str, ...]) -> set[tuple[str, str]]:
    """(earlier, later) statement ids of every pair of steps that may not swap."""
    steps = work.statements_in(interleaving)
    return {
        (first.sql, second.sql)
        for i, (session, first) in enumerate(steps)
        for other_session, second in steps[i + 1 :]
        if session == other_session or first.conflicts_with(second)
    }


@pytest.mark.parametrize("limit", [1, 5, 20])
def test_the_bound_is_respected(limit: int) -> None:
    work = two_sessions(5, 5, "t1", "t1")  # 252 traces

    assert representatives(work, limit) == representatives(work, EVERY)[:limit]
    assert len(explore(work, limit, rng_seed=3)) == limit
    assert len(sample_interleavings(work, limit, rng_seed=3)) == limit


def test_a_sample_is_reproducible_distinct_and_made_of_representatives() -> None:
    work = workload(con1=[on("t1"), on("t2"), on("t1")] * 3, con2=[on("t2"), on("t3")] * 4, con3=[on("t3"), on("t1")] * 2)

    first = sample_interleavings(work, 30, rng_seed=7)

    assert first == sample_interleavings(work, 30, rng_seed=7)
    assert first != sample_interleavings(work, 30, rng_seed=8)
    assert len(first) == len(set(first)) == 30
    assert all(normal_form(work, interleaving) == interleaving for interleaving in first)


def test_a_sample_of_more_traces_than_there_are_gives_them_all() -> None:
    work = two_sessions(1, 1, "t1", "t1")

    assert sorted(sample_interleavings(work, 5, rng_seed=0)) == [("con1", "con2"), ("con2", "con1")]


def test_explore_is_exhaustive_when_the_traces_fit_the_limit() -> None:
    work = workload(con1=[on("t1"), on("t2")], con2=[on("t2"), on("t3")])

    assert explore(work, 10, rng_seed=1) == representatives(work, EVERY)
    assert len(explore(work, 10, rng_seed=1)) < count_interleavings(work)


def test_explore_samples_when_the_traces_exceed_the_limit() -> None:
    work = two_sessions(6, 6, "t1", "t1")  # 924 traces

    explored = explore(work, 25, rng_seed=4)

    assert explored == explore(work, 25, rng_seed=4) == sample_interleavings(work, 25, rng_seed=4)
    assert len(set(explored)) == 25


def test_explore_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError, match="limit must be at least 1"):
        explore(two_sessions(1, 1, "t1", "t1"), 0)


def test_an_interleaving_must_send_every_statement_once() -> None:
    work = two_sessions(2, 1, "t1", "t1")

    with pytest.raises(ValueError, match="is not an interleaving"):
        normal_form(work, ("con1", "con2"))
    with pytest.raises(ValueError, match="is not an interleaving"):
        work.scenario(("con1", "con2", "con2"))
