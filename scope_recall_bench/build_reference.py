"""Build the recall reference: a fixed population of generic, memory-like sentences about made-up people (and
their vectors for the default embedder), plus a background word-frequency table. Retrieval calibrates relevance
against them (``scope_recall_engine/companion/reference.py``), so the data ships with the engine.

Developer tool, run once when the reference changes (needs ``pip install faker wordfreq``):
    OMP_NUM_THREADS=1 python -m scope_recall_bench.build_reference

The sentences are generated from templates with Faker's names, places, jobs and companies (seeded, so the output
is reproducible); the word frequencies are wordfreq's Zipf values (CC-BY-SA 4.0, see docs/recall.md): English
whole, and for each other language with spaces between its words, the words it knows better than English
(``python -m scope_recall_bench.build_reference languages`` rebuilds only those).
"""

from __future__ import annotations

import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "scope_recall_engine" / "companion" / "reference"
SIZE = 4000
WORDS = 60000
SEED = 7
FREQUENCY_LANGUAGES = (  # wordfreq's languages written with spaces (Chinese and Japanese have the CJK lane)
    "es pt fr de it nl pl tr sv da nb fi id ms fil vi ro cs ca hu sk sl sh bg ru uk el ar he fa hi".split())
LANGUAGE_ZIPF = 4.0  # rarer words weigh almost as much as a word no table knows: they need not ship
SIGN_ZIPF, SIGN_MARGIN = 5.0, 1.0  # a word this common in a language, and this much commoner there than in English,
# is a sign that a message is written in it (Spanish "tengo", "pero"; reference.spoken)
ROMAN_HINDI = """hai है|hain हैं|kya क्या|nahi नहीं|nahin नहीं|mein में|ka का|ki की|ke के|ko को|se से|bhi भी|aur और|toh तो
|kaise कैसे|kab कब|kitna कितना|kitni कितनी|kitne कितने|kaun कौन|kaunsa कौनसा|kaunsi कौनसी|mera मेरा|meri मेरी|mere मेरे
|mujhe मुझे|hum हम|humara हमारा|hamara हमारा|humari हमारी|apna अपना|apni अपनी|raha रहा|rahi रही|rahe रहे|tha था|thi थी
|karu करूं|karun करूं|karna करना|karo करो|kar कर|karte करते|chahiye चाहिए|wala वाला|wali वाली|wale वाले|abhi अभी|kal कल
|aaj आज|ghar घर|pe पे|yeh ये|ye ये|woh वो|wo वो|kuch कुछ|sab सब|bahut बहुत|thoda थोड़ा|accha अच्छा|acha अच्छा|kyun क्यों
|kyu क्यों|kahan कहाँ|jab जब|agar अगर|lekin लेकिन|ho हो|hota होता|hoga होगा|gaya गया|diya दिया|liya लिया|baad बाद|pehle पहले
|saath साथ|liye लिए|batao बताओ|bata बता|bolo बोलो|kyunki क्योंकि|matlab मतलब|yaar यार|bhai भाई|haan हाँ|tum तुम|aap आप
|tera तेरा|tumhara तुम्हारा|uska उसका|uski उसकी|unka उनका|isko इसको|usko उसको|koi कोई|kaisa कैसा|kaisi कैसी|sakte सकते
|sakta सकता|sakti सकती|jaana जाना|jana जाना|aana आना|dena देना|lena लेना|raat रात|din दिन|subah सुबह|shaam शाम|roz रोज़
|zyada ज़्यादा|kam कम|jaldi जल्दी|phir फिर|fir फिर|wapas वापस|pata पता|lagta लगता|lag लग"""  # Hindi as chats write it
# ("Hinglish"): wordfreq has Hindi in Devanagari only, so each common word, romanized, takes its Devanagari Zipf

