"""Everything the Dashboard shows: figures in one pass, per-row figures on columns, aggregates, triage, baselines."""

__all__: list[str] = []
