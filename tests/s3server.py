"""A local S3-API server for tests: moto's server in a child process on a free loopback port.

Nothing here reaches the internet: moto answers the S3 API over HTTP from memory. One server per
pytest worker process (session-scoped fixture `s3_server` in tests/conftest.py); each test gets its own
bucket (`s3_lake_url`), so tests never see each other's objects.
"""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ACCESS_KEY = "peerlake-test"
SECRET_KEY = "peerlake-test-secret"  # moto accepts any credentials; these only must be set
REGION = "us-east-1"


@dataclass
class S3Server:
    endpoint_url: str
    process: subprocess.Popen

    @property
    def env(self) -> dict[str, str]:
        """The variables warehouse.settings.object_store_options() reads."""
        return {"AWS_ENDPOINT_URL": self.endpoint_url, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": REGION}

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint_url, aws_access_key_id=ACCESS_KEY,
                            aws_secret_access_key=SECRET_KEY, region_name=REGION)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start() -> S3Server:
    port = _free_port()
    # moto's own server, its conditional create made atomic (tests/moto_s3.py)
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("moto_s3.py")), "-H", "127.0.0.1",
                             "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "MOTO_ALLOW_NONEXISTENT_REGION": "true"})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{url}/moto-api/", timeout=1).close()
            return S3Server(url, proc)
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"the moto S3 server did not start on port {port}") from None
            time.sleep(0.1)
