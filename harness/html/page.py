"""report.html: the report document as one self-contained page for people.

Counts per verdict and what they mean; for `run` reports a heatmap of verdicts (scenarios ×
binlog format and row image); for `fuzz` reports aggregates instead (verdicts per setting,
slave stops per error code, findings by group), as one row per generated workload would
be unreadable; the fidelity against a real server when it was checked; then the detail of
the runs worth reading, up to a bound. The page stays a few megabytes for 10 000 runs;
report.json has it all.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from scenarios.writer import write_atomically

from .common import Document, Run, esc
from .fidelity import fidelity
from .fuzz import finding_groups, is_fuzz, slave_stops, verdict_table
from .overview import counts, exploration, findings, heatmap, input_errors, legend, summary
from .runs import detailed, run_detail

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em;margin:0 0 .3em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap;margin:0}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:2px 6px;vertical-align:top;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.totals{font-weight:bold}
.counts{display:flex;flex-wrap:wrap;gap:.6em;list-style:none;padding:0}
.counts li{padding:.3em .8em;border-radius:4px;color:#fff}.count{font-size:1.4em;font-weight:bold}
.v-consistent{background:#2e9e5b}.v-divergent{background:#e89a1c}.v-slave_stopped{background:#8e44ad}
.v-finding{background:#d81b60}.v-unsupported{background:#1565c0}.v-error{background:#444}.v-other{background:#999}
.legend{display:grid;grid-template-columns:max-content 1fr;gap:.2em .8em;margin:.4em 0}.legend dd{margin:0}
.heatmap td.cell{white-space:nowrap}.heatmap th.scenario{font-weight:normal}
.r{display:inline-block;width:14px;height:14px;margin:1px;border-radius:2px}.r.unmet{outline:2px solid #000}
.r.unchecked{outline:2px dashed #000}
.only-notable tr.quiet{display:none}
.badge{color:#fff;padding:0 .4em;border-radius:3px}
details.run{border:1px solid #ddd;margin:.4em 0;padding:.3em .6em}details.run>summary{cursor:pointer}
.finding,.finding-group{border-left:4px solid #d81b60;padding-left:.8em;margin:1em 0}
.signature{display:grid;grid-template-columns:max-content 1fr;gap:0 .8em}.signature dd{margin:0}
.timeline td{min-width:12em}.timeline td.wait{background:#fff4e0}.timeline td.late{background:#e8f4ff}
.waits{font-style:italic;color:#8a5a00}
tr.failed td{background:#fdecee}tr.known td{color:#555}
.failed{color:#b00020}.muted{color:#777}
"""

_SCRIPT = """
(function () {
  var total = 0;
  document.querySelectorAll(".count[data-verdict]").forEach(function (element) {
    total += parseInt(element.textContent, 10);
  });
  document.getElementById("total-runs").textContent = total + " runs";
  function openTarget() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    if (target) target.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  var only = document.getElementById("only-notable");
  if (only) {
    only.addEventListener("change", function () {
      document.body.classList.toggle("only-notable", only.checked);
    });
  }
})();
"""

# The browser itself refuses anything but the page's own style and script: no fetch, no
# other script, even if some text escaped escaping.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{}'".format(
    base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
)


def _runs(report: Document, runs: list[Run], chosen: list[Run], left_out: int, fuzz: bool) -> str:
    """The run details; in a fuzz report collapsed as a whole, as the aggregates come first."""
    flavor = report.get("flavor")
    details = "".join(run_detail(run, flavor) for run in chosen)
    more = f'<p class="muted">{left_out} more runs that are not consistent or did not pass have no detail here; report.json has them.</p>' if left_out else ""
    if not fuzz:
        return f"<h2>Runs</h2>{details}{more}"
    return (
        f'<h2>Runs</h2><details id="run-details"><summary>Detail of {len(chosen)} of the {len(runs)} runs, the most severe first '
        f"(report.json has every run)</summary>{details}{more}</details>"
    )


def html_page(report: Document) -> str:
    """The whole page: no external resource, everything escaped."""
    runs: list[Run] = list(report.get("runs") or [])
    chosen, left_out = detailed(runs)
    by_id = {str(run.get("run_id")): run for run in chosen}
    fuzz = is_fuzz(report)
    title = f"rplharness report — {report.get('flavor')}"
    groups = list(report.get("finding_groups") or [])
    found = list(report.get("findings") or [])
    if fuzz:
        overview = verdict_table(runs, report.get("flavor")) + slave_stops(runs, by_id)
        if groups:
            overview += finding_groups(groups, by_id)
            overview += f'<p class="muted">{len(found)} findings in all; report.json lists each (findings).</p>' if found else ""
        else:
            overview += findings(found, by_id)
    else:
        overview = heatmap(runs, set(by_id)) + finding_groups(groups, by_id) + findings(found, by_id)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{esc(title)}</h1>"
        f"{summary(report, counts(runs))}{legend(squares=not fuzz)}{exploration(report)}{input_errors(report)}"
        f"{overview}{fidelity(report)}{_runs(report, runs, chosen, left_out, fuzz)}"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_html(report: Document, path: Path) -> Path:
    """Write the report document as one HTML page to `path`, atomically."""
    return write_atomically(path, html_page(report))
