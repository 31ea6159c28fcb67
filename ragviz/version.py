"""The ragviz version (one place; ``pyproject.toml`` carries the same number)."""

__all__ = ["__version__"]


__version__ = "0.1.0"
