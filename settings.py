"""GLUE: the Cat's plugin overrides: the settings panel's model, activation, deactivation.

The model and how stored settings are read live in ``app/host/settings_model.py``; what
activation and deactivation do, in ``app/entry.py``. An override never raises (an exception in
``activated`` aborts the Cat's boot, docs/cat-plugin-api.md), so each step imports what it
needs inside its own ``try``: the dependency check imports only ``app/host/environment.py``,
and names a missing package even when the rest of the plugin cannot be imported.
"""

from .app.host.settings_model import PluginSettings

try:
    from cat.mad_hatter.decorators import plugin
except ImportError:  # outside the Cat (unit tests, scripts) the overrides are plain functions

    def plugin(func):  # type: ignore[no-redef]
        return func


@plugin
def settings_model():
    """The admin panel's model (also used by the Cat to create settings.json)."""
    return PluginSettings


@plugin
def activated(plugin):
    """Name a broken requirements.txt line or a missing dependency in the Cat's log, and make
    this import of the plugin the live one.

    Runs at every start-up, before the Cat exists (docs/cat-plugin-api.md): it only reads
    files, logs and starts a thread.
    """
    try:
        from .app.host.environment import log_requirements_problems

        log_requirements_problems()
    except Exception as err:  # crash boundary: activation must never fail because of a check
        _log_warning(f"Code Working Memory: dependency check skipped: {err!r}")
    try:  # this import of the plugin takes over from an earlier one (toggle, re-upload)
        from .app.entry import activated as take_over

        take_over()
    except Exception as err:  # crash boundary: activation must never fail
        _log_warning(f"Code Working Memory: hand-over skipped: {err!r}")


@plugin
def deactivated(plugin):
    """The admin switched the plugin off (or uninstalls it): stop what it started, in the
    background (the Cat calls this on its event loop, which must not wait)."""
    try:
        from .app.entry import deactivated as wind_down

        wind_down()
    except Exception as err:  # crash boundary: deactivation must never fail
        _log_warning(f"Code Working Memory: winding down failed: {err!r}")


def _log_warning(message):
    try:
        from cat.log import log

        log.warning(message)
    except ImportError:
        import logging

        logging.getLogger(__name__).warning(message)
