"""A class-data archive of Spark's driver JVM, so a command's Spark starts in half the time.

Starting Spark's driver means loading some ten thousand classes out of its jars; a JVM
given a class-data archive (`-XX:SharedArchiveFile`) maps them from one file instead.
Measured on a 2-core machine: the session starts in ~5 s instead of 10-15 s, and its
first job takes ~2.5 s instead of ~6 s.

The archive is written by the JVM itself when it exits (`-XX:ArchiveClassesAtExit`), the
first time a session starts without one. A truncated archive crashes the JVM that maps
it, so it is written under a temporary name by one process at a time (a lock file naming
that process), and takes its real name only once the writing JVM has exited cleanly and
a JVM has started on it. Its name carries the pyspark version and the Java binary it was
made by (a JVM of another build refuses another's archive, with one warning in its log).

`RPLHARNESS_SPARK_CLASS_ARCHIVE=off` turns it off; `RPLHARNESS_CACHE` moves the
directory it lives in (default: `$XDG_CACHE_HOME/rplharness`, or `~/.cache/rplharness`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pyspark

SWITCH = "RPLHARNESS_SPARK_CLASS_ARCHIVE"
CACHE = "RPLHARNESS_CACHE"
WRITER_EXIT_TIMEOUT = 120.0


@dataclass(frozen=True)
class ArchiveWrite:
    """An archive this process's JVM writes when it exits: under `temporary`, renamed to
    `final` by finish() once that JVM is gone."""

    temporary: Path
    final: Path
    lock: Path

    def finish(self, exit_code: int | None) -> bool:
        """Give the archive its name if the JVM that wrote it exited cleanly and a JVM
        starts on it; remove it otherwise. The lock is released either way."""
        try:
            if exit_code == 0 and self.temporary.is_file() and _loads(self.temporary):
                os.replace(self.temporary, self.final)
                return True
            self.temporary.unlink(missing_ok=True)
            return False
        finally:
            self.lock.unlink(missing_ok=True)


def cache_directory() -> Path:
    if os.environ.get(CACHE):
        return Path(os.environ[CACHE])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rplharness"


def _java() -> Path | None:
    """The java binary spark-submit will run: $JAVA_HOME/bin/java, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    return Path(found).resolve() if found and os.access(found, os.X_OK) else None


def archive_path() -> Path | None:
    """Where this Spark's and this Java's archive lives, or None when it is turned off or
    there is no Java (Spark will say so itself)."""
    if os.environ.get(SWITCH, "").lower() in ("off", "0", "false", "no"):
        return None
    java = _java()
    if java is None:
        return None
    made_by = f"{java}:{java.stat().st_mtime_ns}:{Path(pyspark.__file__).parent.resolve()}"
    digest = hashlib.sha256(made_by.encode()).hexdigest()[:12]
    return cache_directory() / f"spark-{pyspark.__version__}-{digest}.jsa"


def driver_option() -> tuple[str, ArchiveWrite | None]:
    """The driver JVM's option: map the archive when there is one; else write it when this
    process may (no live process holds the lock); else nothing."""
    final = archive_path()
    if final is None:
        return "", None
    if final.is_file():
        return f"-XX:SharedArchiveFile={final}", None
    lock = final.with_name(final.name + ".lock")
    if not _take(lock):
        return "", None
    _remove_leftovers(final)
    temporary = final.with_name(f"{final.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    # Writing it warns of every class it leaves out (thousands of lines): not for a terminal.
    return f"-XX:ArchiveClassesAtExit={temporary} -Xlog:cds*=off", ArchiveWrite(temporary, final, lock)


def wait_for_archive(timeout: float) -> Path | None:
    """The archive, once the live process writing it (if any) has given it its name;
    None when there is none after `timeout` seconds, or none is being written."""
    final = archive_path()
    if final is None:
        return None
    lock = final.with_name(final.name + ".lock")
    deadline = time.monotonic() + timeout
    while not final.is_file() and lock.exists() and time.monotonic() < deadline:
        holder = _holder(lock)
        if holder is not None and not _alive(holder):
            break
        time.sleep(0.5)
    return final if final.is_file() else None


def _take(lock: Path) -> bool:
    """The lock file, created with this process's pid; one whose process is gone is taken
    over (with the archive it left half-written)."""
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    for _ in range(2):
        try:
            descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _holder(lock)
            if holder is not None and _alive(holder):
                return False
            lock.with_name(f"{lock.name.removesuffix('.lock')}.{holder}.tmp").unlink(missing_ok=True)
            lock.unlink(missing_ok=True)
            continue
        except OSError:
            return False
        with os.fdopen(descriptor, "w") as file:
            file.write(str(os.getpid()))
        return True
    return False


def _remove_leftovers(final: Path) -> None:
    """Half-written archives of processes that are gone (a JVM that exited after its
    process gave up on it)."""
    for left in final.parent.glob(f"{final.name}.*.tmp"):
        pid = left.name.removeprefix(f"{final.name}.").removesuffix(".tmp")
        if not pid.isdigit() or not _alive(int(pid)):
            left.unlink(missing_ok=True)


def _holder(lock: Path) -> int | None:
    try:
        return int(lock.read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _loads(archive: Path) -> bool:
    """Whether a JVM starts with `archive` mapped (a damaged one kills it with SIGBUS)."""
    java = _java()
    if java is None:
        return False
    with tempfile.TemporaryDirectory(prefix="rplh-archive-check-") as scratch:  # where a crash report goes
        command = [str(java), f"-XX:SharedArchiveFile={archive}", f"-XX:ErrorFile={scratch}/hs_err_%p.log", "-XX:-CreateCoredumpOnCrash", "-version"]
        try:
            done = subprocess.run(command, capture_output=True, timeout=60, cwd=scratch)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 0
