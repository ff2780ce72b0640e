"""Documents on disk for the ingesters: read within a size limit, told apart by name or first bytes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from ledger.errors import IngestError

DocumentKind = Literal["pdf", "html"]

#: File name endings read as a PDF or a web page without looking inside.
SUFFIXES: dict[str, DocumentKind] = {".pdf": "pdf", ".html": "html", ".htm": "html", ".xhtml": "html"}


def checked_path(path: object, *, what: str) -> Path:
    """``path`` as a Path; IngestError for anything but a str or os.PathLike naming a possible file."""
    if not isinstance(path, (str, os.PathLike)):
        raise IngestError(f"{what} takes a file path, not {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise IngestError(f"{what} takes a file path as text, not {type(text).__name__}")
    if "\x00" in text:
        raise IngestError(f"the path {text[:80]!r} contains a NUL byte; no file has such a name")
    return Path(text)


def document_kind(path: Path) -> DocumentKind:
    """"pdf" or "html" by the file's name, else by its first bytes; IngestError for anything else."""
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is not None:
        return kind
    from ledger.ingest.fetch import sniff_media_type

    try:
        with path.open("rb") as file:
            media_type = sniff_media_type(file.read(1024))
    except OSError as error:
        raise IngestError(f"cannot read {path}: {error.strerror or error}") from error
    if media_type is None:
        raise IngestError(f"{path} is neither a PDF nor an HTML page; for plain text use `ledger add-source` "
                          "(Ledger.add_source)")
    return "pdf" if media_type == "application/pdf" else "html"


def file_uri(path: Path) -> str:
    """The ``file:`` URI a document read from ``path`` is stored under."""
    return path.resolve().as_uri()


def read_limited(path: Path, *, max_bytes: int) -> bytes:
    """The file's bytes; IngestError, before reading any, if it holds more than ``max_bytes``."""
    from ledger.ingest.base import check_size

    try:
        check_size(path.stat().st_size, file_uri(path), max_bytes)
        return path.read_bytes()  # not before: a huge file is refused unread
    except OSError as error:
        raise IngestError(f"cannot read {path}: {error.strerror or error}") from error
