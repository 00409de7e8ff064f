"""The CI gate: the runner (``run.run_gate``), check declarations (``spec``, ``checks/``), the
config (``config.load_config``), rows, artifacts and results, baselines and the store. Import
from the module that owns a name: this package re-exports nothing, so reading a stored result
never loads the runner."""
