"""ledger.text.quotes (with normalize and matchtext): forgiving quote location, exact offsets."""

from __future__ import annotations

import random
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.errors import InvalidInput, QuoteNotFound
from ledger.text.matchtext import Anchor, MatchText
from ledger.text.quotes import locate_quote, quote_context

# --------------------------------------------------------------------------- helpers


def norm(s: str) -> str:
    """The normalized form the matcher compares (public attribute of MatchText)."""
    return MatchText(s).normalized.strip(" ")


def everywhere(text: str) -> range:
    """Every offset of ``text`` as a break: a quote may begin and end inside any word."""
    return range(len(text) + 1)


def excerpt(text: str, quote: str) -> str:
    a = locate_quote(text, quote)
    return text[a.start : a.end]


# --------------------------------------------------------------------------- forgiveness rules


def test_exact_match_is_the_fast_path() -> None:
    text = "Company A holds 62% of ordinary shares as of March."
    a = locate_quote(text, "holds 62% of ordinary shares")
    assert a == Anchor(10, 38, "exact", 1.0)
    assert text[a.start : a.end] == "holds 62% of ordinary shares"


@pytest.mark.parametrize(
    "stored",
    [
        "holds  62%\nof\tordinary\r\nshares",
        "holds\u00a062%\u202fof\u2009ordinary\u3000shares",
        "holds\n\n\n   62% of ordinary \n shares",
    ],
)
def test_whitespace_runs_collapse(stored: str) -> None:
    text = "Company A " + stored + " as of March."
    a = locate_quote(text, "holds 62% of ordinary shares")
    assert a.method == "normalized"
    assert text[a.start : a.end] == stored


def test_quote_whitespace_is_forgiven_too() -> None:
    text = "Company A holds 62% of ordinary shares."
    assert excerpt(text, "  holds\n62%   of\tordinary shares \n") == "holds 62% of ordinary shares"


@pytest.mark.parametrize(
    ("stored", "quote"),
    [
        ("the hy-\nphenated word", "the hyphenated word"),  # line-break hyphenation in the text
        ("the hyphenated word", "the hy-\nphenated word"),  # ... or in the quote
        ("a well-\nknown fact", "a well-known fact"),  # a real compound broken at the line end
        ("a well-known fact", "a well-\nknown fact"),
        ("a well-known fact", "a well- known fact"),  # a viewer turned the line break into a space
        ("a well\u2010\nknown fact", "a well-known fact"),  # U+2010 HYPHEN at the line end
        ("the hy-  \n  phenated word", "the hyphenated word"),
    ],
)
def test_line_break_hyphenation(stored: str, quote: str) -> None:
    text = "Before. " + stored + " After."
    a = locate_quote(text, quote)
    assert text[a.start : a.end] == stored
    assert a.method == "normalized"


def test_hyphen_is_not_dropped_from_an_unbroken_compound() -> None:
    with pytest.raises(QuoteNotFound):
        locate_quote("a well-known fact", "a wellknown fact")


@pytest.mark.parametrize(
    ("stored", "copied"),
    [
        ("Zażółć gęślą jaźń", "Zaz\u0307o\u0301\u0142c\u0301 ge\u0328s\u0301la\u0328 jaz\u0301n\u0301"),  # NFD
        ("the ohm (Ω) and the Ångström (Å)", "the ohm (\u2126) and the \u212bngstr\u00f6m (\u212b)"),  # singletons
        ("مرحبا بالعالم", "\ufee3\ufeae\ufea3\ufe92\ufe8e \ufe91\ufe8e\ufee0\ufecc\ufe8e\ufedf\ufee2"),  # forms
        ("لا إله", "\ufefb \ufe87\ufedf\ufeea"),  # lam-alef ligature form
    ],
)
def test_quote_in_another_unicode_form_than_the_stored_text(stored: str, copied: str) -> None:
    """PDF viewers and browsers may copy decomposed accents, compatibility singletons and
    Arabic presentation forms; the ingesters store NFC text with the forms folded."""
    text = f"Before. {stored}. After. " + "Other words fill the rest of the page. " * 5
    assert excerpt(text, copied) == stored
    with pytest.raises(QuoteNotFound) as refused:  # the message names the quote in the stored form
        locate_quote(text, copied + " zz")
    assert f'"{stored} zz"' in str(refused.value)


