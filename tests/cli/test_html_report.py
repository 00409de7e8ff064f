"""The gate's HTML report stands alone: every local link resolves inside the report folder,
and every class the markup uses has a style."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

from spanproof.reports.html import write_report

from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.classes: set[str] = set()
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)
            if name == "class" and value:
                self.classes.update(value.split())
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data


def problems(index: Path) -> list[str]:
    """Local links that leave the report folder or point at nothing; classes with no style."""
    page = _Collect()
    page.feed(index.read_text(encoding="utf-8"))
    root = index.parent.resolve()
    out = []
    for link in page.links:
        url = urlparse(link)
        if url.scheme == "data":
            continue
        if url.scheme or url.netloc:
            out.append(f"link to another host or scheme: {link}")
            continue
        target = (root / unquote(url.path)).resolve()
        if not target.is_relative_to(root):
            out.append(f"link outside the report folder: {link}")
        elif not target.is_file():
            out.append(f"link to a missing file: {link}")
    styled = set(re.findall(r"\.([A-Za-z_][\w-]*)", page.style))
    out += [f"class without a style: {c}" for c in sorted(page.classes - styled)]
    return out


def gate_result(tmp_path: Path) -> GateResult:
    ledger = tmp_path / "home" / "ledgers" / "run_1.json"
    ledger.parent.mkdir(parents=True)
    ledger.write_text('[{"claim": "c"}]')
    rows = [CheckRow(name=f"c.{s}", check="c", status=s, value=0.5, threshold=">= 0.9")
            for s in ("pass", "fail", "regressed", "not_tested", "info", "error")]  # fmt: skip
    return GateResult(
        passed=False, exit_code=1, checks=rows, wall_s=1.0,
        ledgers={"run_1": str(ledger), "run 2#x": str(ledger), "run_3": str(tmp_path / "gone.json")},
        artifacts={"cost": {"runs": [{"run_id": "run_1", "question_id": "q1", "tokens": 0,
                                      "searches": 2, "cost_usd": 0.0, "phase_s": 1.0,
                                      "verify_share_of_time": 0.1,
                                      "cost_free": "2 search(es) of the local corpus cost $0"}]}},
    )  # fmt: skip


def test_the_report_is_self_contained_and_styled(tmp_path):
    paths = write_report(gate_result(tmp_path), tmp_path / "report")
    assert problems(paths["html"]) == []
    html = paths["html"].read_text(encoding="utf-8")
    # Every status the gate can give is in the page (so every status class was checked).
    for cls in ("PASS", "FAIL", "REGRESSED", "NOT_TESTED", "INFO", "ERROR"):
        assert f'class="{cls}"' in html
    # The ledgers are copies inside the folder, with their content.
    assert (tmp_path / "report" / "ledgers" / "run_1.json").read_text() == '[{"claim": "c"}]'
    assert "ledger missing" in html  # a ledger that is gone is said, not linked
    assert "local corpus cost $0" in html or "cost $0" in html


def test_the_checker_catches_outside_links_and_unstyled_classes(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "secret.json").write_text("{}")
    index = tmp_path / "r" / "index.html"
    index.write_text(
        "<html><head><style>.ok{color:green}</style></head><body>"
        '<a href="../secret.json">a</a><a href="/etc/passwd">b</a><a href="missing.json">c</a>'
        '<a href="https://example.org/x">d</a><p class="ok info">x</p></body></html>'
    )
    found = problems(index)
    assert "link outside the report folder: ../secret.json" in found
    assert "link outside the report folder: /etc/passwd" in found
    assert "link to a missing file: missing.json" in found
    assert "link to another host or scheme: https://example.org/x" in found
    assert "class without a style: info" in found and len(found) == 5
