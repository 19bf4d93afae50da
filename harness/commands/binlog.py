"""`rplharness binlog show`: a binlog printed as mysqlbinlog prints one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from server_sim.binlog.file import BinlogCorruptError, BinlogReader
from server_sim.binlog.show import json_view
from server_sim.binlog.show import show as show_events

from .common import EXIT_USAGE


def show(arguments: argparse.Namespace) -> int:
    path: Path = arguments.file
    if not path.is_file():
        print(f"rplharness: {path}: no such file", file=sys.stderr)
        return EXIT_USAGE
    events = []
    data = b""
    failure = None
    stop = arguments.stop_position
    try:
        with BinlogReader(path) as reader:
            data = reader.data
            if arguments.start_position > reader.description.position:
                events.append(reader.description)
            for event in reader.events(arguments.start_position):
                if stop is not None and event.position >= stop:
                    break
                events.append(event)
    except BinlogCorruptError as error:
        failure = error
    if arguments.format == "json":
        sys.stdout.write(json_view(events))
    else:
        sys.stdout.write(show_events(events, arguments.base64_output, arguments.verbosity, data, framed=True))
    if failure is not None:
        print(f"rplharness: {failure}", file=sys.stderr)
        return 1
    return 0
