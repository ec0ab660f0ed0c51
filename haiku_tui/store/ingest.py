"""Ingest: find files, parse them within limits, write chunks and documents; ``sync`` a folder.

Write order (see ``store/kb.py`` for the consistency model): a batch's chunks first, its
``documents`` rows last, then the chunks of replaced versions are deleted; full-text indexes
are built or refreshed after the writes, and rebuilt on the next open if a kill skipped that.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .chunking import chunk_blocks
from .embed_batches import EmbedderFault, EmbedRun, Vectors, document_parts
from .embedding import embedder_id
from .errors import EmbedderMismatch, ParseError, unwritable
from .limits import IngestLimits
from .parsing import SUPPORTED_SUFFIXES, WORKER_SUFFIXES, parse_bytes
from .records import (
    DONE, EMBEDDING, INDEXING, PARSING, UNSUPPORTED, DocumentRecord, IngestFailure, IngestProgress, IngestReport,
)
from .search import vector_text
from .sentences import encode_sentence_terms
from .symbols import with_symbol_names
from .storage import FTS_COLUMNS
from .tables import (
    CHUNK_COLUMNS, INDEX_VERSION, INDEX_VERSION_COLUMN, SENTENCE_TERMS_COLUMN, UNVERSIONED, doc_record, docs_schema,
    one_line,
)

if TYPE_CHECKING:
    from .storage import Storage

FLUSH_CHUNKS = 4096  # chunks per write batch
HIDDEN = "hidden"
DUPLICATE = "same file as another path (symlink)"
UNREADABLE_FOLDER = "unreadable folder"
NO_SUCH_PATH = "no such file or directory"
NOT_UTF8_NAME = "the file name is not valid UTF-8 (shown with �); rename the file"
SYMLINK_LOOP = "symlink loop (the link leads back to itself); point it at a file or folder"


def document_id(path: str | os.PathLike[str]) -> str:
    """16 hex chars derived from the document's path/URI."""
    return hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:16]


def chunk_id(doc_id: str, content_hash: str, order: int, index_version: int = INDEX_VERSION) -> str:
    """16 hex chars derived from the document id, its content hash, the chunk order and the index version
    (the ids version 1 gave are kept: a re-indexing's chunks never share an id with what they replace)."""
    version = f":v{index_version}" if index_version != UNVERSIONED else ""
    return hashlib.sha256(f"{doc_id}:{content_hash}:{order}{version}".encode()).hexdigest()[:16]


def fts_text(title: str, headings: Iterable[str], text: str) -> str:
    """The main full-text column: title and heading path plus the chunk text, and the names of its
    standalone symbols (so "caret" finds ``"^"``)."""
    return f"{headings_text(title, headings)}\n{with_symbol_names(text)}"


def headings_text(title: str, headings: Iterable[str]) -> str:
    """The second full-text column: title and heading path only (boosted at query time)."""
    return "\n".join([title, *(h for h in headings if h and h != title)])


# ------------------------------------------------------------------------------------- finding


class Discovery:
    """The files under some paths, and every entry passed over with its reason."""

    def __init__(self) -> None:
        self.files: list[Path] = []
        self.failed: list[IngestFailure] = []  # explicit paths that cannot be ingested
        self.passed_over: list[IngestFailure] = []  # folder entries that are not ingested
        self._seen: dict[Path, Path | None] = {}  # file -> the symlink it was first reached through

    def push(self, path: Path, link: Path | None = None) -> None:
        try:
            str(path).encode("utf-8")
        except UnicodeEncodeError:  # its id, its row and every report line need the name as text
            shown = os.fsencode(link or path).decode("utf-8", "replace")
            self.failed.append(IngestFailure(shown, NOT_UTF8_NAME))
            return
        if path in self._seen:
            self.passed_over.append(IngestFailure(str(link or self._seen[path] or path), DUPLICATE))
            return
        self._seen[path] = link
        self.files.append(path)


