"""What the write policy looks for (pure): secrets, personal data, and text that instructs an agent.

Secrets: the regular expressions of detect-secrets' own detectors (their public ``denylist``, the
pattern list each regex detector is built from) for the providers they cover, and ledger's own
patterns for what they miss (Google keys, newer OpenAI/Anthropic/GitHub formats, bearer tokens,
``password=...`` pairs, connection strings). detect-secrets' keyword and entropy detectors are
left out: they judge source code and flag ordinary prose and hashes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ledger.policy.fold import fold

__all__ = ["Finding", "find_instructions", "find_pii", "find_secrets"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a pattern found: its category, kind, and span in the text scanned."""

    category: str  #: "secret", "pii" or "instruction"
    kind: str  #: e.g. "aws-access-key", "email", "ignore-instructions"
    start: int
    end: int


#: detect-secrets detectors whose denylist match is itself the secret (no second step needed)
_DETECT_SECRETS = {
    "AWSKeyDetector": "aws-key", "AzureStorageKeyDetector": "azure-storage-key",
    "BasicAuthDetector": "url-password", "DiscordBotTokenDetector": "discord-token",
    "GitHubTokenDetector": "github-token", "GitLabTokenDetector": "gitlab-token", "JwtTokenDetector": "jwt",
    "MailchimpDetector": "mailchimp-key", "NpmDetector": "npm-token", "OpenAIDetector": "openai-key",
    "PrivateKeyDetector": "private-key", "PypiTokenDetector": "pypi-token", "SendGridDetector": "sendgrid-key",
    "SlackDetector": "slack-token", "SquareOAuthDetector": "square-secret", "StripeDetector": "stripe-key",
    "TelegramBotTokenDetector": "telegram-token", "TwilioKeyDetector": "twilio-key",
}

_OWN_SECRETS = {
    "github-token": r"\bgithub_pat_[A-Za-z0-9_]{22,}",
    "google-api-key": r"\bAIza[0-9A-Za-z_\-]{35}",
    "google-oauth-secret": r"\bGOCSPX-[0-9A-Za-z_\-]{20,}",
    "openai-key": r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}",
    "anthropic-key": r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
    "stripe-key": r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}",
    "slack-token": r"\bxapp-\d-[A-Za-z0-9\-]{20,}",
    "huggingface-token": r"\bhf_[A-Za-z0-9]{30,}",
    "aws-secret-key": r"(?i:aws_?secret_?access_?key)\s*[=:]\s*[\"']?[A-Za-z0-9/+]{40}",
    "azure-key": r"(?i:SharedAccessKey|AccountKey)=[A-Za-z0-9+/=]{20,}",
    "gcp-service-account": r"\"private_key(?:_id)?\"\s*:\s*\"[^\"]{16,}",
    "private-key": r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----",
    "bearer-token": r"(?i:\bbearer)\s+[A-Za-z0-9\-._~+/]{20,}=*",
    "connection-string": r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]+:[^\s@/]{3,}@[^\s/]+",
    "password": (r"(?i:\b(?:pass(?:word|wd|phrase)?|pwd|passwort|mot de passe|contrase[nñ]a|senha|wachtwoord|"
                 r"has[lł]o|secret|client[_\-]?secret|api[_\-]?key|access[_\-]?token|auth[_\-]?token))"
                 r"\s*(?P<sep>[=:])\s*[\"']?(?P<value>[^\s\"',;]{4,})"),
}


@cache
def _secret_pattern() -> tuple[re.Pattern[str], tuple[str, ...]]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    sources: list[tuple[str, str]] = []
    plugin: type
    for plugin in get_mapping_from_secret_type_to_class().values():
        kind = _DETECT_SECRETS.get(plugin.__name__)
        if kind is None:
            continue
        for pattern in getattr(plugin, "denylist", ()):
            flags = "i" if pattern.flags & re.IGNORECASE else ""
            sources.append((kind, f"(?{flags}:{pattern.pattern})" if flags else f"(?:{pattern.pattern})"))
    sources.extend(_OWN_SECRETS.items())
    kinds = tuple(kind for kind, _ in sources)
    combined = "|".join(f"(?P<s{i}>{source})" for i, (_, source) in enumerate(sources))
    # the named groups of the own patterns are numbered apart per alternative
    combined = combined.replace("(?P<sep>", "(?:").replace("(?P<value>", "(")
    return re.compile(combined), kinds