def test_a_text_stored_decomposed_is_still_found_as_written() -> None:
    decomposed = "cafe\u0301 au lait"
    assert excerpt(f"A {decomposed}.", decomposed) == decomposed


@pytest.mark.parametrize("copied", ["1851\t21 ships\t180 pounds", "1851 21 ships 180 pounds", "1851 | 21 ships | 180 pounds"])
def test_a_table_row_copied_from_a_browser_matches_its_stored_cells(copied: str) -> None:
    """Web table rows are stored with " | " between cells; browsers copy tabs."""
    text = "Year | Ships | Fees\n\n1851 | 21 ships | 180 pounds\n\nThe fees were paid in silver."
    assert excerpt(text, copied) == "1851 | 21 ships | 180 pounds"
    assert excerpt("an x |y bar", "x |y") == "x |y"  # a bar not set off by spaces is kept


@pytest.mark.parametrize("copied", ["| small | 7B | 61.2 |", "| small   | 7B", "7B | 61.2 |"])
def test_a_plain_text_table_row_copied_with_its_outer_borders_is_found(copied: str) -> None:
    text = "Results:\n| Model   | Params | Score |\n| small   | 7B     | 61.2  |\nEnd."
    found = excerpt(text, copied)
    assert found in "| small   | 7B     | 61.2  |" and found.strip("| ").split() == copied.strip("| ").split()


def test_a_quote_copied_to_the_end_of_a_line_may_end_on_its_break_hyphen() -> None:
    """The PDF ingester joins "high-" / "level"; a quote copied up to the line end keeps the hyphen."""
    text = "The language was designed as a highlevel tool for the whole team."
    assert excerpt(text, "designed as a high-") == "designed as a high"
    assert excerpt(text, "designed as a high-\n") == "designed as a high"
    with pytest.raises(QuoteNotFound, match='"designed as a low-"'):
        locate_quote(text, "designed as a low-")


@pytest.mark.parametrize(
    ("quote", "cut"),
    [
        ("budget is 10", "budget is 100"),
        ("Chair: Anna", "Chair: Annabelle"),
        ("rose by 10", "rose by 10.5"),
        ("5 percent", "10.5 percent"),
        ("of 1", "of 1,000"),
        ("opens at 8", "opens at 8:30"),
        ("30 pm", "8:30 pm"),
        ("scored 7", "scored 7/10"),
        ("開店は８", "開店は８：３０"),
        ("It is 1", "It is 1\u20442"),
        ("the cafe", "the café"),  # decomposed: the accent is part of the letter
    ],
)
def test_a_quote_must_not_cut_a_word_or_number(quote: str, cut: str) -> None:
    text = ("The budget is 100 euros. Chair: Annabelle. It rose by 10.5 percent, of 1,000. It opens at 8:30 pm "
            "and scored 7/10. 開店は８：３０. It is 1\u20442. Meet at the cafe\u0301.")
    with pytest.raises(QuoteNotFound, match="only inside a longer word or number") as refused:
        locate_quote(text, quote)
    assert unicodedata.normalize("NFC", cut) in unicodedata.normalize("NFC", str(refused.value))


def test_whole_words_and_numbers_are_found_and_scripts_without_spaces_cut_anywhere() -> None:
    text = "Budget 10 (not 100). 東京都に住む。서울에서 만나요. Sentence ends with 10."
    assert excerpt(text, "Budget 10") == "Budget 10"
    assert locate_quote(text, "10").start == text.index("10")  # the whole number, not the 100
    assert excerpt(text, "東京") == "東京" and excerpt(text, "서울") == "서울"
    assert excerpt(text, "with 10.") == "with 10."
    # Where an ingester joined a word broken across lines, a quote may begin inside it.
    joined = "a highlevel tool"
    with pytest.raises(QuoteNotFound):
        locate_quote(joined, "level tool")
    assert locate_quote(joined, "level tool", breaks={6}).start == 6


