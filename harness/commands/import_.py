"""`rplharness import KIND FILE... -o DIR`: captured workloads written as scenario files."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from harness.importers.binlog import import_binlog
from harness.importers.build import ImportedFile, build_scenarios
from harness.importers.general_log import import_general_log
from harness.importers.model import Capture, ImportFailure
from harness.importers.mysqltest import import_mysqltest
from harness.importers.schema_file import read_schema_file
from harness.importers.slow_log import import_slow_log

from .common import EXIT_USAGE

IMPORTERS: dict[str, Callable[..., Capture]] = {
    "binlog": import_binlog,
    "general": import_general_log,
    "slow": import_slow_log,
    "mysqltest": import_mysqltest,
}


def import_workload(arguments: argparse.Namespace) -> int:
    """Import every FILE; exit 0 when all were written, 2 when one could not be read
    (the others are still written)."""
    try:
        schema = read_schema_file(arguments.schema, arguments.flavor) if arguments.schema else None
        slave_schema = read_schema_file(arguments.slave_schema, arguments.flavor) if arguments.slave_schema else None
    except ImportFailure as error:
        print(f"rplharness: import: {error}", file=sys.stderr)
        return EXIT_USAGE
    failed = False
    for path in arguments.files:
        try:
            if arguments.kind == "binlog":  # its row events take their columns' names from the schema
                capture = import_binlog(path, arguments.keep_reads, schema, arguments.rows_as)
            else:
                capture = IMPORTERS[arguments.kind](path, arguments.keep_reads)
            files = build_scenarios(capture, arguments.out, path.stem, schema, slave_schema, arguments.max_steps)
        except ImportFailure as error:
            print(f"rplharness: import: {error}", file=sys.stderr)
            failed = True
            continue
        for imported in files:
            imported.write()
        _summary(path, capture, files)
    return EXIT_USAGE if failed else 0


def _summary(path: Path, capture: Capture, files: list[ImportedFile]) -> None:
    steps = sum(len(imported.scenario.steps) for imported in files)
    print(f"{path}: {steps} steps in {len(files)} scenario file(s): {', '.join(str(imported.path) for imported in files)}")
    for label, counter in (("kept", capture.kept), ("dropped", capture.dropped)):
        if counter:
            print(f"  {label}: " + ", ".join(f"{kind} {count}" for kind, count in sorted(counter.items()) if count > 0))
    for guess in capture.guesses:
        print(f"  order guessed: {guess}")
    for note in capture.notes:
        print(f"  note: {note}")
    for skipped in capture.skipped:
        print(f"  skipped: {skipped}")
