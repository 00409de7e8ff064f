"""The bench: calibration (``calibration.calibrate``), sensitivity (``sensitivity.run_sensitivity``),
the injection suite (``injection.run_suite``), report grading (``grade_report.grade_report``),
the verify pipeline (``verify.verify_pairs``), and the metrics and statistics the gate and the
CLI share. Import from the module that owns a name: this package re-exports nothing, so using
one part never loads the others (the injection suite alone pulls in the whole agent)."""
