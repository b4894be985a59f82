"""The delivery worker, a process of its own."""

from .loop import Worker

__all__ = ["Worker"]
