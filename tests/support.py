"""What many tests need: a scenario written to a file (and loaded), the `rplharness` command
run and its report.json read. One definition, so a change to how scenarios are written
or reports read is made once."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from scenarios.loader import load_scenario
from scenarios.model import Scenario


def scenario_file(directory: Path, text: str, name: str = "scenario.yaml", dedent: bool = False) -> Path:
    """`text` written as `directory/name` (parent directories made); with `dedent`, the
    indentation of a triple-quoted literal removed first."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if dedent else text, encoding="utf-8")
    return path


def scenario_from(directory: Path, text: str, name: str = "scenario.yaml") -> Scenario:
    """The scenario `text` describes, loaded from a file the way `rplharness run` loads it."""
    return load_scenario(scenario_file(directory, text, name))


def read_report(out: Path) -> dict:
    """OUT/report.json as a dict; `{}` when the command wrote none (a usage error)."""
    path = out / "report.json"
    return json.loads(path.read_text()) if path.exists() else {}


def run_command(out: Path, *arguments: str) -> tuple[int, dict]:
    """`rplharness run ARGUMENTS --out OUT`: its exit code and its report."""
    from harness.cli import main

    code = main(["run", *arguments, "--out", str(out)])
    return code, read_report(out)
