"""docs/report-format.md against real reports: every key a real report.json holds is in the
document's tables, and every key the tables list turns up in a real report.

The document is read generically: each `| Key | Type | Meaning |` table documents one kind
of object, the object its heading's section is about. An object under key K is documented
by the table its parent's row for K links to (`see [Runs](#runs)`), else by a table whose
heading names K in backticks, else by that row's own text (`{"level", "code", "message"}`).
A row whose type reads `object (A → B)` is a mapping whose keys are data, not documented.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field

import pytest

from harness.cli import main
from harness.report import REPORT_FORMAT_VERSION
from server_sim.flavor import DEFAULT_FLAVOR, FLAVORS
from tests.support import ROOT

DOC = ROOT / "docs" / "report-format.md"
SUITE = ROOT / "scenarios" / "suites"
ORACLE_SUITE = ROOT / "scenarios" / "oracle"
ROOT_HEADING = "Top level"


@dataclass
class Row:
    keys: list[str]
    type: str
    text: str  # the whole row: its links and the keys named in it

    @property
    def mapping(self) -> bool:
        return "→" in self.type

    @property
    def links(self) -> list[str]:
        return re.findall(r"\]\(#([^)]+)\)", self.text)


@dataclass
class Section:
    heading: str
    anchor: str
    names: list[str]  # the backticked words of the heading
    rows: dict[str, Row] = field(default_factory=dict)
    prose: bool = False  # documented by a row's text, not a table


def _anchor(heading: str, seen: dict[str, int]) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower()).replace(" ", "-")
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def parse_doc(text: str) -> dict[str, Section]:
    """The sections with a key table, by anchor."""
    sections: dict[str, Section] = {}
    anchors: dict[str, int] = {}
    current: Section | None = None
    in_table = is_key_table = in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        heading = re.match(r"#+ (.*)", line)
        if heading:
            current = Section(heading[1], _anchor(heading[1], anchors), re.findall(r"`([^`]+)`", heading[1]))
            in_table = False
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not in_table:
            in_table, is_key_table = True, cells[0].lower() == "key"
            continue
        if not is_key_table or set(cells[0]) <= set("-: ") or current is None:
            continue
        keys = [key.removesuffix("[]") for key in re.findall(r"`([^`]+)`", cells[0])]
        row = Row(keys, cells[1] if len(cells) > 1 else "", line)
        for key in keys:
            current.rows[key] = row
        sections[current.anchor] = current
    return sections


def _prose(row: Row) -> Section:
    """A row that names its object's keys in its own text, backticked or quoted."""
    names = re.findall(r"`([^`]+)`", row.text) + re.findall(r'"([A-Za-z_]+)"', row.text)
    return Section(f"row {row.keys}", "", [], {name: Row([name], "", "") for name in names}, prose=True)


@dataclass
class Check:
    """Walks report documents through the sections: what is undocumented, what was seen."""

    sections: dict[str, Section]
    undocumented: set[str] = field(default_factory=set)
    seen: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    paths: set[str] = field(default_factory=set)

    def document(self, document: dict[str, object]) -> None:
        (root,) = [section for section in self.sections.values() if section.heading == ROOT_HEADING]
        self.walk(document, root, "")

    def target(self, row: Row, key: str, path: str) -> Section | None:
        for anchor in row.links:
            if anchor in self.sections:
                return self.sections[anchor]
        named = [s for s in self.sections.values() if any(path.endswith(name) or name == key for name in s.names)]
        return named[0] if named else _prose(row)

    def walk(self, value: dict[str, object], section: Section, path: str) -> None:
        for key, child in value.items():
            where = f"{path}.{key}".lstrip(".")
            row = section.rows.get(key)
            if row is None:
                self.undocumented.add(f"{where} (in {section.heading})")
                continue
            self.paths.add(where)
            if not section.prose:
                self.seen[section.anchor].add(key)
            for item in child if isinstance(child, list) else [child]:
                if isinstance(item, dict) and not row.mapping:
                    self.walk(item, self.target(row, key, where), where)


