"""The CI gate: the runner, check declarations, config, results, the store."""

from spanproof.core.lazy import lazy_exports

_EXPORTS = {
    "run_gate": "spanproof.gate.run",
    "load_config": "spanproof.gate.config",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
