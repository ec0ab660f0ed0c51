"""Precision and recall of the claim support check's "weak support" flag.

    python -m bench.bench_support [--no-embedder]

Ingests the pydoc topics and the bundled guide into a temporary knowledge base, locates each
pair's chunks (``bench/sets/support_pairs.py``), scores every claim against its supporting chunk and
against the swapped one, chooses the threshold on the DEV pairs, and reports TEST precision and
recall of "weak support" (a swapped citation is the positive class).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.corpora.pydoc import write_corpus
from bench.sets.support_pairs import DEV, TEST, Locator, Pair
from haiku_tui.capabilities.support import support_score
from haiku_tui.store import KnowledgeBase

GUIDE = Path(__file__).resolve().parent.parent / "haiku_tui" / "guide"


def _norm(text: str) -> str:
    return " ".join(text.split())


def chunk_texts(kb: KnowledgeBase) -> dict[str, list[str]]:
    """Document stem → the texts of its chunks."""
    out: dict[str, list[str]] = {}
    for doc in kb.documents():
        out[Path(doc.path).stem] = [_norm(c.text) for c in kb.document_chunks(doc.id)]
    return out


def locate(texts: dict[str, list[str]], where: Locator) -> str:
    stem, phrase = where
    for text in texts.get(stem, []):
        if _norm(phrase) in text:
            return text
    raise SystemExit(f"no chunk of {stem!r} contains {phrase!r}")


def scored(pairs: list[Pair], texts: dict[str, list[str]], embed) -> list[tuple[float, bool]]:
    """(score, swapped) for the right and the swapped citation of every pair."""
    out = []
    for claim, right, swapped in pairs:
        out.append((support_score(claim, locate(texts, right), embed)[2], False))
        out.append((support_score(claim, locate(texts, swapped), embed)[2], True))
    return out


def precision_recall(rows: list[tuple[float, bool]], threshold: float) -> tuple[float, float]:
    flagged = [swapped for score, swapped in rows if score < threshold]
    positives = sum(swapped for _, swapped in rows)
    tp = sum(flagged)
    return (tp / len(flagged) if flagged else 1.0), (tp / positives if positives else 1.0)


def choose_threshold(rows: list[tuple[float, bool]]) -> float:
    """The DEV threshold with the best F1 (ties: the higher precision)."""
    best = (-1.0, 0.0, 0.5)
    for candidate in sorted({round(s + 0.005, 3) for s, _ in rows}):
        p, r = precision_recall(rows, candidate)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        best = max(best, (f1, p, candidate))
    return best[2]


def embedder():
    from haiku_tui.store.embedding import builtin_embedder, embed_documents

    model = builtin_embedder()
    return lambda texts: embed_documents(model, list(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-embedder", action="store_true", help="lexical support only")
    args = parser.parse_args()
    embed = None if args.no_embedder else embedder()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = write_corpus(Path(tmp) / "corpus")
        with KnowledgeBase.open(Path(tmp) / "kb.lancedb") as kb:
            kb.add([*corpus, *sorted(GUIDE.glob("*.md"))])
            texts = chunk_texts(kb)
    dev, test = scored(DEV, texts, embed), scored(TEST, texts, embed)
    threshold = choose_threshold(dev)
    print(f"scoring: {'lexical + embedding' if embed else 'lexical only'}; threshold chosen on DEV: {threshold:.3f}")
    print("| set | pairs | precision | recall |")
    print("|---|---:|---:|---:|")
    for name, rows in (("dev", dev), ("test", test)):
        p, r = precision_recall(rows, threshold)
        print(f"| {name} | {len(rows)} | {p:.2f} | {r:.2f} |")


if __name__ == "__main__":
    main()
