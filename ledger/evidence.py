"""The former home of quote matching and re-anchoring, now in :mod:`ledger.text`; these names
stay importable from here for code written against it."""

from ledger.text.matchtext import Anchor, MatchText
from ledger.text.normalize import UNSPACED_SCRIPTS
from ledger.text.quotes import locate_quote, quote_context
from ledger.text.reanchor import reanchor

__all__ = ["UNSPACED_SCRIPTS", "Anchor", "MatchText", "locate_quote", "quote_context", "reanchor"]
