"""Build ``graders/specifics/lexicons/organisation_nouns.txt`` from Princeton WordNet 3.0.

A name whose last word is a common noun of an organisation's kind names an organisation
("Halden Construction", "Tarrant Shipping", "Varley Industries"), whatever word stands
before it and whatever preposition before that ("built by Halden Construction" is no person
named in full). The kinds are read from WordNet's noun hierarchy rather than listed by hand:

- ``kind`` lines: a noun one of whose senses lies under *organization* (a group of people
  who work together: a company, a band, a guild, the police) or under *commercial
  enterprise* (a trade: construction, shipping, brewing, printing), and none of whose
  senses lies under *location* or *person*, which would make the word as much a place's
  ("country", "state") or a person's ("publisher", "ally") as an organisation's, and whose
  first (most used) sense is no *quantity*: "unit", "pack", "trio" most often say how much
  or how many, and a name ending with one ("Intensive Care Unit") may be a part of a body
  or a place as well;
- ``firm`` lines: the first word of a two-word noun whose first sense is a firm (under
  *business* or *company*: "holding company", "food company", "electronics company"): the
  plural of such a word ends a firm's name ("Northgate Holdings", "Ashby Foods").

Each output line is ``kind<TAB>word`` or ``firm<TAB>word`` (lower case), sorted, after a
comment header. Deterministic: the same WordNet gives the same bytes.

    apt-get install wordnet-base            # Debian's copy of the WordNet 3.0 database
    python scripts/build_organisation_nouns.py [--wordnet /usr/share/wordnet]

WordNet 3.0 is (c) 2006 Princeton University, under the WordNet licence (kept beside the
output as ``wordnet_LICENSE.txt``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# the WordNet 3.0 file readers are the concept table's build script's (this folder is not a
# package; the script is also loaded by path from the tests)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_wordnet_concepts import _data as read_data  # noqa: E402
from build_wordnet_concepts import _index as read_index  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "graders" / "specifics" / "lexicons" / "organisation_nouns.txt"
# WordNet 3.0 noun synsets (data.noun offsets)
ORGANIZATION = "08008335"  # organization, organisation: a group of people who work together
TRADE = "01094725"  # commercial enterprise: the activity of providing goods and services
FIRMS = ("08061042", "08058098")  # business, concern; company (an institution doing business)
LOCATION = "00027167"  # location: a point or extent in space
QUANTITY = "00033615"  # measure, quantity, amount
PERSON = "00007846"  # person, individual
_WORD = re.compile(r"[a-z]+")


def _hypernyms(root: Path) -> dict[str, list[str]]:
    """synset -> the synsets it is a kind (``@``) or an instance (``@i``) of."""
    return {
        synset: [target for sym, target, pos, _ in ptrs if sym in ("@", "@i") and pos == "n"]
        for synset, (_, ptrs) in read_data(root, "n").items()
    }


def _closure(start: str, ups: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    stack = [start]
    while stack:
        s = stack.pop()
        if s not in seen:
            seen.add(s)
            stack.extend(ups.get(s, ()))
    return seen


def build(root: Path) -> str:
    index, ups = read_index(root, "n"), _hypernyms(root)
    cache: dict[str, set[str]] = {}

    def above(s: str) -> set[str]:
        if s not in cache:
            cache[s] = _closure(s, ups)
        return cache[s]

    lines = []
    for word, senses in sorted(index.items()):
        if not _WORD.fullmatch(word):
            continue
        kinds = [above(s) for s in senses]
        if (
            any({ORGANIZATION, TRADE} & k for k in kinds)
            and not any({LOCATION, PERSON} & k for k in kinds)
            and QUANTITY not in kinds[0]
        ):
            lines.append(f"kind\t{word}")
    firms = set()
    for word, senses in index.items():
        parts = word.split("_")
        two_words = len(parts) == 2 and all(_WORD.fullmatch(p) for p in parts)
        if two_words and senses and set(FIRMS) & above(senses[0]):
            firms.add(parts[0])
    lines += [f"firm\t{w}" for w in sorted(firms)]
    header = (
        "# Nouns of an organisation's kind, read from WordNet 3.0's noun hierarchy by\n"
        "# scripts/build_organisation_nouns.py (do not edit by hand; rerun it). WordNet 3.0\n"
        "# (c) 2006 Princeton University, under the licence in wordnet_LICENSE.txt.\n"
    )
    return header + "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if not (args.wordnet / "index.noun").is_file():
        raise SystemExit(
            f"error: no WordNet database in {args.wordnet}: install Debian's wordnet-base "
            "(apt-get install wordnet-base) or pass --wordnet DIR holding index.noun"
        )
    args.out.write_text(build(args.wordnet), encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
