"""A fact's timeline as an inline SVG: world-time bars per value above, system-time lanes below.

The top panel draws each claim's valid interval ``[valid_from, valid_until)`` on a world-time
axis, one row per claim, in its value's colour: an open bound runs to the panel's edge and ends
in an arrow, a bound known only to the year is drawn as a pale window, an interval the claim had
in an earlier version is a dashed outline, a claim superseded as a whole (valid at no time) is a
hollow diamond. The bottom panel draws, on its own system-time axis, each version of each claim
as a segment coloured by its status, with a dot where the claim was recorded, a tick at every
later version and a cross where it was retracted or superseded. Every text is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from html import escape

from ledger.records import Audit, Claim
from ledger.report.model import Fact
from ledger.timeline import end_window, start_window

WIDTH = 760
LABEL_X = 8
PLOT_LEFT = 190
PLOT_RIGHT = 740
WORLD_ROW = 22
SYSTEM_ROW = 16
AXIS_HEIGHT = 26
HEADER = 18
#: Colours of a fact's values, in the order their claims were made (public: tests look for them).
VALUE_COLOURS = ("#1f77b4", "#e8710a", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
STATUS_COLOURS = {"reported": "#90a4ae", "confirmed": "#2e7d32", "disputed": "#c62828",
                  "superseded": "#6d4c41", "retracted": "#101010"}
INVALIDATED_COLOUR = "#c62828"
RECORDED_COLOUR = "#263238"


def value_colours(fact: Fact) -> dict[str, str]:
    """Value label → colour, in the order of the fact's claims (colours repeat after eight)."""
    colours: dict[str, str] = {}
    for audit in fact.claims:
        colours.setdefault(audit.claim.object_label, VALUE_COLOURS[len(colours) % len(VALUE_COLOURS)])
    return colours


