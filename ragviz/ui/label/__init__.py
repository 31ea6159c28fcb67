"""The Label page's renderers and its request options."""

__all__: list[str] = []
