"""`rplharness check-workload SCENARIO`: a workload under every format and row image,
reported per statement shape."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

from harness.importers.model import ImportFailure
from harness.importers.schema_file import read_schema_file
from harness.runner import validate_scenario
from harness.workload_check import WorkloadCheck, as_dict, check_workload
from scenarios.loader import ScenarioLoadError, load_scenario
from scenarios.writer import write_atomically
from server_sim.flavor import get_flavor

from .common import EXIT_USAGE, retire_reports

CHECK_WORKLOAD_REPORT = "check-workload.json"


def check(arguments: argparse.Namespace) -> int:
    """Exit 0 when every run ends consistent, 1 when one does not, 2 on input errors."""
    flavor = get_flavor(arguments.flavor)
    try:
        scenario = load_scenario(arguments.scenario)
        if arguments.slave_schema is not None:
            scenario = dataclasses.replace(scenario, slave_schema=tuple(read_schema_file(arguments.slave_schema, flavor.name)))
    except (ScenarioLoadError, ImportFailure) as error:
        print(f"rplharness: check-workload: {error}", file=sys.stderr)
        return EXIT_USAGE
    problems = validate_scenario(scenario, flavor)
    if problems:
        for problem in problems:
            print(f"rplharness: check-workload: {problem}", file=sys.stderr)
        return EXIT_USAGE
    retire_reports(arguments.out, (CHECK_WORKLOAD_REPORT,))
    with tempfile.TemporaryDirectory(prefix="rplh-check-") as work:
        result = check_workload(scenario, flavor, Path(work), tuple(arguments.formats), tuple(arguments.row_images))
    write_atomically(arguments.out / CHECK_WORKLOAD_REPORT, json.dumps(as_dict(result), indent=2, default=str) + "\n")
    sys.stdout.write(render(result))
    print(f"report: {arguments.out / CHECK_WORKLOAD_REPORT}")
    return 0 if result.consistent else 1


def render(result: WorkloadCheck) -> str:
    """The check as people read it: one line per run, then one block per shape."""
    lines = [f"{result.scenario}: {len(result.variants)} runs"]
    for variant in result.variants:
        line = f"  {variant.label:<44} {variant.outcome}"
        if variant.tables:
            line += f"; tables {', '.join(variant.tables)}"
        if variant.first_step is not None:
            line += f"; first differing after step {variant.first_step}"
        if variant.last_writer is not None:
            line += f"; the first differing row last written by step {variant.last_writer}"
        if variant.slave_error:
            line += f"; slave: {variant.slave_error}"
        if variant.refused:
            line += f"; {variant.refused} step(s) refused by the simulator"
        lines.append(line)
    lines.append(f"{len(result.shapes)} statement shapes:")
    for shape in result.shapes:
        lines.append(f"  {shape.shape}")
        lines.append(f"    steps {', '.join(map(str, shape.steps[:8]))}{' ...' if len(shape.steps) > 8 else ''}")
        for reason, text in shape.unsafe.items():
            lines.append(f"    unsafe {reason}: {text}")
        logged = "; ".join(f"{name}: {'/'.join(sorted(values))}" for name, values in shape.logged_as.items())
        lines.append(f"    logged as {logged}")
        for code, message in shape.errors.items():
            lines.append(f"    error {code}: {message}")
        if shape.diverged_under:
            lines.append(f"    tables first differ after it under {', '.join(shape.diverged_under)}")
    return "\n".join(lines) + "\n"
