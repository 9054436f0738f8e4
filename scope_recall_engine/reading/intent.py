"""What a message asks for: whether answering it well depends on who is asking.

A plan, a recommendation, a draft for "my boss" or "should I ...?" needs the user's own context (a diet, an
injury, a manager's name) even when it shares no word with the memory that holds it; a trivia or how-to question
("capital of Australia", "explain binary search") rarely does. Recall uses this to choose its abstention floor:
a message that asks for the user's context may be answered with a memory that is merely among the most related of
a typical person's memories, one that does not must be recalled on much stronger evidence. What the user calls
their own ("my advisor", "our landlord") is what such a message is about, and usually how a memory names it.
"""

from __future__ import annotations

import re

from scope_recall_engine.truth.vocabulary import LANGUAGES

_FAMILY = (  # a parent or grandparent called by what the user calls them ("when did mamma say she's coming?", "gift
    # ideas for Dad"), not someone else's ("a colleague whose dad passed", "the mum of a friend", "Tom's dad")
    r"(?<!\bthe )(?<!\ba )(?<!\ban )(?<!\bhis )(?<!\bher )(?<!\btheir )(?<!\byour )(?<!\bur )(?<!\bnew )(?<!\bwhose )"
    r"(?<!\bevery )(?<!\bany )(?<!\bsome )(?<!['’]s )"
    r"\b(?:mum|mom|mama|mamma|mommy|mummy|dad|daddy|papa|nana|nanna|granny|grandma|grandpa|grandad)\b")
_OWN = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|mine|myself|we|we're|we've|we'll|our|ours|ourselves|(?!(?-i:US))us)\b|"
                  + _FAMILY, re.IGNORECASE)  # the user speaking of themselves or their own ("me" alone is mostly
# "tell me", "give me"; "the US" is a country)
_ASKS = re.compile(r"\b(?:suggest(?!ed)\w*|recommend(?!ed)\w*|ideas?|tips?|advice|advise|plan"
                   r"|should(?!\s+(?:you|u|one)\b)|schedule|itinerary|routine|menu|safe|(?:ok|okay|alright) to"
                   r"|things to do|places to|a?round here|near me|nearby"
                   r"|where to (?:go|eat|stay)|wise|advisable|(?:a )?(?:good|bad) idea|worth it"
                   r"|something (?:\w+ )?to (?:watch|read|cook|eat|make|bring|wear|buy|listen to|play|learn)"
                   r"|recs?|recos?)\b|\w(?:sam|sem|sak|sek)\s+m[ıi]\b|\b(?:m[ıi]|ne|what)\s+\w+(?:sam|sem|sak|sek)\b",
                   # Turkish "should I", "should we" ("çalışsam mı", "özel ders mi alsak", "ne yapsam")
                   re.IGNORECASE)  # advice, a plan (or what plans are made of), whether something is safe or wise,
# something to watch or to cook, somewhere near the user ("round here", "near me"); not "should you" said of anyone
# ("when should you use an en dash?")
_WRITES = re.compile(  # a message, a card, a speech or a notice to write: who it is to, and from, shapes it
    # (the thing written within a few words: "write a regex that matches an email address" writes no email)
    r"\b(?:write|draft|compose|put together)(?:\s+\S+){0,4}?\s+(?:msg|message|text|note|notice|card|e-?mail|letter"
    r"|reply|speech|toast|announcement|post|caption|invitation|invite|bio|flyer|newsletter|eulogy)\b"
    r"|\b(?:notice|announcement|letter|speech|invitation)\b.*\bwording\b", re.IGNORECASE)
_SOCIAL = re.compile(  # a caption, or a social network's post, reel or page: "write me an IG caption for the new
    # stock", "ek Instagram post likh do", "인스타 caption 좀 써줘"; the word is the same in most languages
    r"\b(?:captions?|insta|instagram|ig|tiktok|fb|facebook|linkedin)\b", re.IGNORECASE)
_APOSTROPHES = str.maketrans("\u2018\u2019\u02bc", "'''")
_HOW_DO_I = re.compile(r"\bhow (?:do|does|would) (?:i|we|one|you)\b", re.IGNORECASE)  # "how does one ...?"
_HOW_LONG_DO_I = re.compile(  # "how long do I boil eggs", "how much should i charge", "how much do i still owe": a
    # measure of how a thing is done as often as one of the user's own, so the resting probe reads which
    r"\bhow (?:long|much|many|often|far|soon) (?:do|should|can|must) (?:i|we)\b", re.IGNORECASE)
_HOW_I = r"how (?:do|should|can|could|would) (?:i|we)"
_SITUATION = re.compile(  # "how do i handle it without a meltdown", "how do I break this": the user's own situation,
    # not how a thing is done; so is a "how do I" that follows what happened ("big wasp nest in the woolshed wall. how
    # do I get rid of it"), that points at it ("how do i survive that weekend") or asks for today ("how do i stay
    # sharp for a 1am deploy tonight"): over every personal fixture, 23 such messages wanted a memory and 2 none
    rf"\b{_HOW_I} (?:best )?(?:handle|deal with|cope|manage|help|approach|break)\b|[.!?]\s+{_HOW_I}\b"
    rf"|\b{_HOW_I} (?:\w+ ){{1,3}}?(?:this|that|it|these|those|him|her|them)\b"
    rf"|\b{_HOW_I}\b.*\b(?:tonight|today|tomorrow)\b",
    re.IGNORECASE)
