"""Tests for the scenario loader: normalisation, variants, and one precise error per bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.loader import LoadResult, ScenarioLoadError, load_paths, load_scenario
from scenarios.model import BINLOG_FORMATS, EngineDeclaration, EventPattern, Expectation, Scenario, ScenarioError, Step, Verdict
from tests.support import scenario_file

FULL = """\
name: wl2687-nontrans-insert
description: |
  Non-transactional insert inside a transaction.
settings:
  Binlog_Format: statement
  binlog_row_image: full
  binlog_direct_non_transactional_updates: OFF
  transaction_isolation: repeatable-read
  autocommit: 0
  long_query_time: 0.5
slave_settings: {slave_exec_mode: strict, slave_parallel_workers: 4, read_only: yes}
matrix:
  binlog_format: [statement, Mixed, ROW]
  AUTOCOMMIT: [0, 1]
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB
  - CREATE TABLE n (a INT) ENGINE=MyISAM
slave_schema:
  - ALTER TABLE t ADD COLUMN c INT DEFAULT 100
steps:
  - {session: con1, sql: "BEGIN"}
  - session: con1
    sql: |
      INSERT INTO n SELECT * FROM t
  - {session: con2, sql: "COMMIT"}
expect:
  - when: {binlog_format: statement, autocommit: [0, true]}
    verdict: divergent
    slave_error: 1032
  - verdict: Consistent
  - slave_error: 1062
"""


ENGINE = "transactional: false, row_capable: false, statement_capable: true"
STEPS = "name: a\nsteps:\n  - {session: c, sql: BEGIN}\n  - {session: c, sql: COMMIT}\n"


def write(directory: Path, relative: str, text: str) -> Path:
    """Write a scenario file, creating parent directories, and return its path."""
    return scenario_file(directory, text, relative, dedent=True)


def minimal(name: str, **extra: str) -> str:
    """A valid scenario with `name`, plus top-level YAML lines given as key=text."""
    lines = [f"name: {name}", "steps:", "  - {session: con1, sql: SELECT 1}"]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def load_error(tmp_path: Path, text: str) -> ScenarioError:
    """The single error that loading `text` as a file produces."""
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(path)
    assert caught.value.error.source == path
    assert str(caught.value) == str(caught.value.error)
    return caught.value.error


# --- a valid file -----------------------------------------------------------------


def test_full_file_round_trip(tmp_path: Path) -> None:
    path = write(tmp_path, "full.yaml", FULL)

    scenario = load_scenario(path)

    assert scenario == Scenario(
        name="wl2687-nontrans-insert",
        source=path,
        description="Non-transactional insert inside a transaction.",
        settings={
            "binlog_format": "STATEMENT",
            "binlog_row_image": "FULL",
            "binlog_direct_non_transactional_updates": "OFF",
            "transaction_isolation": "REPEATABLE-READ",
            "autocommit": "0",
            "long_query_time": "0.5",
        },
        slave_settings={"slave_exec_mode": "STRICT", "slave_parallel_workers": "4", "read_only": "ON"},
        matrix={"binlog_format": ("STATEMENT", "MIXED", "ROW"), "autocommit": ("0", "1")},
        master_schema=(
            "CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB",
            "CREATE TABLE n (a INT) ENGINE=MyISAM",
        ),
        slave_schema=("ALTER TABLE t ADD COLUMN c INT DEFAULT 100",),
        steps=(
            Step(1, "con1", "BEGIN"),
            Step(2, "con1", "INSERT INTO n SELECT * FROM t"),
            Step(3, "con2", "COMMIT"),
        ),
        expect=(
            Expectation(
                when={"binlog_format": ("STATEMENT",), "autocommit": ("0", "ON")},
                verdict=Verdict.DIVERGENT,
                slave_error=1032,
            ),
            Expectation(when={}, verdict=Verdict.CONSISTENT),
            Expectation(when={}, slave_error=1062),
        ),
    )


def test_engines_load_with_their_capabilities(tmp_path: Path) -> None:
    text = """\
