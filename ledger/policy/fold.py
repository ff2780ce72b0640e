"""Text folded for matching instructions (pure): NFKC, case, accents, zero-width and format
characters, and Latin look-alikes from Cyrillic and Greek, with a map back to the original offsets.

"Ignоre" with a Cyrillic о, "ig\u200bnore" with a zero-width space and "ＩＧＮＯＲＥ" in
full-width letters all fold to "ignore"; a match in the folded text names its span in the
original through ``origin``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

#: Cyrillic and Greek letters drawn like Latin ones (after NFKC and casefolding), as Unicode's
#: confusables.txt lists them for the letters the instruction patterns use.
CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "з": "3", "і": "i", "ї": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ӏ": "l", "һ": "h", "ɡ": "g", "ı": "i", "ꞵ": "b",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u", "ϲ": "c", "ϳ": "j",
})


@dataclass(frozen=True, slots=True)
class Folded:
    """``text`` folded, and for each of its characters the offset of the original it came from."""

    text: str
    origin: tuple[int, ...] | None  #: None: the identity (ASCII text, only lower-cased)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original offsets of the folded span ``[start, end)``."""
        if self.origin is None:
            return start, end
        if start >= len(self.origin):
            return self.origin[-1] + 1, self.origin[-1] + 1
        return self.origin[start], self.origin[end - 1] + 1 if end > start else self.origin[start]


def fold(text: str) -> Folded:
    """``text`` folded for matching (see the module docstring)."""
    if text.isascii():
        return Folded(text.lower(), None)
    out: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":  # zero-width spaces and joiners, bidi marks, soft hyphens
            continue
        for piece in unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", char).casefold()):
            if unicodedata.combining(piece):
                continue  # accents: "révèle" matches "revele"
            out.append(piece.translate(CONFUSABLES))
            origin.append(index)
    return Folded("".join(out), tuple(origin))
