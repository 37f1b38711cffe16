"""Benchmarks of pytest-citations (see README.md); ``python -m benchmarks.engine`` runs one."""