FOODS = [
    "pasta",
    "sushi",
    "curry",
    "tacos",
    "ramen",
    "salad",
    "pizza",
    "falafel",
    "dumplings",
    "paella",
    "pho",
    "risotto",
    "oatmeal",
    "pancakes",
    "lentil soup",
    "grilled fish",
    "kimchi",
    "burritos",
    "bagels",
    "stew",
]
DRINKS = [
    "green tea",
    "black coffee",
    "oat milk lattes",
    "sparkling water",
    "red wine",
    "kombucha",
    "espresso",
    "hot chocolate",
    "iced tea",
    "craft beer",
    "chai",
    "orange juice",
]
ALLERGENS = [
    "peanuts",
    "shellfish",
    "gluten",
    "penicillin",
    "cats",
    "pollen",
    "dust mites",
    "eggs",
    "soy",
    "latex",
    "bee stings",
    "tree nuts",
    "dairy",
    "sesame",
]
CONDITIONS = [
    "asthma",
    "type 2 diabetes",
    "migraines",
    "high blood pressure",
    "a bad back",
    "insomnia",
    "celiac disease",
    "tinnitus",
    "arthritis in both hands",
    "an old shoulder injury",
]
HOBBIES = [
    "rock climbing",
    "knitting",
    "birdwatching",
    "chess",
    "pottery",
    "trail running",
    "sailing",
    "baking",
    "photography",
    "gardening",
    "salsa dancing",
    "woodworking",
    "surfing",
    "board games",
    "fishing",
    "calligraphy",
    "yoga",
    "cycling",
    "swimming",
    "painting watercolours",
    "playing darts",
    "karaoke",
]
INSTRUMENTS = ["piano", "guitar", "violin", "drums", "saxophone", "ukulele", "trumpet", "bass", "flute", "harp"]
PETS = ["dog", "cat", "parrot", "rabbit", "hamster", "tortoise", "goldfish", "two cats", "a greyhound", "a beagle"]
RELATIONS = [
    "sister",
    "brother",
    "mother",
    "father",
    "daughter",
    "son",
    "wife",
    "husband",
    "partner",
    "cousin",
    "grandmother",
    "best friend",
    "flatmate",
    "neighbour",
    "uncle",
    "aunt",
]
LANGUAGES = [
    "Spanish",
    "Japanese",
    "German",
    "Portuguese",
    "Mandarin",
    "French",
    "Italian",
    "Korean",
    "Arabic",
    "Dutch",
    "Swahili",
    "Greek",
]
TOOLS = [
    "Python",
    "Excel",
    "Figma",
    "Photoshop",
    "Kubernetes",
    "Go",
    "Rust",
    "Java",
    "SQL",
    "Tableau",
    "Vim",
    "VS Code",
    "AutoCAD",
    "Salesforce",
    "Jira",
    "Notion",
    "TypeScript",
    "R",
]
GENRES = [
    "jazz",
    "heavy metal",
    "classical music",
    "podcasts about history",
    "country music",
    "K-pop",
    "true crime shows",
    "fantasy novels",
    "science fiction",
    "documentaries",
    "reggae",
    "opera",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
SPORTS = ["football", "tennis", "basketball", "cricket", "rugby", "badminton", "volleyball", "golf", "hockey"]
STYLES = [
    "short answers",
    "detailed explanations",
    "bullet points",
    "metric units",
    "British spelling",
    "examples in code",
    "a formal tone",
    "answers in Spanish",
    "no emojis",
    "step-by-step instructions",
]

TEMPLATES = [
    "{name} is allergic to {allergen}.",
    "I'm allergic to {allergen}.",
    "The user is allergic to {allergen}.",
    "{name} has {condition}.",
    "I was diagnosed with {condition} last year.",
    "She takes medication for {condition}.",
    "{name} is vegetarian.",
    "I've been vegan for three years.",
    "He doesn't eat pork.",
    "The user avoids sugar on weekdays.",
    "{name} loves {food}.",
    "My favourite dish is {food}.",
    "I can't stand {food}.",
    "The user drinks {drink} every morning.",
    "{name} prefers {drink} to {drink2}.",
    "I gave up {drink} in {month}.",
    "{name} works as a {job} at {company}.",
    "I'm a {job}.",
    "The user works at {company} as a {job}.",
    "{name} started a new job at {company} in {month}.",
    "My manager is {name2}.",
    "{name}'s boss is called {name2}.",
    "I use {tool} every day at work.",
    "{name} is learning {tool}.",
    "The team at work switched to {tool}.",
    "{name} lives in {city}.",
    "I moved to {city} in {year}.",
    "The user grew up in {city}, {country}.",
    "{name} is planning a trip to {country} in {month}.",
    "We spent our honeymoon in {city}.",
    "I visit my {relation} in {city} every summer.",
    "My {relation} {name2} lives in {city}.",
    "{name}'s {relation} is called {name2}.",
    "I have a {pet} named {pet_name}.",
    "{name} adopted a {pet} called {pet_name}.",
    "Our {pet} {pet_name} is {age} years old.",
    "{name} plays the {instrument}.",
    "I've been learning the {instrument} since {year}.",
    "She plays {sport} on {day}s.",
    "{name} goes {hobby} most weekends.",
    "I took up {hobby} this year.",
    "The user's hobby is {hobby}.",
    "{name} is learning {language}.",
    "I speak {language} and {language2}.",
    "My {relation} only speaks {language}.",
    "{name} listens to {genre}.",
    "I'm really into {genre} lately.",
    "The user prefers {style}.",
    "Please give me {style}.",
    "{name} likes {style} in replies.",
    "{name}'s birthday is on {month} {dom}.",
    "My {relation}'s birthday is in {month}.",
    "I go to the gym on {day}s and {day2}s.",
    "{name} picks up the kids at {hour} on weekdays.",
    "The user has a standing meeting every {day} at {hour}.",
    "I usually wake up at {hour}.",
    "{name} is saving for a house in {city}.",
    "I pay rent on the first of the month.",
    "{name} drives a {car}.",
    "I sold my car and cycle to work now.",
    "{name} studied {subject} at university.",
    "I'm doing a master's degree in {subject}.",
    "The user is writing a thesis on {subject}.",
    "{name} volunteers at the {place} on {day}s.",
    "I support {team}.",
    "{name} ran the {city} marathon in {year}.",
    "I hurt my knee playing {sport} in {year}.",
    "{name} had surgery on her shoulder in {month}.",
    "The user is training for a half marathon.",
    "{name} is afraid of flying.",
    "I hate crowded places.",
    "{name} is colour blind.",
    "I wear glasses for reading.",
    "{name} is expecting a baby in {month}.",
    "Our wedding anniversary is on {month} {dom}.",
    "{name} and {name2} got married in {year}.",
    "My {relation} {name2} is a {job}.",
    "{name} is looking for a job in {subject}.",
    "I'm renovating the kitchen this spring.",
    "The user's flat is on the fourth floor with no lift.",
    "{name} grows tomatoes and basil on the balcony.",
    "I keep bees in the garden.",
    "{name} collects vinyl records.",
    "I'm reading a book about {subject}.",
    "{name}'s phone is an old Android.",
    "My laptop is a ThinkPad running Linux.",
    "The user's home server runs {tool}.",
    "{name} is on call every other {day}.",
    "I work night shifts three times a week.",
    "The user works remotely from {city}.",
    "{name} commutes by train to {city}.",
    "I'm not drinking alcohol this month.",
    "{name} is trying to sleep before midnight.",
    "I meditate for ten minutes every morning.",
    "{name} wants to learn to swim this year.",
    "My {relation} is in hospital in {city}.",
    "{name} is moving to {country} next {month}.",
    "I'm on a low-sodium diet.",
    "The user is lactose intolerant.",
    "{name} can't eat spicy food.",
    "I prefer window seats on planes.",
    "{name} always books hotels near the station.",
    "The user uses {tool} for note-taking.",
    "{name} hosts a book club on the first {day} of each month.",
    "I coach my {relation}'s {sport} team.",
    "{name} is a fan of {team}.",
    "I'm scared of dogs.",
    "{name} takes the {pet} to the vet in {city}.",
    "My password manager is shared with my {relation}.",
    "{name} is writing a novel about {subject}.",
    "I teach {subject} at a high school.",
    "The user's favourite city is {city}.",
    "{name} keeps a journal every night.",
    # projects and operations: memories of the ops, project and memory targets look like this
    "{db} {version} is what the {env} environment uses.",
    "Database snapshots are copied to {slug} storage daily.",
    "We freeze releases every {day} afternoon.",
    "The {service} service is deployed on {host}.",
    "Our API rate limit is {port} requests per minute.",
    "The {env} database password rotates every {age} weeks.",
    "Ticket {ticket} tracks the migration to {db}.",
    "{name} owns the {service} service.",
    "The {service} dashboard is at https://{slug}.example.com/{service}.",
    "We use {tool} for the {service} build.",
    "The release branch is cut every other {day}.",
    "Logs for {service} are kept for {age} days.",
    "The {env} cluster has {age} nodes in {region}.",
    "Feature flag {flag} is on for {service}.",
    "{name} is on the {service} on-call rotation this week.",
    "The {service} repo uses {tool} and {tool2}.",
    "Version {version} of the {service} app shipped on {month} {dom}.",
    "The VPN config lives in {path}.",
    "Build artifacts are stored under {path}.",
    "The cron job {service}-sync runs at {hour} UTC.",
    "Project {codename} is due at the end of {month}.",
    "The {codename} budget is {money} for this quarter.",
    "Invoice {ticket} from {company} is still unpaid.",
    "{company} is our biggest customer.",
    "The office wifi password is on the fridge.",
    "Meeting room {room} has the good projector.",
    "{name} leases a {car}.",
    "The car's registration number is {plate}.",
    "{name}'s flight {flight} lands at {hour}.",
    "My library card number starts with {ticket}.",
    "{name} still has to pay back {money}.",
    "I lent my {relation} {money} in {month}.",
    "The garage code is {port}.",
    "Bin day is {day}.",
    "The boiler was serviced in {month} {year}.",
    "{name}'s shoe size is {age}.",
    "I ordered a new {tool} licence for the team.",
]


# Memories in other languages (the default embedder is multilingual): (locale for names and places, template)
FOREIGN = [
    ("zh_CN", "{name}住在{city}。"),
    ("zh_CN", "我对{allergen_zh}过敏。"),
    ("zh_CN", "{name}在一家{company_zh}工作。"),
    ("zh_CN", "我每天早上喝{drink_zh}。"),
    ("zh_CN", "她的女儿叫{name2}。"),
    ("zh_CN", "{name}喜欢吃{food_zh}。"),
    ("zh_CN", "我在学习{language_zh}。"),
    ("zh_CN", "{name}每个周末去{hobby_zh}。"),
    ("zh_CN", "我的生日是{month_n}月{dom}日。"),
    ("zh_CN", "{name}养了一只猫，叫{name2}。"),
    ("zh_CN", "我们下个月去{city}旅行。"),
    ("zh_CN", "{name}是一名{job_zh}。"),
    ("zh_CN", "项目的截止日期是{month_n}月底。"),
    ("zh_CN", "我不吃辣的东西。"),
    ("zh_CN", "{name}的电话号码换了。"),
    ("zh_CN", "我哥哥在{city}开了一家店。"),
    ("ja_JP", "{name}は{city}に住んでいます。"),
    ("ja_JP", "私は{allergen_ja}アレルギーです。"),
    ("ja_JP", "{name}は毎朝コーヒーを飲みます。"),
    ("ja_JP", "週末はよく{hobby_ja}をします。"),
    ("ja_JP", "{name}の誕生日は{month_n}月{dom}日です。"),
    ("ja_JP", "私はベジタリアンです。"),
    ("ja_JP", "{name}は{company_ja}で働いています。"),
    ("ja_JP", "来月{city}に出張します。"),
    ("ko_KR", "{name}은 {city}에 살아요."),
    ("ko_KR", "저는 땅콩 알레르기가 있어요."),
    ("ko_KR", "{name}는 주말마다 등산을 해요."),
    ("ko_KR", "저는 스페인어를 배우고 있어요."),
    ("ko_KR", "{name}의 생일은 {month_n}월 {dom}일이에요."),
    ("es_ES", "{name} vive en {city}."),
    ("es_ES", "Soy alérgica a los frutos secos."),
    ("es_ES", "{name} trabaja en {company}."),
    ("es_ES", "Mi hermano se llama {name2}."),
    ("es_ES", "Los martes voy a clase de yoga."),
    ("pt_PT", "{name} mora em {city}."),
    ("pt_PT", "Sou vegetariano há cinco anos."),
    ("pt_PT", "A minha filha chama-se {name2}."),
    ("de_DE", "{name} wohnt in {city}."),
    ("de_DE", "Ich bin allergisch gegen Katzen."),
    ("de_DE", "Mein Chef heißt {name2}."),
    ("fr_FR", "{name} habite à {city}."),
    ("fr_FR", "Je ne mange pas de viande."),
    ("fr_FR", "Ma sœur s'appelle {name2}."),
]
FOREIGN_SHARE = 0.12
ZH = {
    "allergen_zh": ["花生", "海鲜", "猫毛", "青霉素", "花粉"],
    "company_zh": ["银行", "医院", "科技公司", "学校", "餐厅"],
    "drink_zh": ["绿茶", "咖啡", "豆浆", "热水"],
    "food_zh": ["饺子", "火锅", "寿司", "面条", "烤鸭"],
    "language_zh": ["英语", "日语", "西班牙语", "法语"],
    "hobby_zh": ["爬山", "游泳", "钓鱼", "打篮球", "画画"],
    "job_zh": ["医生", "老师", "工程师", "护士", "律师"],
    "allergen_ja": ["卵", "そば", "花粉", "猫"],
    "hobby_ja": ["釣り", "登山", "料理", "読書"],
    "company_ja": ["銀行", "病院", "出版社", "商社"],
}


def _foreign(rng: random.Random, fakers: dict) -> str:
    locale, template = rng.choice(FOREIGN)
    fake = fakers[locale]
    return template.format(
        name=fake.first_name(),
        name2=fake.first_name(),
        city=fake.city(),
        company=fake.company(),
        month_n=rng.randint(1, 12),
        dom=rng.randint(1, 28),
        hour=f"{rng.randint(0, 23)}:00",
        **{key: rng.choice(values) for key, values in ZH.items()},
    )


def _fill(fake, rng: random.Random, template: str) -> str:
    pick = rng.choice
    values = {
        "name": fake.first_name(),
        "name2": fake.first_name(),
        "city": fake.city(),
        "country": fake.country(),
        "job": fake.job().split(",")[0].lower(),
        "company": fake.company(),
        "year": rng.randint(1995, 2025),
        "month": pick(MONTHS),
        "day": pick(DAYS),
        "day2": pick(DAYS),
        "dom": rng.randint(1, 28),
        "hour": f"{rng.randint(5, 20)}:{pick(['00', '15', '30', '45'])}",
        "age": rng.randint(1, 15),
        "food": pick(FOODS),
        "drink": pick(DRINKS),
        "drink2": pick(DRINKS),
        "allergen": pick(ALLERGENS),
        "condition": pick(CONDITIONS),
        "hobby": pick(HOBBIES),
        "instrument": pick(INSTRUMENTS),
        "pet": pick(PETS),
        "pet_name": fake.first_name(),
        "relation": pick(RELATIONS),
        "language": pick(LANGUAGES),
        "language2": pick(LANGUAGES),
        "tool": pick(TOOLS),
        "genre": pick(GENRES),
        "sport": pick(SPORTS),
        "style": pick(STYLES),
        "subject": fake.bs().split()[-1]
        if rng.random() < 0.3
        else pick(
            [
                "history",
                "biology",
                "economics",
                "architecture",
                "nursing",
                "law",
                "chemistry",
                "machine learning",
                "art history",
                "accounting",
                "philosophy",
                "marine biology",
            ]
        ),
        "car": pick(["Toyota Corolla", "Volvo estate", "electric Fiat", "Ford Transit", "Tesla Model 3"]),
        "place": pick(["food bank", "animal shelter", "library", "community garden", "hospice"]),
        "team": pick(["Benfica", "the Chicago Cubs", "Arsenal", "the Lakers", "Boca Juniors", "FC Barcelona"]),
        "env": pick(["staging", "production", "test", "dev", "QA"]),
        "tool2": pick(TOOLS),
        "db": pick(["PostgreSQL", "MySQL", "Redis", "MongoDB", "SQLite", "Elasticsearch", "Cassandra"]),
        "version": f"{rng.randint(1, 20)}.{rng.randint(0, 9)}",
        "port": rng.randint(1000, 9999),
        "slug": fake.word(),
        "service": pick(
            [
                "billing",
                "search",
                "auth",
                "payments",
                "checkout",
                "reporting",
                "notifications",
                "ingest",
                "mobile",
                "web",
            ]
        ),
        "host": f"{fake.word()}-{rng.randint(1, 9)}.internal",
        "ticket": f"{pick(['OPS', 'ENG', 'INV'])}-{rng.randint(10, 9999)}",
        "region": pick(["eu-west-1", "us-east-2", "ap-south-1", "Frankfurt", "Virginia"]),
        "flag": f"{fake.word()}_{fake.word()}",
        "path": f"/{fake.word()}/{fake.word()}/{fake.word()}",
        "codename": fake.word().capitalize(),
        "money": f"{rng.randint(5, 5000)} {pick(['euros', 'dollars', 'pounds'])}",
        "room": rng.randint(1, 40),
        "plate": fake.license_plate(),
        "flight": f"{pick(['TP', 'BA', 'LH', 'UA'])}{rng.randint(100, 999)}",
    }
    return template.format(**values)


def sentences(size: int = SIZE, seed: int = SEED) -> list[str]:
    from faker import Faker

    fake, rng = Faker(["en_US", "en_GB", "es_ES", "pt_PT", "de_DE", "fr_FR"]), random.Random(seed)
    fakers = {locale: Faker(locale) for locale in {locale for locale, _ in FOREIGN}}
    Faker.seed(seed)
    out: dict[str, None] = {}
    while len(out) < size:
        text = _foreign(rng, fakers) if rng.random() < FOREIGN_SHARE else _fill(fake, rng, rng.choice(TEMPLATES))
        out[text] = None
    return list(out)


def language_tables() -> None:
    """``zipf-<language>.tsv`` for each of FREQUENCY_LANGUAGES and romanized Hindi (``hi-latn``): its words of Zipf
    LANGUAGE_ZIPF or more that it uses more than English does, commonest first; and ``signs.tsv``, each word that
    is a sign of a language (SIGN_ZIPF, SIGN_MARGIN) with the languages it is a sign of (``reference.spoken``)."""
    from wordfreq import zipf_frequency

    tables = {language: [(word, value) for word in _alphabetic(language)
                         if (value := zipf_frequency(word, language)) >= LANGUAGE_ZIPF]
              for language in FREQUENCY_LANGUAGES}
    romanized: dict[str, float] = {}  # the hand list is kept whole
    for roman, devanagari in (pair.split() for pair in ROMAN_HINDI.replace("\n", "").split("|")):
        romanized[roman] = max(romanized.get(roman, 0.0), zipf_frequency(devanagari, "hi"))
    tables["hi-latn"] = list(romanized.items())
    signs: dict[str, list[str]] = {}
    for language, words in sorted(tables.items()):
        known = sorted(((word, round(value, 2)) for word, value in words if value > zipf_frequency(word, "en")),
                       key=lambda pair: -pair[1])
        _write_zipf(language, known)
        for word, value in known:
            if value >= SIGN_ZIPF and value >= zipf_frequency(word, "en") + SIGN_MARGIN:
                signs.setdefault(word, []).append(language)
    (OUT / "signs.tsv").write_text("".join(f"{w}\t{','.join(ls)}\n" for w, ls in sorted(signs.items())),
                                   encoding="utf-8")
    print(f"signs: {len(signs)} words")


def _write_zipf(language: str, words: list[tuple[str, float]]) -> None:
    (OUT / f"zipf-{language}.tsv").write_text("".join(f"{w}\t{value:.2f}\n" for w, value in words), encoding="utf-8")
    print(f"{language}: {len(words)} words")


def _alphabetic(language: str) -> list[str]:
    from wordfreq import top_n_list

    return [word for word in top_n_list(language, WORDS) if word.isalpha()]


def main() -> None:
    import sys

    import numpy as np
    from wordfreq import zipf_frequency

    if sys.argv[1:] == ["languages"]:
        return language_tables()

    from scope_recall_engine.companion import embedders
    from scope_recall_engine.config import DEFAULT_EMBEDDING_MODEL

    OUT.mkdir(parents=True, exist_ok=True)
    texts = sentences()
    (OUT / "sentences.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    vectors = np.asarray(embedders.embed_passages(embedders.get_model(DEFAULT_EMBEDDING_MODEL), texts), np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    np.save(OUT / f"{DEFAULT_EMBEDDING_MODEL}.npy", vectors.astype(np.float16))
    _write_zipf("en", [(word, zipf_frequency(word, "en")) for word in _alphabetic("en")])
    print(f"{len(texts)} sentences, {vectors.shape} vectors -> {OUT}")
    language_tables()


if __name__ == "__main__":
    main()
