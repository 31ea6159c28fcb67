"""Audit samples in the app: the Review queue's audit mode and the estimates panel of the Dashboard and the Explainer."""

__all__: list[str] = []
