"""`rplharness record-oracle` and `check-fidelity`: a real server's results stored, and the
simulator compared with them."""

from __future__ import annotations

import argparse
import sys
from functools import partial

from harness.oracle.suite import ORACLES
from harness.progress import Console

from .common import EXIT_USAGE, retire_reports, spark_starter


def record(arguments: argparse.Namespace) -> int:
    from harness.console import recorded
    from harness.oracle.mariadb import ServerError
    from harness.oracle.replication import ReplicationPair
    from harness.oracle.suite import record_oracle

    console = Console()
    spark = spark_starter(arguments, console)
    try:
        written, errors, outcomes = record_oracle(
            arguments.paths, arguments.oracle, arguments.out, spark,
            pair_factory=partial(ReplicationPair, master_options=tuple(arguments.oracle_master_option)),
            step_timeout=arguments.step_timeout, console=console, compare=arguments.compare,
        )
    except ServerError as error:
        console.close()
        print(f"rplharness: {arguments.oracle}: {error}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        console.close()
        spark.stop()
    print(recorded(outcomes, written, errors))
    return EXIT_USAGE if errors else 0


def check(arguments: argparse.Namespace) -> int:
    from harness.console import fidelity_summary, written_paths
    from harness.oracle.suite import check_fidelity
    from harness.report import REPORT_FILES, write_reports

    retire_reports(arguments.out, REPORT_FILES)
    console = Console()
    spark = spark_starter(arguments, console)
    try:
        result = check_fidelity(arguments.paths, arguments.oracle, arguments.out, spark, arguments.seed, console=console, compare=arguments.compare)
    finally:
        console.close()
        spark.stop()
    paths = write_reports(result.simulator, ORACLES[arguments.oracle].name, arguments.out, result.fidelity, command="check-fidelity")
    for error in result.simulator.input_errors:
        print(f"INPUT ERROR  {error}")
    print(fidelity_summary(result.fidelity))
    print(written_paths(paths))
    return result.exit_code
