"""`rplharness record-oracle` and `check-fidelity`: a real server's results stored, and the
simulator compared with them."""

from __future__ import annotations

import argparse
import sys

from harness.oracle.suite import ORACLES

from .common import EXIT_USAGE, SparkStarter, print_paths


def record(arguments: argparse.Namespace) -> int:
    from harness.oracle.mariadb import ServerError
    from harness.oracle.suite import record_oracle

    spark = SparkStarter(arguments.spark_master)
    try:
        written, errors, outcomes = record_oracle(arguments.paths, arguments.oracle, arguments.out, spark, step_timeout=arguments.step_timeout)
    except ServerError as error:
        print(f"rplharness: {arguments.oracle}: {error}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        spark.stop()
    for outcome, path in zip(outcomes, written):
        print(f"{outcome.judgement.verdict.value:<14} {path}")
    for error in errors:
        print(f"INPUT ERROR  {error}")
    print(f"{len(written)} runs recorded, {len(errors)} input errors")
    return EXIT_USAGE if errors else 0


def check(arguments: argparse.Namespace) -> int:
    from harness.oracle.suite import check_fidelity
    from harness.report import write_reports

    spark = SparkStarter(arguments.spark_master)
    try:
        result = check_fidelity(arguments.paths, arguments.oracle, arguments.out, spark, arguments.seed)
    finally:
        spark.stop()
    paths = write_reports(result.simulator, ORACLES[arguments.oracle].name, arguments.out, result.fidelity)
    for error in result.simulator.input_errors:
        print(f"INPUT ERROR  {error}")
    print(result.fidelity.summary())
    print_paths(paths)
    return result.exit_code
