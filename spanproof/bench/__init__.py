"""The bench: calibration, sensitivity, the injection suite, report grading, metrics and statistics the gate and the CLI share."""
