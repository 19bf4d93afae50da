"""`rplharness run`: every variant of every scenario, compared and judged; with `--oracle`,
on a real server too, side by side."""

from __future__ import annotations

import argparse
import sys
from functools import partial

from harness.oracle.suite import ORACLES
from harness.progress import Console
from server_sim.flavor import get_flavor

from .common import EXIT_USAGE, SparkStarter, retire_reports, spark_starter


def run(arguments: argparse.Namespace) -> int:
    from harness.console import summary_table, written_paths
    from harness.report import REPORT_FILES, write_reports
    from harness.suite import run_suite

    retire_reports(arguments.out, REPORT_FILES)
    console = Console()
    spark = spark_starter(arguments, console)
    try:
        if arguments.oracle:
            return _run_with_oracle(arguments, spark, console)
        flavor = get_flavor(arguments.flavor)
        result = run_suite(arguments.paths, flavor, arguments.out, spark, arguments.seed, progress=console.runs("simulator"), compare=arguments.compare, executor=arguments.executor)
    finally:
        console.close()
        spark.stop()
    paths = write_reports(result, flavor.name, arguments.out)
    print(summary_table(result))
    print(written_paths(paths))
    return result.exit_code


def _run_with_oracle(arguments: argparse.Namespace, spark: SparkStarter, console: Console) -> int:
    from harness.oracle.mariadb import ServerError
    from harness.oracle.replication import ReplicationPair
    from harness.oracle.suite import run_with_oracle
    from harness.console import fidelity_summary, side_by_side, written_paths
    from harness.report import write_reports

    try:
        result = run_with_oracle(
            arguments.paths, arguments.oracle, arguments.out, spark, arguments.seed,
            pair_factory=partial(ReplicationPair, master_options=tuple(arguments.oracle_master_option)),
            step_timeout=arguments.step_timeout, console=console, compare=arguments.compare,
        )
    except ServerError as error:
        console.close()
        print(f"rplharness: {arguments.oracle}: {error}", file=sys.stderr)
        return EXIT_USAGE
    console.close()
    paths = write_reports(result.simulator, ORACLES[arguments.oracle].name, arguments.out, result.fidelity)
    print(side_by_side(result))
    print(fidelity_summary(result.fidelity))
    print(written_paths(paths))
    return result.exit_code
