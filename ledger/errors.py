"""The one exception tree of ledger.

    LedgerError
     ├─ InvalidInput (also ValueError)        bad argument: say what to fix
     │   ├─ InvalidTime                        unparseable, naive or reversed time
     │   ├─ MissingEvidence                    a claim without supporting evidence
     │   ├─ ScopeMismatch                      evidence or entity from another scope
     │   └─ InvalidImport                      an import file that is malformed (names the line)
     ├─ IngestError                            a document that cannot be read
     │   └─ NeedsOCR                           pages without a text layer
     ├─ FetchError                             a URL that cannot be fetched (network, HTTP status)
     │   └─ BlockedAddress                     a URL that resolves to a private/loopback/... address
     ├─ PolicyViolation                        the write policy refused a write (rule and span named)
     ├─ NotFound (also LookupError)           unknown id, entity or source
     ├─ QuoteNotFound (also LookupError)      the quote does not occur in the source
     ├─ Conflict                               the request contradicts stored state
     │   ├─ AliasConflict                      an alias already names another entity
     │   └─ FunctionalClash                    a predicate declared functional over clashing claims
     ├─ ClockError                             the clock ran backwards
 ├─ TraversalLimit                         a graph search ran out of its time budget
     └─ StoreError                             the database failed underneath us
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ledger.interchange.records import PredicateClash


class LedgerError(Exception):
    """Root of every error ledger raises; catch this to catch them all."""

    exit_code: int = 1


class InvalidInput(LedgerError, ValueError):
    """An argument is malformed or out of range; the message says how to fix it."""

    exit_code = 2


class InvalidTime(InvalidInput):
    """A time could not be parsed, is naive, or an interval is reversed."""


class MissingEvidence(InvalidInput):
    """A claim was asserted without at least one supporting piece of evidence."""


class ScopeMismatch(InvalidInput):
    """Something from one scope was used in another."""


class InvalidImport(InvalidInput):
    """An import file is malformed or refers to rows it does not hold; the message names the line."""


class IngestError(LedgerError):
    """A document could not be ingested; the message names the reason."""

    exit_code = 2


class FetchError(LedgerError):
    """A URL's bytes could not be had: unreachable host, timeout, HTTP error status, redirects, a short body."""

    exit_code = 7


class BlockedAddress(FetchError):
    """A fetch (or one of its redirects) would connect to a loopback, private, link-local, multicast,
    reserved or unspecified address, and private addresses are not allowed; nothing was sent."""

    def __init__(self, message: str, *, address: str) -> None:
        super().__init__(message)
        self.address = address


class PolicyViolation(LedgerError):
    """The write policy refused a write: ``rule`` names the rule, ``span`` the offending (start, end)
    offsets in ``field``; the refused text itself is never repeated."""

    exit_code = 8

    def __init__(self, message: str, *, rule: str, field: str, span: tuple[int, int],
                 decisions: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.rule = rule
        self.field = field
        self.span = span
        self.decisions = decisions


class NeedsOCR(IngestError):
    """No page of a PDF has a usable text layer (none, or mostly unmapped glyphs); nothing is stored."""

    def __init__(self, message: str, *, pages: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.pages = pages


class NotFound(LedgerError, LookupError):
    """An id, entity, source or claim does not exist in this scope."""

    exit_code = 3


class UnknownName(NotFound):
    """A claim names an entity the scope does not know, and creating it was not allowed
    (``create_entities=False``); ``suggestions`` holds the known names it may have meant."""

    def __init__(self, message: str, *, name: str = "", scope: str = "default",
                 suggestions: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.name = name
        self.scope = scope
        self.suggestions = suggestions


class QuoteNotFound(LedgerError, LookupError):
    """A quote does not occur in its source's text."""

    exit_code = 3


class Conflict(LedgerError):
    """The request contradicts what the ledger already holds."""

    exit_code = 4


class FunctionalClash(Conflict):
    """Declaring a predicate functional would give it two undisputed values at once; ``clashes``
    lists every such pair (``PredicateClash`` records)."""

    def __init__(self, message: str, clashes: tuple[PredicateClash, ...] = ()) -> None:
        super().__init__(message)
        self.clashes = clashes


class AliasConflict(Conflict):
    """An alias is already taken by another entity in the same scope."""


class ClockError(LedgerError):
    """The injected clock returned a time earlier than the ledger's last write."""

    exit_code = 5


class StoreError(LedgerError):
    """The database failed (locked, disconnected, corrupt); nothing was written."""

    exit_code = 6


class TraversalLimit(LedgerError):
    """A graph search ran out of its time budget; ``partial`` holds what it had found."""

    exit_code = 9

    def __init__(self, message: str, *, partial: object = ()) -> None:
        super().__init__(message)
        self.partial = partial
