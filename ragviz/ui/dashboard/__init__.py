"""The Dashboard page's renderers."""

__all__: list[str] = []
