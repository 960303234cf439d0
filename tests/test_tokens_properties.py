"""The toy tokenizer against its documented rules (engine/tokens.py's module doc): no token is
empty, invisible or holds whitespace, and the tokens are those of a reference written here
from the rules alone, on arbitrary text (CJK, emoji, combining marks, RTL, controls ...).

Property tests run from a fixed seed with no example database, so a run is reproducible;
see ``SETTINGS`` for their size and deadline."""

import re
import unicodedata
from datetime import timedelta

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from engine import tokenize

SETTINGS = settings(max_examples=150, deadline=timedelta(milliseconds=500), database=None)


# ----- the reference: the module doc's rules, restated (nothing imported from the engine) -----
def han(ch):  # Han and kana: one token each (not word characters)
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF
            or 0x20000 <= cp <= 0x3FFFF or 0x3040 <= cp <= 0x30FF)


def word(ch):
    return (ch.isalnum() or ch in "_'’") and not han(ch)


def attachment(ch):  # combining marks, variation selectors, skin tones, tags
    cp = ord(ch)
    return (unicodedata.category(ch).startswith("M") or 0xFE00 <= cp <= 0xFE0F
            or 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F)


#: Default-ignorable code points of Unicode 15's DerivedCoreProperties.txt that are not Cf
#: (every Cf is invisible too), as listed there.
IGNORABLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2065,
             0x3164, 0xFFA0, *range(0xFE00, 0xFE10), *range(0xFFF0, 0xFFF9),
             *range(0xE0000, 0xE1000)}


def invisible(ch):
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") or ord(ch) in IGNORABLE


def visible(ch):
    return not ch.isspace() and not invisible(ch)


def regional(ch):
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


# Each character becomes one letter naming its properties; the rules are then one regular
# expression over those letters (a match's span in the letters is the token's in the text).
PROPS = {"w": word, "q": lambda c: c in "'’", "a": attachment, "z": lambda c: c == "\u200d",
         "r": regional, "v": visible}
BIT = {name: 1 << n for n, name in enumerate(PROPS)}


def letter(ch):
    return chr(0x100 + sum(BIT[name] for name, has in PROPS.items() if has(ch)))


def letters(*need, without=()):
    """A regex class of the letters with every property in ``need`` and none in ``without``."""
    masks = [m for m in range(1 << len(PROPS))
             if all(m & BIT[n] for n in need) and not any(m & BIT[n] for n in without)]
    return "[" + "".join(chr(0x100 + m) for m in masks) + "]"


W, A, Z, R, V = letters("w"), letters("a"), letters("z"), letters("r"), letters("v")
WORD_START, WORD_END = letters("w", "v"), letters("w", without="q")
RULES = re.compile(
    f"{WORD_START}(?:(?:{W}|{A})*(?:{WORD_END}|{A}))?"  # 3. a word, trailing apostrophes off
    f"|{R}{R}"  # 4. a flag
    f"|{V}(?:{A}|{Z}{V})*"  # 5. one glyph with its attachments and joined glyphs
)  # 1, 2: nothing matches from whitespace or an invisible character: skipped


def reference(text):
    text = unicodedata.normalize("NFC", text)
    return [text[m.start():m.end()] for m in RULES.finditer("".join(map(letter, text)))]


# ----- what the rules promise, on examples the old scan got wrong -----
@pytest.mark.parametrize("text", [
    "\u200d\u034f",  # a joiner and a combining grapheme joiner
    "\u200d\u200d\u200e",  # two joiners and a left-to-right mark
    "\u200d\u200d\u202e\u2066",  # joiners, a right-to-left override, an isolate
    "\u3164", "\u115f\u1160", "\uffa0",  # Hangul fillers
    "\u200d\u200d\u00ad", "\u200d\u200d\u2060", "\u200d\u200d\ufeff",
    "\u200d\u200d\u200c", "\u200d\u17b4", "\u200d\u180b", "\u200d\U000e0100",
])
def test_invisible_characters_make_no_token_together_either(text):
    assert tokenize(text) == []
    assert tokenize(f"a {text} b") == ["a", "b"]


def test_a_joiner_joins_only_a_visible_character():
    assert tokenize("👨\u200d👩") == ["👨\u200d👩"]
    assert tokenize("👨\u200d\u200e👩") == ["👨", "👩"]  # a direction mark between: no join
    assert tokenize("\u2764\ufe0f") == ["\u2764\ufe0f"]  # a selector stays with its base
    assert tokenize("e\u0301") == ["é"] and tokenize("\u0301") == ["\u0301"]  # a lone accent


# ----- properties on arbitrary text -----
INTERESTING = [
    " ", "\t", "\n", "\u3000", "\u00a0", "\u2028", "\x00", "\x1c", "\x7f", "\x85",
    "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069",
    "\u2060", "\ufeff", "\u00ad", "\u034f", "\u180b", "\u180e", "\u3164", "\u115f", "\uffa0",
    "\ufe0f", "\ufe0e", "\U000e0100", "\U000e0041", "\U000e007f", "\u0301", "\u0308", "\u20dd",
    "'", "’", "_", ".", ",", "!", "a", "Z", "9", "é", "ß", "İ", "²", "١", "ا", "ש", "ی",
    "我", "爱", "の", "カ", "가", "\u1100", "\u1161", "👍", "🏽", "👨", "👩", "❤", "🇨", "🇳",
    "\U0001f3f4", "\U000e0067", "\ue000", "\U0010ffff", "\u0600", "\u0890",
]
TEXT = st.text(alphabet=st.one_of(st.sampled_from(INTERESTING),
                                  st.characters(exclude_categories=("Cs",))),
               max_size=40)


@seed(19)
@SETTINGS
@given(TEXT)
def test_no_token_is_empty_invisible_or_holds_whitespace(text):
    for token in tokenize(text):
        assert token, text
        assert not all(invisible(c) for c in token), (text, token)
        assert not any(c.isspace() for c in token), (text, token)
        assert visible(token[0]), (text, token)


@seed(20)
@SETTINGS
@given(TEXT)
def test_the_tokens_are_the_reference_scan(text):
    assert tokenize(text) == reference(text), repr(text)
