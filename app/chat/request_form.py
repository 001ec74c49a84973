"""The code-request form, and the request's words as the session takes them.

The plugin reads requests itself (``routing``) and keeps a request waiting for its file in the
user's state (``Session.ask_for_file``): the file question is asked and answered by the plugin,
and no form of the plugin stays open in the Cat's working memory between turns (a second place
for the same state). The form class (``forms.CodeRequestForm``) stays registered, so a request
the Cat starts it for is taken over in the same turn (``take_over``); its triggers are kept out
of the Cat's tool choice (``recall``), which never has to start it. A form of the plugin found
in a working memory (an older version's, or an earlier import's, asking for the file) is
adopted: its request becomes the state's file question, and the form is closed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from pydantic import BaseModel, Field

from ...codegen import RequestDetails
from ..host.cat_types import CatForm, FormStates, Storage, StrayCat


class CodeRequest(BaseModel):
    """A request for new or changed Python code (the form's model)."""

    request: str = Field(description="what the code must do, in the user's words")
    target_path: str = Field(description="repository-relative file the code goes into, "
                             "e.g. utils/dates.py")
    symbol: str = Field("", description="name of the function, class or method to write "
                        "(empty: the proposal chooses one)")
    kind: str = Field("", description="function, method, class, test or module (empty: "
                      "unknown)")


#: The form's fields the message may fill (``request`` is the message itself).
DETAIL_FIELDS = {"target_path": "target_path", "symbol": "symbol", "kind": "kind"}

#: Marker attribute on a form that asked the user something (older versions of the plugin).
ASKED = "cwm_asked"

#: The file question.
FILE_QUESTION = "Which file should the code go in?"

#: What a retired import of the plugin answers for a form the Cat still holds.
STALE_FORM = ("This code request was interrupted: the Code Working Memory plugin was switched "
              "off or reloaded. Ask again once it is active.")


def prefill(details: RequestDetails, text: str) -> dict[str, str]:
    """A request from what a message says (empty values left out)."""
    model = {"request": text.strip()}
    for name, attribute in DETAIL_FIELDS.items():
        value = getattr(details, attribute)
        if value:
            model[name] = value
    return model


def close_form(form: CatForm, states: FormStates) -> None:
    """Close the form and take it out of the working memory now (the Cat clears a closed form
    only in its form agent, which never runs on a turn the plugin answers)."""
    form._state = states.CLOSED
    memory = form.cat.working_memory
    if memory.get("active_form") is form:
        memory.active_form = None


def take_over(form: CatForm, states: FormStates, start: Callable[[], str]) -> dict[str, str]:
    """The Cat started the form itself: closed, and the request handed to the plugin
    (``start`` answers with a proposal or the file question)."""
    close_form(form, states)
    return {"output": start()}


def question_for(missing: list[str], errors: list[str]) -> str:
    """What to ask for the missing or invalid fields, in plain words."""
    asks = {
        "target_path": f"{FILE_QUESTION} (a repository-relative path, e.g. `utils/dates.py`)",
        "request": "What should the code do?",
    }
    lines = [asks.get(name, f"What is the {name.replace('_', ' ')}?") for name in missing]
    lines += [f"That does not work: {error}" for error in errors]
    return "\n".join(lines or ["Tell me more about the code you want."]) + \
        "\n\n(Say **cancel** to drop the request.)"


def submitted_request(form_data: Mapping[str, object]) -> dict[str, str]:
    """The request as the session takes it (every value a plain string)."""
    return {key: str(value) for key, value in form_data.items() if value is not None}


class WaitingRequest(Protocol):
    """What ``adopt_form`` needs of the session: a request to keep waiting for its file."""

    def ask_for_file(self, request: Mapping[str, str]) -> None: ...


def adopt_form(cat: StrayCat, form_class: Callable[[StrayCat], CatForm],
               session: WaitingRequest) -> None:
    """Clear a closed form (any plugin's), and close a form of this plugin (any import,
    any version): one that asked for the file leaves its request as the file question."""
    memory = cat.working_memory
    form = memory.get("active_form")
    if form is None:
        return
    if _closed(form):
        memory.active_form = None
    elif _ours(form, form_class):
        model = dict(getattr(form, "_model", None) or {})
        if getattr(form, ASKED, False) and model.get("request"):
            session.ask_for_file(submitted_request(model))
        memory.active_form = None


def foreign_form_waits(working_memory: Storage, form_class: object) -> bool:
    """Another plugin's form waits for this message's answer: the plugin stays out."""
    form = working_memory.get("active_form")
    return form is not None and not _closed(form) and not _ours(form, form_class)


def stale_form(form: CatForm, states: FormStates) -> dict[str, str]:
    """The answer of a form whose import of the plugin was retired: closed, and said so."""
    close_form(form, states)
    return {"output": STALE_FORM}


def _closed(form: object) -> bool:
    return str(getattr(getattr(form, "_state", None), "name", "")) == "CLOSED"


def _ours(form: object, form_class: object) -> bool:
    """The request form of any import of the plugin (the same class name and module name)."""
    kind, name, module = type(form), getattr(form_class, "__name__", ""), getattr(
        form_class, "__module__", "")
    return kind is form_class or (kind.__name__ == name and kind.__module__.rpartition(".")[2]
                                  == str(module).rpartition(".")[2])
