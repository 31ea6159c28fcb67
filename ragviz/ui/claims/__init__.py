"""The Claims page's renderers: ``page.py`` (the file, which item, the items as the annotator sees them) and
``item.py`` (one item)."""

__all__: list[str] = []
