"""The vocabulary of ``intent``: English, Italian, German, Spanish and French, accent-folded.

Kept apart from the rules so a new language or word is a data change. Every entry is lower-case
ASCII (``intent._fold`` folds accents before lookup: "écris" is "ecris").
"""

from __future__ import annotations

#: Verbs that ask for code to be written or changed (imperatives, infinitives, "-me" forms).
REQUEST_VERBS = frozenset({
    # English
    "write", "add", "implement", "create", "make", "build", "generate", "change", "modify",
    "update", "fix", "refactor", "rewrite", "rename", "extend", "optimize", "optimise",
    "convert", "remove", "delete", "replace", "split", "extract", "develop", "port",
    "patch", "debug", "repair", "improve", "simplify", "clean", "cleanup", "define",
    # Italian
    "scrivi", "scrivere", "scrivimi", "aggiungi", "aggiungere", "implementa", "implementare",
    "crea", "creare", "creami", "modifica", "modificare", "cambia", "cambiare", "correggi",
    "correggere", "sistema", "sistemare", "aggiusta", "rifattorizza", "rifattorizzare", "genera",
    "generare", "fammi", "riscrivi", "ottimizza",
    # German
    "schreib", "schreibe", "schreiben", "fuge", "hinzufugen", "implementiere", "implementieren",
    "erstelle", "erstellen", "erzeuge", "erzeugen", "andere", "andern", "korrigiere",
    "korrigieren", "behebe", "beheben", "repariere", "refaktoriere", "refaktorieren",
    "refaktorisiere", "refaktorisieren", "generiere", "generieren", "baue", "erweitere",
    "optimiere",
    # Spanish
    # (implementa, crea, cambia, modifica, genera: as in Italian)
    "escribe", "escribir", "escribeme", "anade", "anadir", "agrega", "agregar", "implementar",
    "crear", "creame", "cambiar", "modificar", "corrige", "corregir", "arregla", "arreglar",
    "refactoriza", "refactorizar", "generar", "hazme", "reescribe", "optimiza",
    # French (change, optimise: as in English)
    "ecris", "ecrire", "ecrivez", "ajoute", "ajouter", "ajoutez", "implemente", "implementer",
    "implementez", "cree", "creer", "creez", "modifie", "modifier", "modifiez", "changer",
    "corriger", "corrigez", "repare", "reparer", "refactorise", "refactoriser", "genere",
    "generer", "reecris",
})

#: Verbs that only make sense for code: alone they make a message AMBIGUOUS, not OTHER.
CODE_ONLY_VERBS = frozenset({
    "implement", "refactor", "debug", "implementa", "implementare", "rifattorizza",
    "implementiere", "implementieren", "refaktoriere", "refaktorisieren", "implementar",
    "refactoriza", "implemente", "implementer", "refactorise",
})

#: Verbs that ask to be told or shown something: a question, whatever the form.
INFORMATION_VERBS = frozenset({
    "explain", "describe", "show", "tell", "find", "list", "summarize", "summarise",
    "spiega", "mostra", "descrivi", "erklare", "zeige", "beschreibe", "explica", "muestra",
    "explique", "montre", "decris",
})

#: Nouns of things made of code (and a few code-only concepts).
CODE_NOUNS = frozenset({
    # English
    "function", "functions", "method", "methods", "class", "classes", "file", "module",
    "modules", "script", "code", "test", "tests", "unittest", "helper", "decorator",
    "dataclass", "endpoint", "handler", "parser", "cli", "flag", "api", "docstring",
    "docstrings", "hints", "async", "callback", "constructor", "exception", "regex", "lambda",
    "generator", "iterator", "iterable", "property", "attribute", "field", "enum", "interface",
    "snippet", "program", "algorithm", "implementation", "logging", "cache", "bug", "model",
    "routine", "subclass", "argument", "arguments", "parameter", "parameters", "variable",
    "def", "repo", "repository", "codebase",
    # Italian
    "funzione", "funzioni", "metodo", "metodi", "classe", "classi", "modulo", "codice",
    "campo",
    # German
    "funktion", "funktionen", "methode", "methoden", "klasse", "klassen", "datei", "modul",
    "skript",
    # Spanish
    "funcion", "funciones", "clase", "clases", "archivo", "fichero", "codigo",
    "prueba", "pruebas",
    # French
    "fonction", "fonctions", "fichier",
})

#: Code nouns and the kind of entity they ask for.
KIND_OF_NOUN = {
    "function": "function", "functions": "function", "helper": "function",
    "decorator": "function", "funzione": "function", "funktion": "function",
    "funcion": "function", "fonction": "function",
    "method": "method", "methods": "method", "metodo": "method", "methode": "method",
    "class": "class", "dataclass": "class", "classe": "class", "klasse": "class",
    "clase": "class",
    "test": "test", "tests": "test", "unittest": "test", "prueba": "test",
    "file": "module", "module": "module", "script": "module", "modulo": "module",
    "datei": "module", "archivo": "module", "fichero": "module", "fichier": "module",
}

#: Words between a code noun and its name ("a function *called* slugify").
NAMING_WORDS = frozenset({
    "called", "named", "name", "chiamata", "chiamato", "denominata", "namens", "genannt",
    "llamada", "llamado", "nommee", "nomme", "appelee", "appele", "new", "nuova", "nuovo",
    "neue", "neuen", "nueva", "nuevo", "nouvelle", "nouveau",
})

