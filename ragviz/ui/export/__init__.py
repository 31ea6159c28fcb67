"""The Export page's renderers: ``page.py`` (the progress figures, what an export holds, the downloads and the
command line) and ``table.py`` (the per-example metrics table)."""

__all__: list[str] = []
