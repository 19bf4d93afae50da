"""`rplharness run`: every variant of every scenario, compared and judged; with `--oracle`,
on a real server too, side by side."""

from __future__ import annotations

import argparse
import sys

from harness.oracle.client import ORACLE_SUFFIX
from harness.oracle.suite import ORACLES, OracleResult
from harness.progress import Console
from server_sim.flavor import get_flavor

from .common import EXIT_USAGE, SparkStarter, print_paths, spark_starter


def run(arguments: argparse.Namespace) -> int:
    from harness.report import summary_table, write_reports
    from harness.suite import run_suite

    console = Console()
    spark = spark_starter(arguments, console)
    try:
        if arguments.oracle:
            return _run_with_oracle(arguments, spark, console)
        flavor = get_flavor(arguments.flavor)
        result = run_suite(arguments.paths, flavor, arguments.out, spark, arguments.seed, progress=console.runs("simulator"), compare=arguments.compare)
    finally:
        console.close()
        spark.stop()
    paths = write_reports(result, flavor.name, arguments.out)
    print(summary_table(result))
    print_paths(paths)
    return result.exit_code


def _run_with_oracle(arguments: argparse.Namespace, spark: SparkStarter, console: Console) -> int:
    from harness.oracle.mariadb import ServerError
    from harness.oracle.suite import run_with_oracle
    from harness.report import write_reports

    try:
        result = run_with_oracle(
            arguments.paths, arguments.oracle, arguments.out, spark, arguments.seed, step_timeout=arguments.step_timeout, console=console, compare=arguments.compare
        )
    except ServerError as error:
        console.close()
        print(f"rplharness: {arguments.oracle}: {error}", file=sys.stderr)
        return EXIT_USAGE
    console.close()
    paths = write_reports(result.simulator, ORACLES[arguments.oracle].name, arguments.out, result.fidelity)
    print(side_by_side(result))
    print(result.fidelity.summary())
    print_paths(paths)
    return result.exit_code


def side_by_side(result: OracleResult) -> str:
    """scenario | variant | simulator verdict | server verdict, one line per run."""
    server = {outcome.record.run_id.removesuffix(ORACLE_SUFFIX): outcome for outcome in result.server}
    rows = [("SCENARIO", "VARIANT", "SIMULATOR", "SERVER")]
    for outcome in result.simulator.runs:
        theirs = server.get(outcome.record.run_id)
        rows.append((outcome.record.scenario.name, outcome.record.label, outcome.judgement.verdict.value, theirs.judgement.verdict.value if theirs else "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.extend(f"INPUT ERROR  {error}" for error in result.simulator.input_errors)
    return "\n".join(lines)
