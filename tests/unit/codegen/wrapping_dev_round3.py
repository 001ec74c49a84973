"""The development wrappings of issue 36's third round (``wrapping_dev.py`` merges them): the
classes the readers were changed on after the fourth held-out split was sealed
(``data/wrappings_heldout4.json`` has other instances of classes like these, and classes of its
own): statements about the past around a command, with words one letter from the plugin's or
a request verb's; apologies and complaints; a code error before; list and step marks; an order
inside "can we", "let's", "time to"; replies in the seven languages with their own
politeness, particles and reasons, typos of them, and everyday words one letter from them.
After the fourth split's evaluation: an exception's line with words after it, a status or the
user's own retry told before, hedges (asked about), an action proposed ("why don't we ...?"),
arrows as step marks, phrases broken over two lines, everyday renames in the seven languages
and quoted commands asked about in them.

A reply is an object with its language and its expected reading (``bench/wrapping_bench.py``
``bases``): a reply of another language cannot be read to know what it must be.
"""

from __future__ import annotations

from typing import Any

C, IMP, S, R, EN = "command", "imperative", "structural", "reply", "reply_en"
CONFIRM, CANCEL = ["confirm", False, False], ["cancel", False, False]
RESUME, APPLY, FEEDBACK = ["feedback", True, False], ["feedback", False, True], \
    ["feedback", False, False]

#: Replies of the seven languages: (text, language, expected reading).
REPLIES: list[tuple[str, str, list[Any]]] = [
    ("sure", "en", CONFIRM), ("nope", "en", CANCEL),
    ("procedi", "it", CONFIRM), ("certo", "it", CONFIRM), ("lascia perdere", "it", CANCEL),
    ("basta", "it", CANCEL), ("riprendi", "it", RESUME), ("applicalo", "it", APPLY),
    ("jawohl", "de", CONFIRM), ("leg los", "de", CONFIRM), ("vergiss es", "de", CANCEL),
    ("halt", "de", CANCEL), ("mach weiter", "de", RESUME), ("übernehmen", "de", APPLY),
    ("dale", "es", CONFIRM), ("de acuerdo", "es", CONFIRM), ("olvídalo", "es", CANCEL),
    ("para", "es", CANCEL), ("continúa", "es", RESUME), ("aplícalo", "es", APPLY),
    ("d'accord", "fr", CONFIRM), ("allez-y", "fr", CONFIRM), ("laisse tomber", "fr", CANCEL),
    ("non merci", "fr", CANCEL), ("reprends", "fr", RESUME), ("appliquer", "fr", APPLY),
    ("beleza", "pt", CONFIRM), ("vai em frente", "pt", CONFIRM), ("esquece", "pt", CANCEL),
    ("chega", "pt", CANCEL), ("prossiga", "pt", RESUME), ("pode aplicar", "pt", APPLY),
    ("akkoord", "nl", CONFIRM), ("doe het maar", "nl", CONFIRM), ("laat maar", "nl", CANCEL),
    ("hou op", "nl", CANCEL), ("ga verder", "nl", RESUME), ("pas het toe", "nl", APPLY),
]

