"""Who wrote a page: the author value trafilatura found, cleaned of what bylines write around names.

A value naming nobody (a month or weekday, a number, an interface word, the page's own domain)
is dropped; a lead-in ("View all posts by", "Autor:in"), the links after a name ("Twitter
Email"), a job title ("Senior Politics Editor") and a date's month name are cut.
"""

from __future__ import annotations

import re

__all__ = ["UNSPACED_SCRIPTS", "one_word_name", "persons"]

#: Letters of scripts written without spaces between words (Thai, Lao, Tibetan, Myanmar, Khmer,
#: kana, CJK ideographs, Hangul): one word there can be a whole name.
UNSPACED_SCRIPTS = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f]"
)


def one_word_name(word: str) -> bool:
    """Whether every letter of a one-word author is of a script whose names are written as one
    word (王小明, 山田太郎, 정덕현): a name there, where "jsmith" or "jsmith王" is a handle."""
    letters = [ch for ch in word if ch.isalpha()]
    return bool(letters) and all(UNSPACED_SCRIPTS.match(ch) for ch in letters)


def persons(authors: str | None, host: str | None = None) -> str | None:
    """The names of an author value ("A; B") that can be a person's or a desk's: not a month or
    weekday name alone, a number, a word of the page's interface ("Username", "Sign in", a lone "By")
    or a placeholder ("Author"); of names written twice in different case, the first not in capitals. What
    a byline adds to a name is cut (:func:`name_only`; ``host``: the page's)."""
    if not authors:
        return authors
    kept: dict[str, str] = {}
    for written in authors.split("; "):
        if not (name := name_only(written, host)):
            continue
        words = name.lower().replace(".", " ").split()
        letters = [word for word in words if not word.isdigit()]
        if not letters or " ".join(words) in _NOT_NAMES or (len(letters) == 1 and letters[0] in _CALENDAR):
            continue  # "December", "Dec 2021", "Username"; "Sun Jun" and "April May" are names
        key = name.casefold()
        if key not in kept or (kept[key].isupper() and not name.isupper()):
            kept[key] = name
    return "; ".join(kept.values()) or None


def name_only(name: str, host: str | None = None) -> str:
    """A name without what bylines write around it: a lead-in ("View all posts by", "Author:"), the
    links after it ("Twitter Email", "View author archive", "Follow"), a job title ("Senior
    Politics Editor", "Contributor", "is an editor"), the name again or as a handle ("Margaret
    Talev margarettalev"); "" for what is no person's name: the page's domain ("Speicherguide
    De" on speicherguide.de) or an e-mail address's ("Mcason Com"), a login form's words
    ("Username o Email"), a job title alone ("Chief People Officer"). Values longer than any
    name are left as they are (the patterns would take quadratic time on them)."""
    if len(name) > _LONGEST_NAME:
        return name
    name = _LEAD_IN.sub("", name)
    if repeated := _REPEATED.match(name):
        name = repeated[1]
    before = None
    while before != name:
        before, name = name, _TRAILING.sub("", name)
    if (date := _TRAILING_DATE.search(name)) and len(name[:date.start()].split()) > 1:
        name = name[:date.start()]  # "Cindy Mangomini December"; "Theresa May" is a name
    if (role := _ROLE_TITLE.search(name)) and len(name[:role.start()].split()) != 1:
        name = name[:role.start()]  # a job title after a name, or alone ("Tom Writer" is a name)
    words = name.split()
    if len(words) > 1 and words[-1].islower() and words[-1] == "".join(words[:-1]).lower():
        words.pop()  # the name once more as a handle
    lowered = [word.lower() for word in words]
    if not words or not _NOT_NAME_WORDS.isdisjoint(lowered):
        return ""
    domain = ".".join(lowered)
    if len(words) <= 3 and (lowered[-1] in _MAIL_DOMAINS or (host is not None and f".{host}".endswith(f".{domain}"))):
        return ""  # "Mcason Com"; "Lefigaro Fr" on lefigaro.fr ("Zhu De" is a name)
    return " ".join(words)


