"""Judge versions: named, immutable judge configurations (``spec.py``), their prompts with few-shot examples
and rubric notes (``prompt.py``), stored, created and promoted (``registry.py``), compared on a test set the
prompts never saw (``compare.py``)."""

__all__: list[str] = []
