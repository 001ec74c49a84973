"""How the code-request form moves, with as few LLM calls as the message allows.

The Cat's ``CatForm.next`` spends two LLM calls per turn (an exit check and a JSON extraction),
even when the message already said everything. This step reads the message deterministically
first (``codegen.reading.details.extract_details``: file, symbol, kind), asks for what is still
missing, and only falls back to the Cat's LLM extraction for an answer it cannot read itself.
"cancel" while the form asks is read as a reply word, not by the LLM.

The form is started by the plugin's routing (pre-filled, in the turn that made the request) or
by the Cat's own tool selection (empty): both end up here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pydantic import BaseModel, Field

from ...codegen import ReplyIntent, RequestDetails, classify_reply, extract_details
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

#: Marker attribute on a form that asked the user something (a plain bool: it is pickled).
ASKED = "cwm_asked"

#: What a retired import of the plugin answers for a form the Cat still holds.
STALE_FORM = ("This code request was interrupted: the Code Working Memory plugin was switched "
              "off or reloaded. Ask again once it is active.")


def prefill(details: RequestDetails, text: str) -> dict[str, str]:
    """The form's model from what a message says (empty values left out)."""
    model = {"request": text.strip()}
    for name, attribute in DETAIL_FIELDS.items():
        value = getattr(details, attribute)
        if value:
            model[name] = value
    return model


#: Completes a request's details from the repository's index (``projects.lookup``).
Linker = Callable[[RequestDetails, str], RequestDetails]


def advance(form: CatForm, states: FormStates, link: Linker | None = None) -> dict[str, str]:
    """One turn of the form (``states`` is the Cat's ``CatFormState``); ``link`` completes
    the target from the index (the file of a symbol the request names, the symbol the named
    file defines), before the form asks and again after each answer."""
    text = _user_text(form)
    asked = bool(getattr(form, ASKED, False))
    if asked and classify_reply(text) is ReplyIntent.CANCEL:
        close_form(form, states)
        return {"output": "Dropped the code request."}
    if not form._model.get("request"):
        form._model = {**prefill(extract_details(text), text), **form._model}
    elif asked:
        _merge(form, extract_details(text))
    _link(form, link)
    form.validate()
    if form._state != states.COMPLETE and asked:
        form.update()  # the Cat's LLM extraction: the answer was not readable by rule
        _link(form, link)
    if form._state == states.COMPLETE:
        close_form(form, states)
        return form.submit(form._model)
    setattr(form, ASKED, True)
    return {"output": question_for(form._missing_fields, form._errors)}


def close_form(form: CatForm, states: FormStates) -> None:
    """Close the form and take it out of the working memory now: the Cat clears a closed form
    only in its form agent, which never runs on a turn the plugin answers, and a closed form
    left there would hold up the user's next request."""
    form._state = states.CLOSED
    memory = form.cat.working_memory
    if memory.get("active_form") is form:
        memory.active_form = None


def _merge(form: CatForm, details: RequestDetails) -> None:
    for name, value in prefill(details, "").items():
        if name != "request" and not form._model.get(name):
            form._model[name] = value


def _link(form: CatForm, link: Linker | None) -> None:
    """The target linked through the index into the fields still empty."""
    model = form._model
    if link is None or "." in str(model.get("symbol") or ""):
        return
    details = RequestDetails(target_path=str(model.get("target_path") or ""),
                             symbol=str(model.get("symbol") or ""),
                             kind=str(model.get("kind") or ""))
    linked = link(details, str(model.get("request") or ""))
    model.update({k: v for k, v in prefill(linked, "").items() if k != "request"})


def _user_text(form: CatForm) -> str:
    return str(form.cat.working_memory.user_message_json.text or "")


def question_for(missing: list[str], errors: list[str]) -> str:
    """What to ask for the missing or invalid fields, in plain words."""
    asks = {
        "target_path": "Which file should the code go in? (a repository-relative path, e.g. "
                       "`utils/dates.py`)",
        "request": "What should the code do?",
    }
    lines = [asks.get(name, f"What is the {name.replace('_', ' ')}?") for name in missing]
    lines += [f"That does not work: {error}" for error in errors]
    return "\n".join(lines or ["Tell me more about the code you want."]) + \
        "\n\n(Say **cancel** to drop the request.)"


def submitted_request(form_data: Mapping[str, object]) -> dict[str, str]:
    """The request as the session takes it (every value a plain string)."""
    return {key: str(value) for key, value in form_data.items() if value is not None}


def tidy_form(cat: StrayCat, form_class: Callable[[StrayCat], CatForm]) -> None:
    """Clear a closed form (the Cat clears it only in its form agent, which never runs when the
    plugin answers a turn), and move a request form of an earlier import of the plugin onto
    this import's class, so the Cat never calls into retired code."""
    memory = cat.working_memory
    form = memory.get("active_form")
    if form is None:
        return
    if _closed(form):
        memory.active_form = None
    elif _earlier_import_of(form, form_class):
        fresh = form_class(cat)
        for name in ("_state", "_model", "_missing_fields", "_errors", ASKED):
            if hasattr(form, name):
                setattr(fresh, name, getattr(form, name))
        memory.active_form = fresh


def form_asks(working_memory: Storage) -> bool:
    """A form waits for this message's answer (ours asking for a detail, or another plugin's)."""
    form = working_memory.get("active_form")
    return form is not None and not _closed(form)


def stale_form(form: CatForm, states: FormStates) -> dict[str, str]:
    """The answer of a form whose import of the plugin was retired: closed, and said so."""
    close_form(form, states)
    return {"output": STALE_FORM}


def _closed(form: object) -> bool:
    return str(getattr(getattr(form, "_state", None), "name", "")) == "CLOSED"


def _earlier_import_of(form: object, form_class: object) -> bool:
    """The same class (by name and module name) of another import of the plugin."""
    kind, name, module = type(form), getattr(form_class, "__name__", ""), getattr(
        form_class, "__module__", "")
    return (kind is not form_class and kind.__name__ == name
            and kind.__module__.rpartition(".")[2] == str(module).rpartition(".")[2])
