"""Fixtures for the store tests: a deterministic embedder, tiny PDFs and document folders."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic_ai.embeddings import Embedder, EmbeddingModel, EmbeddingResult
from pydantic_ai.embeddings.result import EmbedInputType
from pydantic_ai.embeddings.settings import EmbeddingSettings

from tests.kb_fixture import build_small_kb, write_documents


@dataclass(init=False)
class HashEmbeddingModel(EmbeddingModel):
    """Bag-of-words hashed into ``dimensions`` buckets, L2-normalised: deterministic, offline."""

    __test__ = False

    def __init__(self, dimensions: int = 64, name: str = "hash-bow") -> None:
        super().__init__()
        self._dimensions = dimensions
        self._name = name
        self.calls = 0

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def system(self) -> str:
        return "test-hash"

    def vector(self, text: str) -> list[float]:
        vec = [0.0] * self._dimensions
        for word in re.findall(r"\w+", text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self._dimensions
            vec[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        inputs, _ = self.prepare_embed(inputs, settings)
        self.calls += 1
        return EmbeddingResult(
            embeddings=[self.vector(t) for t in inputs],
            inputs=inputs,
            input_type=input_type,
            model_name=self.model_name,
            provider_name=self.system,
        )


@pytest.fixture
def hash_embedder() -> Embedder:
    return Embedder(HashEmbeddingModel())


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    return write_documents(tmp_path / "docs")


@pytest.fixture
def small_kb(tmp_path: Path):
    kb = build_small_kb(tmp_path / "kb.lancedb")
    yield kb
    kb.close()


def _pdf_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A minimal valid PDF: one page per entry, each line drawn with Helvetica (empty list = no text layer)."""
    objects: list[bytes] = []
    n_pages = len(pages)
    # 1 catalog, 2 pages, 3 font, then (page, content) pairs, then optional info
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, lines in enumerate(pages):
        content_ref = 5 + 2 * i
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {content_ref} 0 R >>".encode()
        )
        if lines:
            ops = ["BT", "/F1 11 Tf", "14 TL", "72 720 Td"]
            for line in lines:
                ops.append(f"({_pdf_string(line)}) Tj T*")
            ops.append("ET")
        else:
            ops = ["0 0 1 rg", "72 600 200 100 re f"]  # a drawn rectangle: a page with no text
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    info_ref = None
    if title:
        objects.append(f"<< /Title ({_pdf_string(title)}) >>".encode("latin-1"))
        info_ref = len(objects)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R"
    if info_ref:
        trailer += f" /Info {info_ref} 0 R"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


@pytest.fixture
def pdf_bytes():
    return make_pdf
