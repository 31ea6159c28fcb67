"""The judge's confidence from N samples: how far the samples agree with the labels kept (``agreement.py``, pure)
and the runs that ask for them, each sample cached like any answer (``run.py``)."""

__all__: list[str] = []
