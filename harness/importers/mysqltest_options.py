"""A mysqltest file's server options: `t/NAME-master.opt` and `t/NAME-slave.opt`, the
command-line options mtr starts each server with (`--default-storage-engine=MyISAM`,
`--binlog-format=row`, ...). Those that set a variable the simulator models become the
scenario's settings (the master's) or slave settings; `--binlog-format` gives the formats
the test runs under. Any other option is listed as skipped, with its file, never dropped
silently: the test ran on a server the scenario does not reproduce exactly."""

from __future__ import annotations

import shlex
from pathlib import Path

from harness.importers.model import Capture, Origin, Skipped
from server_sim.errors import SqlError
from server_sim.flavor import FLAVORS
from server_sim.sysvars import VariableRegistry


def read_server_options(test: Path, capture: Capture) -> None:
    """Add the options of the test's `-master.opt` and `-slave.opt` files to `capture`."""
    for server, settings in (("master", capture.settings), ("slave", capture.slave_settings)):
        path = test.with_name(f"{test.stem}-{server}.opt")
        if path.is_file():
            _read(path, server, settings, capture)


def _read(path: Path, server: str, settings: dict[str, str], capture: Capture) -> None:
    origin = Origin(path, 1)
    try:
        words = shlex.split(path.read_text(encoding="utf-8", errors="replace"), comments=True)
    except ValueError as error:
        capture.skipped.append(Skipped(origin, f"the {server}'s options could not be read: {error}"))
        return
    for word in words:
        name, value = _option(word)
        if name is None:
            capture.skipped.append(Skipped(origin, f"{word}: not an option"))
            continue
        value, problem = _setting(name, value)
        if problem is not None:
            capture.skipped.append(Skipped(origin, f"{word}: {problem}; the {server} runs without it"))
        elif name == "binlog_format" and server == "master":
            formats = capture.matrix.get("binlog_format")
            if formats is not None and value.upper() not in formats:
                capture.skipped.append(Skipped(origin, f"{word}: the test's binlog format include allows only {', '.join(formats)}"))
            else:
                capture.matrix["binlog_format"] = (value.upper(),)
        else:
            settings[name] = value


def _option(word: str) -> tuple[str | None, str]:
    """`--name=value` as (variable name, value); `--skip-name` is OFF, `--name` alone ON;
    `--loose-` prefixes dropped (mtr's way of saying: ignore it when unknown)."""
    if not word.startswith("--"):
        return None, ""
    name, equals, value = word[2:].partition("=")
    name = name.replace("-", "_").lower().removeprefix("loose_")
    if not equals:
        if name.startswith("skip_"):
            return name.removeprefix("skip_"), "OFF"
        return name, "ON"
    return name, value


def _setting(name: str, value: str) -> tuple[str, str | None]:
    """`value` as the variable `name` holds it, or why it cannot be a setting: it must be
    a variable the simulator models in some flavor, with a value it accepts."""
    reason = ""
    for flavor in FLAVORS.values():
        try:
            variable = VariableRegistry(flavor).lookup(name)
            if variable.read_only:
                return value, f"{name} is read-only"
            return variable.normalise(value), None
        except SqlError as error:
            reason = error.message
    return value, f"not modelled ({reason})"
