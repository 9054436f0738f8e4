"""A message in another language, glossed for ``intent``: its question words, pronouns and request verbs said
in English, so that the rules of what a message asks for read "mi hermano me pregunta..." as "my brother...",
"sabi ng katrabaho ko ..., totoo ba?" as "says ... my ..., is it true?" and
"combien font 1 250 $ divisé par 8?" as the sum it is. The gloss is read by intent alone: words are searched and
embedded as typed. A message's language comes from its letters (``written_in``: Arabic, whose dialects' words
are seldom among its commonest) or else ``reference.spoken``; a language without a glossary here is read as typed
(its English words still count). Hebrew and Greek are glossed in their scripts, Hindi as chats write it, in
Latin letters, and so is Arabic (``in_arabizi``: "3ayza", "bta3i"); Japanese and Chinese, written without spaces,
only for a few words that say what a question asks ("なんで", "区别"), and Korean for those and who speaks ("나는").

Each glossary maps a word or phrase, lower case and without accents, to the English that intent's rules know;
a phrase wins over the words in it.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_SPANISH = {
    "yo": "I", "mi": "my", "mis": "my", "nosotros": "we", "nosotras": "we", "nuestro": "our", "nuestra": "our",
    "nuestros": "our", "nuestras": "our", "tengo": "I have", "quiero": "I want", "necesito": "I need",
    "estoy": "I am", "voy": "I go", "puedo": "I can", "llevo": "I have", "hago": "I do", "me olvide": "I forgot",
    "por que": "why", "porque": "because", "cuando": "when", "donde": "where", "quien": "who", "cual": "which",
    "cuales": "which", "cuanto": "how much", "cuanta": "how much", "cuantos": "how many", "cuantas": "how many",
    "como": "how", "cuanto es": "what is", "cuanto son": "what is", "que es": "what is", "en total": "in total",
    "que hago": "what should I do", "que hacer": "what to do", "que puedo": "what can I", "otra vez": "again",
    "de nuevo": "again", "me toca": "I am due", "nos toca": "we are due",
    "idea": "idea", "consejo": "advice", "consejos": "tips", "recomienda": "recommend",
    "recomiendas": "recommend", "recomendas": "recommend", "recomendame": "recommend", "recomiendame": "recommend",
    "recomendacion": "recommend", "recomendaciones": "recommend", "sugerencia": "suggest",
    "sugerencias": "suggest", "sugerime": "suggest", "sugiereme": "suggest", "deberia": "should",
    "debo": "should", "me conviene": "should I", "conviene": "should", "ayudame": "help me", "ayuda": "help",
    "armame": "make me", "hazme": "make me", "haceme": "make me", "escribe": "write", "escribime": "write",
    "escribeme": "write",
    "recuerdame": "remind me", "recordame": "remind me", "te dije": "I told you", "te lo dije": "I told you",
    "te habia dicho": "I told you", "te lo habia dicho": "I told you", "te conte": "I told you",
    "explica": "explain", "explicame": "explain", "explicar": "explain", "traduce": "translate",
    "traduci": "translate", "traducime": "translate", "traduceme": "translate", "traducir": "translate",
    "chiste": "joke", "chistes": "jokes", "adivinanza": "riddle", "dato curioso": "fun fact",
    "poema sobre": "poem about", "es verdad": "is it true", "es cierto": "is it true",
    "diferencia entre": "difference between",
    "diferencia hay entre": "difference between", "quien gano": "who won", "quien escribio": "who wrote",
    "quien invento": "who invented", "capital de": "capital of", "significado de": "meaning of",
    "como se dice": "how do you say", "de": "of", "dividido por": "divided by",
    "de donde viene": "what is the origin of", "de donde vienen": "what is the origin of",
    "en general": "in general", "ideas generales": "general ideas", "consejos generales": "general tips",
}
_PORTUGUESE = {
    "eu": "I", "meu": "my", "minha": "my", "meus": "my", "minhas": "my", "nos": "we", "nosso": "our",
    "nossa": "our", "nossos": "our", "nossas": "our", "tenho": "I have", "quero": "I want", "preciso": "I need",
    "estou": "I am", "vou": "I go", "posso": "I can", "esqueci": "I forgot",
    "por que": "why", "porque": "because", "porque e que": "why", "por que e que": "why",
    "o que causa": "what causes", "quando": "when", "onde": "where", "quem": "who", "qual": "which",
    "quais": "which", "quanto": "how much", "quanta": "how much", "quantos": "how many", "quantas": "how many",
    "como": "how", "quanto e": "what is", "quanto da": "what is", "o que e": "what is",
    "dicas": "tips", "dica": "tip", "ideias": "ideas", "ideia": "idea", "conselho": "advice",
    "conselhos": "advice", "sugestao": "suggest", "sugestoes": "suggest", "sugere": "suggest",
    "sugira": "suggest", "recomenda": "recommend", "recomende": "recommend", "recomendacao": "recommend",
    "devo": "should", "deveria": "should", "me ajuda": "help me", "ajuda": "help", "faz": "make",
    "escreve": "write", "plano": "plan", "cardapio": "menu", "roteiro": "itinerary",
    "me lembra": "remind me", "te falei": "I told you", "te disse": "I told you",
    "explica": "explain", "explique": "explain", "traduz": "translate", "traduza": "translate",
    "traduzir": "translate", "piada": "joke", "piadas": "jokes", "charada": "riddle",
    "curiosidade": "fun fact", "poema sobre": "poem about", "e verdade": "is it true",
    "diferenca entre": "difference between", "quem ganhou": "who won", "quem escreveu": "who wrote",
    "quem inventou": "who invented", "capital de": "capital of", "como se diz": "how do you say", "de": "of",
    "dividido por": "divided by", "vezes": "times", "de onde vem": "what is the origin of", "qdo": "when",
    "qnd": "when", "qto": "how much", "qnto": "how much", "qtos": "how many", "qntos": "how many", "qtas": "how many",
    "qntas": "how many", "oq": "what",  # as chats clip them: "qdo é o niver do rafa??"
    "em geral": "in general", "no geral": "in general",
}
_FRENCH = {
    "je": "I", "j": "I", "mon": "my", "ma": "my", "mes": "my", "nous": "we", "on": "we", "notre": "our", "nos": "our",
    "pourquoi": "why", "quand": "when", "ou": "or", "qui": "who", "quel": "which", "quelle": "which",
    "quels": "which", "quelles": "which", "combien": "how much", "comment": "how", "combien font": "what is",
    "combien fait": "what is", "c est quoi": "what is", "conseil": "advice", "conseils": "tips",
    "idees": "ideas", "idee": "idea", "suggestion": "suggest", "suggestions": "suggest", "suggere": "suggest",
    "proposer": "suggest", "propose": "suggest", "recommande": "recommend", "recommandes": "recommend",
    "recommandation": "recommend", "devrais": "should", "dois": "should", "aide moi": "help me",
    "aide": "help", "ecris": "write", "planning": "schedule",
    "rappelle moi": "remind me", "je t ai dit": "I told you", "explique": "explain",
    "expliquer": "explain", "traduis": "translate", "traduire": "translate", "traduction": "translate",
    "blague": "joke", "blagues": "jokes", "devinette": "riddle", "fait etonnant": "fun fact",
    "fait amusant": "fun fact", "poeme sur": "poem about", "c est vrai": "is it true",
    "est ce vrai": "is it true", "difference entre": "difference between", "qui a gagne": "who won",
    "qui a ecrit": "who wrote", "qui a invente": "who invented", "capitale de": "capital of",
    "comment dit on": "how do you say", "comment on dit": "how do you say", "de": "of", "divise par": "divided by",
    "fois": "times", "en general": "in general", "je fais quoi": "what should I do",
    "on fait quoi": "what should we do", "quoi faire": "what to do",
}
_GERMAN = {
    "ich": "I", "mein": "my", "meine": "my", "meinen": "my", "meinem": "my", "meiner": "my", "wir": "we",
    "unser": "our", "unsere": "our", "unseren": "our", "brauche": "I need", "mochte": "I want", "will": "I want",
    "habe": "I have", "hab": "I have", "bin": "I am", "warum": "why", "wieso": "why", "weshalb": "why",
    "wann": "when", "wo": "where", "wer": "who", "welche": "which", "welcher": "which", "welches": "which",
    "wie viel": "how much", "wieviel": "how much", "wie viele": "how many", "wie": "how", "was ist": "what is",
    "tipps": "tips", "ideen": "ideas", "idee": "idea", "vorschlag": "suggest",
    "vorschlage": "suggest", "empfiehlst": "recommend", "empfehlen": "recommend", "empfehlung": "recommend",
    "soll": "should", "sollte": "should", "hilf": "help", "schreib": "write", "schreibe": "write",
    "mach mir": "make me", "erstell mir": "make me", "erstelle mir": "make me",
    "erinnere mich": "remind me",
    "hab dir gesagt": "I told you", "habe dir gesagt": "I told you", "erklare": "explain", "erklar": "explain",
    "erklaren": "explain", "ubersetze": "translate", "ubersetzen": "translate", "ubersetzung": "translate",
    "witz": "joke", "witze": "jokes", "ratsel": "riddle", "stimmt es": "is it true",
    "ist es wahr": "is it true", "unterschied zwischen": "difference between", "wer hat gewonnen": "who won",
    "hauptstadt von": "capital of", "wie sagt man": "how do you say", "von": "of", "wie lange": "how long",
    "woher kommt": "what is the origin of", "woher kommen": "what is the origin of",
    "geteilt durch": "divided by", "mal": "times", "nochmal": "again", "noch mal": "again", "nochmals": "again",
    "im allgemeinen": "in general", "allgemein": "generally",
}
_ITALIAN = {
    "io": "I", "mio": "my", "mia": "my", "miei": "my", "mie": "my", "noi": "we", "nostro": "our",
    "nostra": "our", "nostri": "our", "nostre": "our", "ho bisogno": "I need", "voglio": "I want", "ho": "I have",
    "sono": "I am", "perche": "why", "quando": "when", "dove": "where", "chi": "who", "quale": "which",
    "quali": "which", "quanto": "how much", "quanta": "how much", "quanti": "how many", "quante": "how many",
    "come": "how", "quanto fa": "what is", "cos e": "what is", "consigli": "tips", "consiglio": "advice",
    "consigliami": "recommend", "idee": "ideas", "idea": "idea", "suggerisci": "suggest",
    "suggerimento": "suggest", "dovrei": "should", "devo": "should", "aiutami": "help me", "aiuto": "help",
    "scrivi": "write", "piano": "plan", "ricordami": "remind me",
    "ti ho detto": "I told you", "spiega": "explain", "spiegami": "explain", "traduci": "translate",
    "traduzione": "translate", "barzelletta": "joke", "indovinello": "riddle", "e vero": "is it true",
    "differenza tra": "difference between", "chi ha vinto": "who won", "chi ha scritto": "who wrote",
    "capitale di": "capital of", "come si dice": "how do you say", "di": "of", "diviso": "divided by",
    "in generale": "in general",
}
_ROMAN_HINDI = {
    "mera": "my", "meri": "my", "mere": "my", "mujhe": "I", "apna": "my", "apni": "my", "hum": "we",
    "humara": "our", "hamara": "our", "humari": "our", "kya": "what", "kab": "when", "kahan": "where",
    "kaun": "who", "kaunsa": "which", "kaunsi": "which", "kitna": "how much", "kitni": "how much",
    "kitne": "how many", "kaunse": "which", "kisne": "who", "kis ne": "who", "kitne baje": "what time",
    "kidhar": "where", "kaise": "how", "kyun": "why", "kyu": "why", "kyunki": "because", "batao": "tell me",
    "bata": "tell me", "chahiye": "should", "karu": "should I do", "karun": "should I do",
    "kya karu": "what should I do", "maine": "I", "bhool gaya": "I forgot", "bhool gayi": "I forgot",
    "bol raha": "says", "bol rahi": "says", "bol rahe": "says", "bolta": "says", "bolti": "says", "bola": "said",
    "boli": "said", "keh raha": "says", "keh rahi": "says", "kehta": "says", "kehti": "says", "kaha": "said",
    "sach": "true", "sach hai": "is it true",
}
_DUTCH = {
    "ik": "I", "mijn": "my", "m n": "my", "wij": "we", "ons": "our", "onze": "our", "heb": "I have", "wil": "want",
    "moet ik": "should I", "zou ik": "should I", "kan ik": "can I", "waarom": "why", "wanneer": "when", "waar": "where",
    "wie": "who", "welke": "which", "hoeveel": "how much", "hoe": "how", "wat": "what", "wat is": "what is",
    "wat een": "what a", "dus ja": "so yeah", "idee": "idea", "ideeen": "ideas", "advies": "advice",
    "aanraden": "recommend", "raad je aan": "recommend", "help me": "help me", "helpen": "help", "schrijf": "write",
    "herinner me": "remind me", "ik heb je verteld": "I told you", "leg uit": "explain", "uitleggen": "explain",
    "vertaal": "translate", "vertalen": "translate", "grap": "joke", "mop": "joke", "klopt het": "is it true",
    "klopt dat": "is it true", "is het waar": "is it true", "verschil tussen": "difference between",
    "hoofdstad van": "capital of", "hoe zeg je": "how do you say", "van": "of", "gedeeld door": "divided by",
    "keer": "times", "alweer": "again", "ook alweer": "again", "in het algemeen": "in general",
    "over het algemeen": "in general",
}
_FILIPINO = {
    "ako": "I", "ko": "my", "akin": "my", "aking": "my", "kami": "we", "tayo": "we", "namin": "our",
    "natin": "our", "naming": "our", "ating": "our", "bakit": "why", "paano": "how", "pano": "how",
    "kailan": "when", "kelan": "when", "saan": "where", "sino": "who", "ano": "what", "alin": "which",
    "magkano": "how much", "ilan": "how many", "dapat": "should", "dapat ba": "should I", "payo": "advice",
    "tulungan mo ako": "help me", "tulong": "help", "isulat": "write", "sulatan": "write",
    "ipaalala": "remind me", "paalala": "remind me", "sinabi ko": "I told you", "ipaliwanag": "explain",
    "isalin": "translate", "biro": "joke", "sabi": "says", "sabi ng": "says", "totoo ba": "is it true",
    "totoo": "true", "pagkakaiba ng": "difference between", "ulit": "again", "nga": "again", "ng": "of",
    "laking tulong": "a big help",
}
_INDONESIAN = {  # and Malay, which the language signs often name for it
    "saya": "I", "aku": "I", "gue": "I", "gw": "I", "kami": "we", "kita": "we", "kenapa": "why", "mengapa": "why",
    "knp": "why", "kapan": "when", "dimana": "where", "di mana": "where", "siapa": "who", "yang mana": "which",
    "berapa": "how much", "brp": "how much", "bagaimana": "how", "gimana": "how", "gmn": "how", "apa": "what",
    "apa itu": "what is", "bedanya": "the difference between", "perbedaan": "the difference between",
    "perbedaannya": "the difference between", "saran": "suggest", "rekomendasi": "recommend",
    "rekomen": "recommend", "ide": "idea", "sebaiknya": "should", "tolong": "please help", "bantu": "help",
    "bantuin": "help", "buatkan": "make", "bikinin": "make", "tulis": "write", "tuliskan": "write",
    "tulisin": "write", "ingatkan": "remind me", "ingetin": "remind me", "jelaskan": "explain", "jelasin": "explain",
    "terjemahkan": "translate", "terjemahin": "translate", "lelucon": "joke", "apa benar": "is it true",
    "bener gak": "is it true", "benarkah": "is it true", "cara": "how to", "caranya": "how to",
    "ibu kota": "capital of", "dibagi": "divided by",
    "secara umum": "in general", "pada umumnya": "in general",
}
_TURKISH = {  # folded: "ş" as "s", "ç" as "c", "ö" as "o" ("ı" has no accent to lose)
    "ben": "I", "benim": "my", "biz": "we", "bizim": "our", "neden": "why", "niye": "why", "nicin": "why",
    "ne zaman": "when", "nerede": "where", "nereye": "where", "kim": "who", "hangi": "which",
    "ne kadar": "how much", "ne zamandı": "when again", "ne zamandi": "when again", "neydi": "what was it again",
    "kac": "how many",
    "nasıl": "how", "ne": "what", "nedir": "what is", "oneri": "suggest",
    "oner": "suggest", "onerir misin": "recommend", "tavsiye": "recommend", "fikir": "idea", "ipucu": "tips",
    "yardım": "help", "yardım et": "help me", "yaz": "write", "yazar mısın": "write", "hatırlat": "remind me",
    "acıkla": "explain", "acıklar mısın": "explain", "cevir": "translate", "fıkra": "joke", "saka": "joke",
    "dogru mu": "is it true", "arasındaki fark": "the difference between", "bolu": "divided by", "carpı": "times",
    "genel olarak": "in general", "nereden": "where", "nerden": "where", "nerde": "where",
    "mi": "?", "mı": "?", "mu": "?", "miyim": "?", "mıyım": "?", "muyum": "?", "misin": "?", "mısın": "?",
    "musun": "?",  # the question particle: "bu akşam maç var mı" asks, with or without its question mark
}
_POLISH = {  # folded: "ó" as "o", "ś" as "s" ("ł" has no accent to lose)
    "ja": "I", "moj": "my", "moja": "my", "moje": "my", "mojego": "my", "mojej": "my", "moim": "my", "my": "we",
    "nasz": "our", "nasza": "our", "nasze": "our", "naszego": "our", "naszej": "our", "mam": "I have", "chce": "I want",
    "potrzebuje": "I need", "dlaczego": "why",
    "czemu": "why", "kiedy": "when", "gdzie": "where", "kto": "who", "ktory": "which", "ktora": "which",
    "ktore": "which", "ile": "how much", "jak": "how", "co": "what", "co to jest": "what is", "ile to": "what is",
    "porada": "advice", "rady": "tips", "pomysł": "idea", "pomysły": "ideas", "polec": "recommend",
    "polecisz": "recommend", "zaproponuj": "suggest", "powinienem": "should I", "powinnam": "should I",
    "pomoz": "help", "pomoz mi": "help me", "napisz": "write", "przypomnij": "remind me", "wyjasnij": "explain",
    "wytłumacz": "explain", "wytlumacz": "explain", "przetłumacz": "translate", "przetlumacz": "translate",
    "znaczy": "the meaning of", "oznacza": "the meaning of", "dowcip": "joke", "kawał": "joke",
    "czy to prawda": "is it true", "roznica miedzy": "the difference between",
    "roznice miedzy": "the difference between", "roznicy miedzy": "the difference between",
    "podzielone przez": "divided by", "razy": "times",
    "ogolnie": "in general",
}
_RUSSIAN = {  # folded: "й" as "и", "ё" as "е"
    "я": "I", "мне": "I", "мои": "my", "моя": "my", "мое": "my", "моего": "my", "моеи": "my", "мы": "we",
    "наш": "our", "наша": "our", "наше": "our", "наши": "our", "почему": "why", "зачем": "why", "когда": "when",
    "где": "where", "кто": "who", "какои": "which", "какая": "which", "какие": "which", "сколько": "how much",
    "как": "how", "что": "what", "что такое": "what is", "посоветуи": "recommend", "порекомендуи": "recommend",
    "совет": "advice", "советы": "tips", "идеи": "ideas", "идея": "idea", "предложи": "suggest",
    "стоит ли": "should I", "мне стоит": "should I", "помоги": "help me", "напиши": "write", "напомни": "remind me",
    "объясни": "explain", "переведи": "translate", "перевести": "translate", "шутка": "joke", "анекдот": "joke",
    "это правда": "is it true", "правда ли": "is it true", "разница между": "the difference between",
    "в чем разница": "the difference between", "чем отличается": "the difference between",
    "столица": "capital of", "как сказать": "how do you say", "разделить на": "divided by", "умножить на": "times",
    "в целом": "in general",
}
_UKRAINIAN = {  # folded: "й" as "и", "ї" as "і"
    "я": "I", "мені": "I", "міи": "my", "моя": "my", "моє": "my", "моі": "my", "мого": "my", "моєі": "my", "ми": "we",
    "наш": "our", "наша": "our", "наше": "our", "наші": "our", "у мене": "I have", "в мене": "I have",
    "у нас": "we have", "в нас": "we have", "чому": "why", "навіщо": "why", "коли": "when", "о котріи": "when",
    "де": "where", "куди": "where", "хто": "who", "якии": "which", "яка": "which", "яке": "which", "які": "which",
    "скільки": "how much", "як": "how", "що": "what", "що таке": "what is", "порадь": "recommend",
    "порадьте": "recommend", "порекомендуи": "recommend", "порада": "advice", "поради": "tips", "ідеі": "ideas",
    "ідея": "idea", "запропонуи": "suggest", "чи варто": "should I", "мені варто": "should I", "допоможи": "help me",
    "напиши": "write", "нагадаи": "remind me", "поясни": "explain", "переклади": "translate", "жарт": "joke",
    "анекдот": "joke", "це правда": "is it true", "чи правда": "is it true", "різниця між": "the difference between",
    "в чому різниця": "the difference between", "чим відрізняється": "the difference between",
    "столиця": "capital of", "як сказати": "how do you say", "поділити на": "divided by", "помножити на": "times",
    "загалом": "in general", "в цілому": "in general",
}
_VIETNAMESE = {  # folded ("đ" has no accent to lose); "tôi" and "mình" alone fold onto other words ("tối", "Minh")
    "cua toi": "my", "cua minh": "my", "chung toi": "we", "chung minh": "we", "chung ta": "we", "tai sao": "why",
    "vi sao": "why", "la gi": "what is", "cai gi": "what", "bao nhieu": "how much", "khi nao": "when",
    "bao gio": "when", "o đau": "where", "nhu the nao": "how", "the nao": "how", "co nen": "should",
    "goi y": "suggest", "giup": "help", "giai thich": "explain", "dich": "translate", "chuyen cuoi": "joke",
    "khac nhau": "difference between", "noi chung": "in general", "chia cho": "divided by", "ngay may": "what day",
    "ngay nao": "what day", "quen mat": "I forgot", "quen roi": "I forgot",
}
_ARABIC = {  # in its script, as Egypt, the Levant and the Gulf chat it; folded: hamza and madda off the alef ("أنا"
    # as "انا", "إزاي" as "ازاي"), vowel marks dropped
    "انا": "I", "احنا": "we", "نحن": "we", "تبعي": "my", "تبعتي": "my", "بتاعي": "my", "بتاعتي": "my", "حقي": "my",
    "حقتي": "my", "عندي": "I have", "عندنا": "we have", "بدي": "I want", "بدنا": "we want", "عايز": "I want",
    "عايزة": "I want", "عاوز": "I want", "عاوزة": "I want", "ابغى": "I want", "اريد": "I want", "محتاج": "I need",
    "محتاجة": "I need", "احتاج": "I need", "نسيت": "I forgot", "متى": "when", "امتى": "when", "ايمتى": "when",
    "امتا": "when", "وين": "where", "فين": "where", "اين": "where", "مين": "who", "كم": "how much",
    "قديش": "how much", "قد ايه": "how much", "بكام": "how much", "كام": "how many", "كيف": "how", "ازاي": "how",
    "شلون": "how", "شو": "what", "ايش": "what", "وش": "what", "ايه": "what", "ماذا": "what", "ليش": "why",
    "ليه": "why", "لماذا": "why", "انهي": "which", "ما هو": "what is", "ما هي": "what is",
    "يعني ايه": "what is the meaning of", "اعمل ايه": "what should I do", "شو اعمل": "what should I do",
    "ايش اسوي": "what should I do", "وش اسوي": "what should I do", "ساعدني": "help me", "ساعديني": "help me",
    "اكتب": "write", "اكتبلي": "write", "اكتب لي": "write", "اقترح": "suggest", "اقترحلي": "suggest",
    "انصحني": "recommend", "نصيحة": "advice", "نصايح": "tips", "نصائح": "tips", "فكرة": "idea", "افكار": "ideas",
    "ذكرني": "remind me", "فكرني": "remind me", "اشرح": "explain", "اشرحلي": "explain", "اشرح لي": "explain",
    "ترجم": "translate", "ترجملي": "translate", "نكتة": "joke", "هل صحيح": "is it true",
    "الفرق بين": "the difference between", "عاصمة": "capital of", "بشكل عام": "in general", "عموما": "in general",
    "مرة تانية": "again", "مرة ثانية": "again", "كمان مرة": "again", "قلتلك": "I told you", "قلت لك": "I told you",
    "حكيتلك": "I told you", "حكيت لك": "I told you",
}
_HEBREW = {  # without vowel points; words standing alone (a joined "and", "the", "to" makes another word)
    "אני": "I", "לי": "I", "שלי": "my", "אנחנו": "we", "שלנו": "our", "יש לי": "I have", "יש לנו": "we have",
    "רוצה": "I want", "צריך": "I need", "צריכה": "I need", "שכחתי": "I forgot", "מתי": "when", "איפה": "where",
    "לאן": "where", "מי": "who", "איזה": "which", "איזו": "which", "אילו": "which", "כמה": "how much", "איך": "how",
    "מה": "what", "מה זה": "what is", "למה": "why", "מדוע": "why", "תמליץ": "recommend", "תמליצי": "recommend",
    "המלצה": "recommend", "עצה": "advice", "טיפים": "tips", "רעיונות": "ideas", "רעיון": "idea", "תציע": "suggest",
    "תציעי": "suggest", "כדאי לי": "should I", "כדאי": "should", "עזור לי": "help me", "תעזור לי": "help me",
    "תעזרי לי": "help me", "תכתוב": "write", "תכתבי": "write", "תזכיר לי": "remind me", "תזכירי לי": "remind me",
    "תסביר": "explain", "תסבירי": "explain", "תתרגם": "translate", "תתרגמי": "translate", "בדיחה": "joke",
    "זה נכון": "is it true", "ההבדל בין": "the difference between", "עיר הבירה של": "capital of",
    "איך אומרים": "how do you say", "חלקי": "divided by", "כפול": "times", "באופן כללי": "in general",
    "שוב": "again", "מה עושים": "what should I do", "מה לעשות": "what should I do", "אמרתי לך": "I told you",
    "סיפרתי לך": "I told you",
}
_GREEK = {  # folded: the tonos off ("πόση" as "ποση"); not "που", which says "that" as often as "where"
    "εγω": "I", "μου": "my", "εμεις": "we", "μας": "our", "εχω": "I have", "εχουμε": "we have", "θελω": "I want",
    "χρειαζομαι": "I need", "ξεχασα": "I forgot", "γιατι": "why", "ποτε": "when", "ποιος": "who", "ποια": "which",
    "ποιο": "which", "ποσο": "how much", "ποση": "how much", "ποσα": "how many", "ποσες": "how many",
    "ποσοι": "how many", "πως": "how", "τι": "what", "τι ειναι": "what is", "προτεινε": "suggest",
    "προτεινε μου": "suggest", "συμβουλη": "advice", "συμβουλες": "tips", "ιδεες": "ideas", "ιδεα": "idea",
    "πρεπει να": "should", "βοηθησε με": "help me", "βοηθα με": "help me", "γραψε": "write",
    "γραψε μου": "write", "θυμισε μου": "remind me", "εξηγησε": "explain", "εξηγησε μου": "explain",
    "μεταφρασε": "translate", "ανεκδοτο": "joke", "ειναι αληθεια": "is it true", "ισχυει": "is it true",
    "η διαφορα": "the difference", "πρωτευουσα": "capital of", "πως λεμε": "how do you say", "δια": "divided by",
    "επι": "times", "γενικα": "in general", "ξανα": "again", "τι να κανω": "what should I do",
    "σου ειπα": "I told you",
}
_NORWEGIAN = {  # and Danish, written much alike; folded ("å" as "a"; "ø" and "æ" have no accent to lose). Not "i"
    # (in), "min" (my) or "mine": a message of mostly English words read as Norwegian ("should i", "20 min") keeps them
    "jeg": "I", "mitt": "my", "vi": "we", "vart": "our", "hva": "what",
    "hvad": "what", "hva er": "what is", "hvad er": "what is", "hvorfor": "why", "hvordan": "how", "nar": "when",
    "hvornar": "when", "hvor": "where", "hvem": "who", "hvilken": "which", "hvilket": "which", "hvilke": "which",
    "hvor mye": "how much", "hvor meget": "how much", "hvor mange": "how many", "bør jeg": "should I",
    "er det": "is it", "kan jeg": "can I", "burde jeg": "should I", "skal jeg": "should I", "forslag": "suggest",
    "anbefal": "recommend", "anbefale": "recommend", "anbefaler": "recommend", "ideer": "ideas", "hjelp": "help",
    "hjælp": "help", "hjelp meg": "help me", "hjælp mig": "help me", "skriv": "write", "minn meg pa": "remind me",
    "mind mig om": "remind me", "forklar": "explain", "oversett": "translate", "oversæt": "translate", "vits": "joke",
    "er det sant": "is it true", "er det rigtigt": "is it true", "mellom": "between", "mellem": "between",
    "forskjell": "difference", "forskel": "difference", "forskjellen": "the difference", "forskellen": "the difference",
    "igjen": "again", "igen": "again", "generelt": "in general", "delt pa": "divided by", "ganger": "times",
}
_SWEDISH = {  # folded ("å" as "a", "ä" as "a", "ö" as "o"); not "i" and "min" (``_NORWEGIAN``), nor "vårt" (our),
    # which folds onto "vart" (where to)
    "jag": "I", "mitt": "my", "mina": "my", "vi": "we", "vad": "what",
    "vad ar": "what is", "varfor": "why", "hur": "how", "nar": "when", "vem": "who", "vilken": "which",
    "vilket": "which", "vilka": "which", "hur mycket": "how much", "hur manga": "how many", "borde jag": "should I",
    "ska jag": "should I", "ar det": "is it", "kan jag": "can I", "forslag": "suggest", "rekommendera": "recommend",
    "hjalp": "help", "hjalp mig": "help me", "skriv": "write", "paminn mig": "remind me", "forklara": "explain",
    "oversatt": "translate", "skamt": "joke", "ar det sant": "is it true", "mellan": "between",
    "skillnad": "difference", "skillnaden": "the difference", "igen": "again", "generellt": "in general",
    "i allmanhet": "in general", "delat med": "divided by", "ganger": "times",
}


_ARABIZI = {  # Arabic as chats write it in Latin letters, digits for the letters Latin lacks ("3" for ع, "7" for ح,
    # "2" for the hamza, "5" for خ, "9" for ص or ق), as Egypt, the Levant, the Gulf and the Maghreb write it; not
    # words English or a name spells alike ("min" is "who" and "from", "fine" is "where", "ben" a name)
    "ana": "I", "ani": "I", "e7na": "we", "i7na": "we", "ehna": "we", "7na": "we", "ne7na": "we",
    "bta3i": "my", "bta3y": "my", "bta3ti": "my", "bta3ty": "my", "beta3i": "my", "beta3y": "my", "ta3i": "my",
    "ta3y": "my", "taba3i": "my", "taba3y": "my", "tab3i": "my", "tab3y": "my", "dyali": "my", "diali": "my",
    "dyawli": "my", "7a2i": "my", "7agi": "my", "7aqi": "my", "bta3na": "our", "ta3na": "our", "taba3na": "our",
    "dyalna": "our", "3andi": "I have", "3andy": "I have", "3ndi": "I have", "3ndy": "I have", "3idi": "I have",
    "3anna": "we have", "3andna": "we have", "3ndna": "we have", "bdi": "I want", "baddi": "I want",
    "biddi": "I want", "badi": "I want", "bade": "I want", "badna": "we want", "bidna": "we want",
    "3ayez": "I want", "3ayz": "I want", "3ayza": "I want", "3awez": "I want", "3awza": "I want",
    "3ayzin": "we want", "abgha": "I want", "abghi": "I want", "ab8a": "I want", "bghit": "I want",
    "bghyt": "I want", "m7taj": "I need", "me7taj": "I need", "mi7taj": "I need", "m7taja": "I need",
    "me7taga": "I need", "me7tag": "I need", "mehtag": "I need", "a7taj": "I need", "nseet": "I forgot",
    "nsit": "I forgot", "nesit": "I forgot", "naseet": "I forgot", "nasit": "I forgot", "nasi": "I forgot",
    "nasya": "I forgot", "nasyah": "I forgot", "nsito": "I forgot", "ma bafakker": "I don't remember",
    "msh fakra": "I don't remember", "msh faker": "I don't remember", "mosh fakra": "I don't remember",
    "mosh faker": "I don't remember", "emta": "when", "imta": "when", "emte": "when", "imte": "when",
    "amta": "when", "eimta": "when", "emtah": "when", "wa9tach": "when", "wa9tash": "when", "waqtash": "when",
    "fein": "where", "fen": "where", "wein": "where", "wain": "where", "fayn": "where", "feen": "where",
    "meen": "who", "mien": "who", "shkoun": "who", "chkoun": "who", "chkon": "who", "shkon": "who",
    "kam": "how much", "bkam": "how much", "b kam": "how much", "2addesh": "how much", "addesh": "how much",
    "2adesh": "how much", "adesh": "how much", "2ad eh": "how much", "ad eh": "how much", "2adeh": "how much",
    "kaddesh": "how much", "gaddesh": "how much", "ch7al": "how much", "sh7al": "how much", "chhal": "how much",
    "cham": "how many", "kam wa7ed": "how many", "ezay": "how", "ezzay": "how", "ezai": "how", "izay": "how",
    "keef": "how", "kif": "how", "kayf": "how", "kifash": "how", "kifach": "how", "kifech": "how", "shloon": "how",
    "shlon": "how", "chloun": "how", "eh": "what", "eih": "what", "eeh": "what", "shu": "what", "shou": "what",
    "sho": "what", "chou": "what", "chu": "what", "esh": "what", "eish": "what", "aish": "what", "wesh": "what",
    "shnu": "what", "shno": "what", "chnou": "what", "chno": "what", "achno": "what",
    "wach": "is", "leh": "why", "leih": "why", "lesh": "why", "leesh": "why", "lish": "why", "3lash": "why",
    "3lach": "why", "3alash": "why", "anhy": "which", "anhi": "which", "anhu": "which", "anho": "which",
    "a3mel eh": "what should I do", "a3mel eih": "what should I do", "a3ml eh": "what should I do",
    "a3mel ih": "what should I do", "ne3mel eh": "what should we do", "shu a3mel": "what should I do",
    "sho a3mel": "what should I do", "shou a3mel": "what should I do", "chou a3mel": "what should I do",
    "shu ba3mel": "what should I do", "esh asawi": "what should I do", "eish asawi": "what should I do",
    "wesh asawi": "what should I do", "wish asawi": "what should I do", "shno ndir": "what should I do",
    "chno ndir": "what should I do", "ach ndir": "what should I do", "wesh ndir": "what should I do",
    "lazem": "should", "lazim": "should", "laazem": "should", "sa3edni": "help me", "sa3idni": "help me",
    "sa3dni": "help me", "sa3deni": "help me", "sa3dini": "help me", "sa3edny": "help me", "sa3deeni": "help me",
    "3tini": "give me", "a3tini": "give me", "a3tine": "give me", "e3tini": "give me", "3teeni": "give me",
    "edini": "give me", "iddini": "give me", "eddini": "give me", "idini": "give me", "ekteb": "write",
    "ekteb li": "write", "ektebli": "write", "ekteble": "write", "ektebly": "write", "iktebli": "write",
    "ktebli": "write", "kteb": "write", "e3mely": "make me", "e3melli": "make me", "e3mlli": "make me",
    "a3milli": "make me", "e2tera7": "suggest", "e2tere7": "suggest", "i2tere7": "suggest", "2tere7": "suggest",
    "e2tera7li": "suggest", "ensa7ni": "recommend", "insa7ni": "recommend", "nsa7ni": "recommend",
    "ansa7ni": "recommend", "nasee7a": "advice", "nasi7a": "advice", "nase7a": "advice", "nas2e7": "tips",
    "nasa2e7": "tips", "nasay7": "tips", "fekra": "idea", "fikra": "idea", "afkar": "ideas", "fakkarni": "remind me",
    "fakarni": "remind me", "fakerni": "remind me", "zakkarni": "remind me", "dakkarni": "remind me",
    "eshra7": "explain", "eshra7li": "explain", "ishra7": "explain", "ishra7li": "explain", "ashra7": "explain",
    "shra7": "explain", "shre7li": "explain", "teshra7ly": "explain", "teshra7li": "explain",
    "fassarli": "explain", "targem": "translate", "targemli": "translate", "tarjem": "translate",
    "tarjemli": "translate", "ya3ni eh": "what is the meaning of", "ya3ni eih": "what is the meaning of",
    "ya3ni shu": "what is the meaning of", "ya3ne shu": "what is the meaning of",
    "shu ya3ni": "what is the meaning of", "shu ya3ne": "what is the meaning of",
    "chou ya3ne": "what is the meaning of", "chou ya3ni": "what is the meaning of",
    "shnu ya3ni": "what is the meaning of", "wesh ya3ni": "what is the meaning of", "nokta": "joke",
    "nokat": "jokes", "3asmet": "capital of", "3asimat": "capital of", "bshakl 3am": "in general",
    "3omoman": "in general", "3umuman": "in general", "marra tanya": "again", "marra tanye": "again",
    "marra tanyeh": "again", "kaman marra": "again", "2oltlak": "I told you", "oltlak": "I told you",
    "2oltelak": "I told you", "oltelak": "I told you", "2oltilak": "I told you", "7akeitlak": "I told you",
    "7akitlak": "I told you", "7kitlak": "I told you", "gotlak": "I told you", "gotlik": "I told you",
    **{f"{difference} {between}": "difference between" for difference in ("far2", "fare2", "far9", "farq", "fer2")
       for between in ("bein", "beyn", "bayn", "been", "bin", "ben", "bain")},
}

def _any_of(entries) -> str:
    """One alternation of the entries, a phrase before the words in it."""
    return "|".join(re.escape(entry) for entry in sorted(entries, key=len, reverse=True))


_UNSPACED = {  # Japanese, Chinese and Korean: no spaces between words, so these are read inside them
    "なんで": "why", "なぜ": "why", "どうして": "why", "違い": "the difference between", "意味": "the meaning of",
    "英語で": "how do you say", "英語だと": "how do you say", "仕組み": "how it works", "私": "I", "僕": "I", "俺": "I",
    "为什么": "why", "為什麼": "why", "区别": "the difference between", "區別": "the difference between",
    "原理": "how it works", "意思": "the meaning of", "我": "I", "왜": "why", "차이": "the difference between",
    "우리": "we", "どうしよ": "what should I do", "どうしたらいい": "what should I do", "おすすめ": "recommend",
    "オススメ": "recommend", "対策": "tips", "怎么办": "what should I do", "推荐": "recommend", "推薦": "recommend",
    "建议": "advice", "建議": "advice", "추천": "recommend", "어떡하지": "what should I do",
    "어떻게 하지": "what should I do", "어떡해": "what should I do", "될까": "should I", "할까": "should I",
    "괜찮을까": "should I", "좋을까": "should I", "알려줘": "tell me", "알려 줘": "tell me", "써줘": "write",
}
_WRITTEN_UNSPACED = re.compile(_any_of(_UNSPACED))
_KOREAN = {  # Korean words, spaced as Korean is, with the particles they carry ("나는", "내가"): who speaks, and what
    # a question asks; "우리" (we) and the endings that ask whether to do something are read inside words above
    "나": "I", "나는": "I", "난": "I", "내가": "I", "나도": "I", "저": "I", "저는": "I", "제가": "I", "내": "my",
    "제": "my", "언제": "when", "어디": "where", "어디서": "where", "누구": "who", "누가": "who", "뭐": "what",
    "뭔": "what", "무엇": "what", "몇": "how many", "얼마": "how much", "얼마나": "how much", "어떻게": "how",
}
_KOREAN_WORDS = re.compile(r"(?<!\w)(?:" + _any_of(_KOREAN) + r")(?!\w)")
GLOSSARIES = {"es": _SPANISH, "pt": _PORTUGUESE, "fr": _FRENCH, "de": _GERMAN, "it": _ITALIAN,
              "hi-latn": _ROMAN_HINDI, "nl": _DUTCH, "fil": _FILIPINO, "id": _INDONESIAN, "ms": _INDONESIAN,
              "tr": _TURKISH, "pl": _POLISH, "ru": _RUSSIAN, "uk": _UKRAINIAN, "vi": _VIETNAMESE, "nb": _NORWEGIAN,
              "da": _NORWEGIAN, "sv": _SWEDISH, "ar": _ARABIC, "he": _HEBREW, "el": _GREEK}
_APART = re.compile(r"['\u2019\-]")  # "j'ai", "aide-moi": the parts are words of their own
_RELATIVE = {"fr": re.compile(r"(?<=[^\W\d_]) qui\b", re.IGNORECASE)}  # "un passager qui m'a insultée": after a
# word, "qui" is the relative "that", and asks nothing ("qui a fait ...?" opens a question)


def fold(text: str) -> str:
    """Without accents ("qué" as "que"), and with apostrophes and hyphens between words as spaces."""
    decomposed = unicodedata.normalize("NFKD", _APART.sub(" ", text))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


_READ = GLOSSARIES | {"ar-latn": _ARABIZI}  # and what ``gloss`` reads in a chat's Latin letters (``in_arabizi``)


@functools.lru_cache(maxsize=None)
def _phrases(language: str) -> re.Pattern:
    return re.compile(r"\b(?:" + _any_of(_READ[language]) + r")\b", re.IGNORECASE)


_QUESTION = re.compile(r"(?:why|when|where|who|which|what|how)\b")  # a gloss that opens with one: "when again"
_WORDS = re.compile(r"\w+")


def question_languages(message: str) -> tuple[str, ...]:
    """The languages whose glossary says the message's first word, or its last word or two, asks a question
    ("wanneer is fenna jarig", "vize randevum ne zamandı": a question word opens a question in most languages and
    closes it in Turkish): they name the message's language where too few other words do (``reference.spoken``)."""
    words = _WORDS.findall(fold(message).lower())
    edges = {*words[:1], *words[-1:], " ".join(words[-2:])} if words else set()
    return tuple(language for language, glossary in GLOSSARIES.items()
                 if any(_QUESTION.match(glossary.get(word, "")) for word in edges))


