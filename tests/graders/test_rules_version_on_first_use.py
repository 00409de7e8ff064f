"""The rules judge's version (a digest of its code and of its dependencies' installed files,
about a second of hashing) is computed when it is first read, not when its package is
imported: `verify` with a model judge imports the rules package for its readers and never
judges with it."""

from __future__ import annotations

import subprocess
import sys

PROBE = (
    "import spanproof.graders.rules as rules, spanproof.graders.rules.judge as judge\n"
    "print('RULES_VERSION' in vars(judge))\n"
    "first = rules.RULES_VERSION\n"
    "print('RULES_VERSION' in vars(judge))\n"
    "print(first == judge.RULES_VERSION == judge._source_hash() == judge.RulesJudge().prompt_sha256)\n"
)


def test_importing_the_rules_package_computes_no_version_and_reading_it_computes_the_same_one():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out == ["False", "True", "True"]


def test_a_version_set_in_its_place_is_the_one_judges_carry(monkeypatch):
    import spanproof.graders.rules.judge as judge

    monkeypatch.setattr(judge, "RULES_VERSION", "rules-edited")
    assert judge.RulesJudge().prompt_sha256 == "rules-edited"
