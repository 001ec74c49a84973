"""The words of ``intent``: verbs, nouns and name-finding words in English, Italian, German,
Spanish, French, Portuguese and Dutch, accent-folded (the phrases of a sentence's structure are
in ``intent_frames``).

Kept apart from the rules so a new language or word is a data change. Every entry is lower-case
ASCII (``intent_text.fold`` folds accents before lookup: "écris" is "ecris", "faça" "faca").
"""

from __future__ import annotations

#: Verbs that ask for code to be written or changed, wherever they stand in the first words
#: (imperatives, infinitives, "-me" forms, English gerunds).
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
    "generer", "reecris", "supprime", "renomme", "remplace", "ameliore", "simplifie",
    # Portuguese (cria, implementa, modifica, corrige, gera: as above)
    "escreva", "escreve", "escrever", "crie", "criar", "adicione", "adiciona", "adicionar",
    "corrija", "corrigir", "conserte", "altere", "altera", "alterar", "modifique",
    "mude", "refatore", "refatora", "refatorar", "renomeie", "remova", "gere", "gerar",
    "otimize", "reescreva", "atualize", "atualiza", "substitua", "melhore", "simplifique",
    # Dutch
    "schrijf", "voeg", "toevoegen", "implementeer", "implementeren", "maak", "creeer",
    "genereer", "verander", "wijzig", "herschrijf", "repareer", "verwijder", "hernoem",
    "refactoreer", "optimaliseer", "verbeter", "vereenvoudig", "vervang",
    # English gerunds ("how about adding a cache to load_config?")
    "adding", "writing", "creating", "implementing", "changing", "fixing", "refactoring",
    "renaming", "removing", "rewriting", "extending", "updating", "making", "building",
})

#: Verbs that ask for a change only where an imperative stands ("have authenticate return
#: None", "drop the argument", "teach slugify ..."): elsewhere they are ordinary ("I have a
#: question about parse_date"). Only with a name of code do they make a request.
IMPERATIVE_VERBS = frozenset({
    # English
    "drop", "wrap", "log", "sort", "throw", "raise", "turn", "give", "let", "have", "put",
    "cache", "support", "handle", "accept", "use", "swap", "move", "merge", "inline", "expose",
    "validate", "catch", "skip", "ignore", "allow", "reject", "limit", "guard", "memoize",
    "batch", "parallelize", "migrate", "upgrade", "bump", "deprecate", "document", "annotate",
    "cover", "mock", "tidy", "speed", "harden", "sanitize", "escape", "encode", "decode",
    "register", "wire", "introduce", "insert", "append", "prepend", "rework", "restructure",
    "reorganize", "reorganise", "separate", "combine", "unify", "deduplicate", "dedupe",
    "teach", "enable", "disable", "store", "persist", "return", "emit", "get", "ensure",
    "parametrize", "parameterize", "type", "test", "retry", "time", "profile", "stream",
    # Italian
    "togli", "rimuovi", "elimina", "sposta", "rinomina", "ordina", "gestisci", "supporta",
    "accetta", "usa", "lancia", "solleva", "registra", "estendi", "migliora", "semplifica",
    "pulisci", "aggiorna", "converti", "dividi", "unisci", "separa", "sostituisci", "metti",
    "fai", "rendi", "valida", "documenta", "testa", "salva",
    # German
    "entferne", "losche", "benenne", "verschiebe", "sortiere", "unterstutze", "akzeptiere",
    "verwende", "nutze", "wirf", "logge", "aktualisiere", "ersetze", "teile", "vereinfache",
    "verbessere", "mach", "mache", "sorge", "lass", "gib", "pass", "passe", "validiere",
    "prufe", "dokumentiere", "teste", "konvertiere", "wandle", "speichere",
    # Spanish
    "borra", "quita", "renombra", "mueve", "ordena", "soporta", "acepta", "lanza",
    "actualiza", "reemplaza", "sustituye", "divide", "mejora", "haz", "pon",
    "deja", "convierte", "extrae", "limpia", "guarda", "maneja",
    # French
    "enleve", "retire", "deplace", "trie", "accepte", "utilise", "leve",
    "journalise", "mets", "mettez", "fais", "faites", "divise", "valide", "documente",
    "convertis", "extrais", "nettoie", "enregistre", "prends", "rends", "laisse",
    # Portuguese
    "faca", "faz", "apague", "inclua", "coloque", "aceite", "suporte", "trate",
    "divida", "ordene", "mova", "extraia", "converta", "troque",
    "ajuste", "arrume", "deixe", "lance", "guarde", "torne",
    # Dutch
    "pas", "zorg", "laat", "geef", "gebruik", "accepteer", "ondersteun", "verplaats", "breid",
    "werk", "splits", "sorteer", "valideer", "documenteer", "converteer", "gooi",
    "sla", "zet", "haal",
})

#: Verbs that ask to be told or shown something: a question, whatever the form.
INFORMATION_VERBS = frozenset({
    "explain", "describe", "show", "tell", "find", "list", "summarize", "summarise",
    "spiega", "mostra", "descrivi", "erklare", "zeige", "beschreibe", "explica", "muestra",
    "explique", "montre", "decris", "mostre", "descreva", "toon", "beschrijf", "verklaar",
    "leg",
})

