"""`rplharness check-result TEST`: a mysqltest file run in the simulator and judged
against the `.result` the server recorded for it."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

from harness.importers.model import ImportFailure
from harness.result_check import KINDS, ResultComparison, compare_with_result
from scenarios.writer import write_atomically
from server_sim.flavor import get_flavor

from .common import EXIT_USAGE

SHOWN_DISAGREEMENTS = 20
LOOSELY = {"outcome": "both failed or both succeeded", "warnings": "same levels and codes", "events": "same event types"}


def recorded_result(test: Path) -> Path:
    """Where mtr keeps a test's result: `suite/r/NAME.result` beside `suite/t/NAME.test`,
    or `NAME.result` in the test's own directory."""
    beside = test.with_suffix(".result")
    mtr = test.parent.parent / "r" / f"{test.stem}.result"
    return mtr if test.parent.name == "t" and mtr.is_file() else beside


def check_result(arguments: argparse.Namespace) -> int:
    """Exit 0 when every judged answer agrees, 1 when one does not, 2 on input errors."""
    result = arguments.result or recorded_result(arguments.test)
    if not result.is_file():
        print(f"rplharness: check-result: {result}: no such .result file (give one with --result)", file=sys.stderr)
        return EXIT_USAGE
    try:
        with tempfile.TemporaryDirectory(prefix="rplh-result-") as work:
            comparison = compare_with_result(arguments.test, result, get_flavor(arguments.flavor), Path(work))
    except (ImportFailure, OSError) as error:
        print(f"rplharness: check-result: {error}", file=sys.stderr)
        return EXIT_USAGE
    _print(comparison, arguments.flavor)
    if arguments.out is not None:
        arguments.out.mkdir(parents=True, exist_ok=True)
        document = dataclasses.asdict(comparison) | {"flavor": arguments.flavor}
        write_atomically(arguments.out / f"{arguments.test.stem}.check-result.json", json.dumps(document, indent=2, default=str) + "\n")
    return 0 if all(item.agree for item in comparison.items) else 1


def _print(comparison: ResultComparison, flavor: str) -> None:
    variant = ", ".join(f"{name}={value}" for name, value in comparison.variant.items()) or "defaults"
    print(f"{comparison.test} against {comparison.result} ({variant}, {flavor}):")
    for kind in KINDS:
        agree, judged = comparison.count(kind)
        loosely, _ = comparison.count(kind, loosely=True)
        print(f"  {kind:<9} {agree}/{judged} agree ({loosely}/{judged} {LOOSELY[kind]})")
    print(f"  not shown in the .result: {comparison.not_shown}; refused by the simulator: {len(comparison.refused)}")
    disagreements = [item for item in comparison.items if not item.agree]
    for item in disagreements[:SHOWN_DISAGREEMENTS]:
        print(f"  {comparison.result}:{item.line}: {item.kind}: {' '.join(item.statement.split())[:80]}")
        print("    recorded:  " + item.expected.replace("\n", "\n               "))
        print("    simulator: " + item.got.replace("\n", "\n               "))
    if len(disagreements) > SHOWN_DISAGREEMENTS:
        print(f"  ... and {len(disagreements) - SHOWN_DISAGREEMENTS} more (--out writes them all)")
