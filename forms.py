"""GLUE: the conversational form that collects a code request.

Usually started by the plugin itself, pre-filled from the message (``app/chat/routing.py``);
the Cat may also start it from its examples. It asks only for what the message did not say,
then hands the request to the session, which answers with proposed meta-code; the user confirms
*that* (the meaningful confirmation), so the form itself does not ask twice.
"""

from cat.experimental.form import CatForm, CatFormState, form

from .app.chat.request_form import CodeRequest
from .app.entry import advance_form, submit_request


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

    def next(self):
        return advance_form(self, CatFormState)

    def submit(self, form_data):
        return {"output": submit_request(self.cat, form_data)}
