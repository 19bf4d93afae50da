"""`rplharness replay`: a binlog applied to a slave kept in a DuckDB file, resumable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from server_sim.flavor import get_flavor

from .common import EXIT_USAGE, settings


def replay(arguments: argparse.Namespace) -> int:
    from harness.console import replay_status
    from server_sim.errors import SqlError
    from slave_sim.replay import replay
    from slave_sim.status import SlaveConfigurationError

    binlog: Path = arguments.binlog
    if not binlog.is_file():
        print(f"rplharness: {binlog}: no such file", file=sys.stderr)
        return EXIT_USAGE
    try:
        variables = settings(arguments.settings)
        schema = arguments.slave_schema.read_text() if arguments.slave_schema else None
        result = replay(binlog, arguments.db, get_flavor(arguments.flavor), variables, schema, arguments.start_position, arguments.seed)
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
    print(replay_status(arguments.db, result))
    return 0 if result.status.running else 1
