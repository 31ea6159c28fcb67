"""The Explainer page's renderers and its markup."""

__all__: list[str] = []