#: Words never taken for a symbol name.
NOT_SYMBOLS = frozenset({
    "a", "an", "the", "to", "in", "of", "for", "that", "this", "it", "me", "my", "our", "your",
    "and", "or", "with", "from", "on", "so", "which", "new", "one", "some", "any", "all",
    "every", "each", "its", "is", "be", "as", "at", "by", "into", "only", "too", "please",
    "pls", "python", "code", "class", "function", "method", "file", "instead", "there",
    "una", "un", "uno", "il", "la", "le", "lo", "che", "di", "del", "della", "alla", "al",
    "eine", "einen", "ein", "der", "die", "das", "den", "dem", "und", "zu", "mit",
    "el", "los", "las", "que", "de", "en", "con", "une", "les", "des", "du", "qui",
    "dans", "avec", "pour", "per", "par", "fur", "para",
    "i", "we", "you", "can", "could", "would", "will", "should", "need", "want",
    "none", "true", "false", "self", "http", "https", "url", "ok", "unit", "integration",
})

#: Words that start a question (single words, or two-word openings).
QUESTION_STARTS = frozenset({
    "how", "what", "what's", "whats", "why", "where", "which", "who", "whom", "whose", "when",
    "is", "are", "does", "do", "did", "was", "were", "has", "have",
    "come", "cosa", "perche", "dove", "quale", "quali", "chi", "quando", "che cosa",
    "wie", "warum", "wo", "welche", "welcher", "wer", "wann", "gibt es",
    "como", "que", "por que", "donde", "cual", "cuales", "quien", "cuando",
    "comment", "pourquoi", "ou", "quel", "quelle", "quels", "qui", "quand", "qu'est", "est-ce",
    "que fait",
})

#: Openings that make a question-shaped message a request ("can you write ...?").
REQUEST_FRAMES = (
    "can you", "could you", "would you", "will you", "can u", "could u", "pls can",
    "please can", "puoi", "potresti", "kannst du", "konntest du", "konnen sie", "puedes",
    "podrias", "puede", "peux tu", "peux", "pourrais tu", "pourriez vous", "tu peux",
)

#: Phrases that say the user wants something (followed by a code noun: a request).
DESIRE_PHRASES = (
    "i need", "i want", "i'd like", "id like", "i would like", "we need", "we want",
    "need a", "need an", "i'm looking for a", "it would be nice to have", "let's", "lets",
    "ho bisogno", "vorrei", "mi serve", "ich brauche", "ich mochte", "wir brauchen",
    "necesito", "quiero", "me gustaria", "j'ai besoin", "je voudrais", "je veux",
    "il me faut",
)

#: Words and pairs that may open a request before its verb.
POLITE_OPENINGS = frozenset({
    "please", "pls", "plz", "kindly", "hey", "hi", "ok", "okay", "so", "now", "then", "also",
    "and", "cat", "can you", "could you", "would you", "will you", "can u", "just",
    "per favore", "puoi", "potresti", "bitte", "kannst du", "konntest du", "por favor",
    "puedes", "podrias", "peux tu", "pourrais tu", "tu peux", "stp", "svp",
})

#: Words that negate the verb after them ("don't write any code").
NEGATIONS = frozenset({"don't", "dont", "do not", "not", "never", "without", "no", "non",
                       "nicht", "kein", "keinen", "ne", "pas", "nunca"})

#: Words of a bug report ("parse_date crashes on empty strings"): ambiguous, not a question.
PROBLEM_WORDS = frozenset({
    "crash", "crashes", "broken", "fails", "failing", "error", "errors", "bug", "wrong",
    "slow", "raises", "exception",
})

#: "code *for* slugify": nouns whose name can only follow a "for".
CODE_FOR_NOUNS = frozenset({"code", "codice", "codigo", "python"})

#: Definite articles: "the slugify function" names an existing thing ("a stack class" does not).
DEFINITE = frozenset({"the", "this", "il", "lo", "la", "der", "die", "das", "el", "le"})

#: Articles and determiners before a code noun ("a function slugify", "the Stack class").
DETERMINERS = frozenset({
    "a", "an", "the", "this", "that", "my", "our", "new", "una", "un", "uno", "il", "la", "lo",
    "le", "eine", "einen", "ein", "der", "die", "das", "den", "dem", "el", "los", "las", "une",
    "les", "ce", "cette",
})

#: "a test *for* slugify", "code *for* slugify": a name follows when it ends its phrase.
FOR_WORDS = frozenset({"for", "per", "fur", "para", "pour"})

#: Words that end the phrase a name stands in.
LINK_WORDS = frozenset({
    "in", "into", "inside", "to", "that", "which", "so", "and", "on", "from", "with", "nel",
    "nella", "nello", "che", "im", "die", "der", "das", "en", "que", "dans", "qui", "a",
    "al", "alla", "zu", "zur", "zum", "for", "hinzu", "avec", "con", "mit",
})

#: Words before a class noun that make the class the owner of what is asked for.
OWNER_MARKERS = frozenset({"to", "into", "alla", "al", "der", "zur", "a", "in", "nella"})

#: Parts of an entity that are not entities themselves (no symbol of their own).
MEMBER_NOUNS = frozenset({
    "field", "fields", "flag", "argument", "arguments", "parameter", "parameters", "attribute",
    "attributes", "column", "option", "variable", "campo", "feld", "champ", "setting",
})

#: Word beginnings of questions about a program's workings (any of the five languages).
CODE_QUESTION_STEMS = (
    "config", "konfig", "valid", "pars", "load", "implement", "defin", "handl", "initiali",
    "import", "call", "return", "rais", "cache", "databas", "query", "schema", "endpoint",
    "request", "respons", "auth", "login", "password", "session", "usuari", "utent", "benutzer",
    "utilisateur", "letta", "letto", "gelesen", "leid", "lu", "stored", "computed", "invok",
)