_LONGEST_NAME = 200
_ROLE = r"(?:correspondent|editor|writer|reporter|contributor|columnist|journalist|producer|officer)"  # one person's
# Roles that are no one's surname, cut without a modifier ("Steve Gillman Contributor"; "Mary Ann Writer" stays).
_BARE_ROLE = r"(?:correspondent|editor|reporter|contributor|columnist|journalist)"
_ROLE_MODIFIER = (r"(?:senior|chief|staff|contributing|managing|executive|deputy|associate|special|guest|"
                  r"national|foreign|political|politics|general|assistant)")
_LEAD_IN = re.compile(
    r"^(?:(?:(?:view|see) )?all (?:posts|articles|stories)|more (?:posts|articles|stories)|posted|written|"
    r"published|reported|story|text|words|photos?)\s+by\b[:\s]*|"
    r"^(?:author|auteure?|autore|autora|autor(?:in|[:*_/]in(?:nen)?|(?-i:In)nen)?|verfasser(?:in|[:*_/]in(?:nen)?)?)\b[:\s]+|"
    # a plural in plain letters before a colon or a name of two words or more (trafilatura drops the
    # colon of a meta tag's value): "Authors Guild", "Autoren Verlag" are names
    r"^(?:authors|auteure?s|autoren|autorinnen|verfasserinnen)(?:\s*:\s*|\s+(?=\S+\s+\S))|"
    r"^par\s+(?=\S+\s+\S)",  # French "by" before a name of two words or more ("Par Lagerkvist" is a name)
    re.IGNORECASE,
)
_REPEATED = re.compile(r"^(\w[\w'.-]*(?: \w[\w'.-]*)+) \1\b", re.IGNORECASE)  # "Jack Mirkinson Jack Mirkinson is …"
_TRAILING = re.compile(
    r"(?:^|\s+)(?:twitter|email|e-mail|facebook|linkedin|instagram|rss|follow|following|blocked|unblock|"
    r"view author archive|get author rss feed|(?:more|all) (?:posts|articles|stories) by\b.*|"
    r"(?:view|see) all (?:posts|articles|stories)\b.*|is an? \w.*)$",
    re.IGNORECASE,
)
# A job title: modifiers, up to two words of its own ("Washington"), then the role; or a bare role.
_ROLE_TITLE = re.compile(rf"(?:^|\s+)(?:(?:{_ROLE_MODIFIER} )+(?:\w+ ){{0,2}}{_ROLE}|{_BARE_ROLE})$", re.IGNORECASE)
# The last word of a name made from an e-mail address ("Mcason Com"): no name ends so.
_MAIL_DOMAINS = frozenset({"com", "net", "org", "info"})
# Words no name holds: a web address's, a login form's.
_NOT_NAME_WORDS = frozenset({
    "www", "username", "password", "login", "logged", "logout", "passwort", "benutzername", "anmelden", "identifiant",
    "connexion", "usuario", "contraseña", "регистрация", "вход", "логин", "пароль",
})


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CALENDAR = frozenset((*_MONTHS, *_WEEKDAYS, *(word[:3] for word in (*_MONTHS, *_WEEKDAYS)), "sept", "tues", "thurs"))
_NOT_NAMES = frozenset({
    "by", "username", "user name", "user", "sign in", "sign up", "log in", "login", "log out", "logout", "register",
    "subscribe", "follow", "share", "email", "e-mail", "print", "comment", "comments", "reply", "menu", "search",
    "home", "more", "read more", "profile", "account", "my account", "null", "none", "undefined", "unknown", "n/a",
    "author", "authors", "autor", "autorin", "autoren", "auteur", "autore", "autora", "verfasser",
    "autor:in", "autor*in", "autor_in", "autor/in", "autorinnen", "verfasserin", "auteure", "auteurs",
})
# A month or weekday name ending a byline: trafilatura cuts a byline from its first digit ("Cindy
# Mangomini December 21, 2016"), which leaves the name of the month.
_CALENDAR_WORD = rf"\b(?:{'|'.join(sorted(_CALENDAR, key=len, reverse=True))})\b\.?"
_TRAILING_DATE = re.compile(rf"(?:[\s,]+{_CALENDAR_WORD})+[\s,]*$", re.IGNORECASE)