CLASSES: dict[str, tuple[list[str], list[str]]] = {
    "past_story_near_words": ([C, S, EN], [
        "Spent the afternoon on it: changed the parser, updated the docs, removed two helpers. "
        "{x}",
        "Rewrote it twice. Still broken. {x}",
        "Only the last page failed, the rest was fine. {x}",
        "{x}. For the record, I moved the tests and added a fixture yesterday.",
        "We made a lot of changes today, lost track of half of them, and created a mess. {x}",
    ]),
    "apology_dev": ([C, S, EN], ["sorry about that. {x}", "my apologies, {x}"]),
    "complaint_dev": ([C, S, EN], ["that answer made no sense. {x}", "you misread me. {x}"]),
    "error_before_dev": ([C, S, R], [
        "IndexError: list index out of range\n{x}",
        "I keep getting `AttributeError: 'NoneType' object has no attribute 'id'`. {x}",
    ]),
    "step_marks": ([C, S], ["Step 1 - {x}", "1/ {x}", "- [x] {x}"]),
    "order_inside": ([IMP], ["can we please {x}?", "let's {x}", "I think we should {x}",
                            "time to {x}", "ok now {x}"]),
    "tag_question_dev": ([IMP], ["{x}, yes?", "{x}, fine?"]),
    "self_correction_dev": ([C, S, EN], ["no wait, {x}", "sorry, I meant: {x}"]),
    "callback_dev": ([C, S, EN], ["as discussed, {x}", "like you said before, {x}"]),
    "todo_dev": ([C, S], ["TODO {x}", "To do: {x}"]),
    "subject_line_dev": ([C, S, R], ["Re: the last run\n\n{x}", "Subject: request\n\n{x}"]),
    "status_before_dev": ([C, S, R], ["4 failed, 20 passed in 3.2s\n{x}",
                                      "pipeline #77 is red. {x}"]),
    "hedged_dev": ([C, S, EN], ["not sure, but {x}", "I suppose {x}"]),
    "retry_dev": ([C, S, EN], ["trying again: {x}", "again: {x}"]),
    # after the fourth split's evaluation (instances of our own, not the split's):
    "error_line_then_words": ([C, S, R], [
        "KeyError: 'user_id'. {x}",
        "AttributeError: 'NoneType' object has no attribute 'name' — {x}",
        "ImportError: cannot import name 'Config' from 'settings' -- {x}",
    ]),
    "status_told": ([C, S, R], ["the deploy broke again. {x}", "nightly job crashed overnight. {x}",
                                "lint passed locally. {x}", "pipeline 913 failed twice. {x}"]),
    "own_retry_told": ([C, S, EN], ["let me rephrase. {x}", "lemme try again. {x}",
                                    "let me put it another way: {x}"]),
    "hedges_asked": ([C, S, EN], ["I'm not entirely sure, but {x}", "not 100% certain, but {x}",
                                  "Not sure. {x}", "perhaps {x}"]),
    "proposed_together": ([IMP], ["why don't we {x}?", "what if we {x}?",
                                  "how about we just {x}?"]),
    "arrow_marks": ([C, S], ["step 3 → {x}", "todo -> {x}", "next => {x}"]),
}

#: Replies typed with a typo, with their language's politeness and particles, and with a
#: reason after them: (variant, base).
TYPOS = [
    ("procdi", "procedi"), ("rirpendi", "riprendi"), ("ubernehmen", "übernehmen"),
    ("vergis es", "vergiss es"), ("olvidalo", "olvídalo"), ("continau", "continúa"),
    ("raprends", "reprends"), ("prosiga", "prossiga"), ("akoord", "akkoord"),
    ("laat mar", "laat maar"),
]
NATIVE = [
    ("sì, procedi", "procedi"), ("certo, grazie", "certo"),
    ("ok, lascia perdere", "lascia perdere"),
    ("riprendi pure", "riprendi"), ("applicalo pure, grazie", "applicalo"),
    ("ja, mach", "leg los"), ("na klar, leg los", "leg los"), ("nein, vergiss es", "vergiss es"),
    ("mach mal weiter", "mach weiter"), ("bitte übernehmen", "übernehmen"),
    ("vale", "dale"), ("sí, dale", "dale"), ("no, olvídalo", "olvídalo"),
    ("continúa, por favor", "continúa"), ("sí, aplícalo", "aplícalo"),
    ("oui, vas-y", "allez-y"), ("oui, d'accord", "d'accord"),
    ("non, laisse tomber", "laisse tomber"),
    ("reprends, stp", "reprends"), ("oui, appliquer", "appliquer"),
    ("sim, vai em frente", "vai em frente"), ("não, esquece", "esquece"),
    ("prossiga, por favor", "prossiga"), ("sim, pode aplicar", "pode aplicar"),
    ("ja, doe het maar", "doe het maar"), ("nee, laat maar", "laat maar"),
    ("ga verder alsjeblieft", "ga verder"), ("ja, pas het toe", "pas het toe"),
]
REASONS = [
    ("sure, it reads well", "sure"), ("nope, that's the old file", "nope"),
    ("procedi, mi convince", "procedi"), ("lascia perdere, ho cambiato idea", "lascia perdere"),
    ("leg los, sieht gut aus", "leg los"), ("halt, das ist falsch", "halt"),
    ("dale, me gusta", "dale"), ("para, no era eso", "para"),
    ("allez-y, ça me va", "allez-y"), ("laisse tomber, je le ferai moi-même", "laisse tomber"),
    ("beleza, ficou bom", "beleza"), ("chega, demorou demais", "chega"),
    ("akkoord, ziet er prima uit", "akkoord"), ("hou op, het klopt niet", "hou op"),
]