name: e
engines:
  STMT_ONLY: {transactional: false, row_capable: false, statement_capable: true}
  Clustered: {transactional: true, row_capable: true, statement_capable: true, self_logging: true}
"""
    scenario = load_scenario(write(tmp_path, "e.yaml", text))

    assert scenario.engines == {
        "STMT_ONLY": EngineDeclaration(transactional=False, row_capable=False, statement_capable=True),
        "Clustered": EngineDeclaration(transactional=True, row_capable=True, statement_capable=True, self_logging=True),
    }


def test_step_checks_load(tmp_path: Path) -> None:
    text = STEPS + """\
expect:
  - when: {binlog_format: STATEMENT}
    step: 2
    notes: [limit, 1062]
    error: 0
    events: [Query   BEGIN, 'Query UPDATE t SET a = 1,  b = 2', Xid]
  - {step: 1, events: [], verdict: consistent}
"""
    scenario = load_scenario(write(tmp_path, "s.yaml", text))

    assert scenario.expect == (
        Expectation(
            when={"binlog_format": ("STATEMENT",)},
            step=2,
            notes=("LIMIT", 1062),
            error=0,
            events=(EventPattern("Query", "BEGIN"), EventPattern("Query", "UPDATE t SET a = 1, b = 2"), EventPattern("Xid")),
        ),
        Expectation(when={}, verdict=Verdict.CONSISTENT, step=1, events=()),
    )
    assert [str(event) for event in scenario.expect[0].events] == ["Query BEGIN", "Query UPDATE t SET a = 1, b = 2", "Xid"]


def test_minimal_file_has_empty_defaults(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, "min.yml", "name: '  only-a-name  '\n"))

    assert scenario.name == "only-a-name"
    assert (scenario.settings, scenario.matrix, scenario.steps, scenario.expect) == ({}, {}, (), ())


def test_null_sections_mean_empty(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, "s.yaml", "name: s\nsettings:\nsteps:\nexpect:\n"))

    assert (scenario.settings, scenario.steps, scenario.expect) == ({}, (), ())


def test_volatile_columns_load_lower_cased(tmp_path: Path) -> None:
    text = "name: v\nvolatile: [t.U, ' Log.At_1 ', my_t.Col$2]\n"

    scenario = load_scenario(write(tmp_path, "v.yaml", text))

    assert scenario.volatile == ("t.u", "log.at_1", "my_t.col$2")


def test_volatile_defaults_to_empty(tmp_path: Path) -> None:
    assert load_scenario(write(tmp_path, "v.yaml", "name: v\nvolatile:\n")).volatile == ()


@pytest.mark.parametrize(
    ("yaml_value", "expected"),
    [
        ("ON", "ON"),
        ("off", "OFF"),
        ("yes", "ON"),
        ("false", "OFF"),
        ("0", "0"),
        ("1024", "1024"),
        ("row", "ROW"),
        ("'read-committed'", "READ-COMMITTED"),
        ("'ON'", "ON"),
        ("''", ""),
    ],
)
def test_setting_values_are_normalised(tmp_path: Path, yaml_value: str, expected: str) -> None:
    scenario = load_scenario(write(tmp_path, "s.yaml", f"name: s\nsettings: {{Some_Var: {yaml_value}}}\n"))

    assert scenario.settings == {"some_var": expected}


# --- variants, labels and expectations --------------------------------------------


def scenario_with(settings: dict[str, str] | None = None, matrix: dict[str, tuple[str, ...]] | None = None) -> Scenario:
    return Scenario(name="s", source=None, settings=settings or {}, matrix=matrix or {})


def test_no_matrix_runs_once_per_binlog_format() -> None:
    scenario = scenario_with({"autocommit": "1"})

    assert scenario.variants() == [{"autocommit": "1", "binlog_format": f} for f in BINLOG_FORMATS]


def test_binlog_format_in_settings_runs_once() -> None:
    assert scenario_with({"binlog_format": "ROW"}).variants() == [{"binlog_format": "ROW"}]


def test_matrix_runs_every_combination_and_overrides_settings(tmp_path: Path) -> None:
    text = """\
        name: m
        settings: {autocommit: 1, binlog_format: ROW, binlog_row_image: FULL}
        matrix:
          autocommit: [0, 1]
          binlog_format: [STATEMENT, MIXED, ROW]
    """
    variants = load_scenario(write(tmp_path, "m.yaml", text)).variants()

    assert len(variants) == 6
    assert variants == [
        {"autocommit": a, "binlog_format": f, "binlog_row_image": "FULL"}
        for a in ("0", "1")
        for f in BINLOG_FORMATS
    ]


@pytest.mark.parametrize(
    ("scenario", "variant", "label"),
    [
        (scenario_with(), {"binlog_format": "ROW"}, "binlog_format=ROW"),
        (scenario_with({"binlog_format": "MIXED"}), {"binlog_format": "MIXED"}, "binlog_format=MIXED"),
        (
            scenario_with(matrix={"autocommit": ("0", "1"), "binlog_format": BINLOG_FORMATS}),
            {"autocommit": "0", "binlog_format": "ROW", "binlog_row_image": "FULL"},
            "autocommit=0,binlog_format=ROW",
        ),
    ],
)
def test_variant_label_names_the_varying_values(scenario: Scenario, variant: dict[str, str], label: str) -> None:
    assert scenario.variant_label(variant) == label


@pytest.mark.parametrize(
    ("when", "variant", "matches"),
    [
        ({}, {"binlog_format": "ROW"}, True),
        ({"binlog_format": ("STATEMENT",)}, {"binlog_format": "STATEMENT"}, True),
        ({"binlog_format": ("STATEMENT",)}, {"binlog_format": "ROW"}, False),
        ({"binlog_format": ("STATEMENT", "MIXED")}, {"binlog_format": "MIXED"}, True),
        ({"binlog_format": ("ROW",), "autocommit": ("0",)}, {"binlog_format": "ROW", "autocommit": "1"}, False),
        ({"autocommit": ("0",)}, {"binlog_format": "ROW"}, False),
    ],
)
def test_expectation_matches(when: dict[str, tuple[str, ...]], variant: dict[str, str], matches: bool) -> None:
    assert Expectation(when=when, verdict=Verdict.CONSISTENT).matches(variant) is matches


def test_loaded_when_matches_loaded_variants(tmp_path: Path) -> None:
    """`when` and settings go through the same normalisation, so `row` meets `ROW`."""
    text = "name: w\nexpect:\n  - {when: {Binlog_Format: [row, mixed]}, verdict: consistent}\n"
    scenario = load_scenario(write(tmp_path, "w.yaml", text))

    matched = [v["binlog_format"] for v in scenario.variants() if scenario.expect[0].matches(v)]

    assert matched == ["MIXED", "ROW"]


# --- one error per bad file ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "fragment"),
    [
        ("name: [unclosed\n", "", "invalid YAML at line 2"),
        ("name: a\nname: b\n", "", "duplicate key 'name'"),
        ("", "", "got an empty file"),
        ("- name: a\n", "", "got list"),
        ("name: a\ncolour: red\n", "colour", "allowed top-level keys are: name, description, settings"),
        ("description: no name\n", "name", "missing"),
        ("name:\n", "name", "missing"),
        ("name: 42\n", "name", "expected a string, got int"),
        ("name: '  '\n", "name", "must not be empty"),
        ("name: a\ndescription: [x]\n", "description", "expected a string, got list"),
        ("name: a\nsettings: [binlog_format]\n", "settings", "expected a mapping of variable -> value, got list"),
        ("name: a\nsettings: {binlog_format: [ROW]}\n", "settings.binlog_format", "got list"),
        ("name: a\nsettings: {binlog_format: }\n", "settings.binlog_format", "got null"),
        ("name: a\nsettings: {1: x}\n", "settings", "variable names must be non-empty strings, got int"),
        ("name: a\nsettings: {Autocommit: 1, autocommit: 0}\n", "settings.autocommit", "given twice"),
        ("name: a\nslave_settings: {slave_exec_mode: {x: 1}}\n", "slave_settings.slave_exec_mode", "got mapping"),
        ("name: a\nmatrix: {binlog_format: ROW}\n", "matrix.binlog_format", "expected a list of values, got string"),
        ("name: a\nmatrix: {binlog_format: []}\n", "matrix.binlog_format", "empty list"),
        ("name: a\nmatrix: {binlog_format: [ROW, row]}\n", "matrix.binlog_format[1]", "listed twice"),
        ("name: a\nmatrix: {binlog_format: [ROW, null]}\n", "matrix.binlog_format[1]", "got null"),
        ("name: a\nmaster_schema: CREATE TABLE t (a INT)\n", "master_schema", "expected a list, got string"),
        ("name: a\nslave_schema: ['  ']\n", "slave_schema[0]", "must not be empty"),
        ("name: a\nsteps: {session: con1}\n", "steps", "expected a list, got mapping"),
        ("name: a\nsteps: [BEGIN]\n", "steps[0]", "expected a mapping with session and sql, got string"),
        ("name: a\nsteps:\n  - {session: c, sql: x}\n  - {session: c}\n", "steps[1].sql", "missing"),
        ("name: a\nsteps:\n  - {session: c, sql: '   '}\n", "steps[0].sql", "must not be empty"),
        ("name: a\nsteps:\n  - {session: c, sql: ''}\n", "steps[0].sql", "must not be empty"),
        ("name: a\nsteps:\n  - {session: 1, sql: x}\n", "steps[0].session", "expected a string, got int"),
        ("name: a\nsteps:\n  - {session: c, sql: x, wait: 1}\n", "steps[0].wait", "a step has only: session, sql"),
        ("name: a\nsteps:\n  - {session: c, disconnect: false}\n", "steps[0].disconnect", "expected true"),
        ("name: a\nsteps:\n  - {session: c, disconnect: true, sql: x}\n", "steps[0].sql", "a disconnect step sends no statement"),
        ("name: a\nsteps:\n  - {session: c, disconnect: true, error: 1062}\n", "steps[0].error", "a disconnect step sends no statement"),
        ("name: a\nsteps:\n  - {disconnect: true}\n", "steps[0].session", "missing"),
        ("name: a\nsteps:\n  - {session: c, reap: 1}\n", "steps[0].reap", "expected true"),
        ("name: a\nsteps:\n  - {session: c, reap: true, sql: x}\n", "steps[0].sql", "a reap step sends no statement"),
        ("name: a\nsteps:\n  - {session: c, reap: true, disconnect: true}\n", "steps[0].reap", "a disconnect step sends no statement"),
        ("name: a\nexpect: [consistent]\n", "expect[0]", "expected a mapping, got string"),
        ("name: a\nexpect:\n  - {when: {binlog_format: ROW}}\n", "expect[0]", "needs a verdict, a slave_error"),
        ("name: a\nexpect:\n  - {verdict: broken}\n", "expect[0].verdict", "unknown verdict 'broken'"),
        ("name: a\nexpect:\n  - {verdict: 1}\n", "expect[0].verdict", "expected one of consistent, divergent"),
        ("name: a\nexpect:\n  - {slave_error: '1032'}\n", "expect[0].slave_error", "an int), got string"),
        ("name: a\nexpect:\n  - {slave_error: true}\n", "expect[0].slave_error", "got bool"),
        ("name: a\nexpect:\n  - {slave_error: -1}\n", "expect[0].slave_error", "positive"),
        ("name: a\nexpect:\n  - {verdict: error, on: x}\n", "expect[0].True", "an expectation has only"),
        ("name: a\nexpect:\n  - {when: [ROW], verdict: error}\n", "expect[0].when", "got list"),
        ("name: a\nexpect:\n  - {when: {binlog_format: []}, verdict: error}\n", "expect[0].when.binlog_format", "empty"),
        ("name: a\nvolatile: [nodot]\n", "volatile[0]", "expected table.column, got 'nodot'"),
        ("name: a\nvolatile: [t.a, a.b.c]\n", "volatile[1]", "expected table.column, got 'a.b.c'"),
        ("name: a\nvolatile: [t., t.a]\n", "volatile[0]", "expected table.column"),
        ("name: a\nvolatile: [7]\n", "volatile[0]", "expected a string, got int"),
        ("name: a\nvolatile: ['  ']\n", "volatile[0]", "must not be empty"),
        ("name: a\nvolatile: t.a\n", "volatile", "expected a list, got string"),
        ("name: a\nengines: [MYENG]\n", "engines", "expected a mapping of engine name -> capabilities, got list"),
        ("name: a\nengines: {'my eng': {}}\n", "engines", "engine names are identifiers"),
        ("name: a\nengines: {MYENG: true}\n", "engines.MYENG", "expected a mapping of capability -> true/false, got bool"),
        (f"name: a\nengines: {{MYENG: {{{ENGINE}, logs_itself: true}}}}\n", "engines.MYENG.logs_itself", "an engine declares only: transactional, row_capable, statement_capable, self_logging"),
        ("name: a\nengines: {MYENG: {transactional: false, row_capable: false}}\n", "engines.MYENG.statement_capable", "missing; declare it true or false"),
        ("name: a\nengines: {MYENG: {transactional: false, row_capable: 0, statement_capable: true}}\n", "engines.MYENG.row_capable", "expected true or false, got int"),
        (f"name: a\nengines: {{MyEng: {{{ENGINE}}}, MYENG: {{{ENGINE}}}}}\n", "engines.MYENG", "declared twice"),
        (f"{STEPS}expect:\n  - {{notes: [LIMIT]}}\n", "expect[0].notes", "needs a step"),
        (f"{STEPS}expect:\n  - {{step: 1, verdict: consistent}}\n", "expect[0].step", "says nothing about the step; add notes, error, events"),
        (f"{STEPS}expect:\n  - {{step: 3, notes: []}}\n", "expect[0].step", "no step 3; steps are numbered 1 to 2"),
        (f"{STEPS}expect:\n  - {{step: '1', notes: []}}\n", "expect[0].step", "expected a step number (an int), got string"),
        (f"{STEPS}expect:\n  - {{step: 1, notes: LIMIT}}\n", "expect[0].notes", "expected a list, got string"),
        (f"{STEPS}expect:\n  - {{step: 1, notes: [LIMIT, 'no such']}}\n", "expect[0].notes[1]", "expected an unsafe reason name such as LIMIT or a MySQL code such as 1062, got string 'no such'"),
        (f"{STEPS}expect:\n  - {{step: 1, notes: [true]}}\n", "expect[0].notes[0]", "got bool"),
        (f"{STEPS}expect:\n  - {{step: 1, notes: [-3]}}\n", "expect[0].notes[0]", "positive"),
        (f"{STEPS}expect:\n  - {{step: 1, error: -1}}\n", "expect[0].error", "expected 0 (no error) or a positive MySQL error code"),
        (f"{STEPS}expect:\n  - {{step: 1, error: ER_DUP_ENTRY}}\n", "expect[0].error", "an int), got string"),
        (f"{STEPS}expect:\n  - {{step: 1, events: Xid}}\n", "expect[0].events", "expected a list, got string"),
        (f"{STEPS}expect:\n  - {{step: 1, events: [Query: BEGIN]}}\n", "expect[0].events[0]", "got mapping (quote an entry that contains ': ')"),
        (f"{STEPS}expect:\n  - {{step: 1, events: ['Query', '1Query BEGIN']}}\n", "expect[0].events[1]", "expected an event kind such as Query or Write_rows first"),
    ],
)
def test_bad_file_reports_key_and_reason(tmp_path: Path, text: str, key: str, fragment: str) -> None:
    error = load_error(tmp_path, text)

    assert error.key == key
    assert fragment in error.message


def test_type_error_message_reads_well(tmp_path: Path) -> None:
    text = "name: a\nsteps:\n" + "  - {session: c, sql: x}\n" * 3 + "  - {session: 7, sql: x}\n"
    error = load_error(tmp_path, text)

    assert str(error) == f"{tmp_path / 'bad.yaml'}: steps[3].session: expected a string, got int"


def test_unreadable_file_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(tmp_path / "missing.yaml")

    assert caught.value.error.key == ""


# --- suites ---------------------------------------------------------------------------


def test_directory_loads_good_files_and_reports_bad_one(tmp_path: Path) -> None:
    write(tmp_path, "suite/b_bad.yaml", "name: b\nsteps: nope\n")
    write(tmp_path, "suite/c.yml", minimal("c"))
    write(tmp_path, "suite/a.yaml", minimal("a"))
    write(tmp_path, "suite/notes.txt", "not a scenario")

    result = load_paths([tmp_path / "suite"])

    assert [s.name for s in result.scenarios] == ["a", "c"]
    assert result.errors == [ScenarioError(tmp_path / "suite/b_bad.yaml", "steps", "expected a list, got string")]


def test_directory_is_searched_recursively_in_sorted_order(tmp_path: Path) -> None:
    for relative in ("z.yaml", "m/b.yaml", "m/a.yaml", "a/deep/x.yml"):
        write(tmp_path, relative, minimal(relative.replace("/", "-")))

    result = load_paths([tmp_path])

    assert [s.source for s in result.scenarios] == [
        tmp_path / "a/deep/x.yml",
        tmp_path / "m/a.yaml",
        tmp_path / "m/b.yaml",
        tmp_path / "z.yaml",
    ]


def test_expected_directories_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, "suite/a.yaml", minimal("a"))
    write(tmp_path, "suite/expected/a.yaml", "recorded: oracle result\n")
    write(tmp_path, "suite/sub/expected/b.yaml", "- not a scenario\n")

    result = load_paths([tmp_path / "suite"])

    assert result == LoadResult(scenarios=[load_scenario(tmp_path / "suite/a.yaml")], errors=[])


def test_named_file_loads_whatever_its_extension(tmp_path: Path) -> None:
    path = write(tmp_path, "scenario.txt", minimal("txt"))

    assert [s.name for s in load_paths([str(path)]).scenarios] == ["txt"]


def test_duplicate_name_keeps_first_and_reports_second(tmp_path: Path) -> None:
    first = write(tmp_path, "one/a.yaml", minimal("same"))
    second = write(tmp_path, "two/b.yaml", minimal("same"))

    result = load_paths([tmp_path / "one", tmp_path / "two"])

    assert [s.source for s in result.scenarios] == [first]
    assert [(e.source, e.key) for e in result.errors] == [(second, "name")]
    assert str(first) in result.errors[0].message


def test_same_file_reached_twice_loads_once(tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", minimal("a"))

    result = load_paths([tmp_path, path])

    assert ([s.name for s in result.scenarios], result.errors) == (["a"], [])


def test_missing_path_is_an_error_not_an_exception(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", minimal("a"))
    missing = tmp_path / "no-such-suite"

    result = load_paths([missing, tmp_path])

    assert [s.name for s in result.scenarios] == ["a"]
    assert result.errors == [ScenarioError(missing, "", "no such file or directory")]
