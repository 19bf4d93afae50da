"""The temporary directory each harness server lives in: made, marked with its owner, removed.

A server's directory (datadir, socket, logs; about 46 MB) is removed when the server
stops, which covers every way out the harness survives: an exception, Ctrl-C, and
SIGTERM, which `sigterm_as_exit` turns into an exception. A harness killed outright
(SIGKILL) cannot clean up, so each directory names its owner (PID and start time) and
the next server started on the machine removes those whose owner is gone. Directories
without a mark are left alone: they are not known to be ours.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

PREFIX = "rplh-"
OWNER_FILE = "owner"


def process_start(pid: int) -> str | None:
    """The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat),
    which tells a live owner from a later process that reuses its PID; None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the command name may hold spaces and parentheses
    return fields[19]


def owner_mark(pid: int) -> str:
    return f"{pid} {process_start(pid)}\n"


def owner_alive(mark: str) -> bool:
    parts = mark.split()
    if len(parts) != 2 or not parts[0].isdigit():
        return False
    return process_start(int(parts[0])) == parts[1]


def make_workdir(name: str, parent: Path | None = None) -> Path:
    """A new directory for server `name`, marked as this process's, after removing stale ones.
    The path is short: a Unix socket path must stay under 108 bytes."""
    remove_stale(parent)
    root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{name}-", dir=parent))
    (root / OWNER_FILE).write_text(owner_mark(os.getpid()))
    return root


def remove_stale(parent: Path | None = None) -> list[Path]:
    """Remove every marked server directory in `parent` (the temporary directory by default)
    whose owner is no longer running; returns those removed."""
    removed = []
    for directory in Path(parent or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            mark = (directory / OWNER_FILE).read_text()
        except OSError:
            continue  # no mark: another tool's directory, or one still being made
        if not owner_alive(mark):
            shutil.rmtree(directory, ignore_errors=True)
            removed.append(directory)
    return removed


@contextmanager
def sigterm_as_exit() -> Iterator[None]:
    """Within this block, SIGTERM raises SystemExit(143) in the main thread, so the `with`
    blocks that own servers stop them and remove their directories; a second SIGTERM while
    that happens is ignored. Elsewhere than the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def leave(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, leave)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
