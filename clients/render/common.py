"""Shared pieces of every board picture: seat colours, themes, and a small SVG builder."""

from __future__ import annotations

from html import escape
from typing import Any

# Okabe & Ito's colour-blind-safe palette (seats 0..5); every seat also has a letter shape
# (SEAT_MARKS) so no information is carried by colour alone.
SEAT_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9"]
SEAT_MARKS = ["●", "▲", "■", "◆", "★", "⬟"]

STYLE = """
svg { --bg: #fbf8f1; --fg: #222; --muted: #6b6b6b; --line: #8a8172; --panel: #f0e9da;
      --accent: #b5651d; --hi: #d62728; --legal: #6a1fb0; font-family: system-ui, sans-serif; }
@media (prefers-color-scheme: dark) {
  svg { --bg: #1d1f23; --fg: #eee; --muted: #a8a8a8; --line: #8d8a84; --panel: #2b2e34;
        --accent: #e59a4f; --hi: #ff6b6b; --legal: #c99bff; } }
:root.light svg { --bg: #fbf8f1; --fg: #222; --muted: #6b6b6b; --line: #8a8172; --panel: #f0e9da;
      --accent: #b5651d; --hi: #d62728; --legal: #6a1fb0; }
:root.dark svg { --bg: #1d1f23; --fg: #eee; --muted: #a8a8a8; --line: #8d8a84; --panel: #2b2e34;
      --accent: #e59a4f; --hi: #ff6b6b; --legal: #c99bff; }
.bg { fill: var(--bg); }
.panel { fill: var(--panel); stroke: var(--line); stroke-width: 1; }
.line { stroke: var(--line); fill: none; }
text { fill: var(--fg); font-size: 12px; }
text.muted { fill: var(--muted); }
text.title { font-size: 15px; font-weight: 600; }
text.small { font-size: 10px; }
.seat0 { fill: #0072B2; } .seat1 { fill: #E69F00; } .seat2 { fill: #009E73; }
.seat3 { fill: #CC79A7; } .seat4 { fill: #D55E00; } .seat5 { fill: #56B4E9; }
.seatline0 { stroke: #0072B2; } .seatline1 { stroke: #E69F00; } .seatline2 { stroke: #009E73; }
.seatline3 { stroke: #CC79A7; } .seatline4 { stroke: #D55E00; } .seatline5 { stroke: #56B4E9; }
[data-target] { cursor: default; }
/* a place you may choose: its own colour (red already means a seat to play, a price), dashed */
.legal { cursor: pointer; stroke: var(--legal) !important; stroke-width: 3.5 !important; stroke-dasharray: 7 3; }
.legal:focus { outline: none; stroke-width: 6 !important; }
.legal:hover { filter: brightness(1.15); }
"""


class Svg:
    """Collects SVG elements; `str(svg)` gives the finished document. All text is escaped."""

    def __init__(self, width: int, height: int, title: str):
        self.width, self.height, self.title = width, height, title
        self.parts: list[str] = [f"<title>{escape(title)}</title>", f"<style>{STYLE}</style>",
                                 f'<rect class="bg" x="0" y="0" width="{width}" height="{height}"/>']

    def add(self, tag: str, content: str | None = None, **attrs: Any) -> None:
        """One element; attribute names use _ for - (data_target -> data-target), class_ -> class.
        `tip` (words for a place or piece) becomes its tooltip (an SVG <title>) and its
        aria-label; a board place (`data_target`) without one is named after its id."""
        tip = attrs.pop("tip", None)
        if tip is None and attrs.get("data_target") is not None:
            tip = place_words(str(attrs["data_target"]))
        if tip is not None:
            attrs.setdefault("role", "img")
            attrs["aria_label"] = tip
            content = f"<title>{escape(str(tip))}</title>" + (content or "")
        a = " ".join(f'{_attr(k)}="{escape(str(v))}"' for k, v in attrs.items() if v is not None)
        self.parts.append(f"<{tag} {a}/>" if content is None else f"<{tag} {a}>{content}</{tag}>")

    def rect(self, x: float, y: float, w: float, h: float, **attrs: Any) -> None:
        self.add("rect", x=x, y=y, width=w, height=h, **attrs)

    def circle(self, cx: float, cy: float, r: float, **attrs: Any) -> None:
        self.add("circle", cx=cx, cy=cy, r=r, **attrs)

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: Any) -> None:
        self.add("line", x1=x1, y1=y1, x2=x2, y2=y2, **attrs)

    def text(self, x: float, y: float, s: Any, **attrs: Any) -> None:
        self.add("text", escape(str(s)), x=x, y=y, **attrs)

    def raw(self, fragment: str) -> None:
        """Trusted markup built by this module's callers (never user text)."""
        self.parts.append(fragment)

    def __str__(self) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
                f'width="{self.width}" height="{self.height}" role="group" aria-label="{escape(self.title)}">'
                + "".join(self.parts) + "</svg>")


def place_words(target: str) -> str:
    """A board place's id in words when its renderer gives none ("p0-warehouse" -> "p0 warehouse")."""
    return target.replace("-", " ").replace("_", " ")


def _attr(name: str) -> str:
    return "class" if name == "class_" else name.rstrip("_").replace("_", "-")


def seat_label(names: list[str], seat: int) -> str:
    """A seat's mark, name and number, e.g. "▲ Ann (1)"."""
    name = names[seat] if seat < len(names) else f"seat {seat}"
    return f"{SEAT_MARKS[seat % len(SEAT_MARKS)]} {name}" + ("" if name == f"seat {seat}" else f" ({seat})")
