"""Where the plugin runs: its folder, package and id, its settings as stored, its data folder,
its dependencies.

Everything here reads the environment the Cat gives the plugin (the settings the admin saved, the
Cat's data folder, the installed packages) and turns it into plain values with a message for each
problem, so no caller ever has to handle a half-readable configuration.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version

from packaging.requirements import InvalidRequirement, Requirement

from .cat_types import CatHost, Logger
from .settings_model import PluginSettings, read_settings

log = logging.getLogger(__name__)

#: Folder name of the plugin's data inside the Cat's data folder; fixed, so that reinstalling
#: the plugin under another id (zip names vary) keeps its history.
DATA_DIR_NAME = "code_working_memory"



def plugin_folder(module_file: str) -> str:
    """The plugin's folder: the nearest folder above ``module_file`` that holds ``plugin.json``
    (as mounted: symlinks are not resolved, so the Cat's plugin folder, not its target)."""
    folder = os.path.dirname(os.path.abspath(module_file))
    while not os.path.isfile(os.path.join(folder, "plugin.json")):
        parent = os.path.dirname(folder)
        if parent == folder:
            raise RuntimeError(f"no plugin.json above {module_file}")
        folder = parent
    return folder


def plugin_package(module_name: str, module_file: str, folder: str) -> str:
    """The plugin's package: ``module_name`` without the parts that the module's path below
    ``folder`` adds, whatever the module's depth (``cat.plugins.<id>`` in the Cat, the test
    alias under pytest); "" when the plugin folder itself is on ``sys.path``."""
    below = os.path.relpath(os.path.abspath(module_file), folder)
    depth = len(os.path.splitext(below)[0].split(os.sep))
    parts = module_name.split(".")
    return ".".join(parts[:-depth]) if len(parts) > depth else ""


#: The plugin's folder (as mounted) and its package name.
PLUGIN_FOLDER = plugin_folder(__file__)
PLUGIN_PACKAGE = plugin_package(__name__, __file__, PLUGIN_FOLDER)

#: The plugin id: its folder's name in the Cat, which is the last part of its package.
PLUGIN_ID = PLUGIN_PACKAGE.rpartition(".")[2] or DATA_DIR_NAME

#: The plugin's own requirements file.
REQUIREMENTS = os.path.join(PLUGIN_FOLDER, "requirements.txt")


def stored_settings(cat: CatHost) -> dict[str, object] | None:
    """What the Cat stored for the plugin (``None`` when it cannot be read)."""
    try:
        raw = cat.mad_hatter.plugins[PLUGIN_ID].load_settings()
    except (KeyError, AttributeError):
        return None
    return raw if isinstance(raw, dict) else {}


def plugin_settings(cat: CatHost) -> tuple[PluginSettings, list[str]]:
    """The validated settings, with a message for every stored value that was refused."""
    try:
        raw = cat.mad_hatter.plugins[PLUGIN_ID].load_settings()
    except (KeyError, AttributeError) as err:
        return PluginSettings(), [f"settings could not be read ({err!r}); using defaults"]
    return read_settings(raw)


def save_settings(cat: CatHost, values: Mapping[str, object]) -> None:
    """Store ``values`` over the saved settings, as the admin panel's "Save" does."""
    cat.mad_hatter.plugins[PLUGIN_ID].save_settings(values)


def missing_settings(cat: CatHost) -> list[str]:
    """Settings with no stored value (a file from an older version, or edited by hand)."""
    raw = stored_settings(cat)
    if raw is None:
        return []
    return sorted(set(PluginSettings.model_fields) - set(raw))


def data_dir(settings: PluginSettings) -> str:
    """The plugin's data folder: the setting, or ``<Cat data folder>/code_working_memory``.

    Never the plugin folder: upgrades delete it.
    """
    if settings.data_folder.strip():
        return os.path.abspath(os.path.expanduser(settings.data_folder.strip()))
    return os.path.join(cat_data_dir(), DATA_DIR_NAME)


def cat_data_dir() -> str:
    """The Cat's own data folder: where its metadata file (``CCAT_METADATA_FILE``) lives.

    By default ``cat/data/metadata.json`` relative to the Cat's working directory.
    """
    metadata_file = os.environ.get("CCAT_METADATA_FILE",
                                   os.path.join("cat", "data", "metadata.json"))
    return os.path.abspath(os.path.dirname(metadata_file))


def requirements_problems(path: str | None = None) -> list[str]:
    """What keeps the plugin's dependencies from being installed, line by line.

    The Cat parses ``requirements.txt`` line by line and silently stops at the first line
    ``packaging`` rejects (a comment, a blank line, an option): every later dependency is then
    missing and only a generic error is logged. This names the line and what is missing.
    """
    try:
        with open(path or REQUIREMENTS, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except OSError as err:
        return [f"requirements.txt cannot be read: {err}"]
    if lines and lines[-1] == "":
        lines.pop()
    problems = []
    for number, line in enumerate(lines, 1):
        try:
            name = Requirement(line).name
        except InvalidRequirement:
            problems.append(f"requirements.txt line {number} ({line.strip()!r:.60}) is not a "
                            "bare requirement: the Cat stops installing at that line")
            continue
        try:
            version(name)
        except PackageNotFoundError:
            problems.append(f"{name} (requirements.txt line {number}) is not installed")
    return problems


def cat_logger() -> Logger:
    """The Cat's loguru logger (what admins read), or this module's logger outside the Cat."""
    try:
        from cat.log import log as cat_log  # the Cat is absent in unit tests and scripts
    except ImportError:
        return log
    logger: Logger = cat_log
    return logger


def log_requirements_problems() -> None:
    """At activation: say clearly which requirement line or package is the problem."""
    logger = cat_logger()
    for problem in requirements_problems():
        logger.error(f"Code Working Memory: {problem}")
