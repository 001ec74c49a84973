"""The wrapper words of a chat message, in the detector's seven languages and a few more:
greetings, vocatives, fillers, asks for an action, politeness and thanks (``utterance``).

Every entry is lower-case, accent-folded ASCII (``utterance`` matches them on a folded copy of
the message), words separated by one space. Longer phrases need not come first: the matcher
takes the longest phrase that fits at a place.
"""

from __future__ import annotations

#: Greetings that open (or close) a message.
GREETINGS = frozenset({
    "hi", "hello", "hey", "heya", "hiya", "yo", "howdy", "greetings", "hi there", "hey there",
    "hello there", "good morning", "good afternoon", "good evening", "morning", "dear",
    "ciao", "salve", "buongiorno", "buonasera", "ehi", "ehila",
    "hallo", "servus", "moin", "guten morgen", "guten tag", "guten abend", "gruss dich",
    "gruß dich", "hola", "buenas", "buenos dias", "buenas tardes", "buenas noches", "oye",
    "salut", "bonjour", "bonsoir", "coucou", "ola", "oi", "bom dia", "boa tarde", "boa noite",
    "hoi", "goedemorgen", "goedemiddag", "goedenavond", "hej", "hei", "czesc", "dzien dobry",
    "merhaba",
})

#: Names the assistant is called by: stripped where they address it (before a comma, after a
#: greeting, or after a comma at the end).
VOCATIVES = frozenset({
    "cat", "cheshire cat", "cheshire", "the cat", "kitty", "kitty cat", "bot", "assistant",
    "buddy", "mate", "dude", "friend", "folks", "gatto", "micio", "gattino", "katze", "kater",
    "gato", "gatito", "chat", "minou", "gatinho", "kat", "poes", "kot", "kotku", "katt",
})

#: Vocatives that need no comma to be one ("Cheshire Cat" is never the topic).
PLAIN_VOCATIVES = frozenset({"cheshire cat", "cheshire"})

#: Fillers that open a request without changing it (hedges too, below).
_PLAIN_FILLERS = frozenset({
    "please", "pls", "plz", "plx", "kindly", "just", "ok so", "okay so", "ok", "okay", "so",
    "alright", "all right", "right so", "now", "also", "btw", "by the way", "quick question",
    "quick one", "one more thing", "go ahead and", "do me a favour and",
    "do me a favor and", "if you can", "if possible", "hmm", "um", "uh", "well", "uhm", "umm",
    "erm", "ehm", "er", "yeah", "yep", "yup", "oh", "ah", "so yeah", "vale", "oke", "let's",
    "lets", "let us", "and", "and also", "and then", "then",
    "per favore", "per piacere", "dai", "allora", "senti", "bitte", "also bitte", "ok also",
    "por favor", "bueno", "pues", "s'il te plait", "s'il vous plait", "stp", "svp", "alors",
    "bon", "entao", "alsjeblieft", "alstublieft", "graag", "dus", "prosze",
})

#: Hedges: the speaker's doubt ("I suppose redo", "not sure, but go", "I'm not 100% sure, but
#: ..."): stripped like fillers, and recorded (``Utterance.hedged``): a command said with one
#: is asked about, never run.
HEDGES = frozenset({
    "i suppose", "i guess", "i think", "maybe", "perhaps", "probably",
    "forse", "credo", "penso", "credo che", "penso che", "suppongo", "non so, ma",
    "non sono sicuro, ma",
    "vielleicht", "ich glaube", "ich denke", "ich schatze", "nicht sicher, aber",
    "quizas", "quiza", "tal vez", "creo que", "supongo que", "no se, pero",
    "peut-etre", "je pense", "je crois", "je suppose", "je pense que", "je crois que",
    "pas sur, mais", "je ne sais pas, mais",
    "talvez", "acho que", "suponho que", "nao sei, mas",
    "misschien", "ik denk", "ik denk dat", "ik gok", "weet niet zeker, maar",
}) | frozenset(
    f"{who}not {how}{what}{but}" for who in ("", "i'm ", "im ", "i am ")
    for how in ("", "100% ", "entirely ", "completely ", "totally ", "quite ", "really ",
                "a hundred percent ")
    for what in ("sure", "certain") for but in (", but", " but"))
FILLERS = _PLAIN_FILLERS | HEDGES

