"""Issue 14, `pip install ragviz` then `ragviz app`: the wheel carries app.py and pages/ (and nothing else of
the repository root), installs into a fresh venv outside the checkout and serves a healthy page from
there; `ragviz --version`, shell completion, SPDX license metadata."""

from __future__ import annotations

import email
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from setuptools import find_packages

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (README: 3.10+): its backport, requirements-dev.txt
    import tomli as tomllib

from ragviz.cli.app import app_script, streamlit_command
from ragviz.data.load import load
from ragviz.version import __version__
from tests.conftest import free_port
from tests.sample import ROOT, SAMPLE_DATA

pytestmark = pytest.mark.slow  # builds a wheel and fresh venvs: `make test` runs it, `make test-fast` does not

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_package_list_names_every_ragviz_package():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = set(find_packages(str(ROOT), include=["ragviz", "ragviz.*"]))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == {"ragviz_app", "ragviz_app.pages"}


def test_spdx_license_metadata():
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert PYPROJECT["build-system"]["requires"] == ["setuptools>=77"]


def test_the_app_script_of_a_checkout_and_the_streamlit_flags():
    assert app_script() == ROOT / "serve.py"
    command = streamlit_command(ROOT / "serve.py", 8999, "0.0.0.0", headless=True)
    flags = dict(zip(command[5::2], command[6::2]))
    assert command[1:4] == ["-m", "streamlit", "run"]
    assert flags == {
        "--server.port": "8999",
        "--server.address": "0.0.0.0",
        "--server.headless": "true",
        "--server.showEmailPrompt": "false",
        "--browser.gatherUsageStats": "false",
        "--client.toolbarMode": "viewer",
        "--client.disableDataExport": "true",
        "--runner.postScriptGC": "false",
        "--runner.magicEnabled": "false",
        "--client.showErrorDetails": "none",  # served: no traceback, path or SQL in a browser
    }
    assert "--client.showErrorDetails" not in streamlit_command(ROOT / "app.py", 8999, "127.0.0.1", headless=True)