_PASSWORD_VALUE = re.compile(_OWN_SECRETS["password"])


#: words near which a secret's pattern may match across spaces (``password = ...``, ``Bearer ...``)
_SECRET_WORDS = ("pass", "pwd", "secret", "key=", "key\"", "api_key", "api-key", "apikey", "token", "bearer", "begin",
                 "putty", "passwort", "contrase", "senha", "wachtwoord", "hasło", "://")


def find_secrets(text: str) -> list[Finding]:
    """Credentials in ``text``: provider keys, tokens, private key blocks, passwords, connection strings.

    The patterns run only where a secret can be (the full alternation costs ~40 µs a line): on
    tokens of 16 characters or more, and in a window around each word of ``_SECRET_WORDS``.
    """
    long_token = len(text) >= 16 and any(len(part) >= 16 for part in text.split())
    lowered = text.lower()
    if not long_token and _SECRET_WORD.search(lowered) is None:
        return []  # the common case
    windows = [(m.start(), m.end()) for m in _LONG_TOKEN.finditer(text)] if long_token else []
    windows.extend((max(0, m.start() - 48), min(len(text), m.end() + 240)) for m in _SECRET_WORD.finditer(lowered))
    pattern, kinds = _secret_pattern()
    found: dict[tuple[int, int], Finding] = {}
    for start, end in _merged(windows):
        for match in pattern.finditer(text, start, end):
            kind = kinds[int(match.lastgroup[1:]) if match.lastgroup else 0]
            if kind == "password" and not _is_password_value(match.group()):
                continue
            found.setdefault((match.start(), match.end()), Finding("secret", kind, match.start(), match.end()))
    return sorted(found.values(), key=lambda f: f.start)


_LONG_TOKEN = re.compile(r"\S{16,}")
_SECRET_WORD = re.compile("|".join(map(re.escape, _SECRET_WORDS)))