#: Phrases broken over two lines (variant, base): asked about, never read half.
BROKEN_LINES = [
    ("show the draft\nhistory", "show the draft history"),
    ("update source\nrich", "update source rich"), ("add source\npip:rich", "add source pip:rich"),
    ("code memory\nstatus", "code memory status"),
    ("move parse_date to\nutils/dates.py", "move parse_date to utils/dates.py"),
]

NEAR_MISSES: list[tuple[str, list[str] | None]] = [
    # after the fourth split's evaluation: everyday renames in the seven languages, quoted
    # commands asked about, and near misses to ask about
    ("rinomina il file in Ricette", None), ("renombra el álbum a Verano", None),
    ("renomme la playlist en Été", None), ("hernoem het bestand naar Recepten", None),
    ("benenne den Ordner in Urlaub um", None), ("renomeie a pasta para Férias", None),
    ("rename my folder to Taxes", None),
    ("¿para qué sirve 'show the diff'?", None), ("was macht 'list sources' genau?", None),
    ("que fait 'roll back' ?", None), ("cosa fa 'show the draft history'?", None),
    ("can you bring back draft 3", ["roll_back", "3"]),
    ("all the drafts so far?", ["history", ""]),
    ("fmt_ts would be better named format_ts", ["rename", "fmt_ts", "format_ts", ""]),
    ("get rid of source rich", ["remove_source", "rich"]),
    ("build #12 failed. what's the code memory status", ["status", ""]),
    ("we did a rollback.", None), ("we had to roll back prices", None),
    ("add source: Wikipedia, the article on Rome", None),
    ("last year they had to roll back to the old tariffs", None),
    ("I did a redo of the whole kitchen", None),
    ("yesterday I went back to draft 2 of my essay", None),
    ("she applied the paint in two coats", None),
    ("sposta l'appuntamento a lunedì", None), ("verschiebe den Urlaub auf August", None),
    ("mueve el coche al garaje", None), ("déplace la voiture au garage", None),
    ("mova a reunião para sexta", None), ("verplaats de vergadering naar vrijdag", None),
]

REPLY_NEAR_MISSES: list[tuple[str, list[Any]]] = [
    ("vale", CONFIRM), ("oui, vas-y", CONFIRM), ("sì, procedi", CONFIRM), ("ja, mach", CONFIRM),
    ("sì, continua", RESUME), ("yes, continue", RESUME), ("ok, annulla", CANCEL),
    ("sì, ma usa un set", FEEDBACK), ("ja, aber ohne globale Variablen", FEEDBACK),
    ("vale, pero con tipos", FEEDBACK), ("oui mais sans effets de bord", FEEDBACK),
    ("sim, mas sem prints", FEEDBACK), ("ja, maar zonder globals", FEEDBACK),
    ("continua a leggere il file riga per riga", FEEDBACK),
    ("para cuando encuentres un error", FEEDBACK), ("stop at the first match", FEEDBACK),
    ("basta con i print", FEEDBACK), ("laat maar de oude naam staan", FEEDBACK),
    ("step", FEEDBACK), ("yet", FEEDBACK), ("cancer", FEEDBACK), ("stoop", FEEDBACK),
]

ROUND3: dict[str, Any] = {
    "replies": [{"text": t, "lang": lang, "expected": e} for t, lang, e in REPLIES],
    "classes": {name: {"kinds": kinds, "templates": templates}
                for name, (kinds, templates) in CLASSES.items()},
    "explicit": {"reply_typos": [list(p) for p in TYPOS],
                 "native_replies": [list(p) for p in NATIVE],
                 "reply_reasons": [list(p) for p in REASONS],
                 "broken_lines": [list(p) for p in BROKEN_LINES]},
    "near_misses": [{"text": t, "expected": e} for t, e in NEAR_MISSES],
    "reply_near_misses": [{"text": t, "expected": e} for t, e in REPLY_NEAR_MISSES],
}