def discover(paths: Iterable[str | os.PathLike[str]]) -> Discovery:
    """Expand files and folders recursively; symlinks resolve to their target (one document each)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    found = Discovery()
    for raw in paths:
        path = Path(raw).expanduser()
        try:
            path = path.resolve()
        except RuntimeError:  # a symlink loop
            found.failed.append(IngestFailure(str(path.absolute()), SYMLINK_LOOP))
            continue
        except OSError:
            pass
        if path.is_dir():
            _walk(path, found)
        elif path.exists():
            if path.suffix.lower() in SUPPORTED_SUFFIXES:
                found.push(path)
            else:
                supported = " ".join(sorted(SUPPORTED_SUFFIXES))
                found.failed.append(
                    IngestFailure(
                        str(path), f"unsupported file type {path.suffix or '(none)'!r} (supported: {supported})"
                    )
                )
        else:
            found.failed.append(IngestFailure(str(path), NO_SUCH_PATH))
    return found


def _walk(root: Path, found: Discovery) -> None:
    def unreadable(exc: OSError) -> None:
        found.passed_over.append(IngestFailure(str(exc.filename), f"{UNREADABLE_FOLDER} ({exc.strerror or exc})"))

    for folder, dirs, names in os.walk(root, onerror=unreadable, followlinks=False):
        for d in [d for d in dirs if d.startswith(".")]:
            found.passed_over.append(IngestFailure(str(Path(folder) / d), HIDDEN))
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            candidate = Path(folder) / name
            if name.startswith("."):
                found.passed_over.append(IngestFailure(str(candidate), HIDDEN))
            elif candidate.suffix.lower() not in SUPPORTED_SUFFIXES:
                found.passed_over.append(IngestFailure(str(candidate), UNSUPPORTED))
            elif candidate.is_symlink():
                try:
                    target = candidate.resolve(strict=True)
                except (OSError, RuntimeError):
                    found.passed_over.append(IngestFailure(str(candidate), "broken symlink"))
                    continue
                found.push(target, link=candidate)
            else:
                found.push(candidate)


# ------------------------------------------------------------------------------------- parsing


class ParseWorker:
    """Parses files within :class:`IngestLimits`; slow formats in a killable child process."""

    def __init__(self, limits: IngestLimits) -> None:
        self.limits = limits
        self._process: Any = None

    def parse(self, path: Path, data: bytes) -> Any:
        if path.suffix.lower() not in WORKER_SUFFIXES:
            return parse_bytes(path, data, self.limits)
        if self._process is None:
            from .parse_worker import ParseProcess

            self._process = ParseProcess()
        return self._process.parse(path, data, self.limits)

    def close(self) -> None:
        if self._process is not None:
            self._process.close()


# ------------------------------------------------------------------------------------- writing


class _FileProblem(Exception):
    pass


class _Batch:
    def __init__(self) -> None:
        self.docs: list[dict[str, Any]] = []
        self.chunks: list[dict[str, Any]] = []

    def add(self, doc: dict[str, Any], chunks: list[dict[str, Any]]) -> None:
        self.docs.append(doc)
        self.chunks.extend(chunks)


def read_file(path: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The file's bytes, or a :class:`_FileProblem` saying why not."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise _FileProblem("not a regular file")
        if st.st_size > max_bytes:
            raise _FileProblem(f"file too large ({_mb(st.st_size)} > {_mb(max_bytes)} limit)")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise _FileProblem("file disappeared before it could be read") from None
    except PermissionError:
        raise _FileProblem("permission denied") from None
    except IsADirectoryError:
        raise _FileProblem("is a directory") from None
    except OSError as exc:
        raise _FileProblem(f"cannot read file ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise _FileProblem(f"file too large (> {_mb(max_bytes)} limit)")
    return data, st


class Target(Protocol):
    """What an ingest run needs of its knowledge base (a :class:`~haiku_tui.store.kb.KnowledgeBase`)."""

    uri: str
    embedder: Any
    storage: Storage

    def recorded_embedder(self) -> tuple[str | None, int | None]: ...

    def repair(self) -> int: ...

    def documents(self) -> list[DocumentRecord]: ...

    def delete(self, id_or_path: str) -> DocumentRecord | None: ...


class Ingest:
    """One ``add`` or ``sync`` run over a knowledge base."""

    def __init__(
        self,
        kb: Target,
        *,
        on_progress: Callable[[IngestProgress], None] | None,
        metadata: dict[str, Any] | None,
        limits: IngestLimits,
        chunk_size: int,
        dry_run: bool = False,
        reindex: bool = True,
    ) -> None:
        self.kb = kb
        self.reindex = reindex  # re-index unchanged documents of an older INDEX_VERSION
        self.on_progress = on_progress
        self.metadata = metadata
        self.limits = limits
        self.chunk_size = chunk_size
        self.dry_run = dry_run
        self.report = IngestReport(dry_run=dry_run)
        self.started = time.perf_counter()
        self.files_total = 0
        self.files_done = 0
        self.batch = _Batch()
        self.moved_ids: set[str] = set()  # new ids of moved documents (reported as moved, not added)
        self.phase = PARSING
        self.pending = 0  # chunks of the batch being embedded and written, not yet written
        self.embedding: EmbedRun | None = None

    def run(self, paths: Iterable[str | os.PathLike[str]], *, sync: bool = False) -> IngestReport:
        self.kb.storage.refuse_newer()
        recorded, _ = self.kb.recorded_embedder()
        if recorded and self.kb.embedder is None:
            raise EmbedderMismatch(
                f"knowledge base {self.kb.uri} was built with embedder {recorded!r}; configure it "
                f"(--embedder {recorded}) to add documents"
            )
        paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        report = self.report
        found = discover(paths)
        if not self.dry_run:
            self.kb.repair()
        existing = {d.id: d for d in self.kb.documents()}
        gone = self._gone(paths, found.files, existing) if sync else {}
        if sync:  # a gone root that held documents is a removal, not a failure
            held = {d.path for d in gone.values()}
            found.failed = [f for f in found.failed if not (f.reason == NO_SUCH_PATH and _holds(f.path, held))]
        report.failed.extend(found.failed)
        report.passed_over.extend(found.passed_over)
        report.files = len(found.files) + len(found.failed)
        self.files_total = len(found.files)
        worker = ParseWorker(self.limits)
        wrote = False
        try:
            for path in found.files:
                wrote |= self._one(path, existing, gone, worker)
            if self.batch.docs:
                wrote |= self._flush(existing)
        finally:
            worker.close()
        for doc in gone.values():
            if not self.dry_run:
                self.kb.delete(doc.id)
            report.removed.append(doc)
        if wrote or (gone and not self.dry_run):
            self._progress(None, INDEXING)
            self.kb.storage.refresh_index()
        report.seconds = time.perf_counter() - self.started
        self._progress(None, DONE)
        return report

    def _gone(
        self, roots: Iterable[str | os.PathLike[str]], files: list[Path], existing: dict[str, DocumentRecord]
    ) -> dict[str, DocumentRecord]:
        """Documents under ``roots`` whose file is no longer among ``files``, by id."""
        prefixes = [str(Path(r).expanduser().resolve()) for r in roots]
        on_disk = {str(f) for f in files}

        def under(path: str) -> bool:
            return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in prefixes)

        gone = [d for d in existing.values() if under(d.path) and d.path not in on_disk]
        return {d.id: d for d in gone}

    def _one(
        self, path: Path, existing: dict[str, DocumentRecord], gone: dict[str, DocumentRecord], worker: ParseWorker
    ) -> bool:
        report = self.report
        wrote = False
        try:
            prepared = self._prepare(path, existing, gone, worker)
        except (ParseError, _FileProblem) as exc:
            report.failed.append(IngestFailure(str(path), str(exc)))
            prepared = None
        if prepared == "skip":
            report.skipped.append(str(path))
        elif prepared is not None:
            self.batch.add(*prepared)
        self.files_done += 1
        if len(self.batch.chunks) >= FLUSH_CHUNKS:
            wrote = self._flush(existing)
        self._progress(str(path), PARSING)
        return wrote

    def _progress(self, path: str | None, phase: str | None = None) -> None:
        self.phase = phase or self.phase
        if self.on_progress is None:
            return
        r, embedding = self.report, self.embedding
        self.on_progress(
            IngestProgress(
                files_total=self.files_total,
                files_done=self.files_done,
                chunks_done=r.chunks + self.pending + len(self.batch.chunks),  # chunked so far (written or queued)
                path=path,
                elapsed=time.perf_counter() - self.started,
                added=len(r.added),
                replaced=len(r.replaced),
                skipped=len(r.skipped),
                failed=len(r.failed),
                phase=self.phase,
                chunks_embedded=embedding.embedded if embedding else 0,
                embed_seconds=embedding.seconds if embedding else 0.0,
                waiting=embedding.waiting if embedding else 0.0,
            )
        )

    def _prepare(
        self, path: Path, existing: dict[str, DocumentRecord], gone: dict[str, DocumentRecord], worker: ParseWorker
    ) -> Any:
        data, st = read_file(path, self.limits.max_bytes)
        content_hash = hashlib.sha256(data).hexdigest()
        doc_id = document_id(str(path))
        old = existing.get(doc_id)
        unchanged = old is not None and old.content_hash == content_hash
        if unchanged and (old.index_version >= INDEX_VERSION or not self.reindex):
            return "skip"
        moved_from = None
        if old is None:  # a new path: is it a gone document's content, moved here?
            moved_from = next((d for d in gone.values() if d.content_hash == content_hash), None)
            if moved_from is not None:
                del gone[moved_from.id]
        if moved_from is not None:
            self.report.moved.append((moved_from.path, str(path)))
            self.moved_ids.add(doc_id)
            if not self.dry_run:
                self.kb.delete(moved_from.id)  # the new row below replaces it
        if self.dry_run:
            if moved_from is None:
                (self.report.replaced if old is not None else self.report.added).append(
                    _planned(doc_id, path, content_hash, old)
                )
            return None
        parsed = worker.parse(path, data)
        chunks = chunk_blocks(parsed.blocks, target=self.chunk_size)
        if not chunks:
            raise ParseError("no text found")
        now = _now()
        meta: dict[str, Any] = dict(old.metadata) if unchanged else {}  # re-indexed: what was given with it stays
        meta |= {
            "source_type": parsed.source_type,
            "size_bytes": len(data),
            "modified": datetime.fromtimestamp(st.st_mtime, UTC).isoformat(timespec="seconds"),
        }
        meta.update(parsed.metadata)
        if self.metadata:
            meta.update(self.metadata)
        first = old or moved_from
        doc_row = {
            "id": doc_id,
            "path": str(path),
            "title": parsed.title,
            "content_hash": content_hash,
            "metadata": json.dumps(meta, sort_keys=True, default=str),
            "chunks": len(chunks),
            "created_at": first.created_at if first is not None else now,
            "updated_at": now,
            INDEX_VERSION_COLUMN: INDEX_VERSION,
        }
        chunk_rows = [
            {
                "id": chunk_id(doc_id, content_hash, order),
                INDEX_VERSION_COLUMN: INDEX_VERSION,
                "document_id": doc_id,
                "content_hash": content_hash,
                "position": order,
                "text": c.text,
                "headings": list(c.headings),
                "pages": list(c.pages),
                FTS_COLUMNS[0]: fts_text(parsed.title, c.headings, c.text),
                FTS_COLUMNS[1]: headings_text(parsed.title, c.headings),
                SENTENCE_TERMS_COLUMN: encode_sentence_terms(c.text),
            }
            for order, c in enumerate(chunks)
        ]
        return doc_row, chunk_rows

    def _flush(self, existing: dict[str, DocumentRecord]) -> bool:
        """Embed and write the batch, whole documents at a time (see ``store/embed_batches.py``)."""
        batch, self.batch = self.batch, _Batch()
        self.pending = len(batch.chunks)
        wrote = False
        for part, vectors in self._embedded(batch):
            wrote |= self._write(part, vectors, existing)
            self.pending -= len(part.chunks)
            self._progress(None)
        self.pending = 0
        return wrote

    def _embedded(self, batch: _Batch) -> Iterator[tuple[_Batch, Vectors | None]]:
        """``batch`` in parts of whole documents with their chunks' vectors as the embedder gives them (one part
        without vectors when there is no embedder); the documents it failed on are reported as failed."""
        if self.kb.embedder is None:
            yield batch, None
            return
        if self.embedding is None:
            self.embedding = EmbedRun(self.kb.embedder, lambda: self._progress(None, EMBEDDING))
        self._progress(None, EMBEDDING)
        docs = chunks = 0
        texts = [vector_text(r) for r in batch.chunks]
        try:
            for count, vectors in document_parts(self.embedding, texts, [d["chunks"] for d in batch.docs]):
                part = _Batch()
                part.docs, part.chunks = batch.docs[docs : docs + count], batch.chunks[chunks : chunks + len(vectors)]
                docs, chunks = docs + count, chunks + len(vectors)
                yield part, vectors
        except EmbedderFault as fault:
            self.report.failed.extend(IngestFailure(d["path"], str(fault)) for d in batch.docs[docs:])

    def _write(self, batch: _Batch, vectors: Vectors | None, existing: dict[str, DocumentRecord]) -> bool:
        import pyarrow as pa

        report, kb = self.report, self.kb
        try:
            dimension = len(vectors[0]) if vectors else None
            if kb.embedder is not None:
                kb.storage.ensure_embedder_settings(embedder_id(kb.embedder), dimension)
            chunks = kb.storage.chunks_table(dimension)
            docs = kb.storage.docs_table()
            if batch.chunks:
                names = [
                    n
                    for n in [*CHUNK_COLUMNS, *FTS_COLUMNS, SENTENCE_TERMS_COLUMN, INDEX_VERSION_COLUMN]
                    if n in chunks.schema.names
                ]
                columns = {name: [r[name] for r in batch.chunks] for name in names}
                if vectors is not None:
                    columns["vector"] = vectors
                chunks.add(pa.Table.from_pydict(columns, schema=chunks.schema))
            doc_table = pa.Table.from_pylist(batch.docs, schema=docs_schema())
            docs.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(doc_table)
        except EmbedderMismatch:
            raise
        except Exception as exc:
            fault = unwritable(exc, kb.uri)
            if fault is not None:  # every later write would fail the same way: stop with one line
                raise fault from None
            reason = f"write failed: {one_line(exc)[:200]}"
            report.failed.extend(IngestFailure(d["path"], reason) for d in batch.docs)
            return False
        replaced = [d for d in batch.docs if d["id"] in existing]
        for start in range(0, len(replaced), 100):  # the indexings these rows replaced
            chunks.delete(
                " OR ".join(
                    f"(document_id = '{d['id']}' AND (content_hash != '{d['content_hash']}' OR "
                    f"{INDEX_VERSION_COLUMN} != {INDEX_VERSION}))"
                    for d in replaced[start : start + 100]
                )
            )
        for d in batch.docs:
            rec = doc_record(d)
            if d["id"] in existing:
                report.replaced.append(rec)
            elif d["id"] not in self.moved_ids:
                report.added.append(rec)
            existing[d["id"]] = rec
        report.chunks += len(batch.chunks)
        return True


def _holds(root: str, paths: set[str]) -> bool:
    prefix = root.rstrip(os.sep) + os.sep
    return any(p == root or p.startswith(prefix) for p in paths)


def _now() -> datetime:
    return datetime.now(UTC)


def _planned(doc_id: str, path: Path, content_hash: str, old: DocumentRecord | None) -> DocumentRecord:
    now = _now()
    return DocumentRecord(
        id=doc_id, path=str(path), title=old.title if old else path.stem, content_hash=content_hash,
        metadata={}, chunks=0, created_at=old.created_at if old else now, updated_at=now, index_version=INDEX_VERSION,
    )


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"
