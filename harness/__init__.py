"""Servers that the tests and the benchmarks start: gunicorn, the webhook worker, nginx in front,
receivers, free ports.

Not part of the service: setup.cfg ships only ``app``.
"""