_ABOUT_USER = re.compile(  # a question about the user ("do I", "am I", "r we", "did Erik and I"), "what's my ...",
    # "how old is my ...", "the figure I gave you", "remind me", or asked bare: "my shoe size?"
    r"\b(?:(?:do|did|does|am|are|r|was|were|have|had|will)\s+(?:\w+\s+(?:and|&|n)\s+)?(?:i|we)"
    r"|(?:what|which|who|where|when|how)(?:'s|s|\s+is|\s+are|\s+was|\s+were|\s+does|\s+do|\s+did)?\s+(?:my|our)"
    r"|(?:what|which|who|where|when|how)(?:\s+\w+){0,3}\s+(?:is|are|was|were)(?:\s+\w+){0,3}\s+(?:my|our)"
    r"|i\s+(?:told|gave|mentioned|said)\s+(?:you|u)|remind me)\b"
    r"|^\W*(?:and |so |ok )?(?:my|our)(?:\s+[\w'-]+){1,4}\s*\?+\s*$"  # "my shoe size?": a bare ask
    r"|m[ıiuü][sş]t[ıiuü][mk]\b|yo(?:r)?du[mk]\b"  # Turkish "I had", "we had" ("hangi şirketten yaptırmıştık"),
    # "I was", "we were" doing ("emrenin dershaneye ayda ne veriyoduk")
    r"|\b(?:hab[ií]a(?:mos)?|hav[ií]amos|t[ií]nha(?:mos)?)\s+\w+(?:ado|ido)\b", re.IGNORECASE)  # and Spanish and
# Portuguese "I had", "we had" done ("cuántos temporeros habíamos calculado?", "quanto eu já tinha guardado?")
_AGAIN = re.compile(  # a need that recurs: "chest infection again. what will the gp give me", "whats the dogs names
    # again", in French a question that ends "déjà ?"; a recollective ending, in Japanese ("いつやったっけ", romanized
    # "itsu dakke"), Chinese ("哪天考来着") and Korean ("며칠이었더라", "언제였지? 화목 맞나?"), asks to be reminded, of
    # the world's answer too ("富士山の高さって何メートルだったっけ"); so does Portuguese "mesmo?" ("o DAS vence que dia
    # msm?"): on every personal fixture's 75 messages with one of these (or a Hindi or Spanish question word glossed
    # with them), a wanted memory in the first three 56 -> 59 of 65, unrelated messages recalling something 3 -> 2 of 10
    r"\b(?<!once )again\b|\b\w*da(?:tta )?kke\b|\bd[eé]j[aà]\s*\?|\b(?:mesmo|msm)\s*\?|っけ|来着|더라"
    r"|[았었였]지\s*(?:[?？]|$)", re.IGNORECASE)
ASKED = r"asked|asks|asking|wants to know|wanted to know"  # someone asking (``passes_on``, ``retrieval.asks_it``)
_PASSED_ON = re.compile(  # someone asked (not "asked me to help", "asking for a day off")
    rf"\b(?:{ASKED})\b(?! (?:me |us |him |her )?(?:to|for)\b)", re.IGNORECASE)
_KEEP = re.compile(  # an instruction to keep a fact, opening the message; not one followed by what it asks after
    r"^\W*(?:(?:please|pls|plz|hey|ok|okay|also|and)\W+)*(?:remember|note(?:\s+down)?|keep in mind|don't forget"
    r"|make a note)\b(?!\s+(?:what|when|where|who|whom|which|how|why|if|whether)\b)", re.IGNORECASE)
_CLAUSE = re.compile(r"[.?!;,]+")
_FORGOT = re.compile(  # a question the user says they forgot the answer to ("how many miles my truck got on it i
    # forgot", "longest run ab tak kitna kiya tha? bhool gaya"): asks to be reminded, as "again" does; on every personal
    # fixture's 53 messages with it (all but one direct), a wanted memory in the first three 49 -> 51 of 52, the one
    # unrelated message recalling nothing either way
    r"\b(?:i|we)\s+(?:forgot|forget|can'?t remember|cannot remember|don'?t remember)\b", re.IGNORECASE)
_OTHERS = re.compile(  # "how long do cats live?", "what do pandas eat?", "why are retrievers prone to ...?": do as
    # a question's auxiliary, opening it or after its wh-word, not the verb of "what is best to do with it"
    r"(?:^|[.?!,;:]\s*|\b(?:what|why|how(?:\s+\w+)?|when|where|which|who)\s+)(?:do|does|did)\s+"
    r"(?!(?:i|we|you|u|me|us|my|our|it|this|that|there|one)\b)\w+|\bwhy (?:are|is|was|were)\s+\w+",
    re.IGNORECASE)
