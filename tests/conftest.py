import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT.parent / "shared" / "vectors"


@pytest.fixture(scope="session")
def sm4_vectors():
    return json.loads((VECTORS / "sm4.json").read_text())


@pytest.fixture(scope="session")
def zuc_vectors():
    return json.loads((VECTORS / "zuc.json").read_text())
