"""stridelab.settings: one scale for every picture and widget of a session (the classroom setting)."""

from __future__ import annotations

import numpy as np
import pytest

import stridelab as sl
from stridelab.render import options

# The drawing of a UINT8 (2, 3) description is 594 x 205 pixels at scale 1 (see render/picture.py).
DESC = sl.TensorDesc("UINT8", (2, 3))


@pytest.fixture(autouse=True)
def fresh_session(monkeypatch):
    """Each test starts as a new session: nothing set, STRIDELAB_SCALE not yet read."""
    monkeypatch.setattr(options, "_scale", None)
    monkeypatch.delenv("STRIDELAB_SCALE", raising=False)
    options._environment_scale.cache_clear()
    yield
    options._environment_scale.cache_clear()


def svg_size(svg: str) -> tuple[str, str]:
    opening = svg.split(">", 1)[0]
    return opening.split('width="')[1].split('"')[0], opening.split('height="')[1].split('"')[0]


def test_without_a_setting_pictures_are_shown_at_their_size():
    assert sl.settings().scale == 1.0
    data, metadata = DESC._repr_mimebundle_()
    assert svg_size(data["image/svg+xml"]) == ("594", "205")
    assert metadata["image/png"] == {"width": 594, "height": 205}


def test_a_setting_scales_every_displayed_picture_for_the_rest_of_the_session():
    returned = sl.settings(scale=2)
    assert returned.scale == 2.0 and repr(returned) == "Settings(scale=2.0)"
    for shown in (DESC, DESC.memory_map(), sl.StridedTensor(DESC, np.arange(6, dtype=np.uint8))):
        data, metadata = shown._repr_mimebundle_()
        assert svg_size(data["image/svg+xml"]) == ("1188", "410")
        assert metadata["image/png"] == {"width": 1188, "height": 410}
    assert sl.settings().scale == 2.0  # asking changes nothing


def test_a_with_block_puts_the_previous_scale_back():
    sl.settings(scale=1.5)
    with sl.settings(scale=3) as inner:
        assert inner.scale == 3.0
        with sl.settings(scale=0.5):
            assert sl.settings().scale == 0.5
        assert sl.settings().scale == 3.0
    assert sl.settings().scale == 1.5


def test_widgets_made_under_a_setting_take_its_scale_unless_given_one():
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    with sl.settings(scale=2):
        made = [
            sl.MemoryMapView(DESC),
            sl.explore((2, 3)),
            sl.compare(),
            sl.SliceExplorer(x),
            sl.CumulativeSummationExplorer(x),
        ]
        assert sl.MemoryMapView(DESC, scale=1)._scale == 1.0
    assert [widget._scale for widget in made] == [2.0] * 5
    assert made[1].view._scale == 2.0 and made[3].view._scale == 2.0
    # a widget keeps the scale it was made with; its static picture is shown at it
    assert svg_size(made[0].to_svg()) == ("1188", "410")
    assert made[0]._repr_mimebundle_()[1]["image/png"] == {"width": 1188, "height": 410}
    assert sl.MemoryMapView(DESC)._scale == 1.0


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, sl.LayoutError, "scale = 0: it must be more than 0 and at most 8"),
        (9, sl.LayoutError, "scale = 9: it must be more than 0 and at most 8"),
        (float("nan"), sl.LayoutError, "scale = nan: it must be more than 0 and at most 8"),
        ("2", TypeError, "scale must be a number, not str ('2')"),
        (True, TypeError, "scale must be a number, not bool (True)"),
    ],
)
def test_a_refused_scale_names_the_value_and_the_rule_and_keeps_the_setting(value, error, message):
    sl.settings(scale=1.5)
    with pytest.raises(error) as raised:
        sl.settings(scale=value)
    assert str(raised.value) == message
    assert sl.settings().scale == 1.5


def test_the_environment_variable_is_read_once(monkeypatch):
    monkeypatch.setenv("STRIDELAB_SCALE", " 2.5 ")
    assert DESC._repr_mimebundle_()[1]["image/png"] == {"width": 1485, "height": 512}  # 594 * 2.5, 205 * 2.5
    monkeypatch.setenv("STRIDELAB_SCALE", "1")  # read already: no change within the session
    assert sl.settings().scale == 2.5
    assert sl.MemoryMapView(DESC)._scale == 2.5
    sl.settings(scale=1)  # a call wins over the variable
    assert sl.settings().scale == 1.0


def test_a_with_block_opened_first_puts_back_the_variable_as_it_was_read(monkeypatch):
    monkeypatch.setenv("STRIDELAB_SCALE", "2")
    with sl.settings(scale=3):
        monkeypatch.setenv("STRIDELAB_SCALE", "4")
    assert sl.settings().scale == 2.0  # read when the block was opened, not again after it


@pytest.mark.parametrize("text", ["big", "0", "-1", "8.5", "nan", "inf", "1e999"])
def test_a_bad_environment_variable_names_itself_its_value_and_the_rule(monkeypatch, text):
    monkeypatch.setenv("STRIDELAB_SCALE", text)
    rule = "how many times its size every picture is shown must be more than 0 and at most 8 (e.g. 2)"
    with pytest.raises(sl.LayoutError) as raised:
        DESC._repr_mimebundle_()
    assert str(raised.value) == f"STRIDELAB_SCALE = {text!r}: {rule}"
    sl.settings(scale=2)  # a call still sets the scale, whatever the variable says
    assert DESC._repr_mimebundle_()[1]["image/png"] == {"width": 1188, "height": 410}


def test_a_blank_environment_variable_is_no_setting(monkeypatch):
    monkeypatch.setenv("STRIDELAB_SCALE", "  ")
    assert sl.settings().scale == 1.0


def test_a_layout_checks_picture_follows_the_setting_too():
    report = sl.check_layouts(lambda x: x.copy(), np.zeros((2, 3), np.float32))
    _, metadata = report._repr_mimebundle_()
    width, height = metadata["image/png"]["width"], metadata["image/png"]["height"]
    with sl.settings(scale=2):
        data2, metadata2 = report._repr_mimebundle_()
    assert metadata2["image/png"] == {"width": 2 * width, "height": 2 * height}
    assert svg_size(data2["image/svg+xml"]) == (str(2 * width), str(2 * height))
