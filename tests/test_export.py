"""Exports: every panel to PNG and SVG, the step on screen to CSV and .npy, all steps to .npz —
each file readable back, each carrying the tokens and the step; a click copies a value."""

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from conftest import wait_stable
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QGuiApplication, QImage

from app.docks import DOCKS
from engine import STEP_NAMES

# English, light theme, normal text size again after each test (app-wide settings)
pytestmark = pytest.mark.usefixtures("restore_view")


@pytest.fixture
def window(make_window):
    w = make_window(sync=True, text="我爱 the cat")
    w.state.set_step("attn_probs")
    w.state.set_head(1)
    return w


@pytest.mark.parametrize("name", [spec.object_name for spec in DOCKS] + [None])
def test_every_panel_exports_a_png_with_its_provenance(window, tmp_path, name):
    path = tmp_path / f"{name}.png"
    if name is not None:
        window.docks[name].show()
        window.docks[name].raise_()
    assert window.export_panel(name, path), window.last_message
    image = QImage(str(path))
    assert not image.isNull() and image.width() > 50 and image.height() > 50
    assert json.loads(image.text("tokens")) == ["我", "爱", "the", "cat"]
    assert json.loads(image.text("step"))["name"] == "attn_probs"
    assert image.text("head") == "1"
    assert json.loads(image.text("config"))["hidden_size"] == 16
    assert image.text("text") == "我爱 the cat"


@pytest.mark.parametrize("name", [spec.object_name for spec in DOCKS])
def test_every_panel_exports_an_svg(window, tmp_path, name):
    path = tmp_path / f"{name}.svg"
    window.docks[name].show()
    window.docks[name].raise_()
    assert window.export_panel(name, path), window.last_message
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    ns = {"svg": "http://www.w3.org/2000/svg"}
    assert "attn_probs" in root.find("svg:title", ns).text
    meta = json.loads(root.find("svg:desc", ns).text)
    assert meta["tokens"] == ["我", "爱", "the", "cat"] and meta["panel"] == name
    assert len(list(root.iter())) > 10  # something was drawn


def test_the_step_matrix_exports_to_csv_exactly(window, tmp_path):
    window.state.set_step("causal_mask")  # with −∞ where the mask is
    path = tmp_path / "mask.csv"
    assert window.export_step(path)
    heat = window.panels["heatmapDock"]
    numbers = np.loadtxt(path, delimiter=",", comments="#")
    np.testing.assert_array_equal(numbers, heat.source)  # every float64 digit survives
    assert np.isneginf(numbers[0, 1])
    header = [line for line in path.read_text("utf-8").splitlines() if line.startswith("#")]
    text = "\n".join(header)
    assert "# step: 11. causal_mask" in text
    assert '# tokens: ["我", "爱", "the", "cat"]' in text
    assert "# head: 1" in text and '"seed": 0' in text
    assert '# columns: ["0 我", "1 爱", "2 the", "3 cat"]' in text


def test_the_step_matrix_exports_to_npy_with_a_sidecar(window, tmp_path):
    window.state.set_step("q_rope")
    path = tmp_path / "q.npy"
    assert window.export_step(path)
    loaded = np.load(path, allow_pickle=False)
    heat = window.panels["heatmapDock"]
    assert loaded.dtype == np.float64
    np.testing.assert_array_equal(loaded, heat.source)
    np.testing.assert_array_equal(loaded, window.state.result.trace["q_rope"][1])
    meta = json.loads((tmp_path / "q.npy.json").read_text("utf-8"))
    assert meta["tokens"] == ["我", "爱", "the", "cat"]
    assert meta["step"]["name"] == "q_rope" and meta["head"] == 1
    assert meta["shape"] == list(loaded.shape)



def test_a_key_value_step_records_the_kv_head_it_exports(window, tmp_path):
    window.state.set_step("k_rope")  # 2 kv heads; query head 3 reads kv head 1 (GQA)
    window.state.set_head(3)
    path = tmp_path / "k.npy"
    assert window.export_step(path)
    meta = json.loads((tmp_path / "k.npy.json").read_text("utf-8"))
    assert meta["head"] == 1 and meta["query_head"] == 3
    np.testing.assert_array_equal(np.load(path), window.state.result.trace["k_rope"][meta["head"]])
    assert window.export_step(tmp_path / "k.csv")
    assert "# head: 1" in (tmp_path / "k.csv").read_text("utf-8")


def test_all_steps_export_to_one_npz_without_pickle(window, tmp_path):
    path = tmp_path / "all.npz"
    assert window.export_all_steps(path)
    trace = window.state.result.trace
    with np.load(path, allow_pickle=False) as data:
        assert json.loads(str(data["step_names"])) == list(STEP_NAMES)
        for step in trace:
            np.testing.assert_array_equal(data[step.name], step.array)
        assert json.loads(str(data["tokens"])) == ["我", "爱", "the", "cat"]
        assert json.loads(str(data["config"])) == trace.config.to_dict()
        meta = json.loads(str(data["meta"]))
        assert meta["causal"] is True and meta["weights"]["seed"] == 0
        assert len(meta["formulas"]) == len(STEP_NAMES)


def test_bad_extensions_and_empty_input_say_why(make_window, tmp_path):
    window = make_window(sync=True, text="a b")
    assert not window.export_step(tmp_path / "x.txt")
    assert ".csv" in window.last_message
    assert not window.export_panel("heatmapDock", tmp_path / "x.jpg")
    window.editor.set_text("")
    assert not window.export_all_steps(tmp_path / "x.npz")
    assert "type a sentence" in window.last_message
    assert not (tmp_path / "x.npz").exists()


def test_clicking_a_heatmap_cell_copies_its_exact_value(window, qtbot):
    window.state.set_step("q_proj")
    heat = window.panels["heatmapDock"]
    view = heat.view
    box = view.plot.getViewBox()
    # column 5, row 2, once the view has laid out
    point = wait_stable(qtbot, lambda: view.mapFromScene(box.mapViewToScene(QPointF(5.5, 2.5))))
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    expected = repr(float(window.state.result.trace["q_proj"][2, 5]))
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() == expected, timeout=2000)
    assert expected in window.statusBar().currentMessage()


def test_exports_with_the_mask_off_describe_causal_mask_as_the_scores(window, tmp_path, qtbot):
    """Without the mask step 11 is a copy of the scores: its exported formula is S, not the
    '−∞ for j > i' that no entry of the exported matrix holds."""
    window.state.set_causal(False)
    qtbot.waitUntil(lambda: not window.state.result.trace.causal)
    window.state.set_step("causal_mask")
    assert window.export_step(tmp_path / "m.npy")
    meta = json.loads((tmp_path / "m.npy.json").read_text("utf-8"))
    assert meta["causal"] is False and meta["step"]["formula"] == "S"
    assert np.isfinite(np.load(tmp_path / "m.npy", allow_pickle=False)).all()
    assert window.export_all_steps(tmp_path / "all.npz")
    with np.load(tmp_path / "all.npz", allow_pickle=False) as data:
        formulas = json.loads(str(data["meta"]))["formulas"]
    assert formulas[STEP_NAMES.index("causal_mask")] == "S"
    assert formulas[STEP_NAMES.index("attn_probs")] == window.state.result.trace.step(
        "attn_probs").formula
