"""Where spanproof keeps state: snapshot store, caches, run store.

One directory holds everything, chosen in this order: an explicit ``--home``,
the ``SPANPROOF_HOME`` environment variable, else the per-user data directory.
Never the source tree, so a test run or a demo cannot leave files in a clone.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

ENV_VAR = "SPANPROOF_HOME"


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        home = Path(explicit)
    elif os.environ.get(ENV_VAR):
        home = Path(os.environ[ENV_VAR])
    else:
        home = Path(platformdirs.user_data_dir("spanproof", appauthor=False))
    home.mkdir(parents=True, exist_ok=True)
    return home
