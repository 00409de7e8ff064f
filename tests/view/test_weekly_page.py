"""The weekly report a lead reads in a minute, on a store the size of a team's week: 214 runs,
120 of them from gates. In a real browser: the page stays a few screens tall (the per-run
table is capped in HTML, complete in JSON), both pre/post-prune series are drawn, and the
totals are the team's `ask` runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner
from spanproof.agent.runstore import RunStore

from spanproof.cli.gate import report
from spanproof.gate.store import store_path
from tests.gate.test_weekly import _variant

REPO = Path(__file__).resolve().parents[2]

# The page a lead scrolls: the uncapped table of 214 runs made it about 11,000 px tall.
MAX_HEIGHT_PX = 6000


def _one_run(home):
    from spanproof.agent.run import run_question
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.web.env import offline_web

    env = offline_web(home, REPO / "goldens" / "corpus")
    verifier = Verifier([make_judge("rules")], cache=None)
    q = "Who did the Odessa Jackalopes hire as head coach in May 2019?"
    return asyncio.run(run_question(q, env=env, verifier=verifier))


def test_the_weekly_page_of_214_runs_is_a_few_screens_in_a_browser(tmp_path, browser, screenshots):
    record = _one_run(tmp_path)
    store = RunStore(store_path(tmp_path))
    for i in range(214):
        rec = _variant(record, f"run_{i:03d}", days_ago=i * 0.75 / 24, dropped=i % 3)
        rec.kind = "gate" if i % 107 < 60 else "ask"  # 120 gate runs, 94 asks
        store.save(rec)
    out = tmp_path / "out"
    done = CliRunner().invoke(report, ["weekly", "--home", str(tmp_path), "--out", str(out)])
    assert done.exit_code == 0, done.output
    data = json.loads((out / "weekly.json").read_text())
    assert data["n_runs"] == 94 and len(data["runs"]) == 94  # asks only, all of them in JSON
    browser.get((out / "weekly.html").as_uri())
    height = browser.execute_script("return document.documentElement.scrollHeight")
    rows = browser.execute_script("return document.querySelectorAll('table tr').length")
    images = browser.execute_script(
        "return [...document.images].filter(i => i.complete && i.naturalWidth > 0).length"
    )
    browser.save_screenshot(str(screenshots / "weekly_214_runs.png"))
    assert images >= 1, "the pre/post chart is drawn"
    assert height <= MAX_HEIGHT_PX, f"the weekly page is {height}px tall ({rows} table rows)"
