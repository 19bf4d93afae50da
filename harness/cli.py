"""The `rplharness` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from server_sim.binlog.file import BinlogCorruptError, read_binlog
from server_sim.binlog.show import show
from server_sim.flavor import DEFAULT_FLAVOR, FLAVORS, get_flavor

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rplharness",
        description="Replay scenarios on a simulated MySQL master and slave and check that replication keeps them consistent.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser(
        "run",
        help="run scenario files or suites under every binlog format and compare master and slave",
        description="Run every variant of every scenario under PATH (files or directories), compare master and "
        "slave tables with Spark, print a verdict per run and write OUT/report.json. Exit 0 when every expect "
        "holds, 1 when one fails, 2 on usage or input errors.",
    )
    run.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="scenario YAML files or directories of them")
    run.add_argument("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    run.add_argument("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")
    run.add_argument("--spark-master", default=None, metavar="URL", help="Spark master URL for the comparison (default: embedded local[*])")
    run.add_argument("--seed", type=int, default=0, help="base seed of the simulated servers (default %(default)s)")

    binlog = commands.add_parser("binlog", help="binlog file tools")
    binlog_commands = binlog.add_subparsers(dest="binlog_command", required=True)
    show_parser = binlog_commands.add_parser("show", help="print a binlog the way mysqlbinlog -vv does")
    show_parser.add_argument("file", type=Path, metavar="FILE")
    return parser


def _run(arguments: argparse.Namespace) -> int:
    from pyspark.sql import SparkSession

    from harness.report import summary_table, write_report
    from harness.spark import start_spark, stop_spark
    from harness.suite import run_suite

    flavor = get_flavor(arguments.flavor)
    started: list[SparkSession] = []

    def spark() -> SparkSession:
        """Spark starts only when there is something to compare; a session the caller
        already had (an embedding program, the test suite) is reused and left running."""
        existing = SparkSession.getActiveSession()
        session = start_spark(arguments.spark_master)
        if existing is None:
            started.append(session)
        return session

    try:
        result = run_suite(arguments.paths, flavor, arguments.out, spark, arguments.seed)
    finally:
        for session in started:
            stop_spark(session)
    report = write_report(result, flavor.name, arguments.out)
    print(summary_table(result))
    print(f"report: {report}")
    return result.exit_code


def _show(arguments: argparse.Namespace) -> int:
    path: Path = arguments.file
    if not path.is_file():
        print(f"rplharness: {path}: no such file", file=sys.stderr)
        return EXIT_USAGE
    events = []
    try:
        for event in read_binlog(path):
            events.append(event)
    except BinlogCorruptError as error:
        sys.stdout.write(show(events))
        print(f"rplharness: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(show(events))
    return 0


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    if arguments.command == "run":
        return _run(arguments)
    return _show(arguments)


if __name__ == "__main__":
    sys.exit(main())
