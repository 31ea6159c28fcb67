"""Label quality: the kinds of issue a judge's key lists have, normalization, and the scan of a whole data set."""

__all__: list[str] = []