@pytest.fixture(scope="module")
def reports(spark, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """Real reports, each from the command line: a run with every kind of outcome and an
    input error, a check-fidelity with a disagreement, and a fuzz run with a planted
    unsafe-detection gap, so that it has findings, shrunk."""
    tmp = tmp_path_factory.mktemp("report-format")
    capture = pytest.MonkeyPatch()
    (tmp / "broken.yaml").write_text("name: [unclosed\n")
    (tmp / "declared.yaml").write_text(
        "name: declared-error\nsettings: {binlog_format: ROW}\n"
        'master_schema: ["CREATE TABLE t (a INT PRIMARY KEY)", "INSERT INTO t VALUES (1)"]\n'
        'steps: [{session: con1, sql: "INSERT INTO t VALUES (1)", error: ER_DUP_ENTRY}]\n'
    )
    files = ["sysdate-insert", "uuid-insert", "slave-missing-row", "update-limit-slave-pk-differs", "slave-table-with-extra-columns", "impossible-1663-unsafe-and-stmt-engine"]
    main(["run", *(str(SUITE / f"{name}.yaml") for name in files), str(tmp / "declared.yaml"), str(tmp / "broken.yaml"), "--compare", "python", "--out", str(tmp / "run")])

    suite = tmp / "oracle"
    (suite / "expected").mkdir(parents=True)
    shutil.copy(ORACLE_SUITE / "blocked-update-innodb.yaml", suite)
    for recorded in (ORACLE_SUITE / "expected").glob("blocked-update-innodb__*.json"):
        document = json.loads(recorded.read_text())
        document["verdict"] = "divergent"
        (suite / "expected" / recorded.name).write_text(json.dumps(document))
    main(["check-fidelity", str(suite), "--compare", "python", "--out", str(tmp / "check")])

    gap = dataclasses.replace(DEFAULT_FLAVOR, name="mysql-8.0-without-system-function", unsafe_functions=frozenset())
    capture.setitem(FLAVORS, gap.name, gap)
    rates = ["nondeterministic_function_rate=0.5", "unsafe_variable_rate=0", "unsafe_limit_rate=0", "slave_schema_rate=0"]
    main(
        ["fuzz", "--count", "6", "--seed", "11", "--variants", "formats", "--statements", "8", "--flavor", gap.name]
        + [option for rate in rates for option in ("--rate", rate)]
        + ["--shrink-limit", "1", "--shrink-budget", "60", "--out", str(tmp / "fuzz")]
    )
    capture.undo()
    return {name: json.loads((tmp / name / "report.json").read_text()) for name in ("run", "check", "fuzz")}


def test_the_real_reports_have_what_the_document_shows(reports: dict[str, dict[str, object]]) -> None:
    assert reports["run"]["runs"] and reports["run"]["input_errors"] and reports["check"]["fidelity"]["runs"]
    assert reports["fuzz"]["findings"] and any(f["shrunk"] for f in reports["fuzz"]["findings"])
    assert [reports[name]["command"] for name in ("run", "check", "fuzz")] == ["run", "check-fidelity", "fuzz"]


def test_every_key_of_a_real_report_is_documented(reports: dict[str, dict[str, object]]) -> None:
    check = Check(parse_doc(DOC.read_text()))
    for document in reports.values():
        check.document(document)
    assert sorted(check.undocumented) == []


def test_every_documented_key_is_in_a_real_report(reports: dict[str, dict[str, object]]) -> None:
    sections = parse_doc(DOC.read_text())
    check = Check(sections)
    for document in reports.values():
        check.document(document)
    never = sorted(f"{section.heading}: {key}" for anchor, section in sections.items() for key in section.rows if key not in check.seen[anchor])
    assert never == []


def test_the_example_is_a_report_of_today(reports: dict[str, dict[str, object]]) -> None:
    """The example's keys are those of the same run in a real report, the version too."""
    text = DOC.read_text()
    example = text[text.index("## Example") :]
    document, slave = (json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", example, re.S)[:2])
    assert document["format_version"] == REPORT_FORMAT_VERSION
    (run,) = document["runs"]
    real = dict(reports["run"]) | {"runs": [r for r in reports["run"]["runs"] if r["run_id"] == run["run_id"]]}
    sections = parse_doc(text)
    shown, actual = Check(sections), Check(sections)
    shown.document(document)
    actual.document(real)
    assert shown.undocumented == set()
    def of_a_run(paths: set[str]) -> set[str]:  # the example leaves out the other runs' lists
        return {path for path in paths if "." not in path or path.startswith("runs.")}

    assert sorted(of_a_run(shown.paths) ^ of_a_run(actual.paths)) == []
    stopped = next(r for r in reports["run"]["runs"] if r["run_id"] == "slave-missing-row__binlog_format_ROW")
    assert list(slave) == list(stopped["slave"])