_CLAIM = re.compile(  # a claim to check or an argument to settle, however the user came by it, in the user's
    # language ("coworker says ..., totoo ba?"), or someone's question passed on ("Pa asked if Parkinson's is
    # hereditary. Is it?"); someone's report alone ("nanay says her sugar is 220, what should she do") is no claim
    r"(?:^|\b)(?:is (?:it|that|this) (?:\w+ )?true|is there (?:anything|any truth) in (?:it|that|this)"
    r"|who(?:'s| is) right|settle (?:it|this)|^\W*(?:is it |it's |its )?true (?:that|or)\b"
    r"|(?:says?|said|swears?|insists?|claims?|maintains?|reckons?|read|heard) (?:that )?(?!(?:i|i'm|my|we|our|me)\b)"
    r"\w+.*\b(?:true|truth|right|myth|legit|correct|fact|cap|totoo|vrai|verdad|verdade|stimmt|wahr|vero|sach)\b"
    r"|\b(?:asked|asks|wondered|wonders|wants to know) (?:me )?(?:if|whether) (?!(?:i|i'm|my|we|our|me|us)\b)\w+"
    r".*[.?!]\s*(?:is|are|does|do|did|can|was|were) (?:it|they|that|she|he)\s*\?"
    r"|\b(?:says?|said|reckons?|thinks?) (?!(?:i|i'm|my|we|our|me)\b)\w+.*\band (?:i|we) (?:say|said|think|reckon)\b"
    r"|\b(?:i'm|i am) (?:pretty |fairly |quite )?(?:sure|certain) (?:that )?(?!(?:i|i'm|my|we|our)\b)\w+"
    r".*\bright\s*\?)",
    re.IGNORECASE)
_WORDING = re.compile(  # a question about words themselves: what the language offers, not the user's life
    r"(?:^|\b)(?:(?:another|other|a|better|different|nicer|fancier|more \w+) (?:words?|phrases?) (?:for|than)"
    r"|synonyms?|antonyms?|rhymes? with|^\W*(?:(?:please|pls|kindly|can you|could you)\W+)?translate"
    r"|how (?:do you|to|do i) spell|spelling of|what does the word|proofread\w*|correct (?:this|the following|these)"
    r" (?:sentences?|paragraph|text|grammar|spelling)|(?:fix|check|correct) (?:the|this|my) (?:grammar|spelling))\b"
    r"|\bis it ['\"]?\w+['\"]? or ['\"]?\w+['\"]? (?:here|there)\s*\?"
    r"|\bis it ['\"][^'\"]{1,40}['\"] or ['\"][^'\"]{1,40}['\"]\s*\?"  # "Is it 'different from' or 'different
    # than'?": words quoted are words asked about
    r"|\bshould i (?:say|write|use) ['\"]?\w+['\"]? or ['\"]?\w+['\"]?"
    r"|\bhow (?:(?:do|does|would|can|could|should|to)(?: (?:you|u|i|we|one))?|you|u) say"
    r" (?:['\"].+['\"]|(?:(?!(?:in|that|my|our)\b)\w+ ){1,4})\s*in " + LANGUAGES + r"\b"
    r"|\bwhat(?:'s|s| is) ['\"].+['\"] in (?:(?:real|proper|plain|normal|actual) )?" + LANGUAGES + r"\b"
    r"|\bwhat(?:'s|s| is) the " + LANGUAGES + r" (?:word|term|phrase) for\b"  # "whats the swedish word for ..."
    r"|\bsay ['\"][^'\"]+['\"](?:\s+\w+){0,2}\s+in (?:an? )?" + LANGUAGES + r"\b"  # "'...' politely in a Korean"
    r"|['\"][^'\"]+['\"] or ['\"][^'\"]+['\"] in " + LANGUAGES + r"\b",
    re.IGNORECASE)  # ... or which of two words to use ("is it affect or effect here?"), or what a phrase given in
# full is in another language ("how to say 'barrel' and 'cellar' in French?", not "how do I say that my son ...")
_ENTERTAINS = re.compile(  # a request to pass the time: nothing of the user's makes a joke or a fun fact better,
    # nor a poem about the sea (one for "my wife" is about her)
    r"\b(?:jokes?|riddles?|puns?|fun facts?|something (?:interesting|fun|random)"
    r"|(?:poem|limerick|haiku|sonnet|story|song|verse|rhyme|rap) (?:about|on(?: the theme of)?)"
    r" (?!(?:my|our|me|us|him|her|them)\b))\b", re.IGNORECASE)
_SCORNS = re.compile(  # ... not a thing called one ("prices are a joke", "reads like a riddle", "what a joke")
    r"\b(?:is|are|was|were|it'?s|that'?s|what|such|like|becoming|became) (?:an? )?"
    r"(?:(?:total|complete|absolute|bit of a|bloody|sick|bad|cruel|running) )*(?:jokes?|riddles?)\b", re.IGNORECASE)
_MONEY = (r"usd|eur|gbp|jpy|cad|aud|inr|idr|php|ngn|kes|zar|brl|mxn|dollars?|euros?|pounds?|yen|rupees?|rupiah"
          r"|pesos?|naira|shillings?|reais|rand|baht|dong|kronor|krona|kroner|zloty|lira|francs?|dirhams?|ringgit")
_UNITS = (r"km|kms|kilomet(?:er|re)s?|miles?|met(?:er|re)s?|cm|mm|inch(?:es)?|feet|foot|ft|yards?|kg|kgs|kilos?"
          r"|kilograms?|grams?|lbs?|pounds?|oz|ounces?|stones?|lit(?:er|re)s?|ml|gallons?|cups?|pints?|°c|°f|celsius"
          r"|fahrenheit|mph|kph|weeks?|months?|days?|hours?|minutes?|years?")  # not one letter: "2 days in l.a."