def test_version_and_bash_completion_of_a_subcommand(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    version = subprocess.run([sys.executable, "-m", "ragviz", "--version"], capture_output=True, text=True, env=env)
    assert version.stdout.strip() == f"ragviz {__version__}"
    script = subprocess.run(
        [sys.executable, "-m", "ragviz", "completion", "bash"], capture_output=True, text=True, env=env, check=True
    ).stdout
    (tmp_path / "ragviz.bash").write_text(script)
    # as `complete -F` calls it: COMP_WORDS / COMP_CWORD set, arguments command, current word, previous word
    probe = (
        f"source {tmp_path / 'ragviz.bash'}\n"
        'COMP_WORDS=(ragviz lab); COMP_CWORD=1; _ragviz ragviz lab ragviz; echo "1:${COMPREPLY[*]}"\n'
        "COMP_WORDS=(ragviz label x --response-f); COMP_CWORD=3; _ragviz ragviz --response-f x\n"
        'echo "2:${COMPREPLY[*]}"\n'
        "COMP_WORDS=(ragviz label x --response-format json_); COMP_CWORD=4\n"
        '_ragviz ragviz json_ --response-format; echo "3:${COMPREPLY[*]}"\n'
        'COMP_WORDS=(ragviz completion z); COMP_CWORD=2; _ragviz ragviz z completion; echo "4:${COMPREPLY[*]}"\n'
        "complete -p ragviz\n"
    )
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[:4] == ["1:label", "2:--response-format", "3:json_schema json_object", "4:zsh"]
    assert out[4] == "complete -o filenames -F _ragviz ragviz"
    zsh = subprocess.run(
        [sys.executable, "-m", "ragviz", "completion", "zsh"], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert "bashcompinit" in zsh and "complete -o filenames -F _ragviz ragviz" in zsh
    if shutil.which("zsh"):  # as bashcompinit calls it (zsh's arrays count from 1)
        (tmp_path / "ragviz.zsh").write_text(zsh)
        zprobe = (
            f"source {tmp_path / 'ragviz.zsh'}\n"
            "COMP_WORDS=(ragviz label x --response-format json_); COMP_CWORD=4\n"
            '_ragviz ragviz json_ --response-format; echo "3:${COMPREPLY[*]}"\n'
            'COMP_WORDS=(ragviz lab); COMP_CWORD=1; _ragviz ragviz lab ragviz; echo "1:${COMPREPLY[*]}"\n'
        )
        zout = subprocess.run(
            ["zsh", "-f", "-c", zprobe], capture_output=True, text=True, env={**env, "HOME": str(tmp_path)}
        )
        # zsh's compgen stand-in leaves the filtering by prefix to zsh's own matching (compadd)
        values, commands = zout.stdout.splitlines()
        assert values == "3:auto json_schema json_object text", zout.stderr
        assert "label" in commands.split() and "--response-format" not in commands


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the files git tracks (as they are in the work tree): setuptools builds
    in the source tree, and its build/ must not land in the checkout."""
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
        check=True,
        cwd=out,
        timeout=600,
    )
    [built] = out.glob("ragviz-*.whl")
    return built


def test_the_wheel_holds_app_py_and_pages_and_nothing_else_of_the_root(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = email.message_from_bytes(zf.read(f"ragviz-{__version__}.dist-info/METADATA"))
    app_files = sorted(n for n in names if n.startswith("ragviz_app/"))
    pages = sorted(f"ragviz_app/pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert app_files == sorted(["ragviz_app/app.py", "ragviz_app/serve.py", *pages])
    assert {n.split("/")[0] for n in names} == {"ragviz", "ragviz_app", f"ragviz-{__version__}.dist-info"}
    assets = {"ragviz/ui/review/sentence_editor/editor.js", "ragviz/ui/review/sentence_editor/editor.css"}
    assets |= {"ragviz/ui/core/page_nav/page_nav.js", "ragviz/ui/core/page_nav/page_nav.css"}  # the sidebar's page list
    assets |= {"ragviz/pyproject.toml"}  # Streamlit's manifest naming the components' folders (served as files)
    assert assets <= set(names)  # the Review page's text editor and the page list ship with the package
    assert all(
        n.endswith(".py") for n in names if not n.startswith(f"ragviz-{__version__}.dist-info") and n not in assets
    )
    assert metadata["License-Expression"] == "Apache-2.0"
    assert f"ragviz-{__version__}.dist-info/licenses/LICENSE" in names


@dataclass(frozen=True)
class Venv:
    """A fresh venv outside the checkout with ragviz installed from the wheel; *env* runs it with nothing
    from the checkout (no PYTHONPATH)."""

    bin: Path
    site: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def wheel_venv(wheel, tmp_path_factory) -> Venv:
    # Its dependencies come from this environment's site-packages (a .pth line, like
    # --system-site-packages) so nothing is downloaded again, ragviz from the wheel.
    root = tmp_path_factory.mktemp("venv")
    venv = root / "venv"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing from the checkout
    env["HOME"] = str(root)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    bin_dir = venv / "bin"
    site = Path(
        subprocess.run(
            [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--quiet", "--no-deps"]
        + [str(wheel)],
        check=True,
        timeout=300,
        env=env,
    )
    # after the install: pip must not see this environment's (editable) ragviz as already installed
    (site / "shared-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return Venv(bin_dir, site, env)


def start_app(venv: Venv, args: list[str], env: dict[str, str], cwd: Path, log: Path) -> subprocess.Popen:
    """``ragviz app ARGS`` from the venv, stdin closed (no terminal: a service, nohup, CI), output to *log*."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            [str(venv.bin / "ragviz"), "app", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def wait_healthy(proc: subprocess.Popen, url: str, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"exited {proc.returncode}: " + log.read_text()[-3000:]
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError("not healthy in time: " + log.read_text()[-3000:])


def stop_app(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)


@pytest.mark.browser
def test_ragviz_app_from_the_installed_wheel_serves_a_healthy_page(wheel_venv, tmp_path, page):
    env = wheel_venv.env | {
        "HOME": str(tmp_path),
        "RAGVIZ_DB": str(tmp_path / "labels.db"),
        "RAGVIZ_ANNOTATOR": "wheel-tester",
    }
    where = subprocess.run(
        [
            str(wheel_venv.bin / "python"),
            "-c",
            "import ragviz, ragviz.cli.app as a; print(ragviz.__file__); print(a.app_script()); print(a.app_script().with_name('app.py'))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    ).stdout.split()
    assert all(Path(p).is_relative_to(wheel_venv.site) for p in where), where  # ragviz and app.py from the venv
    version = subprocess.run([str(wheel_venv.bin / "ragviz"), "--version"], capture_output=True, text=True, env=env)
    assert version.stdout.strip() == f"ragviz {__version__}"

    port = free_port()
    log = tmp_path / "app.log"
    proc = start_app(
        wheel_venv, [str(SAMPLE_DATA), "--port", str(port), "--host", "127.0.0.1", "--headless"], env, tmp_path, log
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(proc, url, log)
        page.goto(url, timeout=60_000)
        page.wait_for_function("document.title.includes('ragviz')", timeout=60_000)
        n = len(load([str(SAMPLE_DATA)]).dataset)
        page.get_by_text(f"Loaded: {n} examples").first.wait_for(timeout=60_000)  # the DATA given is open
        assert page.locator("[data-testid='stException']").count() == 0
        # the Review page's text editor is found through the installed package's manifest and served as a file
        with urllib.request.urlopen(f"{url}/_stcore/bidi-components/ragviz.sentence_editor/editor.js") as r:
            assert r.status == 200 and b"renderContext" in r.read()
    finally:
        stop_app(proc)


@pytest.mark.parametrize("display", [":99", None], ids=["with-a-display", "no-display"])
def test_a_first_start_in_a_fresh_home_asks_nothing_and_opens_the_browser_when_it_may(wheel_venv, tmp_path, display):
    """Issue 29.1: no ~/.streamlit/credentials.toml and no terminal: `ragviz app` (no --headless) used to
    stop at Streamlit's "Email:" prompt and exit. Now it serves at once; with a display it asks the
    desktop to open the URL (xdg-open, here a stand-in that writes down what it was asked), without one
    it prints the URL only; it never says usage statistics are collected (they are off)."""
    home = tmp_path / "home"
    home.mkdir()
    tools = tmp_path / "bin"
    tools.mkdir()
    opened = tmp_path / "opened.txt"
    xdg_open = tools / "xdg-open"
    xdg_open.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    xdg_open.chmod(0o755)
    env = {k: v for k, v in wheel_venv.env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    env |= {"HOME": str(home), "RAGVIZ_DB": str(tmp_path / "labels.db"), "PATH": f"{tools}:{env['PATH']}"}
    if display is not None:
        env["DISPLAY"] = display
    port = free_port()
    log = tmp_path / "app.log"
    proc = start_app(wheel_venv, [str(SAMPLE_DATA), "--port", str(port), "--host", "127.0.0.1"], env, tmp_path, log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(proc, url, log)
        if display is not None:
            deadline = time.monotonic() + 30
            while not (opened.exists() and opened.read_text().strip()) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert opened.read_text().split() in ([f"http://localhost:{port}"], [url])
    finally:
        stop_app(proc)
    output = log.read_text()
    assert "Email" not in output and "collects usage statistics" not in output, output
    assert f":{port}" in output  # the URL is printed
    assert not (home / ".streamlit" / "credentials.toml").exists()
    if display is None:
        assert not opened.exists()
