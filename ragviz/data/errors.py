"""The data floor's door to :class:`ragviz.errors.BadInput` (most of ragviz imports it from here)."""

from __future__ import annotations

from ragviz.errors import BadInput

__all__ = ["BadInput"]