class _Scale:
    """Maps instants in [start, end] onto the plot's x range."""

    def __init__(self, moments: Iterable[datetime]) -> None:
        found = sorted(moments)
        if not found:
            found = [datetime(2000, 1, 1, tzinfo=UTC)]
        start, end = found[0], found[-1]
        span = end - start
        if span < timedelta(days=2):
            start, end = start - timedelta(days=365), end + timedelta(days=365)
        else:
            start, end = start - span / 20, end + span / 20
        self.start, self.end = start, end

    def x(self, at: datetime) -> float:
        """The x of an instant (clamped to the plot)."""
        whole = (self.end - self.start).total_seconds()
        part = (at - self.start).total_seconds()
        return round(PLOT_LEFT + max(0.0, min(1.0, part / whole)) * (PLOT_RIGHT - PLOT_LEFT), 1)

    def ticks(self) -> list[tuple[datetime, str]]:
        """Round instants to label the axis with: years, or months for a short span."""
        years = (self.end - self.start).days / 365.25
        if years >= 3:
            step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if years / s <= 8)
            first = (self.start.year // step + 1) * step
            return [(datetime(y, 1, 1, tzinfo=UTC), str(y)) for y in range(first, self.end.year + 1, step)
                    if 1 <= y <= 9999]
        months = max(1, round(years * 12))
        step = next(s for s in (1, 2, 3, 6, 12) if months / s <= 8)
        found: list[tuple[datetime, str]] = []
        index = self.start.year * 12 + self.start.month  # the month after start's
        while True:
            year, month = divmod(index, 12)
            at = datetime(year, month + 1, 1, tzinfo=UTC)
            if at > self.end:
                return found
            if month % step == 0:
                found.append((at, at.strftime("%Y-%m")))
            index += 1


def _short(text: str, limit: int = 26) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _when(at: datetime | None, precision: str | None = None) -> str:
    if at is None:
        return "open"
    return at.strftime({"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}.get(precision or "", "%Y-%m-%d %H:%M"))


def _interval_text(claim: Claim) -> str:
    if claim.never_valid:
        return "valid at no time (superseded as a whole)"
    return (f"[{_when(claim.valid_from, claim.valid_from_precision)}, "
            f"{_when(claim.valid_until, claim.valid_until_precision)})")


def _world_moments(claims: Sequence[Audit], known_at: datetime) -> list[datetime]:
    moments = []
    for audit in claims:
        for version in audit.versions:
            moments += [t for t in (version.valid_from, version.valid_until) if t is not None]
    # an interval still open runs up to now at least, so the axis reaches the reading time
    if moments and any(a.claim.valid_until is None and not a.claim.never_valid for a in claims):
        moments.append(max(known_at, max(moments)))
    return moments


def _system_moments(claims: Sequence[Audit], known_at: datetime) -> list[datetime]:
    moments = [known_at]
    for audit in claims:
        for version in audit.versions:
            moments += [t for t in (version.recorded_at, version.invalidated_at) if t is not None]
    return moments


def _axis(scale: _Scale, y: float) -> list[str]:
    parts = [f'<line class="axis" x1="{PLOT_LEFT}" y1="{y}" x2="{PLOT_RIGHT}" y2="{y}" stroke="#546e7a"/>']
    for at, label in scale.ticks():
        x = scale.x(at)
        parts.append(f'<line x1="{x}" y1="{y}" x2="{x}" y2="{y + 4}" stroke="#546e7a"/>'
                     f'<text x="{x}" y="{y + 15}" font-size="10" text-anchor="middle" fill="#37474f">{label}</text>')
    return parts


def _arrow(x: float, y: float, colour: str, *, right: bool) -> str:
    tip = x + 7 if right else x - 7
    return (f'<polygon class="open-bound" points="{x},{y - 7} {tip},{y} {x},{y + 7}" fill="{colour}"/>')


def _world_row(audit: Audit, y: float, scale: _Scale, colour: str) -> list[str]:
    claim = audit.claim
    label = escape(_short(claim.object_label))
    tip = escape(f"claim {claim.id}: {claim.object_label} {_interval_text(claim)}, {claim.status}")
    parts = [f'<text x="{LABEL_X}" y="{y + 4}" font-size="11" fill="#212121">{label}'
             f'<title>{escape(claim.object_label)}</title></text>']
    for version in audit.versions[:-1]:  # intervals it had before, when they differ from its current one
        if (version.valid_from, version.valid_until) != (claim.valid_from, claim.valid_until) and not version.never_valid:
            x0 = scale.x(version.valid_from) if version.valid_from else PLOT_LEFT
            x1 = scale.x(version.valid_until) if version.valid_until else PLOT_RIGHT
            parts.append(f'<rect class="earlier" x="{x0}" y="{y - 8}" width="{max(x1 - x0, 1)}" height="16" '
                         f'fill="none" stroke="{colour}" stroke-dasharray="3 2"/>')
    if claim.never_valid and claim.valid_from is not None:
        x = scale.x(claim.valid_from)
        parts.append(f'<polygon class="never-valid" points="{x},{y - 6} {x + 6},{y} {x},{y + 6} {x - 6},{y}" '
                     f'fill="none" stroke="{colour}" stroke-width="2"><title>{tip}</title></polygon>')
        return parts
    x0 = scale.x(claim.valid_from) if claim.valid_from else PLOT_LEFT
    x1 = scale.x(claim.valid_until) if claim.valid_until else PLOT_RIGHT
    outline = ' stroke="#c62828" stroke-width="2"' if claim.status == "disputed" else ""
    faded = ' opacity="0.45"' if claim.status == "retracted" else ""
    parts.append(f'<rect class="value-bar" data-claim="{claim.id}" x="{x0}" y="{y - 7}" width="{max(x1 - x0, 2)}" '
                 f'height="14" fill="{colour}"{outline}{faded}><title>{tip}</title></rect>')
    for start, end in (w for w in (start_window(claim.valid_from, claim.valid_from_precision),
                                   end_window(claim.valid_until, claim.valid_until_precision)) if w):
        wx0, wx1 = scale.x(start), scale.x(end)
        parts.append(f'<rect class="imprecise" x="{wx0}" y="{y - 7}" width="{max(wx1 - wx0, 1)}" height="14" '
                     f'fill="#ffffff" fill-opacity="0.55" stroke="{colour}" stroke-dasharray="2 2">'
                     f'<title>known only to the year</title></rect>')
    if claim.valid_from is None:
        parts.append(_arrow(PLOT_LEFT, y, colour, right=False))
    if claim.valid_until is None:
        parts.append(_arrow(PLOT_RIGHT, y, colour, right=True))
    return parts


def _system_row(audit: Audit, y: float, scale: _Scale, known_at: datetime, colour: str) -> list[str]:
    claim = audit.claim
    parts = [f'<rect x="{LABEL_X}" y="{y - 5}" width="10" height="10" fill="{colour}"/>'
             f'<text x="{LABEL_X + 14}" y="{y + 4}" font-size="10" fill="#37474f">claim {claim.id}</text>']
    for version in audit.versions:  # the version still held runs to the edge: open in system time
        x0 = scale.x(version.recorded_at)
        x1 = scale.x(version.invalidated_at) if version.invalidated_at else PLOT_RIGHT
        tip = escape(f"claim {claim.id} {version.status} from {_when(version.recorded_at)} until "
                     f"{_when(version.invalidated_at) if version.invalidated_at else 'now'}: {version.cause or ''}")
        parts.append(f'<rect class="version" x="{x0}" y="{y - 4}" width="{max(x1 - x0, 1)}" height="8" '
                     f'fill="{STATUS_COLOURS.get(version.status, "#90a4ae")}"><title>{tip}</title></rect>')
    first = audit.versions[0]
    parts.append(f'<circle class="recorded" cx="{scale.x(first.recorded_at)}" cy="{y}" r="4" '
                 f'fill="{RECORDED_COLOUR}"><title>{escape(f"claim {claim.id} recorded {_when(first.recorded_at)}")}'
                 f'</title></circle>')
    for version in audit.versions[1:]:
        x = scale.x(version.recorded_at)
        if version.status in ("retracted", "superseded") and (version.status == "retracted" or version.never_valid):
            parts.append(f'<path class="invalidated" d="M{x - 5},{y - 5} L{x + 5},{y + 5} M{x - 5},{y + 5} '
                         f'L{x + 5},{y - 5}" stroke="{INVALIDATED_COLOUR}" stroke-width="2.5">'
                         f'<title>{escape(f"claim {claim.id} {version.status} {_when(version.recorded_at)}")}</title>'
                         f'</path>')
        else:
            parts.append(f'<line class="changed" x1="{x}" y1="{y - 7}" x2="{x}" y2="{y + 7}" '
                         f'stroke="{RECORDED_COLOUR}" stroke-width="1.5"/>')
    return parts


def timeline_svg(fact: Fact, known_at: datetime) -> str:
    """The fact's two-panel timeline as an ``<svg>`` element (escaped, self-contained)."""
    colours = value_colours(fact)
    claims = fact.claims
    world = _Scale(_world_moments(claims, known_at) or _system_moments(claims, known_at))
    system = _Scale(_system_moments(claims, known_at))
    parts: list[str] = []
    y = float(HEADER)
    parts.append(f'<text x="{LABEL_X}" y="{y - 4}" font-size="11" font-weight="bold" fill="#37474f">'
                 f'valid time (world)</text>')
    for audit in claims:
        y += WORLD_ROW
        parts += _world_row(audit, y, world, colours[audit.claim.object_label])
    y += WORLD_ROW / 2 + 4
    parts += _axis(world, y)
    y += AXIS_HEIGHT + HEADER
    parts.append(f'<text x="{LABEL_X}" y="{y - 4}" font-size="11" font-weight="bold" fill="#37474f">'
                 f'recorded (system time)</text>')
    known_x = system.x(known_at)
    top = y
    for audit in claims:
        y += SYSTEM_ROW
        parts += _system_row(audit, y, system, known_at, colours[audit.claim.object_label])
    parts.append(f'<line class="known-at" x1="{known_x}" y1="{top + 4}" x2="{known_x}" y2="{y + 8}" '
                 f'stroke="#78909c" stroke-dasharray="4 3"><title>{escape("known at " + _when(known_at))}'
                 f'</title></line>')
    y += SYSTEM_ROW / 2 + 4
    parts += _axis(system, y)
    height = int(y + AXIS_HEIGHT)
    description = escape(f"{fact.subject} / {fact.predicate}: " + "; ".join(
        f"{a.claim.object_label} {_interval_text(a.claim)} {a.claim.status}" for a in claims))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{description}">'
            f'<title>{description}</title>' + "".join(parts) + "</svg>")
