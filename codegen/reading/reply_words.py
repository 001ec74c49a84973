"""The words of a reply to a proposal, in the seven languages the readers know: English,
Italian, German, Spanish, French, Portuguese and Dutch (``replies`` reads them).

Each kind holds what people say for it in each language, with its common politeness and
confirmations ("va bene", "einverstanden", "de acuerdo", "d'accord", "beleza", "akkoord"), the
forms with the proposal as their object ("applicalo", "cancélalo", "applique-le", "pas het
toe") and the forms with a particle of their own language ("vai pure", "mach ruhig", "doe
maar", "ga maar door"): particles that only soften a reply (``PARTICLES``) are read as part
of it wherever they stand. An affirmation ("yes", "sì", "ja", "oui", "vale", "ok") is a yes
alone, and gives way to another reply said beside it ("sì, continua" is "continue", "ja,
abbrechen" a cancel, "ok, apply it" the apply).

Every entry is lower-case, accent-folded ASCII with a space for a hyphen ("vas-y" is "vas y",
"arrête" is "arrete"), as ``replies`` reads a message.
"""

from __future__ import annotations

#: Per language, the words of each kind: "yes" (an affirmation: a yes by itself, beside
#: another reply that reply), "go" (go ahead with the proposal), "cancel" (cancel it, or stop
#: a running draft), "continue" (go on with the task from its last good draft), "apply" (write
#: the draft into the repository, ``app/drafting/history.py``), "particle" (softens a reply,
#: in any place of it: never a reply alone).
BY_LANGUAGE: dict[str, dict[str, frozenset[str]]] = {
    "en": {
        "yes": frozenset({"yes", "y", "yeah", "yep", "yup", "ok", "okay", "alright", "all right",
                          "sure", "sure thing", "of course", "correct", "right", "yes please",
                          "looks good", "sounds good", "lgtm", "perfect", "great"}),
        "go": frozenset({"go", "go ahead", "go for it", "confirm", "confirmed", "start",
                         "proceed", "do it", "ship it", "let's go", "lets go", "please do",
                         "yes please do", "yes do it"}),
        "cancel": frozenset({"cancel", "stop", "abort", "no", "n", "nope", "nah", "nevermind",
                             "never mind", "forget it", "drop it", "quit", "exit", "cancel it",
                             "cancel that", "stop it", "stop that", "forget that",
                             "stop right there", "no thanks", "no thank you"}),
        "continue": frozenset({"continue", "resume", "go on", "carry on", "keep going",
                               "continue drafting", "resume drafting", "go on then"}),
        "apply": frozenset({"apply", "apply it", "apply the draft", "apply draft"}),
        "particle": frozenset({"then", "now", "already", "just", "please", "pls", "plz"}),
    },
    "it": {
        "yes": frozenset({"si", "certo", "certamente", "va bene", "ok va bene", "d'accordo",
                          "esatto", "perfetto"}),
        "go": frozenset({"vai", "vai pure", "procedi", "procedi pure", "fallo", "fallo pure",
                         "confermo", "avanti", "via libera"}),
        "cancel": frozenset({"annulla", "annullalo", "annullala", "annulla tutto", "fermati",
                             "ferma", "ferma tutto", "interrompi", "lascia perdere",
                             "lascia stare", "basta", "no grazie", "niente", "non importa"}),
        "continue": frozenset({"continua", "continua pure", "vai avanti", "riprendi",
                               "riprendi pure", "prosegui"}),
        "apply": frozenset({"applica", "applicalo", "applicala", "applica la bozza"}),
        "particle": frozenset({"pure", "pur", "allora", "dai"}),
    },
    "de": {
        "yes": frozenset({"ja", "jawohl", "jep", "klar", "na klar", "genau", "passt", "gut",
                          "einverstanden", "in ordnung", "perfekt"}),
        "go": frozenset({"los", "leg los", "mach", "mach es", "mach das", "mach schon",
                         "los geht's", "los gehts", "nur zu", "bestatigt", "bestatige"}),
        "cancel": frozenset({"abbrechen", "abbruch", "brich ab", "stopp", "halt", "nein",
                             "nein danke", "vergiss es", "vergiss das", "lass es", "lass das",
                             "hor auf", "aufhoren", "lass gut sein"}),
        "continue": frozenset({"weiter", "mach weiter", "weitermachen", "fortfahren",
                               "fahr fort"}),
        "apply": frozenset({"anwenden", "wende es an", "wende ihn an", "wende den entwurf an",
                            "ubernehmen", "ubernimm es"}),
        "particle": frozenset({"mal", "ruhig", "doch", "schon", "einfach", "dann", "jetzt",
                               "bitte"}),
    },
    "es": {
        "yes": frozenset({"si", "vale", "claro", "de acuerdo", "perfecto", "por supuesto",
                          "si claro", "bueno", "venga"}),
        "go": frozenset({"adelante", "dale", "hazlo", "procede", "confirmo",
                         "adelante con ello"}),
        "cancel": frozenset({"cancela", "cancelalo", "cancela todo", "cancelar", "detente",
                             "para", "parar", "olvidalo", "dejalo", "anula", "anulalo",
                             "no gracias", "dejalo estar"}),
        "continue": frozenset({"sigue", "continua", "continua por favor", "seguir",
                               "continuar", "prosigue", "reanuda"}),
        "apply": frozenset({"aplica", "aplicalo", "aplicar", "aplica el borrador"}),
        "particle": frozenset({"ya", "pues", "entonces", "ahora"}),
    },
    "fr": {
        "yes": frozenset({"oui", "ouais", "ouai", "d'accord", "dac", "parfait", "bien sur",
                          "ok d'accord"}),
        "go": frozenset({"vas y", "allez y", "allez", "fais le", "c'est parti", "je confirme",
                         "confirme", "ca marche"}),
        "cancel": frozenset({"annule", "annuler", "annule tout", "annule ca", "arrete",
                             "arrete tout", "arrete toi", "non", "non merci", "laisse tomber",
                             "oublie", "oublie ca", "laisse", "stop"}),
        "continue": frozenset({"continue", "continuer", "continuez", "reprends", "reprenez",
                               "poursuis", "poursuivez"}),
        "apply": frozenset({"applique", "applique le", "appliquer", "applique la",
                            "applique le brouillon"}),
        "particle": frozenset({"donc", "alors", "maintenant"}),
    },
    "pt": {
        "yes": frozenset({"sim", "claro", "claro que sim", "beleza", "de acordo", "perfeito",
                          "ta bom", "com certeza"}),
        "go": frozenset({"pode", "pode ir", "vai", "vai em frente", "manda ver", "bora",
                         "pode fazer", "faz", "faca", "faca isso", "pode seguir em frente"}),
        "cancel": frozenset({"cancela", "cancele", "cancelar", "cancela isso", "cancela tudo",
                             "pare", "para", "parar", "esquece", "esquece isso", "deixa pra la",
                             "deixa para la", "deixa", "chega", "nao", "nao obrigado",
                             "nao obrigada"}),
        "continue": frozenset({"continua", "continue", "continuar", "pode continuar",
                               "prossiga", "prosseguir", "segue", "siga", "continue por favor"}),
        "apply": frozenset({"aplique", "aplica", "aplicar", "aplicar isso", "pode aplicar",
                            "aplica isso", "aplique o rascunho"}),
        "particle": frozenset({"entao", "agora", "ai"}),
    },
    "nl": {
        "yes": frozenset({"ja", "ja hoor", "jazeker", "zeker", "prima", "akkoord", "goed",
                          "is goed", "oke", "helemaal goed"}),
        "go": frozenset({"ga je gang", "ga maar", "doe maar", "doe het", "doe het maar",
                         "ga ervoor", "begin maar", "start maar", "bevestigd"}),
        "cancel": frozenset({"annuleer", "annuleren", "stop", "stoppen", "stop ermee", "hou op",
                             "houd op", "laat maar", "laat maar zitten", "vergeet het",
                             "afbreken", "breek af", "nee", "neen", "nee dank je",
                             "nee bedankt"}),
        "continue": frozenset({"ga door", "ga maar door", "doorgaan", "ga verder", "verder",
                               "hervat", "ga verder maar"}),
        "apply": frozenset({"toepassen", "pas toe", "pas het toe", "pas maar toe",
                            "pas het maar toe"}),
        "particle": frozenset({"maar", "even", "gewoon", "nu", "graag"}),
    },
}


def _every(kind: str) -> frozenset[str]:
    return frozenset().union(*(words[kind] for words in BY_LANGUAGE.values()))


#: The words of each kind, in every language.
AFFIRMATIONS = _every("yes")
GO = _every("go")
CANCEL = _every("cancel")
RESUME = _every("continue")
APPLY = _every("apply")
PARTICLES = _every("particle")
