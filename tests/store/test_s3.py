"""A knowledge base on object storage: the CLI and the app against a local S3 server (moto)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.kb_fixture import DOCUMENTS
from tests.store.s3 import moto_server
from tests.serve.servers import ROOT

pytest.importorskip("moto")
pytestmark = pytest.mark.slow

URI = "s3://team/kb"


@pytest.fixture(scope="module")
def s3():
    with moto_server() as server:
        server.create_bucket("team")
        yield server


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    root = tmp_path_factory.mktemp("docs")
    for name, text in DOCUMENTS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "haiku_tui.cli", *args],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )


def test_add_search_ask_info_on_s3(s3, docs):
    env = s3.env()
    added = cli("add", str(docs), "--db", URI, env=env)
    assert added.returncode == 0, added.stderr
    assert f"added {len(DOCUMENTS)}" in added.stdout

    found = cli("search", "sourdough starter feeding", "--db", URI, env=env)
    assert found.returncode == 0, found.stderr
    assert "Sourdough bread" in found.stdout

    answer = cli("ask", "How often should I feed a sourdough starter?", "--json", "--db", URI, env=env)
    assert answer.returncode == 0, answer.stderr
    data = json.loads(answer.stdout)
    assert "[1]" in data["answer"] and data["status"] == "grounded"
    assert data["citations"][0]["title"] == "Sourdough bread"

    info = cli("info", "--db", URI, env=env)
    assert info.returncode == 0, info.stderr
    assert URI in info.stdout and f"documents        {len(DOCUMENTS)}" in info.stdout

    # the objects really are in the bucket
    import boto3

    client = boto3.client(
        "s3",
        endpoint_url=s3.endpoint,
        aws_access_key_id=s3.access_key,
        aws_secret_access_key=s3.secret_key,
        region_name="us-east-1",
    )
    keys = [o["Key"] for o in client.list_objects_v2(Bucket="team", Prefix="kb/").get("Contents", [])]
    assert any(k.startswith("kb/chunks.lance/") for k in keys), keys


@pytest.mark.parametrize(
    ("uri", "overrides", "expected"),
    [
        ("s3://no-such-bucket/kb", {}, "bucket 'no-such-bucket' does not exist"),
        (URI, {"AWS_SECRET_ACCESS_KEY": "wrong"}, "refused access to s3://team/kb (SignatureDoesNotMatch)"),
        (URI, {"AWS_ACCESS_KEY_ID": "AKIAUNKNOWN"}, "refused access to s3://team/kb (InvalidAccessKeyId)"),
        (URI, {"AWS_ENDPOINT_URL": "http://127.0.0.1:9"}, "cannot reach the object store at http://127.0.0.1:9"),
        (URI, {"AWS_ALLOW_HTTP": "false"}, "is plain http: set AWS_ALLOW_HTTP=true"),
    ],
    ids=["missing-bucket", "bad-secret", "unknown-key", "unreachable", "plain-http"],
)
def test_object_store_faults_are_one_clear_line(s3, uri, overrides, expected):
    result = cli("search", "starter", "--db", uri, env=s3.env(**overrides))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("haiku-tui: error: "), result.stderr
    assert expected in lines[0], lines[0]
    assert "RetryError" not in lines[0] and "Location {" not in lines[0]


async def test_the_app_starts_and_answers_on_s3(s3, docs, monkeypatch, tmp_path):
    from haiku_tui.agent import AgentConfig
    from haiku_tui.sessions import SessionStore
    from haiku_tui.store import KnowledgeBase
    from haiku_tui.tui.app import HaikuApp
    from tests.tui.conftest import ask

    for key, value in s3.env().items():
        monkeypatch.setenv(key, value)
    KnowledgeBase.open(URI).add(sorted(docs.iterdir()))  # unchanged files are skipped
    store = SessionStore(tmp_path / "sessions.db")
    app = HaikuApp(AgentConfig(model="extractive", db=URI), store=store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        turn = app.main.turn_log.turns[0]
        assert turn.state == "grounded" and turn.citations == (1,)
        assert "need light, not heat" in turn.answer.source
        assert URI in str(app.query_one("#status").render())
    store.close()
