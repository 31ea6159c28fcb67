"""What every page shares: HTML and escaping, charts, session state, cached results, roles, served and presentation mode."""

__all__: list[str] = []
