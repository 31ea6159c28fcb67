"""The format probe (``ragviz.judge.probe``): what an endpoint's answer to the probe says about the formats it
honours, whatever the answer holds."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ragviz.judge.client import FORMAT_MODES
from ragviz.judge.probe import probe_format


@dataclass
class _Answer:
    text: str


class _Caller:
    """Answers every probe request with *text*, and records the modes asked."""

    def __init__(self, text: str):
        self.text, self.modes = text, []

    async def complete(self, messages, mode):
        self.modes.append(mode)
        return _Answer(self.text)


def _run(coroutine):
    """*coroutine* run to its end on a loop of its own, in a thread of its own (a browser test before this one in
    the same worker may leave a loop running in the main thread, where asyncio.run refuses to start)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_an_answer_nested_too_deep_to_read_is_no_json_object_not_a_crash():
    """A server (or a model) answering the probe with JSON nested past Python's recursion limit: the probe goes on to
    the next format, as for any answer that is not a JSON object (json.loads raised RecursionError out of ragviz
    label)."""
    deep = _Caller("[" * 100_000 + "]" * 100_000)
    assert _run(probe_format(deep)) == FORMAT_MODES[-1]
    assert deep.modes == list(FORMAT_MODES[:-1])
    honoured = _Caller('{"ok": true}')
    assert _run(probe_format(honoured)) == FORMAT_MODES[0]