_SUM = re.compile(  # arithmetic and conversions: "17 x 23", "what's 15% of 80?", "1 250 $ divided by 8",
    # "how many ounces in a pound?"
    r"^\W*(?:(?:what'?s|what is|calculate|work out)\s+)?[$€£]?[\d.,]+(?: \d{3})*\s*[$€£]?\s*(?:%\s*of|x|\*|\+|-|/"
    r"|times|plus|minus|divided by)\s*[$€£]?[\d.,]+(?: \d{3})*\s*[$€£]?(?:\W*(?:how much|what is|is what))?\W*$"
    r"|\bhow many \w+(?: \w+)? (?:in|are in|is|are|make|makes) (?:a|an|one) \w+(?:\W*$|\s*[,.;?])|\bconvert -?[\d.,]+"
    r"|\b[\d.]+\s*(?:%|percent|per cent) (?:\w+ )?(?:of|on|off) [$€£]?[\d.,]+"  # "an 18% tip on $64.50", "20% off £40"
    r"|[$€£]\s?[\d.,]+\b.*\b[\d.]+\s*%.*\bhow much\b"  # "the cake costs $68, with 15% off how much is it?"
    r"|\d[^=\n]{0,60}=\s*[\w ]{0,20}\?\s*$"  # "21.1 km at 5:40 pace = total time?": an equation put as a question
    r"|\bhow many (?:days|weeks|months|years|hours) (?:are there )?between \D{0,20}\d[^?]{0,40}? and \D{0,20}\d"
    r"|\b[\d.,]+\s*(?:hours?|hrs?|minutes?|mins?|km|miles?|kg|lbs?)?\s+(?:times|plus|minus|divided by)"
    r"\s+(?:a\s+)?[\d.,]+"  # "12.5 hours times 3 plus a 7.5 hour shift"
    r"|\b[\d.,]+\s*(?:" + _MONEY + r")\s+(?:to|in|into)\s+(?:" + _MONEY + r")\b"  # "1 USD to rupiah"
    r"|^(?=(?:\D*\d+){2}).*\b(?:in total|altogether|all together)\W*$"  # "140 at 6,50€ and 90 at 4€: in total?"
    r"|\b[\d.,]+\s*(?:" + _UNITS + r")\s+(?:to|in|into)\s+(?:" + _UNITS + r")\b",  # "8.5 km in miles"
    re.IGNORECASE)
_NUMBER = re.compile(r"(?<![A-Z])\d+(?:[.,:/]\d+)*")  # "10.000", "12/5", "5:40", the 2 of "m2": one number each;
# the 2 of "MP2" or "PS5" names a thing
_TOTAL = re.compile(  # not "how much have I saved of the 3 goals, 500 for ...": what the user did is theirs to tell
    r"\b(?:how (?:much|many)(?! (?:\w+ )?(?:have|had|did|do) (?:i|we)\b)|(?:the|in) total|altogether"
    r"|what(?:'s| is)(?! (?:my|our)\b))\b", re.IGNORECASE)
_IN_GENERAL = re.compile(  # the user says the answer is not about them: "in general, is a will still valid if ...",
    # "median or mean for outliers? general rule", "how long should a cover letter be these days, generally",
    # "asking for a friend"
    r"\b(?:in general|generally|as a (?:general|rule of thumb)|general (?:rules?|opinions?|questions?|consensus"
    r"|knowledge|pros and cons|tips|advice|ideas|explanation|difference|overview|guidance|guidelines)"
    r"|asking for a friend)\b", re.IGNORECASE)
_VENTS = re.compile(  # the user says they are only letting off steam or asks for nothing: "3 meetings back to back.
    # ok venting over", "not asking anything just needed to tell someone", "bas vent karna tha", "thats it thats the
    # message", "I just want to say I got through the day", or ends by waving it off ("got ghosted after a final
    # round AGAIN. whatever man", "double tmrw ugh")
    r"\b(?:venting|ranting|vent over|rant over|end (?:of )?rant|(?:let me|need(?:ed)? to|want(?:ed)? to|have to"
    r"|gotta|just) vent|vent karna|not (?:asking|after|looking for|wanting) (?:anything|for (?:anything|advice|help)"
    r"|advice|help|tips|solutions)|(?:just|only) want(?:ed)? to say (?:i|that)\b"
    r"|(?:just|only) (?:needed|wanted) to (?:tell|say it|type it|get it off|get it out"
    r"|write it)(?: (?:somewhere|to someone|to somebody|here|down))?|no (?:advice|reply) needed"
    r"|don'?t need (?:advice|a reply|an answer|tips)|let(?:ting)? off steam|(?:I want )?(?:\w+ ){0,3}dampf ablassen"
    r"|(?:need|brauch) keine tips|desahog\w*|desabaf\w*|sfog(?:armi|o)|curhat|send help|pray for me|wish me luck"
    r"|that'?s it\W+that'?s the (?:message|msg|post))\b|^\W*rant\b"
    r"|(?:^|\W)(?:whatever(?: (?:man|dude|bro|lol))?|u+g+h+|oh well|sigh|smh|fml|meh|so yeah|that'?s my day"
    r"|i'?m done)\W*$|(?:^|[^\w\s])\s*anyway\W*$", re.IGNORECASE)
_THANKS = re.compile(  # thanks, to its clause's end: "Thanks o, the youth loved ...", "Waheguru ji, thank you for help
    # yesterday 🙏"; what follows may still ask ("thanks! can you make it shorter?")
    r"(?:^|[.!,;:]\s*)\W*(?:thanks|thank you|thank u|thx|tysm|cheers|much appreciated|jazakallah\w*|makasih"
    r"|terima kasih|gracias|merci|danke|obrigad[oa]|grazie|salamat|shukran|asante|dhanyavaad|arigato\w*)\b[^.!?,;]*",
    re.IGNORECASE)
