"""`rplharness fuzz`: generated workloads run, judged, their findings shrunk."""

from __future__ import annotations

import argparse
import sys
from server_sim.flavor import get_flavor

from .common import EXIT_USAGE, retire_reports, settings, spark_starter

INTERLEAVINGS_REPORT = "interleavings.json"  # fuzz --from's report in OUT


def parse_range(text: str) -> tuple[int, int]:
    """`2` or `2-3` as (min, max)."""
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or MIN-MAX, got {text!r}") from None


def fuzz(arguments: argparse.Namespace) -> int:
    if arguments.from_scenario is not None:
        return fuzz_from(arguments)
    from dataclasses import replace

    from harness.console import fuzz_summary, written_paths
    from harness.fuzz import FuzzConfig, fuzz
    from harness.prestart import Prestart
    from harness.progress import Progress
    from harness.report import REPORT_FILES, fuzz_report_json, write_documents
    from scenarios.generator.config import GeneratorConfig

    retire_reports(arguments.out, REPORT_FILES)

    try:
        generator = replace(
            GeneratorConfig(),
            **{name: value for name, value in (("tables", arguments.tables), ("sessions", arguments.sessions), ("statements", arguments.statements)) if value is not None},
            **_rates(arguments.rate),
        )
        config = FuzzConfig(
            count=arguments.count,
            seed=arguments.seed,
            interleavings=arguments.interleavings,
            variants=arguments.variants,
            generator=generator,
            shrink_limit=arguments.shrink_limit,
            shrink_budget=arguments.shrink_budget,
            keep_binlogs=arguments.keep_binlogs,
        )
    except (ValueError, TypeError) as error:
        print(f"rplharness: fuzz: {error}", file=sys.stderr)
        return EXIT_USAGE
    flavor = get_flavor(arguments.flavor)
    spark = spark_starter(arguments)  # no console: it starts in a thread while the progress line draws
    early = Prestart(spark)  # started while the workers run
    progress = Progress(config.count, unit="workloads", findings=True)
    try:
        result = fuzz(config, flavor, arguments.out, early, arguments.workers, progress, arguments.executor, arguments.compare)
    finally:
        progress.close()
        early.wait()
        spark.stop()
    paths = write_documents(fuzz_report_json(result, flavor.name, config), arguments.out)
    print(fuzz_summary(result))
    print(written_paths(paths))
    return result.exit_code


def fuzz_from(arguments: argparse.Namespace) -> int:
    """`fuzz --from SCENARIO`: the scenario's own sessions in other interleavings. Exit 0
    when no interleaving diverges, 1 when one does, 2 on input errors."""
    import json
    import tempfile
    from pathlib import Path

    from harness.fuzz import workload_variants
    from harness.interleaving_check import check_interleavings, render
    from harness.runner import validate_scenario
    from scenarios.loader import ScenarioLoadError, load_scenario
    from scenarios.writer import write_atomically

    flavor = get_flavor(arguments.flavor)
    try:
        scenario = load_scenario(arguments.from_scenario)
    except ScenarioLoadError as error:
        print(f"rplharness: fuzz: {error}", file=sys.stderr)
        return EXIT_USAGE
    problems = validate_scenario(scenario, flavor)
    for problem in problems:
        print(f"rplharness: fuzz: {problem}", file=sys.stderr)
    if problems:
        return EXIT_USAGE
    variants = workload_variants(arguments.seed, 0, "all" if arguments.variants == "all" else "formats")
    retire_reports(arguments.out, (INTERLEAVINGS_REPORT,))
    try:
        with tempfile.TemporaryDirectory(prefix="rplh-interleave-") as work:
            result = check_interleavings(scenario, flavor, Path(work), arguments.out, variants, arguments.interleavings, arguments.seed)
    except ValueError as error:  # e.g. more sessions than a workload holds
        print(f"rplharness: fuzz: {arguments.from_scenario}: {error}", file=sys.stderr)
        return EXIT_USAGE
    report = {
        "scenario": result.scenario, "interleavings": result.interleavings, "runs": result.runs, "diverged_runs": result.diverged_runs,
        "shapes": [
            {"shape": shape.shape, "under_captured": shape.under_captured, "under_others": shape.under_others, "example": str(shape.example) if shape.example else None}
            for shape in result.shapes
        ],
    }  # fmt: skip
    write_atomically(arguments.out / INTERLEAVINGS_REPORT, json.dumps(report, indent=2) + "\n")
    sys.stdout.write(render(result))
    print(f"report: {arguments.out / INTERLEAVINGS_REPORT}")
    return 0 if result.consistent else 1


def _rates(pairs: list[str]) -> dict[str, float]:
    """`--rate NAME=P` options; ValueError names an unknown rate or a bad number."""
    from scenarios.generator.config import GeneratorConfig

    known = sorted(name for name in GeneratorConfig.__dataclass_fields__ if name.endswith("_rate"))
    rates = {}
    for name, value in settings(pairs).items():
        if name not in known:
            raise ValueError(f"--rate {name}: unknown rate; rates are {', '.join(known)}")
        rates[name] = float(value)
    return rates
