"""What one call from the Cat gives a session: configuration, project, a way back.

A hook, tool or form receives a ``StrayCat``; a ``Turn`` is the three things the plugin takes
from it, named: the user's working memory (which gets a view of the user's state at the end of
the turn), the ``Workspace`` (validated settings, the derived configuration and, on demand, the
repository's project) and a ``UserLink``, the one object a worker thread keeps to reach the user
after the turn ended (messages only: it never touches the Cat's working memory or cache).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ...codegen import RequestDetails
from ...memory import CodeMemoryError, check_repository_root
from ..host.cat_types import CatHost, Storage, StrayCat
from ..host.core_config import PluginConfig, ProjectConfig
from ..host.environment import cat_data_dir, data_dir, plugin_settings
from ..host.settings_model import PluginSettings
from .lookup import linked_details
from .registry import CatVectors, Project, Registry

log = logging.getLogger(__name__)


class Workspace:
    """The plugin's settings, configuration and project as one Cat object sees them now."""

    def __init__(self, settings: PluginSettings, problems: list[str], registry: Registry,
                 cat: CatHost) -> None:
        self.settings = settings
        self.problems = problems
        self.registry = registry
        self.config = PluginConfig.from_settings(settings, data_dir(settings))
        self._cat = cat

    @classmethod
    def of(cls, cat: CatHost, registry: Registry) -> Workspace:
        settings, problems = plugin_settings(cat)
        return cls(settings, problems, registry, cat)

    @property
    def repository_configured(self) -> bool:
        return bool(self.config.repository_path)

    def project(self) -> Project:
        """The configured repository's project (``CodeMemoryError`` when it cannot be used)."""
        return self.registry.project(*self._wanted())

    def project_unless_building(self) -> Project | None:
        """The project, or ``None`` while another caller (the start-up pass) builds it."""
        return self.registry.project_unless_building(*self._wanted())

    def link_target(self, details: RequestDetails, text: str) -> RequestDetails:
        """A request's target completed from the index (``lookup.linked_details``); unchanged
        without a usable repository."""
        if not self.repository_configured:
            return details
        try:
            return linked_details(self.project(), details, text)
        except CodeMemoryError as err:
            log.info("no index link for the request: %s", err)
            return details

    def _wanted(self) -> tuple[ProjectConfig, CatVectors]:
        config = self.config
        root = check_repository_root(config.repository_path,
                                     protected=[config.data_dir, cat_data_dir()])
        vectors = CatVectors.of(self._cat)
        return ProjectConfig(root=root, data_dir=config.data_dir, embedder_name=vectors.name,
                             tuning=config.tuning, scope=config.scope,
                             cat_memory=config.cat_memory, window=config.window,
                             native_json=config.native_json,
                             reasoning_tokens=config.reasoning_tokens), vectors


class UserLink:
    """How work started in a turn reaches its user later: messages.

    ``send`` goes to the user's current socket (the Cat looks it up by user id, so a reconnect
    still receives it; without a socket the message is dropped and the result stays in the
    history and in the user's state). A worker thread keeps this and nothing else of the Cat:
    it never reads or writes the Cat's cache, which the Cat writes non-atomically from its own
    threads (docs/architecture.md, "One owner").
    """

    def __init__(self, cat: CatHost) -> None:
        self._cat = cat
        self.user_id = str(getattr(cat, "user_id", "") or "")

    def send(self, text: str, kind: str = "notification") -> None:
        """A message to the user (the Cat at start-up has no user: nothing is sent)."""
        send = getattr(self._cat, "send_ws_message", None)
        try:
            if send is not None:
                send(text, kind)
        except Exception as err:  # the user may have left; the result stays in the history
            log.info("could not reach %s: %s", self.user_id, err)


@dataclass
class Turn:
    """One call from the Cat, as a session uses it."""

    working_memory: Storage
    workspace: Workspace
    link: UserLink

    @classmethod
    def of(cls, cat: StrayCat, registry: Registry) -> Turn:
        return cls(cat.working_memory, Workspace.of(cat, registry), UserLink(cat))

    @property
    def text(self) -> str:
        """The user's message of this turn ("" outside a chat turn)."""
        message = self.working_memory.get("user_message_json")
        return str(getattr(message, "text", "") or "")