def test_quote_may_start_or_end_at_a_line_break_hyphen() -> None:
    text = "it is well-\nknown today"
    assert excerpt(text, "is well-") == "is well-"
    assert excerpt(text, "-\nknown today") == "-\nknown today"
    assert excerpt(text, "- known today") == "-\nknown today"


@pytest.mark.parametrize(
    ("stored", "plain"),
    [
        ("\ufb00", "ff"),
        ("\ufb01", "fi"),
        ("\ufb02", "fl"),
        ("\ufb03", "ffi"),
        ("\ufb04", "ffl"),
        ("\ufb05", "st"),
        ("\ufb06", "st"),
    ],
)
def test_ligatures_expand(stored: str, plain: str) -> None:
    text = f"x a{stored}b y"
    a = locate_quote(text, f"a{plain}b")
    assert text[a.start : a.end] == f"a{stored}b"
    # and a ligature in the quote matches plain letters in the text
    text2 = f"x a{plain}b y"
    assert excerpt(text2, f"a{stored}b") == f"a{plain}b"


def test_ligature_at_the_edges_of_the_quote() -> None:
    text = "the \ufb01nal o\ufb03ce"
    assert excerpt(text, "final office") == "\ufb01nal o\ufb03ce"


def test_a_space_after_a_ligature_in_the_quote_is_optional() -> None:
    """Viewers copy the spaces a producer drew inside a word after a ligature ("Erﬁ nder"), and
    leave out a space that is only a gap after one ("staﬀbased")."""
    assert excerpt("der amerikanische Erfinder und Visionär", "Er\ufb01 nder und") == "Erfinder und"
    assert excerpt("the staff based in Oslo", "sta\ufb00based in") == "staff based in"
    assert excerpt("the staff based in Oslo", "sta\ufb00 based in") == "staff based in"
    with pytest.raises(QuoteNotFound):  # only after a ligature
        locate_quote("the staff based in Oslo", "staffbased in")


def test_a_ligature_is_never_split() -> None:
    with pytest.raises(QuoteNotFound):
        locate_quote("the \ufb01nal word", "inal word")


def test_ellipsis_expands() -> None:
    assert excerpt("and so on\u2026 the end", "on... the") == "on\u2026 the"


