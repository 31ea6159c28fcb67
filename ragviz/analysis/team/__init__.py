"""A labelling team's round read from the store: each example's state and gold labels, agreement
between annotators (Krippendorff's alpha), progress and the annotator dashboard (issue 26)."""

__all__: list[str] = []