_REPORTED = re.compile(  # a question someone else asked, told as a story: "lmao customer today asked if i could fix
    # her microwave while i was there"; what the user asks, if anything, is said apart ("... should i say yes")
    r"\basked(?: me| us)? (?:if|whether)\b[^.?!,;]*", re.IGNORECASE)
_EXPLAINS = re.compile(  # a request for an explanation, a definition or a fact about the world, not for a
    # particular of someone's life (when, where, who, which name, how much)
    r"(?:^|\b)(?:why|how (?:does|did|is|are|was|were|can|could|would|long|come)|how do (?!i\b|we\b)"
    r"|explain\w*(?!(?: \w+)? to (?:him|her|them|my|our|his|their)\b)"  # not "explain it to him": a talk to have
    r"|who(?:'s|s)? (?:\w+ ){0,2}(?:composer|author|writer|inventor|founder|painter|architect|director|creator"
    r"|designer) of (?!(?:my|our)\b)"
    r"|who (?:(?:actually|really|first|originally) )?(?:wrote|invented|discovered|painted|composed|directed|founded"
    r"|built|won|wins?|designed|created|sang|coined|illustrated|translated|produced|starred in|sculpted)"
    r"|\b(?:when|where|which|what|how (?:much|many|often|long)) (?:should|must|do|would) (?:you|u|one)"
    r" (?!(?:suggest|recommend|think|mean|know|remember|say)\b)"  # "when should you use an en dash", said of anyone
    r"|how (?:many|much) (?:calories|kcal|protein|carbs|sugar|caffeine|fat) (?:(?:is|are) )?in (?:an? |one |\d)"
    r"|how many \w+(?: \w+)? (?:live|lived|are|were) (?:in|on) "  # "How many people live in Canada?"
    r"|the (?:national|state|official) \w+ of"  # "what's the state bird of Minnesota"
    r"|how (?:many|much) \w+(?: \w+){0,3} (?:does|do|did) (?!(?:i|we|you|u|my|our)\b)\w+|diff(?:erence)? between"
    r"|(?:normal|reference|healthy) (?:\w+ ){0,2}range|what year did|(?:signs|symptoms) of (?!(?:my|our)\b)"
    r"|(?:the|is|was) (?:tallest|highest|biggest|largest|longest|deepest|oldest|smallest|fastest) \w+"
    r"|how (?!(?:i|we|my|our)\b)\w+ works?\b|what (?:(?:actually|really|exactly|usually|normally) )?causes"
    r" (?!(?:my|our|me|us)\b)|(?:origin|etymology) of (?!(?:my|our)\b)|where does the (?:name|word|term|phrase) "
    r"|capital of|meaning of|stand for|how do you say|translate|define|definition of"
    r"|cite|research (?:on|into|about|says|shows|suggests)|studies (?:on|show|say|suggest)|evidence (?:for|on|that)"
    r"|regexp?|regular expression"  # a comparison, what research says, code
    r"|how (?:hot|cold|warm|fast|big|deep|tall|high|heavy|loud|strong|hard|wide|thick|bright|bad|dangerous)"
    r" (?:is|are|was|were|does|do|did|can|could|will|would|should|must)"  # "how hot does a propane forge get"
    r"|^\W*(?:do|does|can|are|will|could) (?!(?:i|we|you|u|my|our|me|us|it|this|that|there|they|these|those"
    r"|he|she|his|her|them|people|anyone|someone)\b)(?-i:[a-z]\w*s)\b)",  # "do dogs get snow blindness": a kind
    re.IGNORECASE)
_VERSUS = re.compile(r"\b(?:vs|versus)\b", re.IGNORECASE)  # "Kotlin: `let` vs `also`": two things the world tells
# apart; not "how much we got saved vs the goal", which weighs something of the user's (``explains``)
_COMPARES = re.compile(  # "remind me the difference between a stage 2 and stage 3 pressure injury": two things the
    # world tells apart, whoever asks; not "the difference between my two quotes" (up to the clause's end)
    r"\bdiff(?:erence)? between\b(?![^.?!;,]*\b(?:i|i'm|i've|my|mine|we|we're|our|ours|me|us)\b)", re.IGNORECASE)
_DIFFERS = re.compile(r"\bdiffer(?:s|ent)? (?:from|to)\b", re.IGNORECASE)  # "how is the Notarzt system different from
# how paramedics work in the UK?": two things the world tells apart, when the message speaks of nothing of the user's
_WHY = re.compile(  # "why does coffee make u pee so much", "why must insulin stay in the fridge": not "why do I",
    # "why does my knee", "why is she", "why is it" (the question's subject is someone of the user's, or unsaid)
    r"^\W*why (?:do|does|did|is|are|was|were|must|should|can|would|will) (?!(?:i|we|you|u|my|our|me|us|it|this|that"
    r"|he|she|they|her|his|him|them)\b)\w+", re.IGNORECASE)
_TO_YOU = re.compile(  # "hows your day goin partner", "how are you?", "what's your favourite film": of the assistant
    r"^\W*(?:(?:hey|hi|hello|yo|so|and|morning|evening|hola|salut|bonjour|hallo|oi|ola|olá)\W+)*"
    r"(?:(?:how(?:'s|s| is| are| was| has| have)|what(?:'s| is)) (?:you|ya|your|yours|u)\b"
    r"|(?:c[oó]mo (?:va|est[aá]s|andas|te va)|qu[eé] tal|(?:comment )?[çc]a va|wie geht'?s|tudo bem|como vai)\W*$)",
    re.IGNORECASE)  # ... in a few languages ("hola, cómo va")