def _merged(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _is_password_value(pair: str) -> bool:
    """``password: required`` is prose; ``password=hunter2`` and ``password: Tr0ub4dor&3`` are secrets."""
    match = _PASSWORD_VALUE.match(pair)
    if match is None:
        return False
    value = match.group("value")
    if match.group("sep") == "=":
        return True
    return any(not c.isalpha() for c in value) and not value.rstrip(".").isdigit()


# ----------------------------------------------------------------------------------- personal data

_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b")
#: what every numeric pattern below needs: seven digits with few separators, a NINO's or a codice
#: fiscale's start (most text has none, and then the patterns do not run)
_MAYBE_NUMBER = re.compile(r"\d(?:[ .\-/()]{0,2}\d){6}|[A-Z]{2} ?\d\d ?\d\d ?\d\d|[A-Z]{6}\d\d")
_PII = re.compile(
    r"(?P<card>\b[3-6]\d{3}(?:[ \-]?\d{4}){2}[ \-]?\d{1,4}(?:[ \-]?\d{3})?\b)"
    r"|(?P<ssn>\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b)"
    r"|(?P<iban>\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b)"
    r"|(?P<nino>\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b)"
    r"|(?P<dni>\b\d{8}-?[TRWAGMYFPDXBNJZSQVHLCKE]\b)"
    r"|(?P<codice_fiscale>\b[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z]\b)"
    r"|(?P<phone>(?<![\w+])(?:\+\d{1,3}[ .\-]?(?:\(0?\d{1,4}\)[ .\-]?)?\d{1,4}(?:[ .\-]?\d{2,4}){2,4}"
    r"|\(\d{3}\) ?\d{3}-\d{4}|\b\d{3}[.\-]\d{3}[.\-]\d{4}"
    r"|\b0\d{2,4}[ /\-]\d{3,4}[ \-]?\d{3,4})(?![\w\-]))"
)
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def find_pii(text: str) -> list[Finding]:
    """Personal data in ``text``: emails, phone numbers, government ids (US SSN, UK NINO, Spanish
    DNI, Italian codice fiscale), IBANs (mod 97) and card numbers (Luhn)."""
    found: list[Finding] = []
    if "@" in text:
        found.extend(Finding("pii", "email", m.start(), m.end()) for m in _EMAIL.finditer(text))
    if _MAYBE_NUMBER.search(text) is None:
        return found
    for match in _PII.finditer(text):
        kind = match.lastgroup or "pii"
        value = match.group()
        if kind == "card" and not _luhn(value):
            continue
        if kind == "iban" and not _iban_ok(value):
            continue
        if kind == "dni" and _DNI_LETTERS[int(value[:8]) % 23] != value[-1]:
            continue
        found.append(Finding("pii", kind.replace("_", "-"), match.start(), match.end()))
    return sorted(found, key=lambda f: f.start)


def _luhn(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def _iban_ok(value: str) -> bool:
    compact = value.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


# ------------------------------------------------------------------------------------ instructions

_S = r"[\s\-_.,:;'\"*]*"  # what may stand between the words of an instruction
_INSTRUCTIONS: dict[str, tuple[str, ...]] = {
    "ignore-instructions": (
        # EN
        rf"\b(?:ignore|disregard|forget|override|bypass|skip){_S}(?:all{_S}|any{_S}|every{_S})?(?:of{_S})?(?:the{_S}|your{_S}|my{_S})?"
        rf"(?:previous|prior|above|earlier|preceding|former|original|initial|system){_S}(?:instructions?|prompts?|rules|directions|guidelines|orders)",
        # DE
        rf"\b(?:ignorier\w*|vergiss\w*|missacht\w*){_S}(?:alle{_S})?(?:\w+{_S})?(?:vorherigen|bisherigen|vorigen|obigen|fruheren|vorangegangenen){_S}(?:anweisungen|instruktionen|befehle|regeln)",
        # FR
        rf"\b(?:ignore[rz]?|oublie[rz]?){_S}(?:toutes{_S}|tous{_S})?(?:les|vos|tes){_S}(?:instructions|consignes|regles|directives){_S}(?:precedentes|anterieures|ci-dessus)",
        # ES
        rf"\b(?:ignora[rd]?|ignore|olvida[rd]?){_S}(?:todas{_S})?(?:las{_S})?(?:instrucciones|indicaciones|ordenes|reglas){_S}(?:anteriores|previas|precedentes)",
        # IT
        rf"\b(?:ignora(?:re)?|dimentica(?:re)?){_S}(?:tutte{_S})?(?:le{_S})?(?:istruzioni|indicazioni|regole){_S}(?:precedenti|anteriori)",
        # PT
        rf"\b(?:ignor[ea]r?|esque[cç]a){_S}(?:todas{_S})?(?:as{_S})?(?:instrucoes|instrucoes|indicacoes|ordens|regras){_S}(?:anteriores|previas)",
        # NL
        rf"\b(?:negeer|vergeet){_S}(?:alle{_S})?(?:de{_S})?(?:vorige|eerdere|voorgaande|bovenstaande){_S}(?:instructies|opdrachten|regels)",
        # PL
        rf"\b(?:zignoruj|ignoruj|zapomnij){_S}(?:o{_S})?(?:wszystkie{_S}|wszystkich{_S})?(?:poprzednie|wczesniejsze|poprzednich|wczesniejszych){_S}(?:instrukcje|instrukcji|polecenia|polecen)",
    ),
    "reveal-system-prompt": (
        rf"\b(?:reveal|show|print|repeat|output|display|leak|tell{_S}me|give{_S}me|what{_S}is|write{_S}out){_S}(?:me{_S})?(?:the|your|its){_S}(?:full{_S}|entire{_S}|hidden{_S}|initial{_S})?(?:system{_S}prompt|system{_S}message|hidden{_S}instructions|initial{_S}instructions)",
        rf"\b(?:zeig\w*|verrat\w*|gib|nenn\w*){_S}(?:mir{_S})?(?:den|deinen|die|deine){_S}(?:system{_S}?prompt|systemanweisungen|systemnachricht)",
        rf"\b(?:revele[rz]?|montre[rz]?|affiche[rz]?|donne[rz]?){_S}(?:moi{_S})?(?:le|ton|votre|les|tes|vos){_S}(?:prompt{_S}systeme|invite{_S}systeme|instructions{_S}systeme|message{_S}systeme)",
        rf"\b(?:revela[rd]?|muestra[rd]?|ensena[rd]?|dime){_S}(?:el|tu|las|tus){_S}(?:prompt{_S}del{_S}sistema|indicaciones{_S}del{_S}sistema|instrucciones{_S}del{_S}sistema|mensaje{_S}del{_S}sistema)",
        rf"\b(?:rivela(?:re)?|mostra(?:re)?|dimmi){_S}(?:il|tuo|le|tue){_S}(?:tuo{_S}|tue{_S})?(?:prompt{_S}di{_S}sistema|istruzioni{_S}di{_S}sistema|messaggio{_S}di{_S}sistema)",
        rf"\b(?:revel[ea]r?|mostr[ea]r?){_S}(?:o|seu|as|suas){_S}(?:prompt{_S}do{_S}sistema|instrucoes{_S}do{_S}sistema|mensagem{_S}do{_S}sistema)",
        rf"\b(?:onthul|toon|laat{_S}zien){_S}(?:de|je|jouw){_S}(?:systeem{_S}?prompt|systeeminstructies|systeembericht)",
        rf"\b(?:ujawnij|pokaz|wypisz|podaj){_S}(?:swoj{_S}|swoje{_S})?(?:prompt{_S}systemowy|instrukcje{_S}systemowe|komunikat{_S}systemowy)",
    ),
    "hide-from-user": (
        rf"\b(?:do{_S}not|don'?t|never){_S}(?:tell|inform|show|mention{_S}(?:this|it){_S}to|reveal{_S}(?:this|it){_S}to|let){_S}(?:the|this){_S}user",
        rf"\b(?:sag\w*|erzahl\w*|verrat\w*){_S}(?:es{_S}|das{_S})?(?:dem|den){_S}(?:benutzer|nutzer|anwender)\w*{_S}(?:es{_S}|das{_S})?nicht",
        rf"\bne{_S}(?:le{_S}|rien{_S})?(?:dis|dites|montre[zs]?|revele[zs]?){_S}(?:rien{_S}|pas{_S}|jamais{_S})(?:a{_S})?l{_S}utilisateur",
        rf"\bno{_S}(?:se{_S})?(?:lo{_S})?(?:digas|diga|cuentes|muestres){_S}(?:nada{_S})?al{_S}usuario",
        rf"\bnon{_S}(?:dirlo|dire(?:{_S}nulla)?|mostrarlo|rivelarlo){_S}(?:al*{_S})?(?:l{_S})?utente",
        rf"\bnao{_S}(?:conte|diga|mostre|revele){_S}(?:nada{_S})?(?:ao|a){_S}(?:usuario|utilizador)",
        rf"\b(?:vertel|zeg|laat){_S}(?:het|dit){_S}(?:niet{_S})?(?:aan{_S})?de{_S}gebruiker{_S}(?:niet)?",
        rf"\bnie{_S}(?:mow|informuj|pokazuj|ujawniaj){_S}(?:tego{_S}|nic{_S})?uzytkownik\w*",
    ),
    "ask-for-credentials": (
        rf"\b(?:always|first|must|should|now){_S}(?:ask|request|prompt){_S}(?:the{_S}user{_S}|them{_S}|him{_S}|her{_S})?(?:for{_S})?(?:the{_S}|their{_S}|his{_S}|her{_S}|your{_S})?(?:password|passcode|pin|credentials|api{_S}key|login)",
        rf"\b(?:ask|request){_S}(?:the{_S}user{_S})(?:for{_S})(?:the{_S}|their{_S})?(?:password|passcode|pin|credentials|api{_S}key)",
        rf"\b(?:frag\w*|verlang\w*){_S}(?:immer{_S})?(?:\w+{_S})?nach{_S}(?:dem|seinem|ihrem){_S}(?:passwort|kennwort)",
        rf"\bdemande[rz]?{_S}(?:toujours{_S})?(?:\w+{_S})?(?:le|son|leur|votre){_S}mot{_S}de{_S}passe",
        rf"\bpid[ea]{_S}(?:siempre{_S})?(?:\w+{_S})?(?:la|su){_S}contrasena",
        rf"\bchiedi{_S}(?:sempre{_S})?(?:\w+{_S})?(?:la|sua){_S}password",
        rf"\b(?:peca|pergunte){_S}(?:sempre{_S})?(?:\w+{_S})?(?:a|sua){_S}(?:senha|palavra{_S}passe)",
        rf"\bvraag{_S}(?:altijd{_S})?(?:\w+{_S})?(?:om|naar){_S}(?:het|zijn|haar){_S}wachtwoord",
        rf"\b(?:zawsze{_S})?(?:pytaj|popros|zapytaj){_S}(?:zawsze{_S})?(?:\w+{_S})?o{_S}has[lł]o",
    ),
    "role-override": (
        rf"\byou{_S}are{_S}now{_S}(?:in{_S})?(?:dan|developer{_S}mode|jailbroken|unrestricted|an?{_S}unfiltered)",
        rf"\b(?:new|updated){_S}system{_S}(?:prompt|instructions?){_S}:",
        r"<\|?(?:im_start|system|endoftext)\|?>",
        r"\[/?(?:inst|system)\]",
    ),
}
#: letter-spaced or run-together forms ("i g n o r e  p r e v i o u s  i n s t r u c t i o n s"),
#: looked for in the text's letters alone
_SQUEEZED = {
    "ignore-instructions": ("ignorepreviousinstructions", "ignoreallpreviousinstructions", "disregardpreviousinstructions",
                            "ignorepriorinstructions", "ignorevorherigenanweisungen"),
    "reveal-system-prompt": ("revealthesystemprompt", "revealyoursystemprompt", "printyoursystemprompt"),
    "hide-from-user": ("donottelltheuser", "donttelltheuser"),
}


@cache
def _instruction_pattern() -> re.Pattern[str]:
    """All instruction patterns as one (compiled on first use: ~80 ms that ``import ledger`` need not pay)."""
    return re.compile("|".join(f"(?P<i{index}>{pattern})" for index, pattern in
                               enumerate(p for group in _INSTRUCTIONS.values() for p in group)))


_INSTRUCTION_KINDS = tuple(kind for kind, group in _INSTRUCTIONS.items() for _ in group)
#: words (folded) without one of which no instruction pattern can match: the patterns run only then
_INSTRUCTION_STEMS = (
    "instru", "anweis", "consign", "directi", "guideline", "regel", "regle", "rule", "regol", "regra", "indica",
    "istruz", "orden", "order", "opdracht", "polecen", "befehl", "prompt", "system", "user", "benutzer", "nutzer",
    "anwender", "utilisat", "usuario", "utente", "utilizador", "gebruiker", "uzytkown", "passw", "passc", "pin",
    "credential", "api", "login", "kennw", "mot de passe", "contrasen", "senha", "palavra", "wachtw", "has",
    " dan", "developer", "jailbr", "unrestr", "unfilt", "im_start", "endoftext", "inst]", "<|",
)
_INSTRUCTION_STEM = re.compile("|".join(map(re.escape, _INSTRUCTION_STEMS)))
_NOT_LETTERS = re.compile(r"[^a-z]+")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=])")


