"""Judge versions against people: agreement per label kind with intervals, and where the judge and people disagree."""

__all__: list[str] = []
