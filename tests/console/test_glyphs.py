"""Every glyph the console draws exists in the system's default monospace font.

A glyph missing from that font shows as an empty box in a browser (`recode-tui serve`) and in
many terminals: the pause sign U+23F8 did. The check asks fontconfig, the font lookup Chromium
and most Linux terminals use, which font `monospace` is and whether it holds each character.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CONSOLE = Path(__file__).resolve().parents[2] / "recode_tui"


def console_glyphs() -> set[str]:
    """The non-ASCII characters in the console's code and styles."""
    glyphs: set[str] = set()
    for path in CONSOLE.rglob("*"):
        if path.suffix in (".py", ".tcss"):
            glyphs.update(ch for ch in path.read_text(encoding="utf-8") if ord(ch) > 127)
    return glyphs


def monospace_family() -> str:
    return subprocess.run(["fc-match", "-f", "%{family[0]}", "monospace"], capture_output=True, text=True,
                          check=True).stdout.strip()


def has_glyph(family: str, glyph: str) -> bool:
    listing = subprocess.run(["fc-list", f"{family}:charset={ord(glyph):x}", "family"], capture_output=True,
                             text=True, check=True).stdout
    return bool(listing.strip())


needs_fontconfig = pytest.mark.skipif(shutil.which("fc-list") is None or shutil.which("fc-match") is None,
                                      reason="fontconfig (fc-list, fc-match) is not installed: no font to check")


@needs_fontconfig
def test_every_console_glyph_is_in_the_default_monospace_font():
    family = monospace_family()
    glyphs = console_glyphs()
    assert "‖" in glyphs  # the pause sign the status line shows
    missing = sorted(f"U+{ord(g):04X} {g}" for g in glyphs if not has_glyph(family, g))
    assert not missing, f"not in {family}, shown as empty boxes: {missing}"


@needs_fontconfig
def test_the_check_finds_the_old_pause_sign_missing():
    assert not has_glyph(monospace_family(), "\u23f8")
