"""JupyterLab's defaults for the tutorials: a notebook saved after its cells ran keeps its widgets.

A widget's output names its model, which lives in the browser only while the notebook is open.
JupyterLab shows the widget view before any other picture in the same output, so a notebook saved
without its widgets' state (JupyterLab's default) shows ``Error displaying widget: model not
found`` where each widget was once it is reopened, kernel or not. With the widget manager's
``saveState`` setting on, saving stores every widget's state in the notebook, and a reopened
notebook draws each widget from it, hover included, before any cell runs again.

``stridelab lab`` turns it on as a default (:func:`lab_defaults`), changing nothing else: the
user's own choice in Settings > "Save Widget State Automatically" still wins, and so does a
default for it set in their or the site's Jupyter configuration. In plain
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
    return the file. The file is replaced whole, never left half written; one that is not a JSON
    object is refused, and left as it is.

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
    if not Path(config_dir).is_absolute():
        raise ValueError(f"config_dir = {str(config_dir)!r}: the Jupyter configuration folder must be an absolute path")
    path = Path(config_dir) / OVERRIDES
    settings = _read_overrides(path)
    if settings is None:
        raise ValueError(f"{path} is not a JSON object of settings by plugin; fix or remove it, then run this again")
    for plugin, values in LAB_DEFAULTS.items():
        if not isinstance(settings.get(plugin, {}), dict):
            raise ValueError(f"{path}: the settings of {plugin} are not a JSON object; fix or remove them")
        settings.setdefault(plugin, {}).update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as file:
        file.write(json.dumps(settings, indent=2) + "\n")
    os.replace(file.name, path)
    return path


def _read_overrides(path: Path) -> dict | None:
    """The default settings in ``path``: {} where it is missing or empty (as Jupyter reads it),
    None where it is not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError):
        return None
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except ValueError:
        return None
    return settings if isinstance(settings, dict) else None


def _chosen_elsewhere() -> bool:
    """Whether a default for the settings of :data:`LAB_DEFAULTS` is already set where JupyterLab
    reads defaults (the ``labconfig`` folders of Jupyter's configuration path, the installation's
    ``overrides.json``): that choice, the user's or the site's, is kept."""
    from jupyter_core.paths import jupyter_config_path
    from jupyterlab.commands import get_app_dir

    files = [Path(folder) / OVERRIDES for folder in jupyter_config_path()]
    files.append(Path(get_app_dir()) / "settings" / "overrides.json")
    for file in files:
        settings = _read_overrides(file) or {}
        for plugin, values in LAB_DEFAULTS.items():
            chosen = settings.get(plugin)
            if isinstance(chosen, dict) and any(key in chosen for key in values):
                return True
    return False


@contextlib.contextmanager
def lab_defaults() -> Iterator[Path | None]:
    """While open, JupyterLab servers started in this process (and its children) take
    :data:`LAB_DEFAULTS` as defaults, unless a default for them is set already (see
    :func:`_chosen_elsewhere`): a temporary Jupyter configuration folder holding them, on
    ``JUPYTER_CONFIG_PATH``; the folder, or None where nothing was added.

    >>> with lab_defaults() as folder:
    ...     folder is None or os.environ["JUPYTER_CONFIG_PATH"].split(os.pathsep)[-1] == str(folder)
    True
    """
    if _chosen_elsewhere():
        yield None
        return
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