#: Openings that ask for an action ("could you ...", "puoi ..."): stripped like fillers, and
#: recorded (``Utterance.asked``), since "could you fix it?" asks for a fix, not a yes.
ASKS = frozenset({
    "can you", "could you", "can u", "could u", "would you", "will you", "would you mind",
    "would you be so kind as to", "would you be so kind and", "would you kindly",
    "could you kindly",
    "i'd like you to", "id like you to", "i would like you to", "i want you to", "i need you to",
    "i'd love you to", "i would love you to", "i'd love it if you could", "are you able to",
    "is it possible to",
    "puoi", "potresti", "mi puoi", "mi potresti", "ti dispiacerebbe", "riesci a",
    "kannst du", "konntest du", "konnen sie", "konnten sie", "kannst du mir", "konntest du mir",
    "puedes", "podrias", "me puedes", "me podrias", "puede", "podria", "podrias por favor",
    "peux-tu", "peux tu", "pourrais-tu", "pourrais tu", "pouvez-vous", "pouvez vous",
    "pourriez-vous", "pourriez vous", "tu peux", "tu pourrais", "est-ce que tu peux",
    "pode", "poderia", "podes", "voce pode", "voce poderia", "consegue", "consegues",
    "kun je", "kan je", "zou je", "wil je", "kunt u", "zou u",
    "czy mozesz", "mozesz", "kan du", "kannst du bitte", "voisitko", "voitko",
})

#: Thanks and politeness that close a message (also open one: "thanks, and add ...").
THANKS = frozenset({
    "thanks", "thank you", "thank u", "thanks a lot", "thanks so much", "thank you so much",
    "thank you very much", "many thanks", "thx", "thnx", "tx", "ty", "tyvm", "tia",
    "thanks in advance", "cheers", "much appreciated", "appreciated", "appreciate it",
    "please", "pls", "plz", "for me", "if you can", "if possible", "when you can", "kindly",
    "grazie", "grazie mille", "mille grazie", "ti ringrazio", "per favore", "per piacere",
    "danke", "danke schon", "danke sehr", "vielen dank", "bitte", "bitte schon",
    "gracias", "muchas gracias", "mil gracias", "por favor",
    "merci", "merci beaucoup", "merci bien", "s'il te plait", "s'il vous plait", "stp", "svp",
    "obrigado", "obrigada", "muito obrigado", "muito obrigada", "valeu", "brigado",
    "bedankt", "dank je", "dank je wel", "dankjewel", "dank u", "dank u wel", "alsjeblieft",
    "alstublieft", "graag", "dzieki", "dziekuje", "prosze", "tack", "tack sa mycket", "kiitos",
    "lol", "haha", "hehe", "sorry", "scusa", "scusami", "entschuldigung", "perdon", "pardon",
    "desculpa", "excuse me", "yeah", "yep", "um yeah", "okay", "asap", "now", "right now",
    "perfavore", "for now", "then", "please and thank you", "and thank you", "and thanks",
    "grazie in anticipo", "grazie mille in anticipo", "vielen dank im voraus", "danke im voraus",
    "danke dir", "gracias de antemano", "muchas gracias de antemano", "merci d'avance",
    "merci par avance", "alvast bedankt", "desde ja agradeco", "desde ja obrigado",
    "obrigado desde ja",
})

#: Explicit escapes: ``/code ...`` always starts a code request, ``/ask ...`` always asks
#: about the code.
ESCAPES = {"/code": "code", "/ask": "ask"}

#: Words that open a question: an opening with one is no chatter ("how to index ...").
QUESTION_WORDS = frozenset({
    "how", "what", "why", "where", "when", "which", "who", "whose", "is", "are", "do", "does",
    "did", "should", "come", "cosa", "perche", "dove", "quando", "wie", "was", "warum", "wo",
    "wann", "como", "que", "por", "donde", "cuando", "comment", "pourquoi", "ou", "quand",
    "quoi", "onde", "hoe", "wat", "waarom", "waar", "wanneer",
})

#: Negations: an opening with one is no chatter ("don't rename ...", "never index ...").
NEGATIONS = frozenset({
    "don't", "dont", "do not", "not", "never", "no", "non", "nicht", "nie", "nunca", "ne",
    "pas", "jamais", "nao", "niet", "nooit", "without", "stop",
})

#: Words that open a clause or a phrase of its own (conjunctions, prepositions, articles): a
#: closing with one says more than chatter ("redo *the layout*", "show the history *of* ...").
CLAUSE_STARTS = frozenset({
    "the", "a", "an", "my", "your", "our", "his", "her", "their", "this", "these", "those",
    "it", "them", "everything", "all", "of", "about", "on", "at", "by", "il", "lo", "la", "le",
    "gli", "der", "die", "das", "den", "dem", "el", "los", "las", "les", "un", "une", "o", "os",
    "het", "de", "di", "del", "della", "du", "des", "von",
    "and", "then", "but", "also", "or", "so", "with", "without", "because", "since", "which",
    "that", "while", "unless", "except", "plus", "e", "poi", "ma", "con", "senza", "und",
    "dann", "aber", "mit", "ohne", "y", "luego", "pero", "sin", "et", "puis", "mais", "avec",
    "sans", "mas", "com", "sem", "en", "maar", "met", "zonder", "to", "into", "as", "in",
    "from", "for",
})
