"""Gating: whether answers may ship. Acceptance criteria and release decisions per claim,
case and run (004, C7), numbers traceable to the evidence, baselines (C4) and judge
calibration (C5). Reads verdicts; never fetches or judges."""
