"""`rplharness binlog show`: a binlog printed as mysqlbinlog prints one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from server_sim.binlog.file import BinlogCorruptError, read_binlog
from server_sim.binlog.show import show as show_events

from .common import EXIT_USAGE


def show(arguments: argparse.Namespace) -> int:
    path: Path = arguments.file
    if not path.is_file():
        print(f"rplharness: {path}: no such file", file=sys.stderr)
        return EXIT_USAGE
    events = []
    try:
        for event in read_binlog(path):
            events.append(event)
    except BinlogCorruptError as error:
        sys.stdout.write(show_events(events, arguments.base64_output, arguments.verbosity))
        print(f"rplharness: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(show_events(events, arguments.base64_output, arguments.verbosity))
    return 0
