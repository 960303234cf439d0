"""The interface in English and Simplified Chinese: complete catalogue, live switch, locale
default, and an honest notice when no font can draw Chinese."""

import shutil
import xml.etree.ElementTree as ET

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTranslator

from app import i18n
from app.docks import DOCKS

TOOLS = shutil.which("pyside6-lupdate") and shutil.which("pyside6-lrelease")


# English, light theme, normal text size again after each test (app-wide settings)
pytestmark = pytest.mark.usefixtures("restore_view")


def messages(ts_file):
    """(context, source, translation element) for every message of a .ts file."""
    root = ET.parse(ts_file).getroot()
    for context in root.findall("context"):
        name = context.find("name").text
        for message in context.findall("message"):
            yield name, message.find("source").text, message.find("translation")


def translated_text(translation):
    forms = translation.findall("numerusform")
    return " ".join(f.text or "" for f in forms) if forms else (translation.text or "")


def test_every_translatable_string_has_a_chinese_translation():
    found = list(messages(i18n.ts_path("zh")))
    assert len(found) > 100
    missing = [(c, s) for c, s, t in found
               if t.get("type") in ("unfinished", "vanished", "obsolete")
               or not translated_text(t).strip()]
    assert missing == []


def test_placeholders_survive_translation():
    for context, source, translation in messages(i18n.ts_path("zh")):
        text = translated_text(translation)
        if not text:
            continue  # missing ones fail the test above
        for placeholder in (*(f"%{i}" for i in range(1, 10)), "%n"):  # readouts go up to %8
            assert source.count(placeholder) == text.count(placeholder), (context, source)


@pytest.mark.skipif(not TOOLS, reason="pyside6-lupdate / pyside6-lrelease not installed")
def test_the_committed_catalogue_is_up_to_date_with_the_sources(tmp_path):
    ts = tmp_path / "check.ts"
    shutil.copy(i18n.ts_path("zh"), ts)
    i18n.run_lupdate(ts)  # what `python -m app.i18n` would merge in
    before = {(c, s) for c, s, _ in messages(i18n.ts_path("zh"))}
    after = {(c, s) for c, s, _ in messages(ts)}
    assert after - before == set(), "new strings: run python -m app.i18n and translate them"
    assert before - after == set(), "strings gone from the sources: run python -m app.i18n"


def test_the_committed_qm_holds_every_translation_of_the_ts():
    """The app loads the compiled .qm (no Qt tools at run time): it must match the .ts."""
    translator = QTranslator()
    assert translator.load(str(i18n.qm_path("zh")))
    stale = []
    for context, source, translation in messages(i18n.ts_path("zh")):
        forms = translation.findall("numerusform")
        expected = forms[0].text if forms else translation.text
        got = translator.translate(context, source, None, 1 if forms else -1)
        if forms:
            expected = expected.replace("%n", "1")
            got = got.replace("%n", "1")
        if got != expected:
            stale.append((context, source))
    assert stale == [], "the .qm is stale: run python -m app.i18n"


def test_switching_language_changes_what_is_on_screen_without_restart(make_window):
    window = make_window(sync=True, text="a b")
    steps = window.panels["stepListDock"].tree
    assert window.file_menu.title() == "&File"
    assert window.docks["heatmapDock"].windowTitle() == "Step heatmap"
    assert window.editor.prompt.text() == "Text:"
    meaning_en = steps.topLevelItem(2).text(4)
    window.language_actions["zh"].trigger()
    assert window.state.language == "zh"
    assert window.file_menu.title() == "文件(&F)"
    assert window.docks["heatmapDock"].windowTitle() == "步骤热图"
    assert window.docks["heatmapDock"].toggleViewAction().text() == "步骤热图"
    assert window.editor.prompt.text() == "文本："
    assert window.status.tokens.text() == "2 个词元"
    assert steps.headerItem().text(1) == "步骤"
    # step names keep their symbols; their explanations follow the language
    assert steps.topLevelItem(2).text(1) == "q_proj"
    assert steps.topLevelItem(2).text(4) != meaning_en and "查询" in steps.topLevelItem(2).text(4)
    assert window.language_actions["zh"].isChecked()
    window.language_actions["en"].trigger()
    assert window.file_menu.title() == "&File"
    assert steps.topLevelItem(2).text(4) == meaning_en
    assert QCoreApplication.translate("Docks", "Steps") == "Steps"


def test_the_language_menu_can_be_found_in_either_language(make_window):
    window = make_window(sync=True, text="a")
    for code in ("en", "zh"):
        window.set_language(code)
        assert window.language_menu.title() == "Language · 语言"
        assert [a.text() for a in window.language_menu.actions()] == ["English", "简体中文"]


def test_a_new_window_starts_in_the_language_in_use(make_window):
    first = make_window(sync=True, text="a")
    first.set_language("zh")
    second = make_window(sync=True, text="a")
    assert second.state.language == "zh" and second.file_menu.title() == "文件(&F)"


def test_default_language_follows_the_system_locale(monkeypatch):
    assert i18n.system_language(QLocale("zh_CN")) == "zh"
    assert i18n.system_language(QLocale("zh_TW")) == "zh"
    assert i18n.system_language(QLocale("de_DE")) == "en"
    from app.__main__ import parse_args, start_language

    monkeypatch.setattr(i18n, "system_language", lambda: "zh")
    assert start_language(parse_args(["--selftest"])) == "zh"
    assert start_language(parse_args(["--selftest", "--lang", "en"])) == "en"
    monkeypatch.setattr(i18n, "system_language", lambda: "en")
    assert start_language(parse_args(["--selftest"])) == "en"