_NAMED_INSIDE = re.compile(  # a capital inside a sentence, not "I": a name ("important to Melanie")
    r"(?<![.?!:]\s)(?<!^)(?<![.?!:])\b(?!I\b|I')[A-Z][a-z]")
_HOW_TO = re.compile(r"\bhow (?:to|(?:do|does|would|can|could|should) (?:i|we|one|you))\b", re.IGNORECASE)
_ME = re.compile(r"\bme\b", re.IGNORECASE)
_FRAMING = re.compile(  # "I can never remember: is it affect or effect?", "I'm curious, how far is the moon?"
    r"\bi(?:'m| am)? (?:can never|can't|cannot|never|always|keep) (?:remember(?:ing)?|forget(?:ting)?|recall)\b"
    r"|\bi(?:'m| am) (?:just |so |a bit |rather )?(?:curious|wondering|bored)\b|\bi (?:was |just )?wonder(?:ed|ing)?\b"
    r"|\b(?:i'?ve |i have )?always wondered\b",
    re.IGNORECASE)  # how a general question is put, not what it rests on ("I'm bored, tell me a joke")
_CURIOUS = re.compile(  # "where does a big food bank get all its food from? always wondered": asked out of curiosity
    r"\b(?:always wondered|just curious|(?:i'?m|i am) (?:just )?curious|out of (?:pure )?curiosity"
    r"|random question)\b", re.IGNORECASE)
_AS_IF = re.compile(r"\b(?:like|as if|as though) (?:i'm|i am) (?:an? )?\w+",
                    re.IGNORECASE)  # "explain it like I'm five": a figure of speech, not the user
_HOW_IT_WORKS = re.compile(  # "how do magnets work?", "explain how quicksort works with an example"; not I or we
    r"\bhow\b(?:(?!\b(?:i|we|me)\b).)*?\b(?:(work|works|working)\W*$|(works)\b)", re.IGNORECASE)
_FACT = re.compile(  # "when is Ana's recital?", "what did Caroline paint?", "how many CE hours am I short?"; not
    # "what should I cook?", "what do you suggest", "where to eat": a wh-question for a particular, opening the message
    r"^\W*(?:(?:and|so|ok|okay|hey|wait)\W+)?(?:what|when|where|who|whom|whose|which|how (?:many|much|long|old|often"
    r"|far))(?:'s|s)?\b(?!\s+(?:should|could|can|would|shall)\b|\s+(?:do|would) you (?:suggest|recommend|think)\b"
    r"|\s+to\b)", re.IGNORECASE)
_ASKING = re.compile(  # a question or a request in any shape: "?", a question word (typed without its apostrophe
    # too: "whens kaylas bday"), a request verb, an opening auxiliary ("can you ...", "is it ..."), "again" that ends
    # it ("Grandsons' ages again."), an opening imperative ("fix this: ...", "quiz me on ..."), "is that bad"; "long
    # day man. 11 hours and my last rider ..." has none, nor "what a week" or "purifier broke down again, hands smell
    # like diesel"
    r"\?|\b(?:what(?!\s+an?\s)|when|where|who|whom|whose|which|how|why|(?:what|when|where|who|how)s|wat|wen"
    r"|should|shall|could|would|any|anything"
    r"|ideas?|tips?|suggest(?!ed)\w*|recommend(?!ed)\w*|advice|(?<!big )(?<!huge )(?<!great )(?<!such a )help"
    r"|tell|give(?!\s+up\b)|show|write|draft|make|plan"
    r"|find|list"
    r"|explain|remind|need|want|somewhere|anywhere|recs?|recos?)\b|\bagain\W*$"
    r"|(?:^|[.!,;:]\s*)(?:is|are|do|does|did|can|am|have|has|will|fix|translate|teach|quiz|turn|chart|gimme|check"
    r"|summari[sz]e|outline|calculate|compute|convert|proofread|rewrite|rephrase|compare|walk me|talk me)\b"
    r"|\b(?:is|was) (?:that|it|this) (?:bad|ok|okay|normal|safe|fine|serious|dangerous)\b",
    re.IGNORECASE)
_MAKES = re.compile(  # a request for something made: code, a playlist, a plan, a critique, a list, a draft; its verb
    # opens a clause or follows "can you", "please" or "help me" ("how do i make a component" asks how it is done)
    r"(?:^\W*|[.!?,;:]\s*|\b(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?|\b(?:please|pls|plz)\s+"
    r"|\bhelp\s+me\s+(?:to\s+)?)(?:write|make|give(?!\s+up\b)|draft|create|prepare|critique|generate|compose|list"
    r"|plan)\b", re.IGNORECASE)
_OWNED = re.compile(r"\b(?:my|our)\s+(\w+)(?:\s+(\w+))?", re.IGNORECASE)  # "my thesis advisor", "our landlord"


def asks_for_context(message: str) -> bool:
    """Whether the message speaks of the user (I, my, we, our) or asks for advice, a plan or a recommendation."""
    message = message.translate(_APOSTROPHES)
    situation = _SITUATION.search(message)
    message = _FRAMING.sub("", _AS_IF.sub("", _HOW_DO_I.sub("how to", message)))
    return bool(situation or _OWN.search(message) or _ASKS.search(message) or _WRITES.search(message))


