"""Fixtures shared by every test; plain helpers live in ``support.py``."""
from __future__ import annotations

from pathlib import Path

import pytest

from support import CORPUS


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not beside the repository")
    return CORPUS