@pytest.mark.parametrize("invisible", ["\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_soft_hyphens_and_zero_width_characters_vanish(invisible: str) -> None:
    text = f"pre infor{invisible}mation post"
    assert excerpt(text, "information") == f"infor{invisible}mation"
    assert excerpt("pre information post", f"infor{invisible}mation") == "information"


def test_soft_hyphen_at_a_line_break_joins_the_word() -> None:
    text = "the infor\u00ad\nmation age"
    assert excerpt(text, "information age") == "infor\u00ad\nmation age"


def test_invisible_characters_are_not_part_of_the_span() -> None:
    text = "x \u200b\ufeffword\u200b y"
    a = locate_quote(text, "\u200bword")
    assert text[a.start : a.end] == "word"


@pytest.mark.parametrize("curly", ["\u2018", "\u2019", "\u201a", "\u201b", "\u2032", "\u2039", "\u203a"])
def test_single_curly_quotes_and_prime(curly: str) -> None:
    text = f"it{curly}s here"
    assert excerpt(text, "it's here") == text
    assert excerpt("it's here", f"it{curly}s here") == "it's here"


@pytest.mark.parametrize("curly", ["\u201c", "\u201d", "\u201e", "\u201f", "\u2033", "\u00ab", "\u00bb"])
def test_double_curly_quotes_and_double_prime(curly: str) -> None:
    text = f"the {curly}word{curly} here"
    assert excerpt(text, 'the "word" here') == text


@pytest.mark.parametrize(
    ("stored", "quote"),
    [
        ("war\u2014peace", "war - peace"),  # an em dash retyped with spaces
        ("war\u2014peace", "war -- peace"),
        ("war\u2014peace", "war--peace"),
        ("war \u2013 peace", "war\u2014peace"),  # the page spaces its dash, the quote does not
        ("war \u2013 peace", "war-peace"),
        ("war -- peace", "war\u2014peace"),  # a page written with double hyphens
        ("1990 \u2013 2000", "1990-2000"),
        ("1990-2000", "1990 - 2000"),
    ],
)
def test_a_dash_is_found_however_it_is_spaced_or_doubled(stored: str, quote: str) -> None:
    """Agents retype dashes: an em dash as " - " or "--", a spaced en dash without its spaces."""
    text = f"It was {stored}, they said."
    found = excerpt(text, f"was {quote}, they")
    assert found == f"was {stored}, they"


def test_a_dash_quote_as_long_as_the_whole_text_is_found() -> None:
    """The spaces beside a quote's dash may match nothing: "war - peace" fits in "war-peace"."""
    assert excerpt("war-peace", "war - peace") == "war-peace"


def test_a_dash_does_not_stand_for_other_characters() -> None:
    with pytest.raises(QuoteNotFound):
        excerpt("It was war and peace, they said.", "war - peace")
    with pytest.raises(QuoteNotFound):
        excerpt("It was war, peace, they said.", "war - peace")
    with pytest.raises(QuoteNotFound):
        excerpt("in 19902000 prices", "1990-2000")  # only between letters may a dash be missing


@pytest.mark.parametrize("dash", ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212"])
def test_dashes_become_hyphen_minus(dash: str) -> None:
    text = f"in 1990{dash}2000 prices fell"
    assert excerpt(text, "1990-2000 prices") == f"1990{dash}2000 prices"
    assert excerpt("in 1990-2000 prices fell", f"1990{dash}2000") == "1990-2000"


@pytest.mark.parametrize(
    ("stored", "quote"),
    [
        ("lived in Springfield , Ohio ( UNESCO ) till 1990 .", "Springfield, Ohio (UNESCO) till 1990."),
        ("lived in Springfield, Ohio (UNESCO) till 1990.", "Springfield , Ohio ( UNESCO ) till 1990 ."),
        ("a list [ 1 ] ; see \" Notes \" !", 'list [1]; see "Notes"!'),
        ("he said : don 't stop", "said: don't stop"),
        ("rose 5 % to 1,200 , then fell", "rose 5% to 1,200, then fell"),
        ("rose (\n  5 %\n) today", "(5%) today"),
        ("items 1 , 2 and 3", "items 1, 2 and 3"),
        ("items 1, 2 and 3", "items 1 , 2 and 3"),
    ],
)
def test_spaces_beside_punctuation_may_be_added_or_dropped(stored: str, quote: str) -> None:
    text = "Before. " + stored + " After."
    a = locate_quote(text, quote)
    assert a.method == "normalized"
    assert re.sub(r"\s+", "", text[a.start : a.end]) == re.sub(r"\s+", "", quote)
    assert not text[a.start].isspace() and not text[a.end - 1].isspace()


@pytest.mark.parametrize(
    ("stored", "quote"),
    [
        ("It is Springfield today", "Spring field"),  # a space between letters is a word boundary
        ("It is Spring field today", "Springfield"),
        ("abc d", "ab c"),
        ("costs 1000 now", "1 000"),  # ... and between digits a number boundary
        ("costs 1,5 now", "1, 5"),  # one number, not two
        ("costs 1, 5 now", "1,5"),
        ("costs 1 ,5 now", "1,5"),
        ("at 10: 30 or 11", "10:30"),
    ],
)
def test_spaces_between_letters_or_digits_are_never_forgiven(stored: str, quote: str) -> None:
    with pytest.raises(QuoteNotFound):
        locate_quote(stored, quote)


def test_a_quote_with_punctuation_still_cuts_no_word() -> None:
    with pytest.raises(QuoteNotFound, match="whole words"):
        locate_quote("the ( UNESCOS ) list", "(UNESCO")
    assert excerpt("x ( UNESCO ) list", "(UNESCO") == "( UNESCO"


def test_matching_is_case_sensitive() -> None:
    with pytest.raises(QuoteNotFound, match="case-sensitive"):
        locate_quote("Company A holds 62% of Ordinary Shares.", "holds 62% of ordinary shares")


def test_all_rules_together_map_back_to_exact_offsets() -> None:
    text = (
        "Page 4\n\nCompany\u00a0A \u201cholds\u201d 62\u200b% of or-\n"
        "dinary  sha\u00ad\nres \u2014 the \ufb01nal \ufb01gure \u2026\n"
    )
    quote = 'Company A "holds" 62% of ordinary shares - the final figure ...'
    a = locate_quote(text, quote)
    start = text.index("Company")
    end = text.index("\u2026") + 1
    assert (a.start, a.end) == (start, end)
    assert norm(text[a.start : a.end]) == norm(quote)


def test_span_never_includes_surrounding_whitespace() -> None:
    text = "a  \n  holds   62%  \n b"
    a = locate_quote(text, "\n holds 62% \t")
    assert text[a.start : a.end] == "holds   62%"


# --------------------------------------------------------------------------- several occurrences, within


TWICE = "In 2021 the board said revenue grew 5% in Europe. In 2022 the board said revenue grew 5% in Asia."


def test_first_occurrence_without_context() -> None:
    a = locate_quote(TWICE, "revenue grew 5%")
    assert a.start == TWICE.index("revenue grew 5%")


def test_prefix_and_suffix_pick_the_occurrence() -> None:
    second = TWICE.rindex("revenue grew 5%")
    assert locate_quote(TWICE, "revenue grew 5%", suffix=" in Asia.").start == second
    assert locate_quote(TWICE, "revenue grew 5%", prefix="In 2022 the board said ").start == second
    assert locate_quote(TWICE, "revenue grew 5%", prefix="In 2021 the board said ").start == 0 + TWICE.index(
        "revenue"
    )


def test_context_is_compared_normalized_and_approximately() -> None:
    second = TWICE.rindex("revenue grew 5%")
    a = locate_quote(TWICE, "revenue grew 5%", prefix="In 2022   the Board said\n", suffix="  in asia")
    assert a.start == second


def test_context_can_prefer_a_normalized_occurrence_over_an_exact_one() -> None:
    text = "Elsewhere: it's raining. In the report: it\u2019s raining today."
    a = locate_quote(text, "it's raining", prefix="In the report: ", suffix=" today.")
    assert a.method == "normalized"
    assert a.start == text.index("it\u2019s")


def test_occurrences_counts_every_place_the_quote_is_found() -> None:
    assert locate_quote(TWICE, "revenue grew 5%").occurrences == 2
    assert locate_quote(TWICE, "revenue grew 5%", suffix=" in Asia.").occurrences == 2
    assert locate_quote(TWICE, "revenue grew 5%", within=[(TWICE.index("In 2022"), len(TWICE))]).occurrences == 1
    assert locate_quote(TWICE, "in Asia").occurrences == 1
    curly = locate_quote("it\u2019s raining; it's raining", "it's raining")  # as written first, of two
    assert (curly.start, curly.method, curly.occurrences) == (14, "exact", 2)


@pytest.mark.parametrize(
    ("context", "refused"),
    [
        ({"prefix": "In 2023 the council said "}, 'none after the prefix "In 2023 the council said"'),
        ({"suffix": " in Africa."}, 'none before the suffix "in Africa."'),
        ({"prefix": "In 2022 the board said ", "suffix": " in Europe."}, "none after the prefix .* and before the suffix"),
    ],
)
def test_a_prefix_or_suffix_beside_no_occurrence_is_not_found(context: dict[str, str], refused: str) -> None:
    with pytest.raises(QuoteNotFound, match=refused) as info:
        locate_quote(TWICE, "revenue grew 5%", prefix=context.get("prefix"), suffix=context.get("suffix"))
    message = str(info.value)
    assert "occurs 2 times" in message
    for hit in MatchText(TWICE).find_all("revenue grew 5%"):
        assert f"characters {hit.start}-{hit.end}" in message


def test_a_prefix_before_the_start_of_the_text_is_not_found() -> None:
    with pytest.raises(QuoteNotFound, match='occurs once .* but not after the prefix "Preface:".* at the start'):
        locate_quote(TWICE, "In 2021", prefix="Preface: ")
    assert locate_quote(TWICE, "In 2021").start == 0


def test_a_context_agrees_in_any_case_spacing_or_with_a_typo() -> None:
    text = "Springfield , Ohio ( USA ) has 60,000 residents. Dayton , Ohio ( USA ) has more."
    second = text.rindex("( USA )")
    assert locate_quote(text, "( USA )", prefix="DAYTON, OHIO").start == second
    assert locate_quote(text, "( USA )", prefix="Daytn , Ohio ").start == second
    assert locate_quote(text, "( USA )", suffix=" has mre.").start == second


def test_within_restricts_to_ranges() -> None:
    second = TWICE.rindex("revenue grew 5%")
    page2 = (TWICE.index("In 2022"), len(TWICE))
    assert locate_quote(TWICE, "revenue grew 5%", within=[page2]).start == second
    assert locate_quote(TWICE, "revenue grew 5%", within=[(0, 10), page2]).start == second


def test_within_requires_the_whole_quote_inside() -> None:
    start = TWICE.index("revenue grew 5% in Europe")
    with pytest.raises(QuoteNotFound, match="outside"):
        locate_quote(TWICE, "revenue grew 5% in Europe", within=[(start, start + 10)])


def test_within_applies_to_normalized_matches() -> None:
    text = "p1: well-\nknown fact. p2: well-\nknown fact."
    page2 = (text.index("p2"), len(text))
    a = locate_quote(text, "well-known fact", within=[page2])
    assert a.start == text.rindex("well")


def test_within_rejects_malformed_ranges() -> None:
    with pytest.raises(InvalidInput):
        locate_quote(TWICE, "revenue", within=[(10, 5)])
    with pytest.raises(InvalidInput):
        locate_quote(TWICE, "revenue", within=[(-1, 5)])


def test_find_all_returns_every_occurrence_in_order() -> None:
    text = "ﬁne fine ﬁ-\nne fine"
    anchors = MatchText(text).find_all("fine")
    assert [text[a.start : a.end] for a in anchors] == ["ﬁne", "fine", "ﬁ-\nne", "fine"]
    assert [a.method for a in anchors] == ["normalized", "exact", "normalized", "exact"]
    assert MatchText("aaaa").find_all("aa") == [
        Anchor(0, 2, "exact", 1.0),
        Anchor(1, 3, "exact", 1.0),
        Anchor(2, 4, "exact", 1.0),
    ]
    assert MatchText("abc").find_all("zzz") == []


def test_match_text_is_reusable() -> None:
    mt = MatchText(TWICE)
    assert mt.text == TWICE
    assert locate_quote(mt, "board said").start == locate_quote(TWICE, "board said").start
    assert locate_quote(mt, "grew  5%\nin Asia").method == "normalized"


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("quote", ["", "   ", "\n\t", "\u200b", "\u00ad \ufeff"])
def test_empty_quote_is_invalid(quote: str) -> None:
    with pytest.raises(InvalidInput, match="empty"):
        locate_quote("some text", quote)
    with pytest.raises(InvalidInput):
        MatchText("some text").find_all(quote)


def test_not_found_message_shows_the_closest_text() -> None:
    text = "Intro. Company A holds 63% of ordinary shares as of March. Outro."
    with pytest.raises(QuoteNotFound) as info:
        locate_quote(text, "Company A holds 62% of ordinary shares")
    message = str(info.value)
    assert '"Company A holds 62% of ordinary shares"' in message
    assert 'closest text: "Company A holds 63% of ordinary shares"' in message
    assert isinstance(info.value, LookupError)


def test_not_found_message_truncates_long_quotes() -> None:
    quote = "zebra " * 100
    with pytest.raises(QuoteNotFound) as info:
        locate_quote("nothing like it", quote)
    message = str(info.value)
    assert len(message) < 400
    assert "closest text" not in message


# --------------------------------------------------------------------------- quote_context


def test_quote_context() -> None:
    text = "Company A holds 62% of ordinary shares as of March."
    a = locate_quote(text, "62% of ordinary")
    assert quote_context(text, a.start, a.end, width=10) == ("y A holds ", " shares as")
    assert quote_context(text, 0, 7) == ("", text[7:39])
    assert quote_context(text, 0, len(text)) == ("", "")
    with pytest.raises(InvalidInput):
        quote_context(text, 5, 4)
    with pytest.raises(InvalidInput):
        quote_context(text, 0, len(text) + 1)


# --------------------------------------------------------------------------- a real PDF

REAL_PDF = (
    Path(__file__).resolve().parents[2] / "shared" / "realworld" / "pdf" / "tracemonkey-two-column-paper.pdf"
)


def test_quotes_copied_from_a_real_pdf_are_found() -> None:
    """Stored text keeps ligatures and line-break hyphens; the agent's copy has neither."""
    if not REAL_PDF.exists():
        pytest.skip(f"the shared real-world corpus is absent ({REAL_PDF})")
    pymupdf = pytest.importorskip("pymupdf")
    with pymupdf.open(REAL_PDF) as pdf:
        stored = "".join(page.get_text() for page in pdf)
        copied = "".join(
            page.get_text(flags=pymupdf.TEXT_DEHYPHENATE | pymupdf.TEXT_PRESERVE_WHITESPACE) for page in pdf
        )
    assert "\ufb01" in stored and "-\n" in stored and "\ufb01" not in copied
    mt = MatchText(stored)
    words = copied.split()
    rng = random.Random(7)
    for _ in range(200):
        i = rng.randrange(len(words) - 12)
        quote = " ".join(words[i : i + rng.randint(3, 12)])
        a = locate_quote(mt, quote)
        assert norm(stored[a.start : a.end]).replace("-", "") == norm(quote).replace("-", "")


# --------------------------------------------------------------------------- properties

PIECES = list("abcdefilstAB019 .,;") + [
    " ",
    " ",
    "  ",
    "\n",
    "\t",
    "\u00a0",
    "\r\n",
    "-",
    "-\n",
    "\u2010",
    "\u2013",
    "\u2014",
    "\u2212",
    "'",
    "\u2019",
    "\u2018",
    '"',
    "\u201c",
    "\u201d",
    "\ufb01",
    "\ufb02",
    "\ufb00",
    "\ufb03",
    "\ufb04",
    "\u00ad",
    "\u200b",
    "\ufeff",
    "\u2026",
    "fi",
    "ff",
    "...",
]
texts = (
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=60).map("".join).filter(lambda t: norm(t) != "")
)

WHITESPACE_RUNS = [" ", "  ", "\n", "\t", "\u00a0", " \n ", "\r\n", "\u2009"]
SWAPS = {
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb00": "ff",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "'": "\u2019",
    "\u2019": "'",
    "\u2018": "'",
    '"': "\u201d",
    "\u201c": '"',
    "\u201d": '"',
    "\u2013": "-",
    "\u2014": "\u2013",
    "\u2026": "...",
}


BLANK = re.compile("[\\s\u00ad\u200b\u200c\u200d\u2060\ufeff]*")  # whitespace and invisibles
# more dashes after a dash (or before one, read backwards), whitespace and invisibles between
DASH_RUN_END = re.compile("(?:[\\s\u00ad\u200b\u200c\u200d\u2060\ufeff]*[-\u2010-\u2015\u2212])*")


@st.composite
def rerendered_slices(draw: st.DrawFn) -> tuple[str, str, str]:
    """A text, a non-blank slice of it, and the slice re-rendered as a PDF viewer might. The
    slice does not begin or end inside a run of dashes: a quote's run matches a whole run."""
    text = draw(texts)
    i = draw(st.integers(0, len(text) - 1))
    j = draw(st.integers(i + 1, len(text)))
    first = i + len(BLANK.match(text, i, j).group())  # type: ignore[union-attr]
    last = j - len(BLANK.match(text[i:j][::-1]).group())  # type: ignore[union-attr]
    if first < last and norm(text[first]) == "-":
        i = first - len(DASH_RUN_END.match(text[:first][::-1]).group())  # type: ignore[union-attr]
    if first < last and norm(text[last - 1]) == "-":
        j = last + len(DASH_RUN_END.match(text, last).group())  # type: ignore[union-attr]
    piece = text[i:j]
    if not norm(piece):
        piece = text
    out: list[str] = []
    k = 0
    while k < len(piece):
        ch = piece[k]
        if ch.isspace():
            run_end = k
            while run_end < len(piece) and piece[run_end].isspace():
                run_end += 1
            out.append(draw(st.sampled_from(WHITESPACE_RUNS)) if draw(st.booleans()) else piece[k:run_end])
            k = run_end
            continue
        if piece.startswith("fi", k) and draw(st.booleans()):
            out.append("\ufb01")
            k += 2
            continue
        out.append(SWAPS[ch] if ch in SWAPS and draw(st.booleans()) else ch)
        k += 1
    return text, piece, "".join(out)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1), st.data())