def asks_about_user(message: str, *, again: bool = True) -> bool:
    """Whether the message asks what the user has told before ("which instrument do I play again?", "what's my
    dispatcher's name", "remind me when ...", "... i forgot"): a lookup in the user's own life, whatever its topic.
    ``again=False`` leaves out a bare "again", which as often says the day repeats itself ("raining again. shocker"),
    and a question the user forgot the answer to, which may be the world's ("when was it built? i forgot")."""
    message = _HOW_LONG_DO_I.sub("how to", _HOW_DO_I.sub("how to", message.translate(_APOSTROPHES)))
    return bool(_ABOUT_USER.search(message) or again and (_AGAIN.search(message) or _FORGOT.search(message)
                                                             and asks_anything(message)))


_WH = re.compile(r"\b(?:what|which|who|where|when|how (?:much|many|long|old))\b", re.IGNORECASE)
_MINE = re.compile(r"\b(?:my|our|i have|we have)\b", re.IGNORECASE)


def asks_after_own(glossed: str) -> bool:
    """Whether a message its language's glossary said in English words asks after something of the user's: a
    question with a question word and "my", "our", "I have" or "we have", in whatever order its language puts them
    ("el Aufenthaltstitel taba3i emta?" glossed "el Aufenthaltstitel my when?", "kiedy mam egzamin z systemów?"
    as "when I have egzamin z systemow?"), which ``asks_about_user`` reads in English's order only."""
    return any(_WH.search(sentence) and _MINE.search(sentence)
               for sentence in re.split(r"(?<=[.?!])", glossed.translate(_APOSTROPHES)) if sentence.endswith("?"))


def keeps(message: str) -> bool:
    """Whether the message tells the assistant to keep something rather than asks anything ("please remember: my
    mother takes Concor", "note that the gate code is 4471"): what it needs is the memory it may change, near it in
    meaning, not the user's context. "remember when the dentist is?" and "do you remember my sister's name?" ask."""
    message = message.translate(_APOSTROPHES)
    return bool(_KEEP.search(message)) and "?" not in message


def passes_on(message: str) -> bool:
    """Whether the message passes on a question of the world's that someone else asked ("carol asked me whats the
    longest river in canada, we have a bet on"): a clause of it ``explains`` and neither speaks of the user nor asks
    advice ("Amritsar trip which month we going and for how long? Harjit asking" asks after the user's trip), and
    the message asks nothing the user told. It stays the world's, whatever the user says of themselves around it."""
    message = message.translate(_APOSTROPHES)
    return bool(_PASSED_ON.search(message)) and not asks_about_user(message) and any(
        explains(clause) and not (_OWN.search(clause) or _ASKS.search(clause)) for clause in _CLAUSE.split(message))


def measures(message: str) -> bool:
    """Whether the message asks how long, how much or how often the user does something ("how long do i leave the
    honey to settle", "how much do i still owe"): a measure of how a thing is done as often as one of their own."""
    return bool(_HOW_LONG_DO_I.search(message.translate(_APOSTROPHES)))


def speaks_of_user(message: str) -> bool:
    """Whether the message speaks of the user (I, my, we, our) or asks what they told ("remind me ..."): a lookup
    that does neither ("what's the IRS standard mileage rate for 2024?") looks something up in the world."""
    return bool(_OWN.search(message.translate(_APOSTROPHES))) or asks_about_user(message)


def asks_to_make(message: str) -> bool:
    """Whether the message asks for something made ("can u write a simple object pool for bullets?", "make me a
    cocktail hour playlist", "critique: onboarding step 2 ..."): how the user likes things made helps, whatever
    it is about."""
    message = message.translate(_APOSTROPHES)
    return asks_anything(message) and bool(_MAKES.search(message)) and not _HOW_TO.search(message)


def looks_up(message: str) -> bool:
    """Whether the message looks a particular fact up ("when is Ana's recital?", "what's my dispatcher's name",
    "remind me when ...") rather than asking for a plan, a recommendation or advice ("what should I cook?")."""
    return asks_about_user(message) or bool(_FACT.search(message.translate(_APOSTROPHES)))


def asks_anything(message: str) -> bool:
    """Whether the message asks a question or makes a request at all: "ugh its so cold today i cant feel my hands"
    asks nothing, "knee is swollen, what can I take?" and "something good to watch tonight" do; saying it asks
    nothing ("not asking anything", ``_VENTS``), thanks (``_THANKS``) and a question someone else asked, told as a
    story (``_REPORTED``: "customer today asked if i could fix her microwave"), ask nothing."""
    message = _REPORTED.sub(" ", _THANKS.sub(" ", _VENTS.sub(" ", message.translate(_APOSTROPHES))))
    return bool(_ASKING.search(message) or _ASKS.search(message) or _WRITES.search(message))


def thanks(message: str) -> bool:
    """Whether the message thanks and asks nothing more ("Cheers for the help earlier, that letter was spot on.",
    "jazakallah khair, the letter to the city council worked 🙏"): what it thanks for is done."""
    return _says_only(_THANKS, message)


def vents(message: str) -> bool:
    """Whether the user says they are only venting ("3 meetings back to back and NONE had an agenda. ok venting
    over"): unless it also asks something, nothing of theirs is needed to listen."""
    return _says_only(_VENTS, message)


