"""`rplharness replay`: a binlog applied to a slave kept in a DuckDB file, resumable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from server_sim.flavor import Flavor, get_flavor

from .common import EXIT_USAGE, settings

if TYPE_CHECKING:
    from harness.dump import Dump


def replay(arguments: argparse.Namespace) -> int:
    from harness.console import replay_status
    from server_sim.errors import SqlError
    from slave_sim.replay import replay
    from slave_sim.status import SlaveConfigurationError

    try:
        binlogs = _binlog_files(arguments.binlog)
    except OSError as error:
        print(f"rplharness: {error}", file=sys.stderr)
        return EXIT_USAGE
    missing = next((path for path in binlogs if not path.is_file()), None)
    if missing is not None or not binlogs:
        print(f"rplharness: {missing or arguments.binlog[0]}: no such file", file=sys.stderr)
        return EXIT_USAGE
    flavor = get_flavor(arguments.flavor)
    try:
        variables = settings(arguments.settings)
        dump = _read_dump(arguments, flavor)
        start = _start_position(arguments, dump, binlogs[0])
        schema = ";\n".join(statement.sql for statement in dump.statements) if dump is not None else None
        result = replay(binlogs, arguments.db, flavor, variables, schema, start, arguments.seed)
    except (ValueError, OSError, SlaveConfigurationError) as error:
        print(f"rplharness: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SqlError as error:
        print(f"rplharness: {arguments.slave_schema or 'settings'}: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    lines = {statement.sql: statement.line for statement in dump.statements} if dump is not None else {}
    for sql, condition in result.schema_errors:
        line = lines.get(sql.strip())
        where = f"line {line}: " if line is not None else ""
        print(f"rplharness: {arguments.slave_schema}: {where}{sql.strip()!r}: error {condition.code}: {condition.message}", file=sys.stderr)
    if result.schema_errors:
        print(f"rplharness: {arguments.db}: not provisioned (nothing was written)", file=sys.stderr)
        return EXIT_USAGE
    print(replay_status(arguments.db, result))
    return 0 if result.status.running else 1


def _binlog_files(given: list[Path]) -> list[Path]:
    """The binlog files in order: as given, or those a server's index file lists (one
    name a line, relative to the index's directory, as master-bin.index holds them)."""
    if len(given) == 1 and given[0].suffix == ".index":
        names = [line.strip() for line in given[0].read_text().splitlines() if line.strip()]
        return [given[0].parent / Path(name).name for name in names]
    return list(given)


def _read_dump(arguments: argparse.Namespace, flavor: Flavor) -> Dump | None:
    """--slave-schema read as a dump (plain statements are one too); a DumpError becomes a
    ValueError naming the file and line. Without the option nothing is imported."""
    if arguments.slave_schema is None:
        return None
    from harness.dump import DumpError, read_dump

    try:
        return read_dump(arguments.slave_schema.read_text(), flavor)
    except DumpError as error:
        raise ValueError(f"{arguments.slave_schema}: {error}") from None


def _start_position(arguments: argparse.Namespace, dump: Dump | None, first: Path) -> int:
    """--start-position, or with --start-at-dump-position the position the dump records
    (in `first`, the first binlog file)."""
    if not arguments.start_at_dump_position:
        return int(arguments.start_position)
    if arguments.start_position:
        raise ValueError("--start-position and --start-at-dump-position exclude each other")
    if dump is None or dump.position is None:
        raise ValueError(f"{arguments.slave_schema or 'no --slave-schema'}: no CHANGE MASTER TO position in it (mysqldump --master-data=2 writes one)")
    position = dump.position
    if position.log_file != first.name:
        raise ValueError(f"{arguments.slave_schema}: line {position.line}: the position is in {position.log_file}, not {first.name}")
    return int(position.position)