def test_any_slice_of_the_text_is_found(text: str, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    quote = text[i:j].strip()
    if not norm(quote):
        return
    a = locate_quote(text, quote, breaks=everywhere(text))
    assert a.method == "exact"
    assert text[a.start : a.end] == quote


@settings(max_examples=500, deadline=None)
@given(rerendered_slices())
def test_rerendered_slice_is_found_with_the_same_normalized_form(case: tuple[str, str, str]) -> None:
    text, piece, quote = case
    assert norm(quote) == norm(piece)
    a = locate_quote(text, quote, breaks=everywhere(text))
    found = text[a.start : a.end]
    assert norm(found) == norm(piece)
    assert found == found.strip()
    assert a.method in ("exact", "normalized")


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_every_slice_is_found_by_normalized_search(text: str, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    quote = text[i:j]
    if not norm(quote):
        return
    anchors = MatchText(text).find_all(quote)
    assert anchors, (text, quote)
    assert any(norm(text[a.start : a.end]) == norm(quote) for a in anchors)
    for a in anchors:
        assert 0 <= a.start < a.end <= len(text)
        assert not text[a.start].isspace() and not text[a.end - 1].isspace()


WORDS = ["Ohio", "Springfield", "UNESCO", "a", "of", "1990", "1", "5", "200"]
MARKS = list(",.;:!?()[]'\"%/")


@st.composite
def respaced_slices(draw: st.DrawFn) -> tuple[str, tuple[int, int], str]:
    """A tokenized text, the span of a run of its tokens, and that run spaced afresh: a space
    beside punctuation comes or goes, between words and numbers it stays; beside a mark between
    two numbers there is one in both or in neither ("1,5" is one number, "1, 5" two)."""
    tokens = draw(st.lists(st.sampled_from(WORDS + MARKS), min_size=1, max_size=30))
    i = draw(st.integers(0, len(tokens) - 1))
    j = draw(st.integers(i + 1, len(tokens)))

    def gap(k: int) -> str:  # between tokens k - 1 and k
        a, b = tokens[k - 1], tokens[k]
        if a in MARKS or b in MARKS:
            numbers = (b in MARKS and k + 1 < len(tokens) and tokens[k + 1].isdigit() and a.isdigit()) or (
                a in MARKS and k >= 2 and tokens[k - 2].isdigit() and b.isdigit())
            return " " if numbers else draw(st.sampled_from(["", " "]))
        return " "

    pieces, spans = [], []
    at = 0
    for k, token in enumerate(tokens):
        if k:
            pieces.append(gap(k))
            at += len(pieces[-1])
        spans.append((at, at + len(token)))
        pieces.append(token)
        at += len(token)
    quote = tokens[i] + "".join(gap(k) + tokens[k] for k in range(i + 1, j))
    return "".join(pieces), (spans[i][0], spans[j - 1][1]), quote


@settings(max_examples=400, deadline=None)
@given(respaced_slices())
def test_a_quote_respaced_around_punctuation_maps_back_to_its_span(case: tuple[str, tuple[int, int], str]) -> None:
    text, span, quote = case
    assert span in [(a.start, a.end) for a in MatchText(text).find_all(quote)]
    a = locate_quote(text, quote)
    found = text[a.start : a.end]
    assert found.replace(" ", "") == quote.replace(" ", "")
    assert found == found.strip()
    if a.occurrences == 1:
        assert (a.start, a.end) == span


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts, st.text()))
def test_fast_normalization_agrees_with_the_reference_regex(text: str) -> None:
    from ledger.text.normalize import normalize

    assert MatchText(text).normalized == normalize(text)


def test_whitespace_table_is_complete() -> None:
    from ledger.text.normalize import WHITESPACE

    every = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert every == set(WHITESPACE) | {" "}
