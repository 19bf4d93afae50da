"""The `rplharness` command line: the options of every command; each command's handler
lives in `harness.commands`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.commands import binlog, check_result, check_workload, explain, fuzz, import_, oracle, replay, run
from harness.commands.common import EXIT_USAGE, SPARK_LOG, add_settings_option, out_problem, spark_hint, spark_unavailable
from harness.compare import COMPARE_MODES
from harness.fuzz import VARIANT_MODES
from harness.importers.binlog import ROWS_AS
from harness.oracle.suite import ORACLES
from harness.suite import EXECUTORS
from harness.spark import SparkUnavailable
from harness.version import version
from harness.workload_check import ROW_IMAGES
from scenarios.model import BINLOG_FORMATS
from server_sim.binlog.show import BASE64_OUTPUT
from server_sim.flavor import DEFAULT_FLAVOR, FLAVORS

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rplharness",
        description="Replay scenarios on a simulated MySQL master and slave and check that replication keeps them consistent.",
    )
    parser.add_argument("--version", action="version", version=f"rplharness {version()}", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    for add in (_add_run, _add_fuzz, _add_record, _add_check, _add_replay, _add_explain, _add_binlog, _add_import, _add_check_workload, _add_check_result):
        add(commands)
    return parser


RUN_EXIT_CODES = """\
exit codes:
  0  every run is consistent or as its expect entries say, and every statement
     ended as declared
  1  a check failed (an expect entry, or a statement's error), or a run is
     divergent, slave_stopped, a finding or unsupported with no expect entry
     allowing it, or the simulator failed on a run
  2  usage or input errors (a malformed scenario, an unknown variable, an
     expectation no run can match), or no scenario found under PATH
"""


def _add_run(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run_parser = commands.add_parser(
        "run",
        help="run scenario files or suites under every binlog format and compare master and slave",
        description="Run every variant of every scenario under PATH (files or directories), compare master and "
        "slave tables (with Spark, or in-process with --compare python), print a verdict per run and write OUT/report.json, OUT/junit.xml and "
        "OUT/report.html. A statement's error must be declared (a step's `error:`, mysqltest's --error) or checked "
        "by an expect entry; SQL the simulator cannot parse or does not model makes the run unsupported.",
        epilog=RUN_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run_parser.set_defaults(handler=run.run)
    run_parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="scenario YAML files or directories of them")
    run_parser.add_argument("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    run_parser.add_argument("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")
    _add_comparison_options(run_parser)
    run_parser.add_argument("--seed", type=int, default=0, help="base seed of the simulated servers (default %(default)s)")
    run_parser.add_argument(
        "--oracle",
        choices=sorted(ORACLES),
        default=None,
        help="also run every variant on a real master and replica the harness starts (flavor mariadb-10.11), "
        "and report where the simulator and the server disagree",
    )
    run_parser.add_argument("--step-timeout", type=float, default=0.5, metavar="SECONDS", help="with --oracle: a step not done by then is recorded as blocked (default %(default)s)")
    _add_master_option(run_parser)
    _add_executor_option(run_parser)


def _add_fuzz(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fuzz_parser = commands.add_parser(
        "fuzz",
        help="generate workloads, run their interleavings under the binlog formats, judge every run, shrink the findings",
        description="Generate --count workloads from --seed (schemas, sessions, statements with unsafe constructs at "
        "tunable rates), run --interleavings of each on the simulated master and slave, compare every run in one "
        "Spark job and judge it. A finding (a divergence no server-given reason explains) is shrunk to a minimal "
        "scenario, written to OUT/findings/ as a scenario file and a mysqltest file. Writes OUT/report.json. "
        "Findings are grouped by signature and reported once per group. "
        "Exit 0 when clean, 1 on findings, unsupported statements or simulator errors, 2 on usage errors.",
    )
    fuzz_parser.set_defaults(handler=fuzz.fuzz)
    add = fuzz_parser.add_argument
    add("--count", type=int, default=100, metavar="N", help="workloads to generate (default %(default)s)")
    add("--seed", type=int, default=0, help="generator seed: --seed and a workload's index identify it (default %(default)s)")
    add("--interleavings", type=int, default=1, metavar="N", help="interleavings per workload: all (distinct up to reordering of steps on disjoint tables) when there are at most N, else a seeded sample of N (default %(default)s)")
    add("--variants", choices=VARIANT_MODES, default="one", help="one variant per workload (formats in turn, seeded row image), every format, or all format and row-image pairs (default %(default)s)")
    add("--tables", type=fuzz.parse_range, default=None, metavar="MIN[-MAX]", help="tables per workload, 1-4 (default 2-3)")
    add("--sessions", type=fuzz.parse_range, default=None, metavar="MIN[-MAX]", help="sessions per workload, 1-4 (default 2)")
    add("--statements", type=int, default=None, metavar="N", help="statements per workload over all sessions (default 20)")
    add("--rate", action="append", default=[], metavar="NAME=P", help="a generator rate, e.g. unsafe_limit_rate=0.2 or slave_schema_rate=0 (repeatable)")
    add("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    add("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")
    _add_comparison_options(fuzz_parser)
    _add_executor_option(fuzz_parser)
    add("--workers", type=int, default=None, metavar="N", help="worker processes (default: one per core)")
    add("--shrink-limit", type=int, default=10, metavar="N", help="findings to shrink, each kind in turn (default %(default)s)")
    add("--shrink-budget", type=int, default=300, metavar="RUNS", help="candidate runs per shrink (default %(default)s)")
    add("--keep-binlogs", action="store_true", help="keep the binlogs of consistent runs too")
    add(
        "--from",
        dest="from_scenario",
        type=Path,
        default=None,
        metavar="SCENARIO",
        help="instead of generating workloads, run SCENARIO's own sessions in --interleavings other orders (the "
        "captured one first) under every binlog format (--variants all: and row image), and report the statement "
        "shapes that make the tables differ, and whether they do only under other orders; writes OUT/interleavings.json",
    )


def _add_record(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    record = commands.add_parser(
        "record-oracle",
        help="run scenarios on a real server and store its results in each suite's expected/ directory",
        description="Start a MariaDB master and replica, run every variant of every scenario under PATH on them, and "
        "write each run's observation to expected/<run>.json next to its scenario file.",
    )
    record.set_defaults(handler=oracle.record)
    record.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    record.add_argument("--oracle", choices=sorted(ORACLES), default="mariadb")
    record.add_argument("--out", type=Path, default=Path("rplharness-out"), help="work directory (default %(default)s)")
    _add_comparison_options(record)
    record.add_argument("--step-timeout", type=float, default=0.5, metavar="SECONDS", help="a step not done by then is recorded as blocked (default %(default)s)")
    _add_master_option(record)


def _add_master_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--oracle-master-option", action="append", default=[], metavar="OPTION",
        help="a mariadbd option for the real master, e.g. --oracle-master-option=--log-bin-compress=ON or "
        "--oracle-master-option=--binlog-checksum=NONE: its binlogs, kept in OUT/binlogs/<run>@oracle/, are then of that kind (repeatable)",
    )


def _add_check(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "check-fidelity",
        help="compare the simulator with recorded real-server results, without a server",
        description="Run every variant of every scenario under PATH in the simulator and compare it with the real "
        "server's recorded observation in expected/. Exit 0 when every disagreement is a known difference "
        "(expected/known-differences.yaml), 1 otherwise, 2 on input errors.",
    )
    check.set_defaults(handler=oracle.check)
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    check.add_argument("--oracle", choices=sorted(ORACLES), default="mariadb")
    check.add_argument("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")
    _add_comparison_options(check)
    check.add_argument("--seed", type=int, default=0, help="base seed of the simulated servers (default %(default)s)")


def _add_replay(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    replay_parser = commands.add_parser(
        "replay",
        help="apply a binlog to a slave database kept in a DuckDB file, resuming where the last run stopped",
        description="Apply BINLOG (as `rplharness run` or a real server writes it) to the slave database in --db. "
        "Given several files, or a server's binlog index file (master-bin.index), the slave follows each file's "
        "closing Rotate event to the next file, as a replica does. Each binlog "
        "transaction commits together with the position after it, so a run that is killed resumes, when run "
        "again, exactly after the last transaction it applied. A new database is first provisioned with "
        "--slave-schema and starts at --start-position. Exit 0 when the whole binlog is applied, 1 when the "
        "slave stops on an error, 2 on usage or input errors.",
    )
    replay_parser.set_defaults(handler=replay.replay)
    add = replay_parser.add_argument
    add("binlog", type=Path, nargs="+", metavar="BINLOG")
    add("--db", type=Path, required=True, metavar="FILE", help="the slave's DuckDB database file (created when missing)")
    add(
        "--slave-schema", type=Path, default=None, metavar="FILE",
        help="for a new database: SQL statements (;-separated) that create the slave's own tables and data first, "
        "or a mysqldump / mariadb-dump file",
    )
    add("--start-position", type=int, default=0, metavar="POS", help="for a new database: the binlog position its provisioned data corresponds to (default: the start)")
    add(
        "--start-at-dump-position", action="store_true",
        help="for a new database: start at the position the --slave-schema dump records (its CHANGE MASTER TO "
        "comment, mysqldump --master-data=2); the dump's binlog file name must be BINLOG's",
    )
    add("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    add_settings_option(
        replay_parser,
        "a slave variable such as slave_exec_mode=IDEMPOTENT, slave_type_conversions=ALL_NON_LOSSY, "
        "slave_rows_search_algorithms=INDEX_SCAN,HASH_SCAN or slave_transaction_retries=10 (repeatable)",
    )
    add("--seed", type=int, default=0, help="seed of the simulated slave (default %(default)s)")


def _add_explain(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain_parser = commands.add_parser(
        "explain",
        help="show how the master logs one statement: tables, unsafe reasons, format or error, caches",
        description="Run SQL on a fresh simulated master and show the tables it reads and writes with their engines, "
        "its unsafe reasons, the logging decision (format, or the error that stops it), the caches its events go "
        "to and when they reach the binlog, and its notes. Exit 0, or 2 on usage or input errors.",
    )
    explain_parser.set_defaults(handler=explain.explain)
    add = explain_parser.add_argument
    add("sql", metavar="SQL", help="one DML, SELECT or DDL statement")
    add("--schema", type=Path, metavar="FILE", help="file of ;-separated statements (CREATE TABLE ...) run first, in a session of their own")
    add_settings_option(explain_parser, "session variable for SQL's session, e.g. binlog_format=STATEMENT (repeatable)")
    add(
        "--before",
        action="append",
        default=[],
        metavar="STMT",
        help="statement run first in SQL's session, in order, e.g. --before BEGIN --before \"INSERT ...\" (repeatable)",
    )
    add("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    add("--json", action="store_true", help="print the explanation as JSON")


def _add_binlog(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    binlog_parser = commands.add_parser("binlog", help="binlog file tools")
    binlog_commands = binlog_parser.add_subparsers(dest="binlog_command", required=True)
    show_parser = binlog_commands.add_parser(
        "show",
        help="print a binlog the way mysqlbinlog does (-v, -vv: row events decoded)",
        description="Print FILE as mysqlbinlog prints a binlog: each event's position and header, statements, "
        "and with -v the rows of row events as ### INSERT/UPDATE/DELETE pseudo-SQL, with -vv also each "
        "value's column type and the statement behind the rows (Rows_query).",
    )
    show_parser.set_defaults(handler=binlog.show)
    show_parser.add_argument("file", type=Path, metavar="FILE")
    show_parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        dest="verbosity",
        help="-v: decode row events' rows as ### pseudo-SQL; -vv: with column types and Rows_query events, as mysqlbinlog -vv",
    )
    show_parser.add_argument(
        "--base64-output",
        default="AUTO",
        type=str.upper,
        choices=BASE64_OUTPUT,
        help="AUTO (the default, as mysqlbinlog's) also prints the format description and each statement's row events "
        "as BINLOG '...' statements, which replay on a master; DECODE-ROWS leaves them out",
    )
    show_parser.add_argument(
        "--start-position",
        type=int,
        default=4,
        metavar="N",
        help="start at the event at byte N (the format description is read and printed first, as mysqlbinlog does)",
    )
    show_parser.add_argument("--stop-position", type=int, default=None, metavar="N", help="stop before the first event at or after byte N")
    show_parser.add_argument(
        "--format",
        default="text",
        choices=("text", "json"),
        help="json: each event as one JSON object a line (position, header and fields), read from the binary file",
    )


def _add_import(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import_parser = commands.add_parser(
        "import",
        help="turn a captured workload (general or slow query log, mysqltest file, binary binlog) into scenario files",
        description="Read each FILE as KIND and write it to DIR as a scenario file (or several, with --max-steps): "
        "one session per connection, steps in the order the statements ran, the schema from the capture's own "
        "DDL or from --schema. Prints what was kept, dropped, skipped (with file and line) and where the order "
        "is a guess; the file's header comment says the same. Exit 0, or 2 when a FILE could not be imported "
        "(the others are still written).",
    )
    import_parser.set_defaults(handler=import_.import_workload)
    add = import_parser.add_argument
    add("kind", choices=sorted(import_.IMPORTERS), metavar="KIND", help="general, slow, mysqltest or binlog")
    add("files", nargs="+", type=Path, metavar="FILE")
    add("-o", "--out", type=Path, required=True, metavar="DIR", help="directory the scenario files are written to")
    add("--schema", type=Path, default=None, metavar="FILE", help="the master's schema: DDL, or mysqldump --no-data output (instead of the capture's leading DDL)")
    add("--slave-schema", type=Path, default=None, metavar="FILE", help="the replica's own schema (ALTERs, or a dump of the replica), run on the slave after the master's")
    add("--keep-reads", action="store_true", help="keep statements that cannot matter for replication (plain SELECT, SHOW, SET NAMES) as steps")
    add("--max-steps", type=int, default=None, metavar="N", help="split a long capture into scenarios of at most N steps, cut where no transaction is open")
    add("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server whose executable comments a schema file is read as (default %(default)s)")
    add(
        "--rows-as", default=ROWS_AS[0], choices=ROWS_AS,
        help="binlog: a row event becomes the statement the server annotated it with, where there is one (statement), "
        "or always the row changes it carries (changes) (default %(default)s)",
    )


def _add_check_workload(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "check-workload",
        help="run one workload under every binlog format and row image and report per statement shape",
        description="Run SCENARIO (an imported workload, or any scenario) under each --formats value and, where rows "
        "are logged, each --row-images value, compare master and slave in this process, and report per statement "
        "shape (a query digest) whether it is unsafe and why, what it was logged as, its errors, and under which "
        "runs the tables first differed after it; per run, the first step after which a table differs. Writes "
        "OUT/check-workload.json. Exit 0 when every run is consistent, 1 otherwise, 2 on input errors.",
    )
    check.set_defaults(handler=check_workload.check)
    add = check.add_argument
    add("scenario", type=Path, metavar="SCENARIO")
    add("--formats", type=_upper_list, default=list(BINLOG_FORMATS), metavar="F,F", help="binlog formats to run under (default %(default)s)")
    add("--row-images", type=_upper_list, default=list(ROW_IMAGES), metavar="I,I", help="row images under MIXED and ROW (default %(default)s)")
    add("--slave-schema", type=Path, default=None, metavar="FILE", help="the replica's own schema instead of the scenario's (ALTERs, or a dump of the replica)")
    add("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server being modelled (default %(default)s)")
    add("--out", type=Path, default=Path("rplharness-out"), help="output directory (default %(default)s)")


def _add_check_result(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "check-result",
        help="run a mysqltest file in the simulator and judge it against the server's recorded .result",
        description="Import TEST as `import mysqltest` does, run it once (the first variant of its matrix), and judge "
        "each statement the .result shows: its outcome (the recorded error message, or success), its Warnings block "
        "(notes 1592 with their reasons), and each SHOW BINLOG EVENTS table after it against the simulator's binlog. "
        "Prints the agreement per kind and the disagreements. Exit 0 when all agree, 1 otherwise, 2 on input errors.",
    )
    check.set_defaults(handler=check_result.check_result)
    add = check.add_argument
    add("test", type=Path, metavar="TEST")
    add("--result", type=Path, default=None, metavar="FILE", help="the recorded result (default: suite/r/NAME.result beside suite/t/NAME.test, or NAME.result)")
    add("--flavor", default=DEFAULT_FLAVOR.name, choices=sorted(FLAVORS), help="server the .result was recorded on (default %(default)s)")
    add("--out", type=Path, default=None, metavar="DIR", help="also write DIR/NAME.check-result.json with every judged item")


def _upper_list(text: str) -> list[str]:
    return [item.strip().upper() for item in text.split(",") if item.strip()]


def _add_comparison_options(parser: argparse.ArgumentParser) -> None:
    """--compare, --spark-master and --verbose: how a command compares master and slave."""
    _add_compare_option(parser)
    _add_spark_options(parser)
    _add_verbose_option(parser)


def _add_compare_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--compare",
        choices=COMPARE_MODES,
        default="spark",
        help="spark: every run in one Spark job (large suites; a cluster with --spark-master); python: run by run "
        "in this process, no JVM to start (a few runs, editing a scenario: seconds instead of ~10 s); with "
        "--executor spark, python compares each run in the Spark task that ran it, no second job "
        "(default %(default)s)",
    )


def _add_spark_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spark-master", default=None, metavar="URL", help="Spark master URL for the comparison (default: embedded local[*])")
    parser.add_argument(
        "--spark-driver-host",
        default=None,
        metavar="ADDR",
        help="address Spark's driver binds and gives the cluster to reach it (default 127.0.0.1: nothing listens "
        "beyond loopback; a cluster on other machines needs an address they can reach)",
    )


def _add_executor_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default=None,
        help="where the runs run: local, this machine's process pool; spark, Spark tasks on the executors of "
        "--spark-master (or of an embedded local[*]), compared there too (default: spark with --spark-master, else local)",
    )


def _executor_problem(arguments: argparse.Namespace) -> str | None:
    """Settle --executor (`--spark-master` alone means spark); what conflicts with it."""
    if not hasattr(arguments, "executor"):
        return None
    oracle = getattr(arguments, "oracle", None)
    if arguments.executor is None:
        implied = arguments.spark_master and not oracle and getattr(arguments, "from_scenario", None) is None
        arguments.executor = "spark" if implied else "local"
    if arguments.executor != "spark":
        return None
    if oracle:
        return "--executor spark runs the simulator only; --oracle runs here, beside the real server"
    if getattr(arguments, "from_scenario", None) is not None:
        return "--executor spark runs generated workloads; --from runs here"
    return None


def _add_verbose_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=f"let Spark's JVM write its log to the terminal (without it, the log goes to OUT/{SPARK_LOG})",
    )


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    arguments = parser.parse_args(argv)
    conflict = _executor_problem(arguments)
    if conflict is not None:
        parser.error(conflict)
    if getattr(arguments, "compare", None) == "python" and arguments.spark_master and getattr(arguments, "executor", "local") != "spark":
        parser.error("--spark-master is where Spark compares; --compare python compares without Spark")
    out = getattr(arguments, "out", None)
    if isinstance(out, Path) and (problem := out_problem(out)) is not None:
        print(f"rplharness: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if hasattr(arguments, "spark_master"):
        problem = spark_unavailable(arguments)
        if problem is not None:
            print(f"rplharness: {problem}{spark_hint(arguments)}", file=sys.stderr)
            return EXIT_USAGE
    try:
        return arguments.handler(arguments)
    except SparkUnavailable as error:
        print(f"rplharness: {error}{spark_hint(arguments)}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
