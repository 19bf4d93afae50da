"""The checker's step assertions: a step's notes, error and binlog events, per variant."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.judge import check_expectations, expectation_errors
from harness.judgement import Judgement
from harness.runner import RunRecord, run_variant
from scenarios.loader import load_scenario
from scenarios.model import Verdict
from server_sim.flavor import MYSQL_80
from tests.support import scenario_from

SCENARIO = """\
name: update-limit
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB
  - INSERT INTO t VALUES (1, 1), (2, 2)
steps:
  - {session: con1, sql: "BEGIN"}
  - {session: con1, sql: "UPDATE t SET b = 5 LIMIT 1"}
  - {session: con1, sql: "COMMIT"}
  - {session: con1, sql: "INSERT INTO t VALUES (1, 0)"}
expect:
"""


def run(tmp_path: Path, expect: str, binlog_format: str) -> RunRecord:
    scenario = scenario_from(tmp_path, SCENARIO + textwrap.indent(textwrap.dedent(expect), "  "), "s.yaml")
    return run_variant(scenario, {"binlog_format": binlog_format}, MYSQL_80, tmp_path / "binlogs")


def messages(record: RunRecord) -> list[str]:
    return [result.message for result in check_expectations(record, Judgement(Verdict.CONSISTENT, ()))]


@pytest.mark.parametrize(
    ("binlog_format", "expect"),
    [
        ("STATEMENT", "- {step: 2, notes: [LIMIT], error: 0, events: []}\n"),
        ("STATEMENT", "- {step: 3, events: [Query BEGIN, Query UPDATE t SET b = 5 LIMIT 1, Xid]}\n"),
        ("MIXED", "- {step: 2, notes: []}\n- {step: 3, events: [Query BEGIN, Table_map test.t, Update_rows test.t, Xid]}\n"),
        ("ROW", "- {step: 3, events: [Query, Table_map, Update_rows, Xid]}\n"),
        ("ROW", "- {step: 4, notes: [], error: 1062, events: []}\n"),
    ],
)
def test_step_checks_hold(tmp_path: Path, binlog_format: str, expect: str) -> None:
    assert set(messages(run(tmp_path, expect, binlog_format))) == {"held"}


@pytest.mark.parametrize(
    ("binlog_format", "expect", "message"),
    [
        ("MIXED", "- {step: 2, notes: [LIMIT]}\n", "step 2 (con1): expected notes [LIMIT], got []"),
        ("STATEMENT", "- {step: 2, notes: [1062]}\n", "step 2 (con1): expected notes [1062], got [LIMIT]"),
        ("ROW", "- {step: 4, error: 0}\n", "step 4 (con1): expected error none, got 1062"),
        ("ROW", "- {step: 2, error: 1062}\n", "step 2 (con1): expected error 1062, got none"),
        (
            "ROW",
            "- {step: 3, events: [Query BEGIN, Query, Xid]}\n",
            "step 3 (con1): expected events [Query BEGIN, Query, Xid], got [Query BEGIN, Table_map test.t, Update_rows test.t, Xid]",
        ),
        (
            "STATEMENT",
            "- {step: 3, events: [Query COMMIT, Query, Xid]}\n",
            "step 3 (con1): expected events [Query COMMIT, Query, Xid], got [Query BEGIN, Query UPDATE t SET b = 5 LIMIT 1, Xid]",
        ),
    ],
)
def test_failed_step_check_names_step_expected_and_actual(tmp_path: Path, binlog_format: str, expect: str, message: str) -> None:
    assert messages(run(tmp_path, expect, binlog_format)) == [message]


def test_failed_checks_of_one_entry_are_joined(tmp_path: Path) -> None:
    record = run(tmp_path, "- {verdict: divergent, step: 2, notes: [], events: [Xid]}\n", "STATEMENT")

    [result] = check_expectations(record, Judgement(Verdict.CONSISTENT, ()))

    assert not result.held
    assert result.message == (
        "expected verdict divergent, got consistent; step 2 (con1): expected notes [], got [LIMIT]; "
        "step 2 (con1): expected events [Xid], got []"
    )


def test_step_checks_apply_only_to_matching_variants(tmp_path: Path) -> None:
    record = run(tmp_path, "- {when: {binlog_format: ROW}, step: 2, notes: [LIMIT]}\n", "STATEMENT")

    assert messages(record) == []


def test_names_the_checks_cannot_match_are_input_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO + "  - {step: 2, notes: [LIMIT, LIMITED, 1592, 1062], events: [Query, Write_row]}\n")

    errors = expectation_errors(load_scenario(path))

    assert [(error.source, error.key) for error in errors] == [
        (path, "expect[0].notes[1]"),
        (path, "expect[0].notes[2]"),
        (path, "expect[0].events[1]"),
    ]
    assert "unknown unsafe reason LIMITED; the server's names are" in errors[0].message
    assert "name the unsafe reason of a Note 1592 (e.g. LIMIT), not its code" in errors[1].message
    assert "unknown event kind Write_row; kinds are" in errors[2].message and "Write_rows" in errors[2].message
