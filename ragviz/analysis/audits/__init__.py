"""Audit sampling designs (issue 23): uniform, stratified and active draws, and the estimators that match them."""

__all__: list[str] = []
