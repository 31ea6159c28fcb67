"""Issue 14, judge endpoints: the judge through the ``openai`` package's own client and transport, against
the local OpenAI-compatible server (tests/openai_stub_server.py): reasoning models (no temperature unless
set), Azure OpenAI's deployment path, a forward proxy on 127.0.0.1 (HTTP_PROXY / HTTPS_PROXY, NO_PROXY,
SSL_CERT_FILE), OPENAI_BASE_URL in `ragviz label`, the response-format flag."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl

import pytest

from ragviz.cli import label as cli_label
from ragviz.cli.main import build_parser, main
from ragviz.judge import JudgeCache, judge_examples
from ragviz.judge import client as judge_client
from ragviz.judge.endpoint import endpoint_access
from ragviz.store.label_store import LabelStore
from tests.http_proxy import ForwardProxy
from tests.judge.test_server import KEY, make_example, settings_for
from tests.openai_stub_server import StubServer
from tests.sample import SAMPLE_DATA

PROXY_VARS = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
)


@pytest.fixture
def server():
    with StubServer() as stub:
        yield stub


@pytest.fixture
def no_proxy_env(monkeypatch):
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def judge(examples, settings, tmp_path):
    with LabelStore(tmp_path / "db") as store, JudgeCache(tmp_path / "db") as cache:
        summary = judge_examples(examples, settings, cache, store)
        failures = cache.failures(summary.run_id)
    return summary, failures


def test_cli_choices_agree_with_the_client():
    assert cli_label.RESPONSE_FORMATS == judge_client.RESPONSE_FORMATS
    assert cli_label.REASONING_EFFORTS == judge_client.REASONING_EFFORTS


# -- reasoning models -----------------------------------------------------------------------------------


def test_reasoning_models_get_no_temperature_unless_set(server, tmp_path, no_proxy_env):
    for model in ("o3", "o4-mini", "gpt-5-mini"):
        summary, failures = judge([make_example(1)], settings_for(server, model=model), tmp_path / model)
        assert summary.n_judged == 1 and failures == []
        assert "temperature" not in server.requests[-1].body and server.requests[-1].status == 200
    summary, failures = judge([make_example(2)], settings_for(server, model="gpt-4o-mini"), tmp_path / "chat")
    assert server.requests[-1].body["temperature"] == 0.0 and summary.n_judged == 1

    # set: sent as set (here refused by the server, as OpenAI's API does)
    summary, failures = judge([make_example(3)], settings_for(server, model="o3", temperature=0.0), tmp_path / "set")
    assert summary.n_failed == 1 and "HTTP 400" in failures[0].error and "temperature" in failures[0].error
    summary, _ = judge(
        [make_example(4)], settings_for(server, model="o4-mini", reasoning_effort="high"), tmp_path / "effort"
    )
    assert server.requests[-1].body["reasoning_effort"] == "high" and summary.n_judged == 1


def test_a_server_refusing_temperature_for_an_unknown_name_gets_none_after_one_refusal(server, tmp_path):
    server.reasoning_models = ("house-reasoner",)
    examples = [make_example(i) for i in range(3)]
    summary, failures = judge(examples, settings_for(server, model="house-reasoner", concurrency=1), tmp_path)
    assert summary.n_judged == 3 and failures == []
    assert [r.status for r in server.requests] == [400, 200, 200, 200]  # the refusal is not an attempt
    assert ["temperature" in r.body for r in server.requests] == [True, False, False, False]


def test_label_flags_reach_the_request(server, tmp_path, no_proxy_env):
    args = build_parser(["label"]).parse_args(
        ["label", "x", "--model", "o3", "-o", "o", "--temperature", "1", "--reasoning-effort", "low"]
    )
    settings = cli_label.settings_from_args(args, environ={})
    assert (settings.temperature, settings.reasoning_effort, settings.response_format) == (1.0, "low", "auto")
    with pytest.raises(SystemExit):
        build_parser(["label"]).parse_args(["label", "x", "--model", "m", "-o", "o", "--temperature", "3"])
    with pytest.raises(SystemExit):
        build_parser(["label"]).parse_args(["label", "x", "--model", "m", "-o", "o", "--response-format", "yaml"])


# -- Azure OpenAI ---------------------------------------------------------------------------------------


def test_azure_calls_the_deployment_path_with_the_api_key_header(server, tmp_path, no_proxy_env):
    settings = settings_for(
        server,
        base_url=None,
        azure_endpoint=server.root_url,
        azure_deployment="judge-prod",
        api_version="2024-10-21",
        model="o4-mini",
    )
    summary, failures = judge([make_example(1)], settings, tmp_path)
    assert summary.n_judged == 1 and failures == []
    [request] = server.requests
    assert request.path == "/openai/deployments/judge-prod/chat/completions?api-version=2024-10-21"
    assert request.api_key == KEY and request.authorization == ""
    assert "temperature" not in request.body  # o4-mini behind the deployment
    assert settings.endpoint == f"{server.root_url}/openai/deployments/judge-prod"  # the cache's endpoint


def test_ragviz_label_reads_the_azure_environment(server, tmp_path, no_proxy_env, capsys):
    no_proxy_env.setenv("AZURE_OPENAI_ENDPOINT", server.root_url)
    no_proxy_env.setenv("AZURE_OPENAI_API_KEY", KEY)
    no_proxy_env.setenv("OPENAI_API_VERSION", "2025-01-01-preview")
    no_proxy_env.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "out.jsonl"
    argv = ["label", str(SAMPLE_DATA), "--model", "gpt-4o-mini", "--azure-deployment", "mini", "--limit", "2"]
    code = main([*argv, "--db", str(tmp_path / "db"), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    paths = {r.path for r in server.requests}
    assert paths == {"/openai/deployments/mini/chat/completions?api-version=2025-01-01-preview"}
    assert {r.api_key for r in server.requests} == {KEY} and len(out.read_text().splitlines()) == 2


def test_the_servers_azure_key_goes_only_to_its_azure_endpoint():
    env = {"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com/", "AZURE_OPENAI_API_KEY": "azure-secret"}
    own = endpoint_access("", None, served=True, environ=env)
    assert (own.base_url, own.api_key, own.own, own.azure) == (
        "https://res.openai.azure.com",
        "azure-secret",
        True,
        True,
    )
    other = endpoint_access("http://127.0.0.1:9/v1", None, served=False, environ=env)
    assert other.api_key != "azure-secret" and not other.azure


# -- OPENAI_BASE_URL in the CLI -------------------------------------------------------------------------


def test_ragviz_label_honours_openai_base_url(server, tmp_path, no_proxy_env, capsys):
    no_proxy_env.setenv("OPENAI_BASE_URL", server.base_url)
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "out.jsonl"
    code = main(
        ["label", str(SAMPLE_DATA), "--model", "gpt-4o-mini", "--limit", "2", "--db", str(tmp_path / "db")]
        + ["-o", str(out)]
    )
    assert code == 0, capsys.readouterr().err
    assert len(server.requests) == 3  # one format probe + two examples
    assert {r.authorization for r in server.requests} == {f"Bearer {KEY}"}


# -- proxies and CA certificates --------------------------------------------------------------------------


def test_http_proxy_carries_the_calls_when_no_proxy_is_cleared(server, tmp_path, no_proxy_env):
    with ForwardProxy() as proxy:
        no_proxy_env.setenv("HTTP_PROXY", proxy.url)
        no_proxy_env.setenv("NO_PROXY", "")
        summary, failures = judge([make_example(1), make_example(2)], settings_for(server), tmp_path / "a")
        assert summary.n_judged == 2 and failures == []
        target = f"POST {server.base_url}/chat/completions"
        assert proxy.seen == [target, target]

        no_proxy_env.setenv("NO_PROXY", "127.0.0.1")  # bypassed as NO_PROXY says
        summary, _ = judge([make_example(3)], settings_for(server), tmp_path / "b")
        assert summary.n_judged == 1 and len(proxy.seen) == 2 and len(server.requests) == 3


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return folder / "cert.pem", folder / "key.pem"


def test_https_goes_through_the_proxy_and_trusts_ssl_cert_file(tmp_path, no_proxy_env, tls_files):
    cert, key = tls_files
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with StubServer(ssl_context=context) as server, ForwardProxy() as proxy:
        assert server.base_url.startswith("https://")
        no_proxy_env.setenv("HTTPS_PROXY", proxy.url)
        no_proxy_env.setenv("NO_PROXY", "")
        # not trusted without the CA file: the connection fails, nothing is judged
        summary, failures = judge([make_example(1)], settings_for(server, max_attempts=1), tmp_path / "a")
        assert summary.n_failed == 1 and "connection failed" in failures[0].error and server.requests == []

        no_proxy_env.setenv("SSL_CERT_FILE", str(cert))
        summary, failures = judge([make_example(2)], settings_for(server), tmp_path / "b")
        assert summary.n_judged == 1 and failures == []
        port = server.base_url.split(":")[2].split("/")[0]
        assert proxy.seen[-1] == f"CONNECT 127.0.0.1:{port}" and len(server.requests) == 1


def test_the_key_goes_in_a_header_only_through_the_proxy(server, tmp_path, no_proxy_env):
    with ForwardProxy() as proxy:
        no_proxy_env.setenv("HTTP_PROXY", proxy.url)
        no_proxy_env.setenv("NO_PROXY", "")
        judge([make_example(1)], settings_for(server), tmp_path)
    assert KEY not in json.dumps(proxy.seen) and server.requests[0].authorization == f"Bearer {KEY}"


# -- the Label page passes the same settings ------------------------------------------------------------


def _label_page(server: StubServer, model: str, base_url: str = ""):
    from tests.apptest_helpers import open_page

    at = open_page("pages/label.py")
    at.text_input(key="label.model").set_value(model)
    at.text_input(key="label.base_url").set_value(base_url)
    at.segmented_control(key="label.selection").set_value("first_k").run()
    at.number_input(key="label.k").set_value(1).run()
    return at


def test_the_label_page_passes_temperature_reasoning_effort_and_format(app_env, no_proxy_env, server):
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    at = _label_page(server, "o4-mini", server.base_url)
    at.text_input(key="label.api_key").set_value(KEY)
    at.selectbox(key="label.reasoning_effort").set_value("high")
    at.selectbox(key="label.response_format").set_value("json_object").run()
    at.button(key="label.run").click().run(timeout=60)
    assert not at.exception
    [call] = server.requests  # a fixed format: no probe
    assert call.body["reasoning_effort"] == "high" and "temperature" not in call.body
    assert call.body["response_format"] == {"type": "json_object"} and call.status == 200

    at.text_input(key="label.model").set_value("gpt-4o-mini")
    at.number_input(key="label.temperature").set_value(0.5)
    at.selectbox(key="label.reasoning_effort").set_value("not sent").run()
    at.button(key="label.run").click().run(timeout=60)
    assert server.requests[-1].body["temperature"] == 0.5 and "reasoning_effort" not in server.requests[-1].body


def test_the_label_page_uses_the_servers_azure_deployment(app_env, no_proxy_env, server):
    no_proxy_env.setenv("AZURE_OPENAI_ENDPOINT", server.root_url)
    no_proxy_env.setenv("AZURE_OPENAI_API_KEY", KEY)
    no_proxy_env.delenv("OPENAI_API_KEY", raising=False)
    at = _label_page(server, "judge-prod")
    assert any("AZURE_OPENAI_API_KEY" in c.value for c in at.caption)
    at.button(key="label.run").click().run(timeout=60)
    assert not at.exception and server.calls
    assert {r.path.split("?")[0] for r in server.requests} == {"/openai/deployments/judge-prod/chat/completions"}
    assert {r.api_key for r in server.requests} == {KEY}


def test_the_label_page_says_cost_unknown_for_an_unlisted_model(app_env, no_proxy_env, server):
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    at = _label_page(server, "my-local-llama", server.base_url)
    [cost] = [m for m in at.metric if m.label == "Cost (est.)"]
    assert cost.value == "unknown" and any("Cost unknown" in c.value for c in at.caption)
    at.text_input(key="label.model").set_value("gpt-4o-mini").run()
    [cost] = [m for m in at.metric if m.label == "Cost (est.)"]
    assert cost.value.startswith("$") and not any("Cost unknown" in c.value for c in at.caption)


def test_ragviz_label_dry_run_prints_the_estimate_and_calls_nothing(server, tmp_path, no_proxy_env, capsys):
    out = tmp_path / "out.jsonl"
    for model, cost in (("my-local-llama", "estimated cost unknown ('my-local-llama' is not in genai-prices"),
                        ("gpt-4o-mini", "estimated cost $")):  # fmt: skip
        argv = ["label", str(SAMPLE_DATA), "--model", model, "--base-url", server.base_url, "--dry-run"]
        assert main([*argv, "--db", str(tmp_path / "db"), "-o", str(out)]) == 0
        err = capsys.readouterr().err
        assert cost in err and "calls needed" in err and "dry run" in err
    assert server.requests == [] and not out.exists()