def _says_only(pattern: re.Pattern, message: str) -> bool:
    """Whether the message says what ``pattern`` finds (venting, thanks) and asks nothing besides."""
    message = message.translate(_APOSTROPHES)
    return bool(pattern.search(message)) and not asks_anything(message)


def writes_to_someone(message: str) -> bool:
    """Whether the message asks for a message, a card, a speech or a notice to write ("help me write a likkle
    speech fi mi bredda's big birthday"): it rests on whom it is for and from, whatever kinds of need it is near."""
    return bool(_WRITES.search(message.translate(_APOSTROPHES)))


def posts_online(message: str) -> bool:
    """Whether the message speaks of a caption or of a social network: a post or a caption the user asks for shows
    their own life (their shop, their page, their day), in whatever language the words around it are."""
    return bool(_SOCIAL.search(message))


def about_the_world(message: str) -> bool:
    """Whether the message checks a claim ("my friend says tomatoes are fruit, is that true?"), asks about words
    ("I need another word for annoyed") or, saying nothing of the user, asks about someone or something else ("what
    do pandas like to eat?") or how a thing is done ("how do I bake sourdough bread?"): on a topic of the user's
    kinds of need, it still rests on nothing of theirs."""
    message = message.translate(_APOSTROPHES)
    return _asked_of_anyone(message) or general(message) and not _SITUATION.search(message) and bool(
        _OTHERS.search(message) or _HOW_TO.search(message) or _EXPLAINS.search(message) or _VERSUS.search(message))


def explains(message: str) -> bool:
    """Whether the message asks for an explanation, a definition, a joke, a sum, a claim checked or a word, a fact
    about the world ("why do cows have four stomachs", "how long can koi live", "the difference between a registrar
    and a bursar", "15% of 340?", "my friend says tomatoes are fruit, is that true?") rather than for
    a particular of someone's life ("when does mating kick off", "what does Thabo do for work"). Asked without
    resting on the user, it is answered from what the world knows, however near a memory's topic it falls."""
    message = message.translate(_APOSTROPHES)
    return (_asked_of_anyone(message) or bool(_EXPLAINS.search(message))
            or bool(_VERSUS.search(message)) and not _OWN.search(message))


def world_answers(message: str) -> bool:
    """Whether the message is a sum with all its numbers given ("What is 15 percent of 3 460 kronor? My calculator
    has gone missing again"), a question about words, the difference between two things neither of them the
    user's ("colleague dey ask me: wetin be the difference between type 1 and type 2 diabetes?"), or opens by
    asking why something other than the user is as it is and names no one ("why does coffee make u pee so much.
    asking for myself at 3am"), or asks after the assistant itself ("hows your day goin partner"; not "how's your
    memory of my diet"), or says it is asked in general and speaks of no one of the user's ("in general, is a
    will still valid if the person got married after signing it?", "median or mean? general rule"): nothing of the
    user's changes the answer, even where the message speaks of them ("15% of
    my salary" gives no number, and is no sum here; "why does my knee click?" is about the user, "Why are flowers
    important to Melanie?" about Melanie)."""
    message = message.translate(_APOSTROPHES)
    return (_sum(message) or bool(_WORDING.search(message) or _COMPARES.search(message))
            or bool(_DIFFERS.search(message)) and not _OWN.search(message)
            or bool(_CURIOUS.search(message)) and general(message)
            or bool(_IN_GENERAL.search(message)) and not _OWN.search(_HOW_DO_I.sub("how to", message))
            or bool(_WHY.search(message)) and not _NAMED_INSIDE.search(message)
            or bool(_TO_YOU.search(message)) and not _OWN.search(message))


def _asked_of_anyone(message: str) -> bool:
    """A claim to check, a question about words, a joke or a sum: the world answers it, whoever asks and however
    they put it."""
    entertains = _ENTERTAINS.search(_SCORNS.sub(" ", message)) and not _WRITES.search(message)  # not "a card, with a
    # small joke"
    return _sum(message) or any(pattern.search(message) for pattern in (_CLAIM, _WORDING)) or bool(entertains)


def _sum(message: str) -> bool:
    """Arithmetic or a conversion (``_SUM``), or a sum set out in words with three numbers or more given, which asks
    how much, how many or the total ("kalau bensin Rp 10.000/liter, motor 45 km/liter, sehari jalan 120 km, sebulan
    26 hari, habis berapa?"): every number it needs is in the message."""
    return bool(_SUM.search(message)) or len(_NUMBER.findall(message)) >= 3 and bool(_TOTAL.search(message))


def owned_words(message: str) -> set[str]:
    """The (at most two) words after each "my" or "our", lowercased: what the user calls their own."""
    return {word.lower() for match in _OWNED.finditer(message.translate(_APOSTROPHES)) for word in match.groups()
            if word}


def frame_words(message: str) -> set[str]:
    """Words that only frame a general question, not its topic: the "work" of "how does a heat pump work?" (as a
    word it would match every memory of where or when the user works)."""
    found = _HOW_IT_WORKS.search(message.translate(_APOSTROPHES))
    return {(found.group(1) or found.group(2)).lower()} if found else set()


def general(message: str) -> bool:
    """Whether the message says nothing of the user: no I, my, me or we, and no request for advice or a plan
    ("how long do cats live?"). It shares only common words with a memory by chance."""
    return not (asks_for_context(message) or _ME.search(message))
