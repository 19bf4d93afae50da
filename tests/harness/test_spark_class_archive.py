"""Spark's class-data archive: written by one process at a time, named only when whole,
mapped by the drivers started after it."""

import os
import subprocess
from pathlib import Path

import pytest

from harness import spark_class_archive
from harness.spark_class_archive import ArchiveWrite, archive_path, driver_option, wait_for_archive
from tests.support import ARCHIVE_AT_START, ARCHIVE_WAIT


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RPLHARNESS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("RPLHARNESS_SPARK_CLASS_ARCHIVE", raising=False)
    return tmp_path / "cache"


def test_the_first_driver_writes_it_under_a_lock_and_others_start_without_it(cache: Path) -> None:
    option, write = driver_option()
    assert write is not None
    assert option == f"-XX:ArchiveClassesAtExit={write.temporary} -Xlog:cds*=off"
    assert write.temporary.parent == cache and write.final == archive_path()
    assert write.lock.read_text() == str(os.getpid())
    assert driver_option() == ("", None)  # the lock's process is alive: it is writing
    write.finish(exit_code=1)  # its JVM failed: nothing named, the lock released
    assert not write.final.exists() and not write.lock.exists()


def test_a_lock_whose_process_is_gone_is_taken_over_with_what_it_left(cache: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    final = archive_path()
    assert final is not None
    cache.mkdir()
    lock = final.with_name(final.name + ".lock")
    lock.write_text(str(dead.pid))
    left = final.with_name(f"{final.name}.{dead.pid}.tmp")
    left.write_bytes(b"half an archive")
    option, write = driver_option()
    assert write is not None and "ArchiveClassesAtExit" in option
    assert not left.exists() and lock.read_text() == str(os.getpid())
    write.finish(exit_code=None)


def test_a_named_archive_is_mapped_and_it_can_be_turned_off(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    final = archive_path()
    assert final is not None
    cache.mkdir()
    final.write_bytes(b"")
    assert driver_option() == (f"-XX:SharedArchiveFile={final}", None)
    monkeypatch.setenv("RPLHARNESS_SPARK_CLASS_ARCHIVE", "off")
    assert archive_path() is None and driver_option() == ("", None)


def test_another_java_or_spark_has_its_own_archive(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = archive_path()
    monkeypatch.setattr(spark_class_archive.pyspark, "__version__", "0.0.0")
    assert archive_path() not in (mine, None)


def test_the_suites_session_maps_the_archive_it_found(spark, machines_archive: Path, request: pytest.FixtureRequest) -> None:
    """The run's session maps the machine's archive when it was there as the session
    started; on a fresh machine the run is still writing it and the session starts without."""
    arguments = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
    assert (f"-XX:SharedArchiveFile={machines_archive}" in list(arguments)) == request.config.stash[ARCHIVE_AT_START]


@pytest.fixture
def machines_archive() -> Path:
    """The archive this machine's Spark wrote (the suite writes it before its tests)."""
    final = wait_for_archive(ARCHIVE_WAIT)
    if final is None:
        pytest.skip("no class-data archive was written on this machine (Java missing or the archive turned off)")
    return final


def test_a_whole_archive_is_named_a_truncated_one_never(machines_archive: Path, cache: Path) -> None:
    """A JVM mapping a truncated archive dies of SIGBUS: one is removed, not named."""
    cache.mkdir()
    final = cache / machines_archive.name
    truncated = ArchiveWrite(cache / "truncated.tmp", final, cache / "truncated.lock")
    truncated.temporary.write_bytes(machines_archive.read_bytes()[: 1 << 20])
    truncated.lock.write_text(str(os.getpid()))
    assert truncated.finish(exit_code=0) is False
    assert not truncated.temporary.exists() and not final.exists() and not truncated.lock.exists()

    whole = ArchiveWrite(cache / "whole.tmp", final, cache / "whole.lock")
    whole.temporary.symlink_to(machines_archive)
    whole.lock.write_text(str(os.getpid()))
    assert whole.finish(exit_code=0) is True
    assert final.is_symlink() and not whole.lock.exists()
