"""The judge through a Batch API (OpenAI, Azure OpenAI batch deployments, ``vllm run-batch``): half the price,
resumable across restarts. ``requests.py`` builds the live judge's requests as batch lines and files,
``ledger.py`` records every file, batch and request in the store, ``remote.py`` talks to the server,
``submit.py`` sends, ``results.py`` reads answers back with the live checks, ``collect.py`` applies them,
``cost.py`` prices a batch against live calls."""

__all__: list[str] = []
