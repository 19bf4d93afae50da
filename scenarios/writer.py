"""Write a `Scenario` as the YAML file the loader reads back to an equal scenario.

Shrunk findings are saved this way, to be run with `rplharness run` and read by people,
so the file looks like the bundled ones: block style, schema statements as plain
scalars, each step a one-line flow mapping with its SQL double-quoted, short lists and
`when` mappings in flow style, the description folded.
"""

from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from scenarios.model import Expectation, Scenario, Step

LINE_WIDTH = 88  # the description's folded lines
_UNBOUNDED = 1 << 20  # no statement is ever folded across lines
_STR = "tag:yaml.org,2002:str"
_BOOL = "tag:yaml.org,2002:bool"


class _Flow(dict):
    """A mapping written on one line: `{session: con1, sql: "..."}`."""


class _FlowList(list):
    """A list written on one line: `[FULL, MINIMAL]`."""


class _Quoted(str):
    """A step's SQL, always double-quoted like the bundled files."""


class _Folded(str):
    """The description, folded at LINE_WIDTH."""


class _Setting(str):
    """A variable's value, already normalised by the loader (`ON`, `2`, `STATEMENT`)."""


class _Dumper(yaml.SafeDumper):
    """Block sequences indented under their key, as people write them."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        return super().increase_indent(flow, False)


def _represent_setting(dumper: _Dumper, value: _Setting) -> yaml.ScalarNode:
    """Plain when YAML reads the text back as something the loader turns into the same
    value (`ON` is a boolean to YAML and ON to the loader, `2` an int and then "2");
    quoted otherwise (`YES` would come back as ON, `010` as 8)."""
    tag = dumper.resolve(yaml.ScalarNode, str(value), (True, False))
    loaded = yaml.safe_load(str(value))
    plain = tag == _STR or (tag == _BOOL and value in ("ON", "OFF")) or (tag != _BOOL and str(loaded) == value)
    return dumper.represent_scalar(tag if plain else _STR, str(value), style=None if plain else "'")


def _represent_sql(dumper: _Dumper, value: str) -> yaml.ScalarNode:
    """A schema statement: plain where it can be, a literal block when it spans lines."""
    return dumper.represent_scalar(_STR, value, style="|" if "\n" in value else None)


_Dumper.add_representer(_Flow, lambda dumper, value: dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=True))
_Dumper.add_representer(_FlowList, lambda dumper, value: dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True))
_Dumper.add_representer(_Quoted, lambda dumper, value: dumper.represent_scalar(_STR, str(value), style='"'))
_Dumper.add_representer(_Folded, lambda dumper, value: dumper.represent_scalar(_STR, str(value), style=">"))
_Dumper.add_representer(_Setting, _represent_setting)
_Dumper.add_representer(str, _represent_sql)


def scenario_to_yaml(scenario: Scenario) -> str:
    """The scenario file's text; `load_scenario` of it equals `scenario` but for `source`.

    Each top-level key is dumped on its own so that only the description is folded:
    a statement split across lines would be harder to read and to copy.
    """
    sections: list[tuple[str, Any, int]] = [("name", scenario.name, _UNBOUNDED)]
    if scenario.description:
        sections.append(("description", _Folded(scenario.description), LINE_WIDTH))
    if scenario.flavor is not None:
        sections.append(("flavor", scenario.flavor, _UNBOUNDED))
    if scenario.seed is not None:
        sections.append(("seed", scenario.seed, _UNBOUNDED))
    if scenario.tolerate_errors:
        sections.append(("tolerate_errors", True, _UNBOUNDED))
    sections += [
        ("settings", _settings(scenario.settings), _UNBOUNDED),
        ("slave_settings", _settings(scenario.slave_settings), _UNBOUNDED),
        ("matrix", {name: _FlowList(map(_Setting, values)) for name, values in scenario.matrix.items()}, _UNBOUNDED),
        ("engines", {name: _Flow(asdict(engine)) for name, engine in scenario.engines.items()}, _UNBOUNDED),
        ("master_schema", list(scenario.master_schema), _UNBOUNDED),
        ("slave_schema", list(scenario.slave_schema), _UNBOUNDED),
        ("steps", [_step(step) for step in scenario.steps], _UNBOUNDED),
        ("expect", [_expectation(expectation) for expectation in scenario.expect], _UNBOUNDED),
        ("volatile", _FlowList(scenario.volatile), _UNBOUNDED),
    ]
    return "".join(
        yaml.dump({key: value}, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=width)
        for key, value, width in sections
        if value
    )


def write_scenario(scenario: Scenario, path: Path) -> None:
    """Write the scenario file atomically: a reader never loads half a finding."""
    write_atomically(Path(path), scenario_to_yaml(scenario))


def write_atomically(path: Path, text: str) -> Path:
    """Write `text` to a temporary file beside `path`, then rename it over `path`: a reader
    never sees half a file. The file gets the mode any new file gets (0666 less the umask),
    not mkstemp's private 0600: a report is for others to read too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        os.fchmod(handle, 0o666 & ~process_umask())
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path


def _step(step: Step) -> _Flow:
    """`{session: con1, sql: "...", error: ER_DUP_ENTRY}`: one line per step."""
    if step.disconnect:
        return _Flow(session=step.session, disconnect=True)
    if step.reap:
        return _Flow(session=step.session, reap=True)
    entry = _Flow(session=step.session, sql=_Quoted(step.sql))
    if step.errors:
        entry["error"] = step.errors[0] if len(step.errors) == 1 else _FlowList(step.errors)
    return entry


@functools.cache
def process_umask() -> int:
    """The process's umask, read once. Linux shows it in /proc; elsewhere reading it means
    setting it, so it is set to a restrictive value for the instant before it is restored
    (a file another thread creates meanwhile is private, never world-writable)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _settings(settings: dict[str, str]) -> dict[str, _Setting]:
    return {name: _Setting(value) for name, value in settings.items()}


def _expectation(expectation: Expectation) -> dict[str, Any]:
    """The keys of one `expect` entry that it sets, in the loader's order; a `when` value
    of one element is written as a scalar."""
    entry: dict[str, Any] = {}
    if expectation.when:
        entry["when"] = _Flow(
            {name: _Setting(values[0]) if len(values) == 1 else _FlowList(map(_Setting, values)) for name, values in expectation.when.items()}
        )
    if expectation.verdict is not None:
        entry["verdict"] = expectation.verdict.value
    for key in ("slave_error", "step"):
        if getattr(expectation, key) is not None:
            entry[key] = getattr(expectation, key)
    if expectation.notes is not None:
        entry["notes"] = _FlowList(expectation.notes)
    if expectation.error is not None:
        entry["error"] = expectation.error
    if expectation.events is not None:
        entry["events"] = _FlowList(str(pattern) for pattern in expectation.events)
    return entry
