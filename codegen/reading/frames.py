"""The phrases of ``intent``: how a sentence is built, in seven languages, accent-folded.

A request is not only an imperative verb from a list. It is built in a few ways, and each way
has its words in every language: a modal ("parse_date *should* accept a trailing Z"), a desire
("*I'd love it if* export_csv could write a header"), a bug report ("verify_token *doesn't*
reject expired tokens", "load_config *crashes* on an empty file"), a causative ("*make sure
that* ...", "*fai in modo che* ...") or a description of the thing wanted ("*something that*
strips HTML tags"). A question about the code is a question word, a walk-through ("*walk me
through* what happens when ...") or a comparison ("the *difference between* A and B").

Every entry is lower-case ASCII, words separated by one space (``intent_text.find_phrase``).
"""

from __future__ import annotations

#: Words that start a question (single words, or two-word openings).
QUESTION_STARTS = frozenset({
    "how", "what", "what's", "whats", "why", "where", "which", "who", "whom", "whose", "when",
    "is", "are", "does", "do", "did", "was", "were", "has", "have",
    "come", "cosa", "perche", "dove", "quale", "quali", "chi", "quando", "che cosa",
    "wie", "warum", "wo", "welche", "welcher", "wer", "wann", "gibt es",
    "como", "que", "por que", "donde", "cual", "cuales", "quien", "cuando",
    "comment", "pourquoi", "ou", "quel", "quelle", "quels", "qui", "quand", "qu'est", "est-ce",
    "que fait",
    "o que", "qual", "quais", "onde", "porque", "quem", "existe",
    "wat", "waarom", "waar", "hoe", "welke", "wanneer", "zijn", "heeft", "doet", "wordt",
})

#: Openings that make a question-shaped message a request ("can you write ...?").
REQUEST_FRAMES = (
    "can you", "could you", "would you", "will you", "can u", "could u", "pls can",
    "please can", "can we", "could we", "puoi", "potresti", "kannst du", "konntest du",
    "konnen sie", "puedes", "podrias", "puede", "peux tu", "peux", "pourrais tu",
    "pourriez vous", "tu peux", "pode", "poderia", "podes", "voce pode", "kun je", "kan je",
    "kunt u", "zou je", "wil je", "is it possible", "would it be", "how about", "what about",
    "any chance", "e possibile", "sarebbe possibile", "ist es moglich", "es posible",
    "seria posible", "est-il possible", "serait-il possible", "e possivel", "seria possivel",
    "is het mogelijk",
)

#: Words and pairs that may open a request before its verb.
POLITE_OPENINGS = frozenset({
    "please", "pls", "plz", "kindly", "hey", "hi", "ok", "okay", "so", "now", "then", "also",
    "and", "cat", "can you", "could you", "would you", "will you", "can u", "just",
    "per favore", "puoi", "potresti", "bitte", "kannst du", "konntest du", "por favor",
    "puedes", "podrias", "peux tu", "pourrais tu", "tu peux", "stp", "svp", "pode",
    "poderia", "voce pode", "kun je", "kan je", "zou je", "wil je", "alsjeblieft", "graag",
    "dan", "ook", "anche", "auch", "tambien", "aussi", "tambem",
})

#: Openings of thanks and praise: with no change asked, the message is small talk even when
#: it names code ("thanks, parse_date works now").
ACKNOWLEDGEMENTS = frozenset({
    "thanks", "thank", "thx", "great", "perfect", "nice", "cool", "awesome", "excellent",
    "good", "wonderful", "brilliant", "grazie", "perfetto", "ottimo", "danke", "super", "prima",
    "gracias", "perfecto", "genial", "merci", "parfait", "obrigado", "obrigada", "otimo",
    "bedankt", "dank", "mooi", "top",
})

#: Words that negate the verb after them ("don't write any code").
NEGATIONS = frozenset({"don't", "dont", "do not", "not", "never", "without", "no", "non",
                       "nicht", "kein", "keinen", "ne", "pas", "nunca", "nao", "niet", "geen",
                       "nooit"})

