import os

import pytest

from llm_calls.embeddings import model_files


@pytest.fixture(scope="session")
def embedding_model_dir():
    """The installed embedding model (`make model` installs it); the tests that run it skip without it."""
    folder = model_files.model_dir()
    if not model_files.is_installed(folder):
        message = f"embedding model not installed at {folder}: run `make model`"
        if os.environ.get("PEERLAKE_REQUIRE_MODEL") == "1":  # `make test` installed it (tests/embedded.py)
            pytest.fail(message)
        pytest.skip(message)
    return folder
