"""The closed word classes the rules extractors need (the digest's facts, the entity index): relations, pets,
diets, conditions, medication, occupations, languages, demonyms. Each is a regex alternation (longest first) or a
compiled pattern; extend a class here and every pattern that uses it follows."""

from __future__ import annotations

import re


def _alternatives(words: str) -> str:
    """A regex alternation of space-separated words (``_`` stands for a space), longest first."""
    return "(?:" + "|".join(sorted(words.split(), key=len, reverse=True)).replace("_", " ") + ")"


RELATIONS = _alternatives(
    "wife husband partner boyfriend girlfriend fiance fiancé fiancée spouse son daughter kid child baby brother "
    "sister sibling twin mother mom mum mama father dad papa grandmother grandma granny grandfather grandpa grandson "
    "granddaughter grandchild aunt uncle cousin niece nephew stepson stepdaughter stepmother stepfather "
    "mother-in-law father-in-law sister-in-law brother-in-law best_friend boys girls kids children sons daughters "
    "grandchildren grandkids twins")
ROLES = _alternatives(  # people of the user's outside the family, whom memories name by the part they play: "Her
    # manager is Fernanda", "his landlord, Mr Brennan"
    "manager boss colleague coworker co-worker employee supervisor advisor adviser mentor coach trainer teacher tutor "
    "landlord landlady neighbour neighbor friend roommate flatmate housemate doctor GP physio physiotherapist "
    "therapist pediatrician paediatrician dentist vet accountant lawyer lead assistant client carer caregiver nanny "
    "babysitter")
PETS = _alternatives("dog cat puppy kitten parrot hamster rabbit bunny horse pony turtle tortoise lizard snake "
                     "guinea_pig budgie ferret gecko goldfish cockatiel canary "
                     # a pet is often called by its breed: "their beagle, Pistache"
                     "beagle collie spaniel terrier poodle retriever husky dachshund pug cockapoo cavapoo "
                     "labradoodle greyhound whippet chihuahua bulldog kelpie heeler sheepdog corgi schnauzer "
                     "rottweiler doberman tabby")
DIETS = _alternatives("vegetarian vegan pescatarian pescetarian flexitarian plant-based keto paleo carnivore "
                      "fruitarian teetotal teetotaller teetotaler sober kosher halal gluten-free dairy-free "
                      "lactose-free")
EXCLUSIVE_DIETS = {"vegetarian", "vegan", "pescatarian", "pescetarian", "flexitarian", "plant-based", "carnivore",
                    "fruitarian"}
CONDITION_ADJECTIVES = _alternatives(
    "coeliac celiac diabetic pre-diabetic prediabetic asthmatic epileptic anaemic anemic autistic dyslexic dyspraxic "
    "colourblind colorblind deaf blind hypertensive immunocompromised pregnant hard_of_hearing partially_sighted")
CONDITION = re.compile(
    r"^(?:type \w+ )?(?:diabetes|asthma|adhd|add|autism|epilepsy|migraines?|arthritis|(?:high|low) blood pressure|"
    r"hypertension|(?:coeliac|celiac|crohn'?s|heart|kidney|lyme|parkinson'?s) disease|crohn'?s|ibs|eczema|psoriasis|"
    r"anxiety|depression|insomnia|sleep apnoea|sleep apnea|tinnitus|glaucoma|lupus|ms|multiple sclerosis|copd|pcos|"
    r"endometriosis|hypothyroidism|hyperthyroidism|gout|scoliosis|a heart condition|long covid|fibromyalgia|"
    r"dyslexia|dyspraxia|ocd|ptsd|bipolar(?: disorder)?|cancer|anaemia|anemia|a bad back|back pain|hay fever|"
    r"\w+itis|\w+osis|\w+aemia|\w+emia|\w+pathy|\w+algia|[\w' -]+ (?:syndrome|disorder|deficiency|intolerance))$",
    re.I)
