"""Stress scripts run by hand (``python tests/stress/<name>.py``); pytest does not collect them."""