_ARABIC_LETTERS = re.compile(r"[\u0621-\u064a]")
_PERSIAN_OR_URDU_LETTERS = re.compile(r"[\u067e\u0686\u0698\u06af\u06a9\u06cc\u0679\u0688\u0691\u06ba\u06d2\u06c1]")


def written_in(message: str) -> str | None:
    """The language the message's writing shows, whatever its words (it wins over ``reference.spoken``'s signs):
    Arabic, for a message written mostly in Arabic letters without those Persian and Urdu add ("بدي أوفر مصاري
    أكتر هالسنة، ساعدني بخطة": a dialect's words are seldom among the written language's commonest)."""
    arabic, letters = len(_ARABIC_LETTERS.findall(message)), sum(char.isalpha() for char in message)
    mostly = arabic and 3 * arabic >= letters  # a word quoted in an English message makes no Arabic one
    return "ar" if mostly and not _PERSIAN_OR_URDU_LETTERS.search(message) else None


_ARABIZI_LETTERS = re.compile(  # a digit inside a word of letters ("ba3d", "a7gez"), opening one ("3ayza", "5ales") or
    # closing one ("adfa3"), as Arabizi writes a letter Latin lacks; not a time, an ordinal or a measure ("3am",
    # "2nd", "5kg", "3bd/2ba"), nor a closing "2", which Indonesian and Malay double a word with ("kira2")
    r"[a-z]*[a-z][235679][a-z]+|[235679](?!(?:st|nd|rd|th|am|pm|ish|kg|mg|mm|ml|hrs?|hs|ba|bd|br)$)[a-z]{2,}"
    r"|[a-z]{2,}[3579]")
