"""One keystroke, one tokenization and one redraw per panel; one redraw per theme or palette
switch (issue 20's request cycle, counted on the real window)."""

from collections import Counter

import pytest

import engine
from app.widgets.token_editor import chips_html

#: the drawing calls a result or a selection can reach, per panel (besides ``redraw``)
PARTIAL_DRAWS = {"depthDock": ("_draw_query_curve",), "causalityDock": ("_draw_step",)}


def settle(window, qtbot):
    """Let the current result's convergence sweep arrive (it redraws what shows it)."""
    qtbot.waitUntil(lambda: window.state.convergence is not None, timeout=10000)
    qtbot.wait(20)


def count_draws(window, monkeypatch, names=None, sweep_apart=False):
    """Count each visible panel's ``redraw`` (and its partial redraws) from now on; with
    ``sweep_apart``, the draws of a result's convergence sweep under their own key."""
    counts = Counter()
    for name, panel in window.panels.items():
        if (not panel.isVisible()) if names is None else name not in names:
            continue
        for method in ("redraw", *PARTIAL_DRAWS.get(name, ())):
            original = getattr(panel, method)

            def counted(*args, _o=original, _key=f"{name}.{method}", **kwargs):
                sweep = sweep_apart and window.state.convergence is not None
                counts[_key + (" (sweep)" if sweep else "")] += 1
                return _o(*args, **kwargs)

            monkeypatch.setattr(panel, method, counted)
    return counts


def test_a_keystroke_tokenizes_once_and_the_chips_show_the_states_tokens(
        make_window, qtbot, monkeypatch):
    window = make_window(sync=True, text="a b")
    calls = []
    original = engine.tokenize

    def counting(text, *args, **kwargs):
        calls.append(text)
        return original(text, *args, **kwargs)

    monkeypatch.setattr(engine, "tokenize", counting)
    qtbot.keyClicks(window.editor.line, " c")
    assert calls == ["a b ", "a b c"]
    assert len(window.state.tokens) == 3
    assert window.editor.chips.text() == chips_html(window.state.tokens)
    assert window.editor.count.text().startswith("3 ")


def test_the_chips_draw_whatever_display_strings_the_state_gives(make_window, monkeypatch):
    """The chips never tokenize: a model whose state holds pieces shows those pieces."""
    window = make_window(sync=True, text="a b")
    monkeypatch.setattr(type(window.state), "token_chips",
                        lambda _s: [("▁piece", "", False), ("s", "", False)])
    window.editor.set_text("something else")
    assert window.editor.chips.text() == chips_html(("▁piece", "s"))
    assert window.editor.count.text().startswith("2 ")


def test_the_chips_are_built_again_only_when_what_they_show_changes(make_window, qtbot,
                                                                   monkeypatch):
    """An edit past the strip's MAX_CHIPS chips (the last token of a long text) keeps the
    strip as it is without building its HTML; any edit of a shown token, of the count, or a
    language switch builds it again (no stale chip stays)."""
    from app import i18n
    from app.widgets import token_editor

    window = make_window(sync=True, text=None)
    built = []
    monkeypatch.setattr(token_editor, "chips_html",
                        lambda *a, _o=token_editor.chips_html: built.append(1) or _o(*a))
    words = [f"w{i}" for i in range(token_editor.MAX_CHIPS + 20)]
    window.editor.set_text(" ".join(words))
    assert len(built) == 1
    window.editor.set_text(" ".join([*words[:-1], "last"]))  # past the strip: kept
    assert len(built) == 1
    assert window.editor.chips.text() == chips_html(window.state.tokens)
    window.editor.set_text(" ".join(["first", *words[1:-1], "last"]))  # a shown chip
    assert len(built) == 2
    assert window.editor.chips.text() == chips_html(window.state.tokens)
    assert "first" in window.editor.chips.text()
    window.editor.set_text(" ".join(["first", *words[1:]]))  # one token fewer: the count
    count = window.editor.count.text()
    window.editor.set_text(" ".join(["first", *words[1:], "more"]))
    assert len(built) == 3 and window.editor.count.text() != count
    i18n.translations().apply("zh")  # (the autouse fixture puts English back)
    qtbot.waitUntil(lambda: window.editor.count.text() == f"{len(window.state.tokens)} 个词元")
    assert window.editor.chips.text() == chips_html(window.state.tokens)


def test_a_result_that_moves_the_query_redraws_each_panel_once(make_window, qtbot,
                                                                monkeypatch):
    window = make_window(sync=True, text="a b")
    assert window.state.query == 1  # on the last token: it follows the sentence
    settle(window, qtbot)
    counts = count_draws(window, monkeypatch)
    window.editor.set_text("a b c")
    assert window.state.query == 2
    visible = [n for n, p in window.panels.items() if p.isVisible()]
    assert {"attentionDock", "normDock", "depthDock", "causalityDock"} <= set(visible)
    expected = Counter({f"{n}.redraw": 1 for n in visible})
    expected.update({f"{n}.{m}": 1 for n in visible for m in PARTIAL_DRAWS.get(n, ())})
    assert counts == expected
    # a selection the user makes still redraws
    window.state.set_query(0)
    assert counts["attentionDock.redraw"] == 2 and counts["normDock.redraw"] == 2
    assert counts["depthDock._draw_query_curve"] == 2


@pytest.mark.parametrize("switch", ["theme", "palette"])
def test_a_theme_or_palette_switch_redraws_each_panel_once(make_window, qtbot, monkeypatch,
                                                           restore_view, switch):
    window = make_window(sync=True, text="a b")
    window.editor.set_text("a b c")  # (an edit: the causality panel compares, step and all)
    settle(window, qtbot)
    counts = count_draws(window, monkeypatch)
    visible = [n for n, p in window.panels.items() if p.isVisible()]
    if switch == "theme":
        window.state.set_theme("dark")
    else:
        window.state.set_palette("colorblind")
    expected = Counter({f"{n}.redraw": 1 for n in visible})
    expected.update({f"{n}.{m}": 1 for n in visible for m in PARTIAL_DRAWS.get(n, ())})
    assert counts == expected


@pytest.mark.parametrize("name", ["lensTemperatureDock", "lensSplittingDock",
                                  "lensConvergenceDock"])
def test_a_lens_redraws_once_per_palette_switch_and_per_result(make_window, qtbot,
                                                               monkeypatch, restore_view, name):
    window = make_window(sync=True, text="a b c")
    dock = window.docks[name]
    dock.show()
    dock.raise_()
    panel = window.panels[name]
    qtbot.waitUntil(lambda: panel.isVisible() and panel.is_current, timeout=5000)
    window.editor.set_text("a b c d e")
    settle(window, qtbot)
    counts = count_draws(window, monkeypatch, names=[name], sweep_apart=True)
    window.state.set_palette("colorblind")
    assert counts == Counter({f"{name}.redraw (sweep)": 1})
    # the result, then (in sync mode, at once) its sweep: the convergence lens draws that too
    window.editor.set_text("a b c d")
    assert window.state.result.text == "a b c d" and panel.is_current
    sweep = 1 if name == "lensConvergenceDock" else 0
    assert counts == Counter({f"{name}.redraw (sweep)": 1 + sweep, f"{name}.redraw": 1})
