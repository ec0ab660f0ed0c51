"""A local S3 server (moto) for the object-storage tests: loopback, a free port, bounded lifetime."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tests.serve.servers import free_port, launch, stop, wait_for_port

REGION = "us-east-1"
SETUP_ACTIONS = 3
"""Unauthenticated requests moto allows before it checks credentials (creating the test user)."""

POLICY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    access_key: str
    secret_key: str

    def env(self, **overrides: str) -> dict[str, str]:
        """The environment LanceDB (and boto3) read for this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_REGION": REGION,
            "AWS_ALLOW_HTTP": "true",
            **overrides,
        }

    def create_bucket(self, name: str) -> None:
        import boto3

        boto3.client(
            "s3", endpoint_url=self.endpoint, region_name=REGION,
            aws_access_key_id=self.access_key, aws_secret_access_key=self.secret_key,
        ).create_bucket(Bucket=name)


@contextmanager
def moto_server() -> Iterator[S3Server]:
    """Start moto on 127.0.0.1 with credential checks on; a user with s3:* is created first."""
    import boto3

    port = free_port()
    process = launch(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        {"INITIAL_NO_AUTH_ACTION_COUNT": str(SETUP_ACTIONS), "PATH": "/usr/bin:/bin"},
    )
    try:
        wait_for_port(port, process)
        endpoint = f"http://127.0.0.1:{port}"
        iam = boto3.client(
            "iam", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="setup", aws_secret_access_key="setup"
        )
        iam.create_user(UserName="kb")
        iam.put_user_policy(UserName="kb", PolicyName="s3", PolicyDocument=json.dumps(POLICY))
        key = iam.create_access_key(UserName="kb")["AccessKey"]
        yield S3Server(endpoint, key["AccessKeyId"], key["SecretAccessKey"])
    finally:
        stop(process)
