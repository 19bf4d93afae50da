"""The `rplharness` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from server_sim.binlog.file import BinlogCorruptError, read_binlog
from server_sim.binlog.show import BASE64_OUTPUT, show
from harness.fuzz import VARIANT_MODES
from harness.oracle.client import ORACLE_SUFFIX
from harness.oracle.suite import ORACLES, OracleResult
from scenarios.model import Verdict
from server_sim.flavor import DEFAULT_FLAVOR, FLAVORS, get_flavor

if TYPE_CHECKING:
    from harness.fuzz import FuzzResult

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
        "slave tables with Spark, print a verdict per run and write OUT/report.json, OUT/junit.xml and "
        "OUT/report.html. Exit 0 when every expect holds and no run is a finding or a simulator error, 1 "
        "otherwise, 2 on usage or input errors.",
    )
    run.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="scenario YAML files or directories of them")
    run.add_argument("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    run.add_argument("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")
    run.add_argument("--spark-master", default=None, metavar="URL", help="Spark master URL for the comparison (default: embedded local[*])")
    run.add_argument("--seed", type=int, default=0, help="base seed of the simulated servers (default %(default)s)")
    run.add_argument(
        "--oracle",
        choices=sorted(ORACLES),
        default=None,
        help="also run every variant on a real master and replica the harness starts (flavor mariadb-10.11), "
        "and report where the simulator and the server disagree",
    )
    run.add_argument("--step-timeout", type=float, default=0.5, metavar="SECONDS", help="with --oracle: a step not done by then is recorded as blocked (default %(default)s)")

    fuzz = commands.add_parser(
        "fuzz",
        help="generate workloads, run their interleavings under the binlog formats, judge every run, shrink the findings",
        description="Generate --count workloads from --seed (schemas, sessions, statements with unsafe constructs at "
        "tunable rates), run --interleavings of each on the simulated master and slave, compare every run in one "
        "Spark job and judge it. A finding (a divergence no server-given reason explains) is shrunk to a minimal "
        "scenario, written to OUT/findings/ as a scenario file and a mysqltest file. Writes OUT/report.json. "
        "Exit 0 when clean, 1 on findings or simulator errors, 2 on usage errors.",
    )
    fuzz.add_argument("--count", type=int, default=100, metavar="N", help="workloads to generate (default %(default)s)")
    fuzz.add_argument("--seed", type=int, default=0, help="generator seed: --seed and a workload's index identify it (default %(default)s)")
    fuzz.add_argument("--interleavings", type=int, default=1, metavar="N", help="interleavings per workload: all (distinct up to reordering of steps on disjoint tables) when there are at most N, else a seeded sample of N (default %(default)s)")
    fuzz.add_argument("--variants", choices=VARIANT_MODES, default="one", help="one variant per workload (formats in turn, seeded row image), every format, or all format and row-image pairs (default %(default)s)")
    fuzz.add_argument("--tables", type=_range, default=None, metavar="MIN[-MAX]", help="tables per workload, 1-4 (default 2-3)")
    fuzz.add_argument("--sessions", type=_range, default=None, metavar="MIN[-MAX]", help="sessions per workload, 1-4 (default 2)")
    fuzz.add_argument("--statements", type=int, default=None, metavar="N", help="statements per workload over all sessions (default 20)")
    fuzz.add_argument("--rate", action="append", default=[], metavar="NAME=P", help="a generator rate, e.g. unsafe_limit_rate=0.2 or slave_schema_rate=0 (repeatable)")
    fuzz.add_argument("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    fuzz.add_argument("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")
    fuzz.add_argument("--spark-master", default=None, metavar="URL", help="Spark master URL for the comparison (default: embedded local[*])")
    fuzz.add_argument("--workers", type=int, default=None, metavar="N", help="worker processes (default: one per core)")
    fuzz.add_argument("--shrink-limit", type=int, default=10, metavar="N", help="findings to shrink, each kind in turn (default %(default)s)")
    fuzz.add_argument("--shrink-budget", type=int, default=300, metavar="RUNS", help="candidate runs per shrink (default %(default)s)")
    fuzz.add_argument("--keep-binlogs", action="store_true", help="keep the binlogs of consistent runs too")

    record = commands.add_parser(
        "record-oracle",
        help="run scenarios on a real server and store its results in each suite's expected/ directory",
        description="Start a MariaDB master and replica, run every variant of every scenario under PATH on them, and "
        "write each run's observation to expected/<run>.json next to its scenario file.",
    )
    record.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    record.add_argument("--oracle", choices=sorted(ORACLES), default="mariadb")
    record.add_argument("--out", type=Path, default=Path("rplharness-out"), help="work directory (default %(default)s)")
    record.add_argument("--spark-master", default=None, metavar="URL")
    record.add_argument("--step-timeout", type=float, default=0.5, metavar="SECONDS")

    check = commands.add_parser(
        "check-fidelity",
        help="compare the simulator with recorded real-server results, without a server",
        description="Run every variant of every scenario under PATH in the simulator and compare it with the real "
        "server's recorded observation in expected/. Exit 0 when every disagreement is a known difference "
        "(expected/known-differences.yaml), 1 otherwise, 2 on input errors.",
    )
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    check.add_argument("--oracle", choices=sorted(ORACLES), default="mariadb")
    check.add_argument("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")
    check.add_argument("--spark-master", default=None, metavar="URL")
    check.add_argument("--seed", type=int, default=0)

    replay = commands.add_parser(
        "replay",
        help="apply a binlog to a slave database kept in a DuckDB file, resuming where the last run stopped",
        description="Apply BINLOG (as `rplharness run` writes it) to the slave database in --db. Each binlog "
        "transaction commits together with the position after it, so a run that is killed resumes, when run "
        "again, exactly after the last transaction it applied. A new database is first provisioned with "
        "--slave-schema and starts at --start-position. Exit 0 when the whole binlog is applied, 1 when the "
        "slave stops on an error, 2 on usage or input errors.",
    )
    replay.add_argument("binlog", type=Path, metavar="BINLOG")
    replay.add_argument("--db", type=Path, required=True, metavar="FILE", help="the slave's DuckDB database file (created when missing)")
    replay.add_argument("--slave-schema", type=Path, default=None, metavar="FILE", help="for a new database: SQL statements (;-separated) that create the slave's own tables and data first")
    replay.add_argument("--start-position", type=int, default=0, metavar="POS", help="for a new database: the binlog position its provisioned data corresponds to (default: the start)")
    replay.add_argument("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    _add_settings_option(
        replay,
        "a slave variable such as slave_exec_mode=IDEMPOTENT, slave_type_conversions=ALL_NON_LOSSY, "
        "slave_rows_search_algorithms=INDEX_SCAN,HASH_SCAN or slave_transaction_retries=10 (repeatable)",
    )
    replay.add_argument("--seed", type=int, default=0, help="seed of the simulated slave (default %(default)s)")

    explain = commands.add_parser(
        "explain",
        help="show how the master logs one statement: tables, unsafe reasons, format or error, caches",
        description="Run SQL on a fresh simulated master and show the tables it reads and writes with their engines, "
        "its unsafe reasons, the logging decision (format, or the error that stops it), the caches its events go "
        "to and when they reach the binlog, and its notes. Exit 0, or 2 on usage or input errors.",
    )
    explain.add_argument("sql", metavar="SQL", help="one DML, SELECT or DDL statement")
    explain.add_argument("--schema", type=Path, metavar="FILE", help="file of ;-separated statements (CREATE TABLE ...) run first, in a session of their own")
    _add_settings_option(explain, "session variable for SQL's session, e.g. binlog_format=STATEMENT (repeatable)")
    explain.add_argument(
        "--before",
        action="append",
        default=[],
        metavar="STMT",
        help="statement run first in SQL's session, in order, e.g. --before BEGIN --before \"INSERT ...\" (repeatable)",
    )
    explain.add_argument("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    explain.add_argument("--json", action="store_true", help="print the explanation as JSON")

    binlog = commands.add_parser("binlog", help="binlog file tools")
    binlog_commands = binlog.add_subparsers(dest="binlog_command", required=True)
    show_parser = binlog_commands.add_parser("show", help="print a binlog the way mysqlbinlog -vv does")
    show_parser.add_argument("file", type=Path, metavar="FILE")
    show_parser.add_argument(
        "--base64-output",
        default="DECODE-ROWS",
        type=str.upper,
        choices=BASE64_OUTPUT,
        help="AUTO also prints the format description and each statement's row events as BINLOG '...' statements, "
        "which replay on a master (default %(default)s: rows only decoded)",
    )
    return parser


def _add_settings_option(parser: argparse.ArgumentParser, help: str) -> None:
    """`--set VAR=VALUE`, repeatable, read by _settings()."""
    parser.add_argument("--set", action="append", default=[], dest="settings", metavar="VAR=VALUE", help=help)


class _Spark:
    """Starts Spark only when there is something to compare; a session the caller already
    had (an embedding program, the test suite) is reused and left running."""

    def __init__(self, master: str | None) -> None:
        self.master = master
        self.started: list[object] = []

    def __call__(self) -> object:
        from pyspark.sql import SparkSession

        from harness.spark import start_spark

        existing = SparkSession.getActiveSession()
        session = start_spark(self.master)
        if existing is None:
            self.started.append(session)
        return session

    def stop(self) -> None:
        from harness.spark import stop_spark

        for session in self.started:
            stop_spark(session)


def _run(arguments: argparse.Namespace) -> int:
    from harness.report import summary_table, write_reports
    from harness.suite import run_suite

    spark = _Spark(arguments.spark_master)
    try:
        if arguments.oracle:
            return _run_with_oracle(arguments, spark)
        flavor = get_flavor(arguments.flavor)
        result = run_suite(arguments.paths, flavor, arguments.out, spark, arguments.seed)
    finally:
        spark.stop()
    paths = write_reports(result, flavor.name, arguments.out)
    print(summary_table(result))
    _print_paths(paths)
    return result.exit_code


def _run_with_oracle(arguments: argparse.Namespace, spark: _Spark) -> int:
    from harness.oracle.mariadb import ServerError
    from harness.oracle.suite import run_with_oracle
    from harness.report import write_reports

    try:
        result = run_with_oracle(arguments.paths, arguments.oracle, arguments.out, spark, arguments.seed, step_timeout=arguments.step_timeout)
    except ServerError as error:
        print(f"rplharness: {arguments.oracle}: {error}", file=sys.stderr)
        return EXIT_USAGE
    paths = write_reports(result.simulator, ORACLES[arguments.oracle].name, arguments.out, result.fidelity)
    print(side_by_side(result))
    print(result.fidelity.summary())
    _print_paths(paths)
    return result.exit_code


def _print_paths(paths: dict[str, Path]) -> None:
    """`report: OUT/report.json`, `junit: OUT/junit.xml`, `html: OUT/report.html`."""
    for kind, path in paths.items():
        print(f"{kind}: {path}")


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


def _range(text: str) -> tuple[int, int]:
    """`2` or `2-3` as (min, max)."""
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or MIN-MAX, got {text!r}") from None


def _fuzz(arguments: argparse.Namespace) -> int:
    from dataclasses import replace

    from harness.fuzz import FuzzConfig, fuzz
    from harness.prestart import Prestart
    from harness.progress import Progress
    from harness.report import fuzz_report_json, write_documents
    from scenarios.generator import GeneratorConfig

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
    spark = _Spark(arguments.spark_master)
    early = Prestart(spark)  # started while the workers run
    progress = Progress(config.count, unit="workloads")
    try:
        result = fuzz(config, flavor, arguments.out, early, arguments.workers, progress)
    finally:
        progress.close()
        early.wait()
        spark.stop()
    paths = write_documents(fuzz_report_json(result, flavor.name, config), arguments.out)
    print(fuzz_summary(result))
    _print_paths(paths)
    return result.exit_code


def _rates(pairs: list[str]) -> dict[str, float]:
    """`--rate NAME=P` options; ValueError names an unknown rate or a bad number."""
    from scenarios.generator import GeneratorConfig

    known = sorted(name for name in GeneratorConfig.__dataclass_fields__ if name.endswith("_rate"))
    rates = {}
    for name, value in _settings(pairs).items():
        if name not in known:
            raise ValueError(f"--rate {name}: unknown rate; rates are {', '.join(known)}")
        rates[name] = float(value)
    return rates


def fuzz_summary(result: FuzzResult) -> str:
    """Verdict counts, what was explored, and each finding with its shrunk files."""
    verdicts = Counter(run.judgement.verdict.value for run in result.suite.runs)
    exploration = result.exploration
    lines = [
        f"{exploration.workloads} workloads, {exploration.interleavings} interleavings, {exploration.runs} runs: "
        + ", ".join(f"{verdicts.get(verdict.value, 0)} {verdict.value}" for verdict in Verdict),
        f"distinct binlogs: {exploration.distinct_binlogs}, distinct master end states: {exploration.distinct_master_states}",
    ]
    for outcome in result.suite.runs:
        if outcome.judgement.verdict in (Verdict.ERROR, Verdict.UNSUPPORTED):
            lines.append(f"{outcome.judgement.verdict.value.upper():<8} {outcome.record.run_id}: {outcome.judgement.explanation[0]}")
    for group in result.groups:
        example = group.example
        runs = "run" if len(group.findings) == 1 else "runs"
        formats = "/".join(sorted({finding.outcome.record.variant.get("binlog_format", "") for finding in group.findings}))
        lines.append(f"FINDING  {group.signature.title}: {len(group.findings)} {runs} under {formats}, e.g. {example.outcome.record.run_id}")
        lines.append(f"         {example.kind}")
        statement = example.statement
        if statement is not None:
            lines.append(f"         caused by step {statement.index} ({statement.session}): {statement.sql}")
        if example.shrunk is not None:
            shrunk = example.shrunk
            lines.append(f"         shrunk to {len(shrunk.scenario.steps)} steps: {shrunk.yaml} and {shrunk.test}")
    return "\n".join(lines)


def _record(arguments: argparse.Namespace) -> int:
    from harness.oracle.mariadb import ServerError
    from harness.oracle.suite import record_oracle

    spark = _Spark(arguments.spark_master)
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


def _check(arguments: argparse.Namespace) -> int:
    from harness.oracle.suite import check_fidelity
    from harness.report import write_reports

    spark = _Spark(arguments.spark_master)
    try:
        result = check_fidelity(arguments.paths, arguments.oracle, arguments.out, spark, arguments.seed)
    finally:
        spark.stop()
    paths = write_reports(result.simulator, ORACLES[arguments.oracle].name, arguments.out, result.fidelity)
    for error in result.simulator.input_errors:
        print(f"INPUT ERROR  {error}")
    print(result.fidelity.summary())
    _print_paths(paths)
    return result.exit_code


def _explain(arguments: argparse.Namespace) -> int:
    from master_sim.explain import ExplainError, explain
    from server_sim.errors import SqlError
    from server_sim.parser import split_statements

    try:
        settings = _settings(arguments.settings)
    except ValueError as error:
        print(f"rplharness: {error}", file=sys.stderr)
        return EXIT_USAGE
    schema: list[str] = []
    if arguments.schema is not None:
        try:
            schema = split_statements(arguments.schema.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            print(f"rplharness: --schema {arguments.schema}: {error}", file=sys.stderr)
            return EXIT_USAGE
        except SqlError as error:
            print(f"rplharness: --schema {arguments.schema}: {error}", file=sys.stderr)
            return EXIT_USAGE
    try:
        explanation = explain(arguments.sql, get_flavor(arguments.flavor), schema, settings, arguments.before)
    except ExplainError as error:
        print(f"rplharness: explain: {error}", file=sys.stderr)
        return EXIT_USAGE
    if arguments.json:
        print(json.dumps(explanation.as_dict(), indent=2))
    else:
        sys.stdout.write(explanation.render())
    return 0


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
        sys.stdout.write(show(events, arguments.base64_output))
        print(f"rplharness: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(show(events, arguments.base64_output))
    return 0


def _settings(pairs: list[str]) -> dict[str, str]:
    """`--set VAR=VALUE` options as a dict; ValueError names the malformed one."""
    settings: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"--set {pair!r}: expected VAR=VALUE")
        settings[name.strip()] = value.strip()
    return settings


def _replay(arguments: argparse.Namespace) -> int:
    from server_sim.errors import SqlError
    from slave_sim.replay import replay
    from slave_sim.slave import SlaveConfigurationError

    binlog: Path = arguments.binlog
    if not binlog.is_file():
        print(f"rplharness: {binlog}: no such file", file=sys.stderr)
        return EXIT_USAGE
    try:
        settings = _settings(arguments.settings)
        schema = arguments.slave_schema.read_text() if arguments.slave_schema else None
        result = replay(binlog, arguments.db, get_flavor(arguments.flavor), settings, schema, arguments.start_position, arguments.seed)
    except (ValueError, OSError, SlaveConfigurationError) as error:
        print(f"rplharness: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SqlError as error:
        print(f"rplharness: {arguments.slave_schema or 'settings'}: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    for sql, condition in result.schema_errors:
        print(f"rplharness: {arguments.slave_schema}: {sql.strip()!r}: error {condition.code}: {condition.message}", file=sys.stderr)
    if result.schema_errors:
        print(f"rplharness: {arguments.db}: not provisioned (nothing was written)", file=sys.stderr)
        return EXIT_USAGE
    status = result.status
    start = f"resumed at position {result.resumed_from}" if result.resumed_from is not None else "new database"
    print(f"{arguments.db}: {start}; applied {status.events_applied} events; position {status.applied_position}")
    for retry in status.retries:
        print(f"retry {retry.attempt} of the transaction at {retry.position} after {retry.wait_seconds:.2f} s: error {retry.code}: {retry.message}")
    for warning in status.warnings:
        print(f"warning: {warning}")
    if not status.running:
        error = status.error
        print(f"slave stopped at position {status.error_position} ({status.error_event}): error {error.code} ({error.name}): {error.message}")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    commands = {"run": _run, "fuzz": _fuzz, "record-oracle": _record, "check-fidelity": _check, "explain": _explain, "replay": _replay, "binlog": _show}
    return commands[arguments.command](arguments)


if __name__ == "__main__":
    sys.exit(main())