def find_instructions(text: str) -> list[Finding]:
    """Text that instructs an agent (ignore previous instructions, reveal the system prompt, do not
    tell the user, ask for the password, role overrides) in EN, DE, FR, ES, IT, PT, NL and PL, after
    folding (``ledger.policy.fold``), letter-spaced, and inside base64."""
    spaced = text.count(" ") * 3 > len(text)
    may_be_encoded = len(text) >= 24 and any(len(part) >= 24 for part in text.split())
    if text.isascii() and not spaced and not may_be_encoded and _INSTRUCTION_STEM.search(text.lower()) is None:
        return []  # the common case, decided without folding
    folded = fold(text)
    found: list[Finding] = []
    if _INSTRUCTION_STEM.search(folded.text) is not None:
        found = [Finding("instruction", _INSTRUCTION_KINDS[int(m.lastgroup[1:]) if m.lastgroup else 0],
                         *folded.span(m.start(), m.end())) for m in _instruction_pattern().finditer(folded.text)]
    if not found and folded.text.count(" ") * 3 > len(folded.text):  # letter-spaced?
        letters = _NOT_LETTERS.sub("", folded.text)
        for kind, phrases in _SQUEEZED.items():
            if any(phrase in letters for phrase in phrases):
                found.append(Finding("instruction", kind, 0, len(text)))
                break
    if not found and may_be_encoded:
        found.extend(_inside_base64(text))
    return found


def _inside_base64(text: str) -> list[Finding]:
    import base64
    import binascii

    found = []
    for match in _BASE64.finditer(text):
        chunk = match.group()
        try:
            decoded = base64.b64decode(chunk + "=" * (-len(chunk) % 4)).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable() or all(c.isprintable() or c.isspace() for c in decoded):
            if find_instructions(decoded):
                found.append(Finding("instruction", "encoded-instruction", match.start(), match.end()))
    return found