#: Nouns of things made of code (and a few code-only concepts).
CODE_NOUNS = frozenset({
    # English
    "function", "functions", "method", "methods", "class", "classes", "file", "module",
    "modules", "script", "code", "test", "tests", "unittest", "helper", "decorator",
    "dataclass", "endpoint", "handler", "parser", "cli", "flag", "api", "docstring",
    "docstrings", "hints", "async", "callback", "constructor", "exception", "regex", "lambda",
    "generator", "iterator", "iterable", "property", "attribute", "field", "enum", "interface",
    "snippet", "program", "algorithm", "implementation", "logging", "cache", "bug",
    "subclass", "argument", "arguments", "parameter", "parameters", "variable",
    "def", "repo", "repository", "codebase", "bugfix",
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
    # Portuguese
    "funcao", "funcoes", "arquivo", "arquivos", "teste", "testes",
    # Dutch
    "functie", "functies", "bestand", "bestanden", "testen",
    # the English nouns above in the other languages (decorator, exception, parameter,
    # generator, context manager, iterator)
    "decoratore", "decorador", "decorateur", "dekorator", "eccezione", "excepcion", "excecao",
    "ausnahme", "uitzondering", "parametro", "parametri", "parametros", "parametre",
    "parametres", "generatore", "generador", "generateur", "gerador", "kontextmanager",
    "contextmanager", "iteratore", "iterador", "iterateur",
})

#: Code nouns of two words ("context manager"): strong like ``CODE_NOUNS``.
CODE_NOUN_PHRASES = ("context manager", "gestore di contesto", "gestor de contexto",
                     "gestionnaire de contexte", "type hint", "type hints", "unit test",
                     "unit tests", "regular expression")

#: Words of software that are not entities (a weak sign of code: with a verb of change the
#: message is AMBIGUOUS, since "the config loader should read TOML" is code but "the train is
#: too slow" is not; with a question word, a question about the code).
TECH_WORDS = frozenset({
    "json", "csv", "xml", "yaml", "toml", "html", "css", "sql", "http", "https",
    "caching", "timeout", "timeouts", "retries", "backoff", "thread", "threads", "threading",
    "await", "traceback", "stacktrace", "null", "endpoints", "database", "db",
    "query", "queries", "schema", "migration", "migrations", "server", "backend", "frontend",
    "jwt", "oauth", "hash", "hashing", "utf", "utf8", "unicode", "encoding", "bytes", "string",
    "strings", "integer", "int", "float", "boolean", "bool", "dict", "array", "tuple",
    "loader", "serializer", "validator", "exporter", "importer", "formatter", "logger",
    "wrapper", "middleware", "limiter", "scheduler", "worker", "config", "configuration",
    "lint", "linter", "pytest", "mock", "fixture", "deadlock", "segfault", "recursion",
    "recursive", "pagination", "sdk", "orm", "crud", "webhook", "websocket", "socket", "git",
    "commit", "javascript", "typescript", "golang", "sqlite", "postgres", "mysql", "redis",
    "typing", "dataframe", "pandas", "numpy", "django", "flask", "fastapi", "npm", "pip",
    "stack", "heap", "pointer", "compiler", "runtime", "unittests", "stdout",
    "stderr", "env", "dependency", "dependencies", "payload", "nullable", "getter", "setter",
    "singleton", "factory", "bytearray", "datetime", "timestamp", "timezone",
    "app", "apps", "application", "library", "package", "plugin", "component", "components",
    "token", "tokens", "login", "password", "passwords", "session", "sessions",
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
    "funcao": "function", "functie": "function", "teste": "test", "testes": "test",
    "testen": "test", "arquivo": "module", "bestand": "module",
}

#: Words between a code noun and its name ("a function *called* slugify").
NAMING_WORDS = frozenset({
    "called", "named", "name", "chiamata", "chiamato", "denominata", "namens", "genannt",
    "llamada", "llamado", "nommee", "nomme", "appelee", "appele", "new", "nuova", "nuovo",
    "neue", "neuen", "nueva", "nuevo", "nouvelle", "nouveau", "chamada", "chamado", "nova",
    "novo", "genaamd", "genoemd", "nieuwe",
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
    "parametro", "parametri", "parametros", "parametre", "parametres", "argomento",
    "argomenti", "argumento", "argumentos", "opzione", "opcion", "opcao", "optie", "atributo",
    "attributo", "attribut", "variabile", "veld", "colonna", "columna", "coluna", "kolom",
    "campi", "campos", "champs", "felder", "velden",
})

#: Words that are code nouns and everyday words at once ("the function of the liver", "who
#: should I call", "a blood test", "which class", "what type of wine", "a bug in the game",
#: "how do I fix ..."), in the detector's languages: with a repository configured, they never
#: make a question one about the code by themselves (a name or a word of the repository does).
GENERIC_CODE_WORDS = frozenset({
    "function", "functions", "call", "calls", "called", "calling", "test", "tests", "class",
    "classes", "method", "methods", "bug", "bugs", "error", "errors", "fix", "fixes", "file",
    "files", "type", "types", "kind",
    "funzione", "funzioni", "chiamata", "chiamare", "classe", "classi", "metodo", "metodi",
    "errore", "errori", "tipo", "tipi", "correggere", "funktion", "funktionen", "aufruf",
    "anrufen", "klasse", "klassen", "methode", "methoden", "fehler", "datei", "dateien", "typ",
    "funcion", "funciones", "llamada", "llamar", "clase", "clases", "prueba", "pruebas",
    "archivo", "archivos", "fichero", "arreglar", "fonction", "fonctions", "appel", "appeler",
    "erreur", "erreurs", "fichier", "fichiers", "funcao", "funcoes", "chamada", "chamar",
    "teste", "testes", "erro", "erros", "arquivo", "arquivos", "functie", "functies",
    "aanroep", "bellen", "testen", "fout", "fouten", "bestand", "bestanden", "methodes",
})
