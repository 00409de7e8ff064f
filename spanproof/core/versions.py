"""Version stamps carried by stored data, in a leaf module that every layer may import.

``SANITISER_VERSION`` names the behaviour of ``spanproof.web.sanitise``: snapshots record
it, and the store puts it in every run's provenance. It lives here rather than in the
sanitiser because the store sits below the agent layer and must never import it. Bump it
whenever the text the sanitiser returns for some input changes.
"""

from __future__ import annotations

SANITISER_VERSION = "2"
