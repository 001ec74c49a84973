"""GLUE: the conversational form that collects a code request.

The form asks for what the code must do, where it goes and the symbol's name, then hands the
request to ``runtime``, which opens the task and answers with proposed meta-code; the user
confirms *that* (the meaningful confirmation), so the form itself does not ask twice.
"""

from cat.experimental.form import CatForm, form
from pydantic import BaseModel, Field

from . import runtime


class CodeRequest(BaseModel):
    """A request for new or changed Python code."""

    request: str = Field(description="what the code must do, in the user's words")
    target_path: str = Field(description="repository-relative file the code goes into, "
                             "e.g. utils/dates.py")
    symbol: str = Field(description="name of the function, class or method to write")


@form
class CodeRequestForm(CatForm):
    description = "Write or change Python code in the configured repository"
    model_class = CodeRequest
    start_examples = [
        "write a function that parses ISO-8601 dates",
        "add a method to the Parser class",
        "generate python code for",
    ]
    stop_examples = ["stop writing code", "cancel the code request"]
    ask_confirm = False

    def submit(self, form_data):
        return {"output": runtime.propose_request(self.cat, form_data)}