#: Negations that, after a subject other than the speaker, report a fault ("verify_token
#: *doesn't* reject expired tokens"); "I don't understand X" is not a bug report.
FAULT_NEGATIONS = frozenset({
    "doesn't", "doesnt", "does not", "don't", "dont", "isn't", "isnt", "is not", "won't",
    "wont", "can't", "cant", "cannot", "never", "no longer", "non", "nicht", "no", "ne",
    "n'est", "nao", "niet", "geen",
})

#: The speaker and the listener: a negation after them is not a bug report.
PERSONS = frozenset({"i", "i'm", "we", "you", "io", "noi", "ich", "wir", "du", "yo",
                     "nosotros", "je", "j'ai", "nous", "eu", "nos", "ik", "wij", "jij"})

#: Modal phrases: what the code should or must do (a request when code is named).
MODAL_PHRASES = (
    "should", "shouldn't", "shouldnt", "must", "mustn't", "needs to", "need to", "needs",
    "has to", "have to", "ought to", "shall", "is supposed to", "would be nice if",
    "would be better if", "it'd be nice", "would be nice", "is missing", "lacks",
    "dovrebbe", "dovrebbero", "deve", "devono", "bisogna", "andrebbe", "manca",
    "soll", "sollte", "sollten", "muss", "mussen", "musste", "braucht", "fehlt",
    "deberia", "deberian", "debe", "deben", "tiene que", "tendria que", "hay que", "falta",
    "devrait", "devraient", "doit", "doivent", "faudrait", "il faut", "manque",
    "deveria", "deveriam", "devem", "precisa", "precisam", "tem que", "tem de",
    "teria que", "moet", "moeten", "zou moeten", "hoort", "dient", "mist",
)

#: Phrases that say the user wants something (with a name of code: a request).
DESIRE_PHRASES = (
    "i need", "i want", "i'd like", "id like", "i would like", "we need", "we want",
    "need a", "need an", "i'm looking for a", "it would be nice to have", "let's", "lets",
    "i'd love", "id love", "i would love", "can we get", "could we get", "can we have",
    "i wish", "we should", "would be great",
    "ho bisogno", "vorrei", "mi serve", "ci serve", "serve", "mi piacerebbe", "sarebbe bello",
    "ich brauche", "ich mochte", "wir brauchen", "ich will", "ich hatte gern", "ware schon",
    "necesito", "necesitamos", "quiero", "quisiera", "me gustaria", "hace falta",
    "j'ai besoin", "je voudrais", "je veux", "il me faut", "il faudrait", "ce serait bien",
    "preciso", "precisamos", "quero", "queria", "gostaria", "eu preciso",
    "ik wil", "ik zou graag", "nodig", "we willen", "het zou fijn",
)

#: Causative frames: "make sure ...", "fai in modo che ...", "haz que ...".
CAUSATIVE_PHRASES = (
    "make sure", "make it so", "fai in modo", "fa in modo", "fate in modo", "mach dass",
    "sorg dafur", "sorge dafur", "haz que", "haga que", "fais en sorte", "faites en sorte",
    "faca com que", "faz com que", "faca que", "zorg dat", "zorg ervoor", "ensure that",
)

#: A thing described by what it does, as the whole request ("something that strips tags").
DESCRIBED_THINGS = (
    "something that", "something which", "something to", "a thing that", "a way to",
    "qualcosa che", "una cosa che", "etwas das", "algo que", "una cosa que",
    "quelque chose qui", "un truc qui", "iets dat", "iets wat",
)

