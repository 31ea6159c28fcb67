"""A labelling team's round in the label store: assignments with overlap, adjudications, guidelines (issue 26)."""

__all__: list[str] = []
