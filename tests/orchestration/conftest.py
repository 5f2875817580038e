import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doubles.fake_server import FakeLlmServer

REPO = Path(__file__).resolve().parents[2]
PEERLAKE = str(Path(sys.executable).with_name("peerlake"))


class ReviewServer(FakeLlmServer):
    """Loopback OpenAI-compatible server answering with a review in the protocol's JSON shape."""

    score: int | None = None  # None: vary 4..6 by request number

    def answer_text(self, number: int) -> str:
        score = self.score if self.score is not None else 4 + number % 3
        return json.dumps({"summary": "A synthetic review.", "strengths": ["clear"], "concerns": ["no baselines"],
                           "rationale": "p. 1 lacks baselines", "overall_score": score, "confidence": 3})


@pytest.fixture
def review_server():
    with ReviewServer() as server:
        yield server


@pytest.fixture
def prompts_copy(tmp_path):
    root = tmp_path / "prompts"
    shutil.copytree(REPO / "prompts" / "templates", root / "templates")
    shutil.copytree(REPO / "prompts" / "schemas", root / "schemas")
    return root


def run_cli(args, env_extra, timeout=900):
    # the test's own PEERLAKE_ settings only; the thread share under pytest-xdist (tests/conftest.py) too
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    env.update(env_extra)
    return subprocess.run([PEERLAKE, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout)
