"""JupyterLab's defaults for the tutorials: a notebook saved after its cells ran keeps its widgets.

A widget's output names its model, which lives in the browser only while the notebook is open.
JupyterLab shows the widget view before any other picture in the same output, so a notebook saved
without its widgets' state (JupyterLab's default) shows ``Error displaying widget: model not
found`` where each widget was once it is reopened, kernel or not. With the widget manager's
``saveState`` setting on, saving stores every widget's state in the notebook, and a reopened
notebook draws each widget from it, hover included, before any cell runs again.

``stridelab lab`` turns it on as a default (:func:`lab_defaults`), changing nothing else: the
user's own choice in Settings > "Save Widget State Automatically" still wins. In plain
``jupyter lab``, tick that menu item once; Binder's ``postBuild`` writes the same default with
:func:`write_lab_defaults`.

internal: :func:`stridelab.cli.main` runs ``stridelab lab``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__: list[str] = []

#: JupyterLab settings stridelab changes, by plugin: the widget manager saves widget state.
LAB_DEFAULTS = {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}
#: Where JupyterLab reads default settings in each folder of Jupyter's configuration path.
OVERRIDES = Path("labconfig") / "default_setting_overrides.json"


def write_lab_defaults(config_dir: Path) -> Path:
    """Write :data:`LAB_DEFAULTS` into the JupyterLab default settings of the Jupyter configuration
    folder ``config_dir`` (e.g. ``jupyter --config-dir``), keeping any other setting already there;
    return the file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_lab_defaults(Path(folder))
    ...     print(path.relative_to(folder).as_posix(), path.read_text(), end="")
    labconfig/default_setting_overrides.json {
      "@jupyter-widgets/jupyterlab-manager:plugin": {
        "saveState": true
      }
    }
    """
    path = config_dir / OVERRIDES
    settings = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for plugin, values in LAB_DEFAULTS.items():
        settings.setdefault(plugin, {}).update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return path


@contextlib.contextmanager
def lab_defaults() -> Iterator[Path]:
    """While open, JupyterLab servers started in this process (and its children) take
    :data:`LAB_DEFAULTS` as defaults: a temporary Jupyter configuration folder holding them,
    last on ``JUPYTER_CONFIG_PATH`` so that every folder already there wins over it.

    >>> with lab_defaults() as folder:
    ...     os.environ["JUPYTER_CONFIG_PATH"].split(os.pathsep)[-1] == str(folder)
    True
    """
    previous = os.environ.get("JUPYTER_CONFIG_PATH")
    with tempfile.TemporaryDirectory(prefix="stridelab-lab-") as folder:
        write_lab_defaults(Path(folder))
        os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [previous, folder]))
        try:
            yield Path(folder)
        finally:
            if previous is None:
                del os.environ["JUPYTER_CONFIG_PATH"]
            else:
                os.environ["JUPYTER_CONFIG_PATH"] = previous
