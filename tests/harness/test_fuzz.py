"""rplharness fuzz: generated workloads run, compared in one Spark job, judged, findings shrunk."""

import dataclasses
import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.console import fuzz_summary
from harness.compare import diff_snapshots
from harness.fuzz import FuzzConfig, fuzz, workload_variants
from harness.judge import judge
from harness.report import fuzz_report_json
from scenarios.generator.config import GeneratorConfig
from scenarios.loader import load_scenario
from scenarios.writer import write_scenario
from scenarios.model import Verdict
from server_sim.flavor import DEFAULT_FLAVOR, FLAVORS

SMALL = GeneratorConfig(statements=8)


@pytest.fixture(scope="module")
def small_fuzz(spark, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("fuzz")
    config = FuzzConfig(count=12, seed=5, interleavings=2, variants="formats", generator=SMALL, shrink_limit=1, shrink_budget=60)
    return config, out, fuzz(config, DEFAULT_FLAVOR, out, lambda: spark)


def test_every_workload_runs_each_interleaving_under_each_variant(small_fuzz) -> None:
    config, _, result = small_fuzz
    exploration = result.exploration
    assert exploration.workloads == 12
    assert 12 <= exploration.interleavings <= 24
    assert exploration.runs == len(result.suite.runs) == exploration.interleavings * 3
    assert 0 < exploration.distinct_master_states <= exploration.runs
    assert 0 < exploration.distinct_binlogs <= exploration.runs


def test_the_spark_verdicts_agree_with_the_single_run_comparison(small_fuzz) -> None:
    _, _, result = small_fuzz
    for outcome in result.suite.runs:
        record = outcome.record
        if record.master_snapshot is not None and record.slave_snapshot is not None:
            assert judge(record, diff_snapshots(record.master_snapshot, record.slave_snapshot)) == outcome.judgement, record.run_id


def test_only_the_binlogs_of_runs_that_are_not_consistent_are_kept(small_fuzz) -> None:
    _, _, result = small_fuzz
    for outcome in result.suite.runs:
        kept = outcome.record.binlog is not None and outcome.record.binlog.exists()
        assert kept == (outcome.judgement.verdict is not Verdict.CONSISTENT), outcome.record.run_id


def test_the_fuzz_report_counts_what_it_ran(small_fuzz) -> None:
    config, _, result = small_fuzz
    document = json.loads(json.dumps(fuzz_report_json(result, DEFAULT_FLAVOR.name, config), default=str))
    assert document["command"] == "fuzz"
    assert document["fuzz"]["seed"] == 5 and document["fuzz"]["count"] == 12
    assert document["exploration"]["runs"] == document["summary"]["runs"] == len(document["runs"])
    assert sum(document["summary"][verdict.value] for verdict in Verdict) == document["summary"]["runs"]
    for run in document["runs"]:
        assert run["detail"] == (run["verdict"] != "consistent")
        assert bool(run["steps"]) == run["detail"]
    assert len(document["findings"]) == document["summary"]["finding"]


def test_a_seed_and_an_index_identify_the_scenarios(spark, tmp_path: Path, small_fuzz) -> None:
    config, _, result = small_fuzz
    again = fuzz(dataclasses.replace(config, count=3), DEFAULT_FLAVOR, tmp_path, lambda: spark, workers=1)
    first = {outcome.record.run_id: outcome.record.scenario for outcome in result.suite.runs}
    for outcome in again.suite.runs:
        assert first[outcome.record.run_id] == outcome.record.scenario


@pytest.mark.parametrize("index", range(6))
def test_one_variant_per_workload_takes_the_formats_in_turn(index: int) -> None:
    (variant,) = workload_variants(1, index, "one")
    assert variant["binlog_format"] == ("STATEMENT", "MIXED", "ROW")[index % 3]
    assert variant["binlog_row_image"] in ("FULL", "MINIMAL", "NOBLOB")


def test_all_variants_pair_each_row_format_with_each_image() -> None:
    variants = workload_variants(1, 0, "all")
    assert len(variants) == 7
    assert {(v["binlog_format"], v["binlog_row_image"]) for v in variants if v["binlog_format"] != "STATEMENT"} == {
        (f, i) for f in ("MIXED", "ROW") for i in ("FULL", "MINIMAL", "NOBLOB")
    }


def test_a_planted_unsafe_detection_gap_is_found_shrunk_and_reproduced(spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """With SYSTEM_FUNCTION disabled (no function counts as unsafe), UUID(), SYSDATE() and
    USER() are logged as statements under STATEMENT and MIXED and give the slave other
    values: findings, each shrunk to a scenario of at most 3 steps that `run` reproduces."""
    gap = dataclasses.replace(DEFAULT_FLAVOR, name="mysql-8.0-without-system-function", unsafe_functions=frozenset())
    monkeypatch.setitem(FLAVORS, gap.name, gap)
    generator = dataclasses.replace(SMALL, nondeterministic_function_rate=0.5, unsafe_variable_rate=0.0, unsafe_limit_rate=0.0, slave_schema_rate=0.0)
    config = FuzzConfig(count=6, seed=11, variants="formats", generator=generator, shrink_limit=2, shrink_budget=150)
    result = fuzz(config, gap, tmp_path / "fuzz", lambda: spark)
    assert result.findings, "the planted gap went unnoticed"
    assert result.exit_code == 1
    # Each group once, with its count: the counts add up to the findings.
    document = fuzz_report_json(result, gap.name, config)
    groups = document["finding_groups"]
    assert sum(group["count"] for group in groups) == len(result.findings) == len(document["findings"])
    assert len({group["title"] for group in groups}) == len(groups)
    assert all(group["flavor"] == gap.name and group["example"]["signature"] == group["signature"] for group in groups)
    summary = fuzz_summary(result)
    assert summary.count("FINDING  ") == len(groups)
    assert all(f"FINDING  {group['title']}: {group['count']} run" in summary for group in groups)
    shrunk_findings = [finding.shrunk for finding in result.findings if finding.shrunk is not None]
    assert len(shrunk_findings) == min(2, len(result.findings))
    for shrunk in shrunk_findings:
        assert shrunk.reproduced
        assert 1 <= len(shrunk.scenario.steps) <= 3
        assert shrunk.test.read_text().count("--source include/diff_tables.inc") >= 1
    shrunk = shrunk_findings[0]
    scenario = load_scenario(shrunk.yaml)
    # The file names the flavor and seed that found it: `run` reproduces it without options.
    assert (scenario.flavor, scenario.seed) == (gap.name, 11)
    assert main(["run", str(shrunk.yaml), "--out", str(tmp_path / "again")]) == 1
    rerun = json.loads((tmp_path / "again" / "report.json").read_text())
    assert [(run["verdict"], run["flavor"]) for run in rerun["runs"]] == [("finding", gap.name)]
    # On the real flavor the same statements are no finding: MIXED logs the function's
    # rows, STATEMENT diverges for the reason the server gives.
    write_scenario(dataclasses.replace(scenario, flavor=None), tmp_path / "real.yaml")
    main(["run", str(tmp_path / "real.yaml"), "--out", str(tmp_path / "fixed")])
    fixed = json.loads((tmp_path / "fixed" / "report.json").read_text())
    expected = {"MIXED": "consistent", "STATEMENT": "divergent"}[scenario.matrix["binlog_format"][0]]
    assert fixed["runs"][0]["verdict"] == expected
    capsys.readouterr()


def test_findings_to_shrink_take_kinds_in_turn_and_new_workloads_first(small_fuzz) -> None:
    from harness.findings import Signature
    from harness.fuzz import Finding, FindingGroup, _to_shrink

    signature_a = Signature("divergence", None, "primary key, rows changed", (), "UPDATE")
    signature_b = Signature("slave stop", 1032, None, (), "DELETE")

    _, _, result = small_fuzz
    outcome = result.suite.runs[0]

    def finding(workload: str, kind: str) -> Finding:
        record = dataclasses.replace(outcome.record, scenario=dataclasses.replace(outcome.record.scenario, name=f"fuzz-s1-{workload}-12"))
        return Finding(dataclasses.replace(outcome, record=record), kind)

    findings = [finding("00001", "a"), finding("00001", "a"), finding("00002", "a"), finding("00003", "b")]
    groups = [FindingGroup(signature_a, [f for f in findings if f.kind == "a"]), FindingGroup(signature_b, [f for f in findings if f.kind == "b"])]
    chosen = _to_shrink(groups, 3)
    assert [(f.outcome.record.scenario.name, f.kind) for f in chosen] == [("fuzz-s1-00001-12", "a"), ("fuzz-s1-00003-12", "b"), ("fuzz-s1-00002-12", "a")]
