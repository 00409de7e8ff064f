"""The fixture pages keep their addresses when the fixture port is taken (another suite on a
busy machine): span URLs, and so the verdict cache keys, are the same, so a second suite
reuses the first one's verdicts instead of paying for them again."""

from __future__ import annotations

import socket

from spanproof.adversarial_fixtures.server import SITE_HOST
from spanproof.graders.cache import VerdictCache
from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier

from spanproof.bench.injection import run_suite


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((SITE_HOST, 0))
        return s.getsockname()[1]


async def test_span_urls_name_the_fixture_port_even_when_another_suite_holds_it(tmp_path):
    port = _free_port()
    cache = VerdictCache(tmp_path / "verdicts.sqlite")
    first = Verifier([make_judge("rules")], cache=cache)
    with socket.socket() as squatter:  # another suite's server on the fixture port
        squatter.bind((SITE_HOST, port))
        squatter.listen()
        report = await run_suite(home=tmp_path / "a", verifier=first, port=port,
                                 only=["visible-body-text"])  # fmt: skip
    assert report.passed, report.runs
    assert first.model_calls > 0
    second = Verifier([make_judge("rules")], cache=cache)
    again = await run_suite(home=tmp_path / "b", verifier=second, port=port,
                            only=["visible-body-text"])  # fmt: skip
    assert again.passed
    # the same span URLs: every verdict came from the first suite's cache
    assert second.model_calls == 0 and second.cache_hits == first.model_calls
