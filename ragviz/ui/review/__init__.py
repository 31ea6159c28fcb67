"""The Review page's renderers, its actions beyond the example on screen, the sentence editor and the other families panel."""

__all__: list[str] = []
