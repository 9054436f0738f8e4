"""An S3 API on 127.0.0.1 for the replication and object-storage tests: moto's server mode, started and stopped
by the ``s3`` fixture. It checks credentials (IAM on), so a wrong key is refused as a real store refuses it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from console_kit import free_port

REGION = "us-east-1"
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


@dataclass
class S3:
    endpoint: str
    key_id: str
    secret: str

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION, aws_access_key_id=self.key_id,
                            aws_secret_access_key=self.secret)

    def bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def env(self) -> dict[str, str]:
        return {"AWS_ACCESS_KEY_ID": self.key_id, "AWS_SECRET_ACCESS_KEY": self.secret, "AWS_REGION": REGION}


def start() -> tuple[subprocess.Popen, S3]:
    """moto_server on a free loopback port; its first three requests (unauthenticated) make the one IAM user
    whose keys every test uses, and from then on a request must be signed with them."""
    import boto3

    port = free_port()
    command = [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)]
    process = subprocess.Popen(command, env={"INITIAL_NO_AUTH_ACTION_COUNT": "3", "PATH": "/usr/bin:/bin"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(endpoint + "/moto-api/", timeout=2).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"moto_server did not start on {endpoint}") from None
            time.sleep(0.1)
    iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="setup",
                       aws_secret_access_key="setup")
    iam.create_user(UserName="scope-recall")
    key = iam.create_access_key(UserName="scope-recall")["AccessKey"]
    iam.put_user_policy(UserName="scope-recall", PolicyName="all", PolicyDocument=ALLOW_ALL)
    return process, S3(endpoint, key["AccessKeyId"], key["SecretAccessKey"])


def replicate_until_synced(store, location) -> None:
    """Run Litestream until the replica holds the store's newest state, then stop it."""
    from scope_recall_engine import replication

    shipped = replication.status(store, location).replica_txid
    litestream = replication.start(store, location, 0.5, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while replication.status(store, location).replica_txid <= shipped:
            assert time.monotonic() < deadline, "Litestream shipped nothing within 30 s"
            time.sleep(0.2)
    finally:
        litestream.terminate()
        litestream.wait(timeout=10)
