"""Fitting and measuring the offline ``rules`` judge: its training rows (WiCE development
pairs plus synthetic pairs planted with the failure mutators) and the cross-validated fit,
ablation and held-out sensitivity behind ``spanproof judge``.

This is bench-level code: it uses the planted-failure mutators and the sensitivity
planting, so it lives above the verifier. The judge (``spanproof.graders.rules``) reads only
the parameters file this writes, never this package.
"""