MEDICATION = re.compile(
    r"^(?:insulin|metformin|aspirin|ibuprofen|paracetamol|warfarin|levothyroxine|thyroxine|lithium|prozac|zoloft|"
    r"adderall|ritalin|vitamin \w+|iron tablets|antidepressants|antihistamines|blood thinners|birth control|"
    r"the pill|statins|steroids|(?:[\w-]+ ){0,3}(?:medication|medicine|meds|pills|tablets|inhaler)|"
    r"\w+(?:pril|sartan|statin|olol|azole|mab|pam|lam|cillin|cycline|xetine|pine|zepam|profen|formin|tidine|"
    r"prazole|oxin|amine|idine|afil))$", re.I)
OCCUPATIONS = _alternatives(
    "nurse doctor physician surgeon dentist pharmacist paramedic midwife therapist psychologist psychiatrist vet "
    "veterinarian teacher schoolteacher professor lecturer tutor student sophomore freshman undergrad undergraduate "
    "postdoc researcher scientist engineer developer programmer designer architect analyst accountant lawyer "
    "solicitor barrister judge consultant manager director executive founder entrepreneur chef cook baker barista "
    "waiter waitress bartender farmer plumber electrician mechanic carpenter builder driver pilot firefighter "
    "officer soldier journalist writer author editor translator photographer artist musician illustrator animator "
    "actor actress dancer librarian clerk cashier receptionist secretary administrator recruiter salesperson "
    "realtor banker economist statistician mathematician physicist chemist biologist technician coach trainer "
    "cleaner carer caregiver nanny social_worker civil_servant freelancer intern apprentice retiree pensioner "
    "homemaker dev practitioner specialist assistant associate worker owner operator representative advisor adviser "
    "planner coordinator supervisor hygienist therapist paralegal pharmacist")
STUDENT = re.compile(r"\b(?:student|sophomore|freshman|undergrad|undergraduate|postdoc|intern|apprentice)\b", re.I)
LANGUAGES = _alternatives(
    "English French German Spanish Portuguese Italian Dutch Swedish Norwegian Danish Finnish Icelandic Polish Czech "
    "Slovak Hungarian Romanian Bulgarian Greek Turkish Russian Ukrainian Serbian Croatian Arabic Hebrew Persian Farsi "
    "Urdu Hindi Bengali Punjabi Tamil Telugu Marathi Gujarati Japanese Korean Chinese Mandarin Cantonese Vietnamese "
    "Thai Indonesian Malay Tagalog Swahili Amharic Yoruba Igbo Hausa Zulu Afrikaans Catalan Basque Galician Welsh "
    "Irish Latin Esperanto")
DEMONYMS = _alternatives(
    "American Canadian Mexican Brazilian Argentinian Argentine Chilean Colombian Peruvian Venezuelan Cuban British "
    "English Scottish Welsh Irish French German Dutch Belgian Swiss Austrian Italian Spanish Portuguese Greek "
    "Swedish Norwegian Danish Finnish Icelandic Polish Czech Slovak Hungarian Romanian Bulgarian Serbian Croatian "
    "Ukrainian Russian Turkish Israeli Lebanese Egyptian Moroccan Algerian Tunisian Nigerian Ghanaian Kenyan "
    "Ethiopian South_African Indian Pakistani Bangladeshi Sri_Lankan Nepali Chinese Japanese Korean Vietnamese Thai "
    "Filipino Indonesian Malaysian Singaporean Australian Kiwi Iranian Iraqi Syrian Saudi Emirati")
TOOLS = {"linux", "vim", "neovim", "emacs", "python", "javascript", "typescript", "rust", "go", "java", "excel",
         "git", "docker", "kubernetes", "figma", "photoshop", "sql", "r"}
CALENDAR = ("January February March April May June July August September October November December Monday Tuesday "
             "Wednesday Thursday Friday Saturday Sunday")
NOT_NAMES = {word.lower() for word in CALENDAR.split()} | {
    "i", "the", "a", "an", "and", "but", "so", "it", "this", "that", "not", "no", "sorry", "back", "done", "fine",
    "good", "ok", "okay", "sure", "here", "ready", "home", "going", "just", "also", "still", "really", "new", "from"}
