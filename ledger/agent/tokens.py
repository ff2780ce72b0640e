"""Token counting for recall budgets, and the words of a question that carry its meaning (pure).

The default counter needs no model download: it splits text into word pieces the way BPE
tokenizers roughly do (a word of up to 4 characters is one token, longer words one per 4
characters, each punctuation mark one, each character of a script without spaces one). On
English prose it lands within about 15% of OpenAI's cl100k tokenizer, erring high. Pass any
callable ``str -> int`` (e.g. ``lambda s: len(tiktoken_encoding.encode(s))``) to count exactly.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

TokenCounter = Callable[[str], int]

_PIECE = re.compile(r"\w+|[^\w\s]", re.UNICODE)
#: Words that say how a question is asked, not what it is about; never searched for.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just know let me more most much my myself no nor not
now of off on once only or other our ours ourselves out over own please same she should so some such tell than
that the their theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself yourselves many
currently current today still ever anything something recorded remember recall said say
""".split())


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` is for a language model (no model needed; see the module)."""
    pieces = _PIECE.findall(text)
    if text.isascii():  # the usual case, counted without a test per piece: recall counts every candidate item
        return sum((len(piece) + 3) // 4 for piece in pieces)
    count = 0
    for piece in pieces:
        if piece.isascii():
            count += max(1, -(-len(piece) // 4))
        else:
            count += sum(1 if _wide(ch) else 0 for ch in piece) + max(
                0, -(-sum(0 if _wide(ch) else 1 for ch in piece) // 4))
    return count


def _wide(ch: str) -> bool:
    """A character of a script written without spaces (CJK, Thai, kana …): about a token each."""
    return unicodedata.east_asian_width(ch) in ("W", "F") or "\u0e00" <= ch <= "\u0eff"


def content_terms(text: str) -> list[str]:
    """The words of ``text`` worth searching for, lower-cased, in order, without stopwords or repeats."""
    seen: dict[str, None] = {}
    for word in re.findall(r"\w+", text.casefold()):
        if word not in STOPWORDS and not (word.isdigit() and len(word) < 2):
            seen.setdefault(word, None)
    return list(seen)
