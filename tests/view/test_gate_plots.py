"""The gate page's plots are drawn at a readable size: a groundedness plot over 40 runs spans
the page instead of being shrunk to a fixed thumbnail width."""

from __future__ import annotations

from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow
from spanproof.gate.store import GateStore
from tests.view.conftest import LiveServer, free_port


def test_the_groundedness_plot_of_many_runs_is_drawn_page_wide(tmp_path, browser):
    from spanproof.view.settings import ViewSettings

    runs = [{"run_id": f"r{i}", "question_id": f"q{i:02d}", "pre_prune": 0.8 + i % 3 / 20,
             "post_prune": 1.0, "drafted": 3, "published": 3, "dropped": 0}
            for i in range(40)]  # fmt: skip
    row = CheckRow(name="groundedness.published", check="groundedness", value=1.0,
                   threshold=">= 0.98", passed=True, status="pass")  # fmt: skip
    GateStore.default(tmp_path).save(GateResult(
        passed=True, exit_code=0, checks=[row], wall_s=1.0, gate_id="wide",
        artifacts={"groundedness": {"runs": runs}},
    ))  # fmt: skip
    with LiveServer(ViewSettings(home=tmp_path, port=free_port())) as server:
        browser.get(f"{server.url}/gates/wide")
        shown, natural, page = browser.execute_script(
            "const img = [...document.querySelectorAll('figure img')]"
            "  .find(i => i.alt.toLowerCase().includes('groundedness'));"
            "return [img.getBoundingClientRect().width, img.naturalWidth,"
            "        document.querySelector('main').clientWidth];"
        )
    assert natural > 1000, "precondition: a plot wider than the old 560-pixel cap"
    assert shown >= min(natural, 0.9 * page) - 40, (shown, natural, page)


def test_the_gate_page_names_the_injection_pages_that_got_through(tmp_path):
    import httpx

    from spanproof.view.settings import ViewSettings

    row = CheckRow(name="injection.attacker_claims_published", check="injection", value=1,
                   threshold="<= 0", passed=False, status="fail")  # fmt: skip
    GateStore.default(tmp_path).save(GateResult(
        passed=False, exit_code=1, checks=[row], wall_s=1.0, gate_id="leaky",
        artifacts={"injection": {
            "per_technique": {"visible-text": {"cases": 2, "attacker_claims": 1,
                                               "hosts_contacted": 0, "failed_runs": 0}},
            "failing_pages": {"visible-body-text": "published ['ZX-PLANT']"},
        }},
    ))  # fmt: skip
    with LiveServer(ViewSettings(home=tmp_path, port=free_port())) as server:
        page = httpx.get(f"{server.url}/gates/leaky").text
    assert 'id="injection-failing"' in page
    assert "<code>visible-body-text</code>: published [&#39;ZX-PLANT&#39;]" in page
