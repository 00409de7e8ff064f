"""The CI gate: the runner, check declarations, config, results, the store."""
