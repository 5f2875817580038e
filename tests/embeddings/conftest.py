import pytest

from peerlake.llm_calls.embeddings import model_files
from tests.embedded import unavailable


@pytest.fixture(scope="session")
def embedding_model_dir():
    """The installed embedding model (`make model` installs it); the tests that run it skip without it."""
    folder = model_files.model_dir()
    if not model_files.is_installed(folder):
        unavailable(f"embedding model not installed at {folder}: run `make model`")
    return folder
