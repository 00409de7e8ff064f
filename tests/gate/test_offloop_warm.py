"""The gate's warm-up leaves a model's first call nothing slow to import on the event loop.

``offloop.warm`` has no switch for the HTTP client: the judge registry it reads imports the
client with the graders. Run in a fresh interpreter, so that nothing the test session
imported before stands in for what ``warm`` itself imports.
"""

from __future__ import annotations

import subprocess
import sys

_PROBE = """
import sys
from spanproof.gate.offloop import warm
assert "spanproof.wire.send" not in sys.modules, "imported before warm: the probe reads nothing"
warm("blind", False)
print("spanproof.wire.lean" in sys.modules, "spanproof.wire.send" in sys.modules)
"""


def test_warm_imports_the_model_calls_transport_for_an_offline_judge():
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.split() == ["True", "True"]
