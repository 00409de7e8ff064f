import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "package",
    [
        "spanproof.agent",
        "spanproof.graders",
        "spanproof.reports",
        "spanproof.store",
        "spanproof.view",
    ],
)
def test_every_public_name_resolves(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_importing_the_evidence_models_does_not_load_the_http_stack():
    code = (
        "import sys, spanproof.core.evidence, spanproof.core.verdict; print('httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
