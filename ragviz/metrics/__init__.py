"""The metric families, one module each; the formula is in each function's docstring."""

__all__: list[str] = []
