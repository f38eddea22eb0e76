"""Output that works in any locale (issue 38, rule 8).

atmsim's summaries and tables use a few non-ASCII signs (µ, →, …, ×, ≤). Where
stdout cannot encode them (`LANG=C` without Python's UTF-8 coercion,
`PYTHONIOENCODING=ascii`, a pipe into a tool that declares ASCII), Python's
default is to raise UnicodeEncodeError in the middle of a summary. Instead
each sign is written as its usual ASCII spelling (µs as us, → as ->), and any
other character as a backslash escape, so the output stays readable and
complete.
"""
from __future__ import annotations

import codecs
import sys

#: The ASCII spelling of each non-ASCII sign atmsim prints.
ASCII_SPELLING = {
    "µ": "u", "μ": "u", "→": "->", "←": "<-", "↔": "<->", "…": "...", "×": "x", "·": "*",
    "≤": "<=", "≥": ">=", "≠": "!=", "±": "+/-", "≈": "~", "−": "-", "–": "-", "—": "--",
    "‘": "'", "’": "'", "“": '"', "”": '"', "⌊": "floor(", "⌋": ")", "²": "^2", "³": "^3",
    "°": " deg", "§": "Sec. ", "é": "e", "ü": "u", "ö": "o", "ä": "a", "√": "sqrt", "∞": "inf", "Σ": "sum", "α": "alpha", "β": "beta", "ρ": "rho",
    "λ": "lambda", "Δ": "delta", "δ": "delta", "τ": "tau", "σ": "sigma", "\u00a0": " ",
}

_HANDLER = "atmsim-ascii"
#: ASCII with the spellings above, under a name of its own: click rewraps a stream whose encoding
#: is plain "ascii" as UTF-8 (so it would write UTF-8 into an ASCII pipe), but leaves this one.
CODEC = "atmsim_ascii"


def _spell(err: UnicodeEncodeError):
    text = err.object[err.start:err.end]
    return "".join(ASCII_SPELLING.get(c, c.encode("ascii", "backslashreplace").decode("ascii")) for c in text), err.end


def _encode(text: str, errors: str = "strict"):
    return codecs.ascii_encode(text, _HANDLER)


def _find(name: str):
    if name != CODEC:
        return None
    ascii_codec = codecs.lookup("ascii")
    return codecs.CodecInfo(_encode, ascii_codec.decode, name=CODEC,
                            incrementalencoder=_IncrementalEncoder, incrementaldecoder=ascii_codec.incrementaldecoder)


class _IncrementalEncoder(codecs.IncrementalEncoder):
    def encode(self, text, final=False):
        return _encode(text)[0]


codecs.register_error(_HANDLER, _spell)
codecs.register(_find)


def _cannot_encode_signs(stream) -> bool:
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return False
    try:
        "µ→…×≤".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def plain_where_needed(*streams) -> None:
    """Reconfigures each stream (default: stdout and stderr) that cannot encode atmsim's signs to
    spell them in ASCII; a stream that can is left as it is."""
    for stream in streams or (sys.stdout, sys.stderr):
        if stream is not None and _cannot_encode_signs(stream) and hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding=CODEC, errors=_HANDLER)