ATTRIBUTES = _alternatives(
    "birthday birth_date date_of_birth blood_type timezone time_zone native_language first_language mother_tongue "
    "hometown home_town job_title profession occupation major pronouns nickname middle_name surname last_name "
    "height shoe_size star_sign zodiac_sign stack editor employer")
# The words people use for the same role in their lives, by the word a message may use: "my boss" is a memory's
# "manager", "my kid" its "daughter", "my family" its "parents". Recall counts a memory holding any of them as
# holding the message's word (reference.forms).
_SAME_ROLE = {
    "boss": "manager supervisor", "manager": "boss supervisor", "supervisor": "boss manager advisor",
    "advisor": "supervisor adviser", "adviser": "supervisor advisor",
    "mum": "mother mom mama", "mom": "mother mum mama", "mother": "mum mom mama", "mama": "mother mum mom",
    "dad": "father papa", "father": "dad papa",
    "kid": "child son daughter", "child": "kid son daughter",
    "kids": "children son daughter sons daughters", "children": "kids son daughter sons daughters",
    "partner": "wife husband spouse boyfriend girlfriend fiance fiancé fiancée",
    "spouse": "wife husband partner", "wife": "partner spouse", "husband": "partner spouse",
    "family": "parents mother father mum mom dad brother sister siblings children kids son daughter wife husband "
              "partner",
    "parents": "mother father mum mom dad", "siblings": "brother sister", "doctor": "gp physician",
    "pet": "dog cat puppy kitten", "pets": "dog cat puppy kitten",
    # the same roles said informally, or in the word many English speakers keep from home
    "gaffer": "boss manager supervisor", "hubby": "husband partner spouse", "missus": "wife partner spouse",
    "bf": "boyfriend partner", "gf": "girlfriend partner", "mam": "mother mum mom", "amma": "mother mum mom mama",
    "appa": "father dad papa", "gran": "grandmother grandma granny", "granny": "grandmother grandma gran",
    "grandma": "grandmother gran granny nana", "nana": "grandmother grandma gran", "grandpa": "grandfather grandad",
    "grandad": "grandfather grandpa", "bro": "brother", "sis": "sister", "doc": "doctor gp physician",
    "grandkids": "grandchildren grandson granddaughter", "fam": "family",
}
# Words people clip in chat, by the clipped form: "when do sems start" asks about the "semester".
_CLIPPED = {
    "uni": "university", "sem": "semester", "sems": "semester semesters", "bday": "birthday", "appt": "appointment",
    "meds": "medication medications medicine", "info": "information", "convo": "conversation",
    "pics": "photos pictures", "approx": "approximately",
}
SAME_ROLE = {word: tuple(alike.split()) for word, alike in _SAME_ROLE.items()}
CLIPPED = {word: tuple(full.split()) for word, full in _CLIPPED.items()}
# Things that carry a number, which chat writes "herd no.", "policy no", "acc nr": there "no" is "number".
_NUMBERED = _alternatives(
    "herd flock policy account acc acct reg registration phone mobile cell ref reference member membership case order "
    "invoice serial flight seat room house flat apartment unit table locker tax id passport licence license plate bus "
    "route platform gate badge staff student employee customer tracking booking confirmation claim file patient nhs "
    "pin roll tag vat insurance contact parcel ticket card bank sort routing branch permit visa pension payroll "
    "chassis vin engine meter mpan")
_NUMBER_SHORTHAND = re.compile(rf"\b({_NUMBERED})\s+(?:no|nr|num)\b(?!\W*(?:longer|more|one|matter|idea|way|doubt"
                               r"|need|problem|worries|thanks)\b)", re.IGNORECASE)


def spelled_out(text: str) -> str:
    """``text`` with "no." after a thing that carries a number said as "number": "whats my herd no." asks after the
    herd number, which "no" (a stop word) would never find."""
    return _NUMBER_SHORTHAND.sub(r"\1 number", text)
