"""The team's pages: the Review page's assignment queue and guidelines panel, the Team page (progress, the
annotator dashboard, guidelines, assigning) and its adjudication view."""

__all__: list[str] = []