_LETTERED = re.compile(r"[^\W_]+")
_DIGITED = re.compile(  # the glossary's words spelt with a digit ("far2 bayn": "the difference between", whose "2"
    # closes its word as Indonesian's does): as telling as the words ``_ARABIZI_LETTERS`` finds
    r"\b(?:" + _any_of(entry for entry in _ARABIZI if re.search(r"\d", entry)) + r")\b", re.IGNORECASE)


def in_arabizi(message: str) -> bool:
    """Whether the message is Arabic written in Latin letters and digits ("howa dor el ga3eya bta3i emta? nasya
    5ales"): two of its words or more are spelt so; a word in capitals ("CO2", "SGLT2") is an acronym."""
    words = {word for word in _LETTERED.findall(message) if sum(char.isupper() for char in word) < 2}
    spelt = {word.lower() for word in words if _ARABIZI_LETTERS.fullmatch(word.lower())}
    return len(spelt | {found.lower() for found in _DIGITED.findall(fold(message))}) >= 2


def gloss(message: str, language: str | None) -> str:
    """The message with its language's words for intent said in English; unchanged in English or a language
    without a glossary, but for the few words of Japanese, Chinese and Korean that say what a question asks, and
    for the question mark of Arabic script ("؟"), which asks as "?" does; Arabic in Latin letters (``in_arabizi``),
    which no language's table names (its words are often another's signs: "eh", "ana", "kam"), is glossed as
    Arabic is in its script."""
    message = message.replace("\u061f", "?")
    language = "ar-latn" if in_arabizi(message) else language  # whatever few words of another it shares
    glossary = _READ.get(language or "")
    if glossary is None:  # English, a language without a glossary, or one written without spaces
        message = _KOREAN_WORDS.sub(lambda found: _KOREAN[found.group(0)], message)
        return _WRITTEN_UNSPACED.sub(lambda found: f" {_UNSPACED[found.group(0)]} ", message)
    message = _RELATIVE[language].sub(" that", message) if language in _RELATIVE else message
    glossed = _phrases(language).sub(lambda found: glossary[found.group(0).lower()], fold(message))
    return _LETTERED.sub(_spelt_out, glossed) if language == "ar-latn" else glossed


_DIGIT_LETTERS = str.maketrans({"2": "a", "3": "a", "5": "kh", "6": "t", "7": "h", "9": "q"})


def _spelt_out(word: re.Match) -> str:
    """An Arabizi word with the letters its digits stand for ("9oltlek" as "qoltlek"): the rules count its digits
    as no number (three numbers and "how much" make a sum)."""
    text = word.group(0)
    return text.translate(_DIGIT_LETTERS) if _ARABIZI_LETTERS.fullmatch(text.lower()) else text
