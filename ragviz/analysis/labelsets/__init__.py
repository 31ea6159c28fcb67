"""What a label set is (judge, human, latest, one annotator's), over many rows, and the diff of two."""

__all__: list[str] = []