def test_a_chosen_language_is_remembered_for_the_next_start(make_window, monkeypatch):
    window = make_window(sync=True, text="a")
    window.set_language("zh")
    from app.__main__ import parse_args, start_language

    monkeypatch.setattr(i18n, "system_language", lambda: "en")
    assert start_language(parse_args([])) == "zh"


def test_a_chinese_font_is_available_for_chinese_text():
    assert i18n.cjk_font_available()


def test_no_cjk_font_is_said_once_instead_of_drawing_boxes(make_window, monkeypatch):
    from app import mainwindow

    monkeypatch.setattr(i18n, "cjk_font_available", lambda: False)
    monkeypatch.setattr(mainwindow, "_cjk_warned", False)
    first = make_window(sync=True, text="a")
    assert "Chinese font" in first.last_message
    assert "font" in first.statusBar().currentMessage()
    second = make_window(sync=True, text="a")
    second.set_language("zh")
    assert second.last_message == ""  # said once per run, not on every window or switch


def test_session_errors_are_translated_too(make_window, tmp_path):
    window = make_window(sync=True, text="a")
    window.set_language("zh")
    bad = tmp_path / "bad.dualview.json"
    bad.write_text("{not json", encoding="utf-8")
    assert not window.open_session(bad)
    assert "无法打开" in window.last_message and "JSON" in window.last_message


def test_heatmap_readout_is_chinese_for_masked_scores_and_feature_columns(make_window):
    window = make_window(sync=True, text="a b c")
    window.set_language("zh")
    panel = window.panels["heatmapDock"]
    window.state.set_step("causal_mask")
    panel.redraw(window.state.result)
    panel._on_hovered(0, 2, 0.0)  # key 2 is in query 0's future: −∞
    assert "已掩码" in panel.readout.text() and "masked" not in panel.readout.text()
    window.state.set_step("q_proj")
    panel.redraw(window.state.result)
    panel._on_hovered(1, 3, 0.0)
    assert "特征 3" in panel.readout.text() and "feature" not in panel.readout.text()


def test_step_formulas_carry_no_english_words_in_chinese(make_window):
    """The step list and heatmap title read "(per row)", "(heads concatenated)", "for j > i"
    and "of kv head" in the Chinese interface."""
    import re

    from engine import STEP_INFO

    window = make_window(sync=True, text="我爱北京")
    window.set_language("zh")
    tree = window.panels["stepListDock"].tree
    heatmap = window.panels["heatmapDock"]
    words = re.compile(r"\b(per|row|head|heads|for|of|concatenated)\b")
    for info in STEP_INFO:
        assert not words.search(tree.topLevelItem(info.index).text(3)), info.name
        window.state.set_step(info.name)
        assert not words.search(heatmap.title.text()), info.name
    assert "（逐行）" in tree.topLevelItem(1).text(3)
    window.set_language("en")  # and back: the symbols and words as written
    assert tree.topLevelItem(13).text(3) == STEP_INFO[13].formula == "C = P V  (heads concatenated)"


def test_example_sentence_labels_follow_the_language(make_window):
    window = make_window(sync=True, text="a")
    presets = window.editor.presets
    english = [presets.itemText(i) for i in range(presets.count())]
    assert "Causality demo: change the last word" in english
    window.set_language("zh")
    chinese = [presets.itemText(i) for i in range(presets.count())]
    assert "因果性演示：修改最后一个词" in chinese and "英文：The cat sat on the mat." in chinese
    assert not any(label.startswith(("English", "Causality")) for label in chinese)
    window.set_language("en")
    assert [presets.itemText(i) for i in range(presets.count())] == english


def test_the_example_box_names_the_example_in_the_field_or_none(make_window):
    """It kept showing the first example (or the last one picked) beside any other text."""
    window = make_window(sync=True, text="The cat sat on the mat")  # no full stop: not one
    presets = window.editor.presets
    assert presets.currentIndex() == -1 and presets.currentText() == ""
    window.editor.set_text("我爱北京天安门")
    assert presets.currentIndex() == 0
    presets.activated.emit(3)  # picked from the box
    assert window.editor.text() == "Attention never reads the future tokens"
    assert presets.currentIndex() == 3
    window.editor.set_text("Attention never reads the future words")  # the demo's edit
    assert presets.currentIndex() == -1
    window.set_language("zh")
    assert presets.placeholderText() == "示例句子…"


def test_a_language_switch_sets_each_panels_texts_and_draws_it_once(make_window, qtbot):
    """The state's language_changed and Qt's LanguageChange both came with one switch, and
    each lens panel set its texts twice (the step heatmap drew twice): ~60 ms of a switch."""
    window = make_window(sync=True, text="a b c")
    for spec in DOCKS:
        dock = window.docks[spec.object_name]
        dock.show()
        dock.raise_()
    panels = [window.panels[spec.object_name] for spec in DOCKS]
    qtbot.waitUntil(lambda: all(p.isVisible() and p.is_current for p in panels), timeout=5000)
    calls = {id(p): 0 for p in panels}

    def counting(panel):
        original = panel.retranslate

        def retranslate():
            calls[id(panel)] += 1
            original()
        return retranslate

    for panel in panels:
        panel.retranslate = counting(panel)
    for language in ("zh", "en"):
        epochs = {id(p): p.redraw_epoch for p in panels}
        calls = dict.fromkeys(calls, 0)
        window.set_language(language)
        twice = [type(p).__name__ for p in panels
                 if calls[id(p)] != 1 or p.redraw_epoch != epochs[id(p)] + 1]
        assert twice == [], language
        assert all(p.is_current for p in panels)