#: Words and phrases of a bug report ("parse_date crashes on empty strings").
PROBLEM_PHRASES = (
    "crash", "crashes", "crashed", "crashing", "fail", "fails", "failed", "failing", "broken",
    "breaks",
    "broke", "throws", "raises", "hangs", "freezes", "leaks", "wrong", "incorrect", "error",
    "errors", "bug", "buggy", "exception", "slow", "too slow", "off-by-one", "off by one",
    "returns none", "blows up", "chokes on",
    "errore", "crasha", "si blocca", "si pianta", "lento", "lenta", "sbagliato", "sbagliata",
    "fallisce", "eccezione", "va in errore",
    "fehler", "absturz", "sturzt", "abgesturzt", "falsch", "langsam", "hangt", "wirft",
    "kaputt", "bricht ab",
    "falla", "fallo", "lento", "se cuelga", "incorrecto", "excepcion", "revienta", "peta",
    "plante", "erreur", "bogue", "lent", "faux", "fausse", "echoue", "leve une",
    "falha", "erro", "erros", "trava", "errado", "excecao", "quebra",
    "fout", "fouten", "crasht", "traag", "loopt vast", "klopt niet", "gooit", "exceptie",
)

#: Walk-throughs of a flow: questions, whatever their form ("walk me through the login").
WALK_PHRASES = (
    "walk me through", "walk through", "step through", "step me through", "take me through",
    "talk me through", "trace", "what happens", "what happened", "step by step", "the flow",
    "passo passo", "cosa succede", "che succede", "cosa accade", "was passiert",
    "schritt fur schritt", "que pasa", "que ocurre", "paso a paso", "que se passe",
    "qu'est-ce qui se passe", "etape par etape", "o que acontece", "passo a passo",
    "wat gebeurt", "stap voor stap", "loop me door",
)

#: Walk-throughs that ask to be guided through a process ("walk me through how a coupon gets
#: applied", "step by step"): with a repository configured, the process is the code's, even
#: when no name of it is said; "what happens" and the like stay general.
GUIDED_WALKS = (
    "walk me through", "walk through", "step through", "step me through", "take me through",
    "talk me through", "trace", "step by step", "the flow", "passo passo", "schritt fur schritt",
    "paso a paso", "etape par etape", "passo a passo", "stap voor stap", "loop me door",
    "le parcours", "il percorso", "den ablauf", "el recorrido", "o percurso",
)

#: A question about what "we" do is about the user's own system, which, with a repository
#: configured, is its code ("where do we send the reminders?"); "should we" proposes an
#: activity instead. A wrong guess costs one scoring call and adds nothing to the answer.
OUR_SYSTEM = (
    "do we", "did we", "does our", "do our", "have we", "facciamo", "abbiamo fatto",
    "machen wir", "haben wir", "hacemos", "hicimos", "faisons-nous", "fazemos", "fizemos",
    "doen we", "hebben we",
)

#: Instructions for the user, not a process of the code ("walk me through how to bake bread").
HOW_TO = ("how to", "how do i", "how can i", "how should i", "come si", "come fare", "wie man",
          "como se", "como hacer", "comment faire", "como fazer", "hoe moet ik", "hoe kan ik")

#: Comparisons of two things: questions, whatever their form.
COMPARE_PHRASES = (
    "difference between", "differences between", "differ", "differs", "different from",
    "compare", "compared", "versus", "vs", "differenza tra", "differenza fra",
    "unterschied zwischen", "unterscheidet", "diferencia entre", "difference entre",
    "diferenca entre", "verschil tussen",
)

#: Phrases of programming jargon (a weak sign of code, like ``intent_words.TECH_WORDS``).
TECH_PHRASES = (
    "off by one", "stack trace", "type hint", "type hints", "unit test", "unit tests",
    "race condition", "memory leak", "null pointer", "edge case", "edge cases", "return value",
    "rate limiter", "rate limit", "exit code", "command line", "error handling", "dead code",
    "code review", "pull request", "merge conflict", "infinite loop", "for loop", "while loop",
)

#: Word beginnings of questions about a program's workings (any of the languages).
CODE_QUESTION_STEMS = (
    "config", "konfig", "valid", "pars", "load", "implement", "defin", "handl", "initiali",
    "import", "call", "return", "rais", "cache", "databas", "query", "schema", "endpoint",
    "request", "respons", "auth", "login", "password", "session", "usuari", "utent", "benutzer",
    "utilisateur", "letta", "letto", "gelesen", "leid", "lu", "stored", "computed", "invok",
    "user", "gebruiker", "utilizador", "export", "serializ", "token",
)
