"""A long-dialogue recall set: two people talking over many sessions, one memory file per observation.

Generated deterministically (``SEED``) so it needs no download and never changes between runs.
Each conversation has two speakers and 24 to 30 dated sessions a few days apart; every session
leaves a few dozen observations, each a memory file as the agent writes them (frontmatter
``name`` / ``description`` / ``type`` and a body), 700 to 1,100 per conversation. Most are
events ("Priya took her dog to the vet on 3 May 2023"), some are small talk that shares their
vocabulary (both speakers paint, cook, travel, in many sessions), so a single word rarely
singles a memory out.

Questions are written from a lexicon of their own (``Q_VERBS``, ``Q_OBJECTS`` below), kept
apart from anything a ranker may use: a ranker sees only the memory files and general-language
resources from a package (stop words, Snowball). Every question is checked to share at most
one content word with its evidence (``shared_content_words``: lower case, this module's own
stop list, Snowball stems; the speakers' names and date words are not counted, since a
question names the person and the day as the memory does). Kinds:

- ``single-hop``: what / where / with whom about one event, its verb and object paraphrased;
- ``temporal``: "when did ..." about one event, or what happened "the week before 9 June 2023",
  "the week after ...", "on June 2nd, 2023" (the memory writes "2 June 2023");
- ``speaker``: both speakers did something with the same word; the question names one of them;
- ``multi-hop``: the answer is in a memory that shares nothing with the question, through a
  second one that does ("Priya's dog is called Rex" then "Priya took Rex to the vet");
- ``adversarial``: about something that never happened (a speaker swapped, an activity nobody
  mentioned): nothing should be recalled.

Conversations 0-2 are the tuning split, 3-5 the held-out split: constants in the ranker were
chosen by looking at the tuning split only, and the held-out one is reported beside it.
Nothing here comes from a public benchmark.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache

SEED = 20261205
CONVERSATIONS = 6
TUNE = (0, 1, 2)
HELD_OUT = (3, 4, 5)
# "now" for the questions (relative dates resolve against it): 2026-12-05T00:00:00Z.
NOW = 1_796_428_800.0

NAMES = ["Caroline", "Melanie", "Priya", "Mateo", "Yuki", "Olena", "Kwame", "Ines", "Lars", "Farah", "Diego", "Mei"]
PETS = ["Rex", "Luna", "Biscuit", "Pepper", "Miso", "Oscar", "Juniper", "Waffles", "Nala", "Toby", "Ziggy", "Clementine"]
FRIENDS = ["Hannah", "Omar", "Sven", "Aiko", "Bruno", "Zara", "Elif", "Tariq", "Noor", "Felix"]

# Events: (key, memory verb phrase in the past, objects or None, question verb key).
# {o} is an object from OBJECTS[key]; {f} a friend; {p} the speaker's pet.
EVENTS = [
    ("paint", "painted {o}", "paint"),
    ("cook", "cooked {o} for dinner", "cook"),
    ("buy", "bought {o}", "buy"),
    ("read", "finished reading {o}", "read"),
    ("visit", "visited {o} with {f}", "visit"),
    ("class", "signed up for {o}", "class"),
    ("concert", "attended a concert by {o}", "concert"),
    ("garden", "planted {o} in the garden", "garden"),
    ("run", "ran {o}", "run"),
    ("meeting", "attended a meeting of {o}", "meeting"),
    ("fix", "repaired {o}", "fix"),
    ("gift", "gave {f} {o} as a present", "gift"),
    ("vet", "took {p} to the vet because of {o}", "vet"),
    ("trip", "booked a trip to {o}", "trip"),
    ("walk", "walked {p} {o}", "walk"),
    ("toy", "bought {p} {o}", "toy"),
]
OBJECTS = {
    "paint": ["a sunset over the lake", "a portrait of her grandmother", "a mural of sunflowers", "a watercolour of the harbour", "an abstract canvas in blue", "a landscape of the mountains"],
    "cook": ["a lentil curry", "homemade ramen", "a mushroom risotto", "stuffed peppers", "a lemon tart", "dumplings from scratch"],
    "buy": ["a second-hand bicycle", "noise-cancelling headphones", "a telescope", "hiking boots", "a sewing machine", "a vintage record player"],
    "read": ["a novel about lighthouse keepers", "a biography of Marie Curie", "a thriller set in Lisbon", "a book on urban beekeeping", "a memoir by a mountaineer", "a history of the Silk Road"],
    "visit": ["the botanical gardens", "the science museum", "an aquarium", "a farmers market", "the old castle", "a pottery studio"],
    "class": ["a salsa class", "a pottery workshop", "an evening course in Spanish", "a first-aid course", "a photography class", "a coding bootcamp"],
    "concert": ["a jazz quartet", "the city orchestra", "a folk singer", "a punk band", "a string ensemble", "a gospel choir"],
    "garden": ["tomatoes", "tulip bulbs", "an apple tree", "basil and mint", "sunflowers", "strawberries"],
    "run": ["a half marathon", "a charity five-kilometre race", "ten kilometres along the river", "a trail race in the hills", "her first marathon", "a relay with colleagues"],
    "meeting": ["the LGBTQ support group", "the neighbourhood council", "the book club", "the parents association", "a grief support circle", "the volunteer fire brigade"],
    "fix": ["the leaking kitchen tap", "a broken laptop screen", "the garden fence", "her grandfather's clock", "a flat bicycle tyre", "the squeaky front door"],
    "gift": ["a knitted scarf", "a framed photo", "concert tickets", "a potted orchid", "a cookbook", "a handmade mug"],
    "vet": ["a limp", "an ear infection", "a cough", "its yearly vaccinations", "a skin rash", "a broken claw"],
    "walk": ["along the beach", "through the pine forest", "around the reservoir", "by the canal", "up the hill behind the school"],
    "toy": ["a squeaky rubber duck", "a rope toy", "a orthopaedic bed", "a reflective collar", "a puzzle feeder"],
    "trip": ["Kyoto", "Iceland", "the Amalfi coast", "Marrakesh", "Patagonia", "the Scottish Highlands"],
}
# The question's own words for each event (never given to a ranker).
Q_VERBS = {
    "paint": ["make a picture of", "create artwork showing"], "cook": ["prepare", "make in the kitchen"],
    "buy": ["purchase", "get hold of"], "read": ["get through", "complete"], "visit": ["go to", "spend a day at"],
    "class": ["enrol in", "join"], "concert": ["see perform live", "go and hear"], "garden": ["grow", "put in the soil"],
    "run": ["complete on foot", "take part in"], "meeting": ["go to", "show up at"], "fix": ["mend", "get working again"],
    "gift": ["hand over to", "surprise with"], "vet": ["bring to the animal doctor", "have checked by the animal clinic"],
    "trip": ["plan a holiday to", "arrange travel to"], "walk": ["take her dog out"], "toy": ["get for her dog"],
}
# What a question may call each object: the one word it keeps (the head), or a paraphrase.
Q_OBJECTS = {
    "a sunset over the lake": "the evening sky by the water", "a portrait of her grandmother": "her granny's likeness",
    "a mural of sunflowers": "the big flower wall", "a watercolour of the harbour": "the boats by the quay",
    "an abstract canvas in blue": "the non-figurative piece", "a landscape of the mountains": "the peaks scene",
    "a lentil curry": "a spicy pulse dish", "homemade ramen": "noodle soup", "a mushroom risotto": "a creamy rice dish with fungi",
    "stuffed peppers": "filled capsicums", "a lemon tart": "a citrus pastry", "dumplings from scratch": "hand-folded parcels of dough",
    "a second-hand bicycle": "a used bike", "noise-cancelling headphones": "quiet earphones", "a telescope": "a stargazing instrument",
    "hiking boots": "walking footwear", "a sewing machine": "a stitching device", "a vintage record player": "an old turntable",
    "a novel about lighthouse keepers": "fiction on coastal beacon guards", "a biography of Marie Curie": "the life story of the radium scientist",
    "a thriller set in Lisbon": "a suspense story in Portugal", "a book on urban beekeeping": "a guide to city honey production",
    "a memoir by a mountaineer": "a climber's recollections", "a history of the Silk Road": "a study of the ancient trade route",
    "the botanical gardens": "the plant collection park", "the science museum": "the exhibition about physics",
    "an aquarium": "the fish tanks exhibit", "a farmers market": "the produce stalls", "the old castle": "the medieval fortress",
    "a pottery studio": "the ceramics workshop", "a salsa class": "Latin dance lessons", "a pottery workshop": "clay lessons",
    "an evening course in Spanish": "night lessons in a foreign language", "a first-aid course": "emergency care training",
    "a photography class": "camera lessons", "a coding bootcamp": "intensive programming training",
    "a jazz quartet": "a four-piece swing group", "the city orchestra": "the symphony", "a folk singer": "a traditional vocalist",
    "a punk band": "a loud rock group", "a string ensemble": "violinists and cellists", "a gospel choir": "church singers",
    "tomatoes": "salad fruit", "tulip bulbs": "spring flowers", "an apple tree": "a fruit sapling", "basil and mint": "herbs",
    "sunflowers": "tall yellow blooms", "strawberries": "red berries", "a half marathon": "a 21 km event",
    "a charity five-kilometre race": "a fundraising 5k", "ten kilometres along the river": "a 10k by the water",
    "a trail race in the hills": "an off-road event", "her first marathon": "her debut 42 km", "a relay with colleagues": "a team baton event",
    "the LGBTQ support group": "the queer peer circle", "the neighbourhood council": "the local residents' board",
    "the book club": "the reading circle", "the parents association": "the school families committee",
    "a grief support circle": "the bereavement group", "the volunteer fire brigade": "the unpaid firefighters",
    "the leaking kitchen tap": "the dripping faucet", "a broken laptop screen": "a cracked computer display",
    "the garden fence": "the boundary palings", "her grandfather's clock": "an heirloom timepiece", "a flat bicycle tyre": "a punctured wheel",
    "the squeaky front door": "the noisy entrance", "a knitted scarf": "woolly neckwear", "a framed photo": "a picture in a frame",
    "concert tickets": "passes to a gig", "a potted orchid": "an exotic houseplant", "a cookbook": "a recipe collection",
    "a handmade mug": "a crafted cup", "a limp": "trouble walking", "an ear infection": "a sore ear", "a cough": "a hacking throat",
    "its yearly vaccinations": "annual jabs", "a skin rash": "itchy patches", "a broken claw": "a cracked nail",
    "along the beach": "by the sea", "through the pine forest": "among the conifers", "around the reservoir": "round the lake",
    "by the canal": "next to the waterway", "up the hill behind the school": "on the slope near the classrooms",
    "a squeaky rubber duck": "a noisy plaything", "a rope toy": "something to tug", "a orthopaedic bed": "a place to sleep",
    "a reflective collar": "something to wear at night", "a puzzle feeder": "a brain game for meals",
    "Kyoto": "the old Japanese capital", "Iceland": "the land of geysers", "the Amalfi coast": "the southern Italian shore",
    "Marrakesh": "the Moroccan city", "Patagonia": "the far south of Argentina", "the Scottish Highlands": "northern Scotland",
}
SMALL_TALK = [
    "{s} said work had been busy and she felt tired", "{s} mentioned the weather had turned cold",
    "{s} talked about wanting to paint more often", "{s} said she might cook something new at the weekend",
    "{s} complained that the bus was late again", "{s} said she was thinking about a trip somewhere warm",
    "{s} mentioned a friend recommended a book", "{s} said her garden needs attention",
    "{s} talked about running to clear her head", "{s} said she missed going to concerts",
    "{s} mentioned she had a meeting at work that ran long", "{s} said she wanted to fix things around the house herself",
    "{s} said {p} had been sleeping a lot", "{s} mentioned that {f} called her", "{s} said she watched a documentary about the ocean",
    "{s} talked about buying fewer things this year", "{s} mentioned she tried a new recipe that failed",
    "{s} said the museum near her had a new exhibition", "{s} said she is saving money for a holiday",
    "{s} said she slept badly", "{s} mentioned her neighbour's loud music",
]
NEVER = [  # activities no memory mentions (adversarial questions)
    "go skydiving", "learn to play the bagpipes", "adopt a parrot", "win a chess tournament", "move to Antarctica",
    "climb Mount Kilimanjaro", "open a bakery", "buy a sailboat", "study astrophysics", "run for mayor",
]

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]


@dataclass(frozen=True)
class Memory:
    key: str  # the file's path without .md
    kind: str
    title: str
    description: str
    body: str


@dataclass(frozen=True)
class Question:
    text: str
    evidence: tuple[str, ...]  # memory keys, any of which answers it; () for adversarial
    tag: str
    conversation: int


@dataclass
class Conversation:
    number: int
    speakers: tuple[str, str]
    memories: list[Memory] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def written(day: date) -> str:
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def american(day: date) -> str:
    suffix = "th" if 11 <= day.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return f"{_MONTHS[day.month - 1]} {day.day}{suffix}, {day.year}"


_WORD = re.compile(r"[a-z]+")
_STOP = frozenset(
    """a an the of to in on at for with by from and or but is was were be been did do does what when where who whom which why how
    her his she he they their them it its this that these those there here as about after before during into over than then
    would could should will can may might has have had not no any some my your our week weekend day days""".split()
)
_DATE_WORDS = frozenset(m.lower() for m in _MONTHS) | {"st", "nd", "rd", "th"}


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def content_words(text: str, names: frozenset[str]) -> set[str]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP and w not in _DATE_WORDS and w not in names and len(w) > 1]
    return set(_stemmer().stemWords(words))


def shared_content_words(question: str, evidence: str, names: frozenset[str]) -> set[str]:
    return content_words(question, names) & content_words(evidence, names)


_PREPOSITIONS = re.compile(r" (?:of|over|in|from|with|by|along|about|on|set|for|and|behind|through|around|up) ")


def head_noun(obj: str) -> str:
    """The noun an object phrase is about ("a portrait of her grandmother": "portrait")."""
    return _PREPOSITIONS.split(obj)[0].split()[-1]


def _memory_text(memory: Memory) -> str:
    return f"{memory.title}\n{memory.description}\n{memory.body}"


def build(seed: int = SEED) -> list[Conversation]:
    return [_conversation(number, random.Random(seed * 100 + number)) for number in range(CONVERSATIONS)]


def _conversation(number: int, rng: random.Random) -> Conversation:
    a, b = rng.sample(NAMES, 2)
    pets = dict(zip((a, b), rng.sample(PETS, 2)))
    convo = Conversation(number, (a, b))
    names = frozenset({a.lower(), b.lower(), *(p.lower() for p in pets.values()), *(f.lower() for f in FRIENDS)})
    sessions = rng.randint(24, 30)
    day = date(2022, 1, 3) + timedelta(days=rng.randint(0, 400))
    events: list[tuple[str, str, str, date, Memory]] = []  # (speaker, event key, object, day, memory)

    def add(kind: str, title: str, description: str, body: str) -> Memory:
        memory = Memory(f"c{number}/{kind}/m{len(convo.memories):04d}", kind, title, description, body)
        convo.memories.append(memory)
        return memory

    pet_memory = {s: add("user", f"{s}'s pet", f"{s} has a dog called {pets[s]}", f"{s} adopted {pets[s]}, a rescue dog, a few years ago.") for s in (a, b)}
    for session in range(1, sessions + 1):
        day += timedelta(days=rng.randint(3, 12))
        for speaker in (a, b):
            for _ in range(rng.randint(4, 7)):
                key, phrase, _ = rng.choice(EVENTS)
                obj = rng.choice(OBJECTS[key])
                happened = day - timedelta(days=rng.randint(0, 2))
                sentence = phrase.format(o=obj, f=rng.choice(FRIENDS), p=pets[speaker])
                memory = add(
                    "user", f"{speaker} {phrase.split(' ')[0]} {obj}"[:80],
                    f"{speaker} {sentence} on {written(happened)}",
                    f"{speaker} {sentence} on {written(happened)}. Mentioned in session {session} ({written(day)}).",
                )
                events.append((speaker, key, obj, happened, memory))
            for _ in range(rng.randint(10, 14)):
                talk = rng.choice(SMALL_TALK).format(s=speaker, p=pets[speaker], f=rng.choice(FRIENDS))
                add("user", f"{speaker} small talk, session {session}", talk, f"{talk} (session {session}, {written(day)}).")
    _questions(convo, rng, events, pet_memory, pets, names)
    return convo


def _ask(convo: Conversation, text: str, evidence: tuple[Memory, ...], tag: str, names: frozenset[str]) -> bool:
    """Add the question when it shares at most one content word with each of its evidence memories."""
    if any(len(shared_content_words(text, _memory_text(m), names)) > 1 for m in evidence):
        return False
    convo.questions.append(Question(text, tuple(m.key for m in evidence), tag, convo.number))
    return True


def _questions(convo: Conversation, rng: random.Random, events: list, pet_memory: dict, pets: dict, names: frozenset[str]) -> None:
    a, b = convo.speakers
    # The memories of one (speaker, event, object): any of them answers a question about it.
    groups: dict[tuple[str, str, str], list[tuple[date, Memory]]] = {}
    for speaker, key, obj, happened, memory in events:
        groups.setdefault((speaker, key, obj), []).append((happened, memory))
    days: dict[tuple[str, date], int] = {}
    for speaker, _, _, happened, _ in events:
        days[(speaker, happened)] = days.get((speaker, happened), 0) + 1
    order = sorted(groups)
    rng.shuffle(order)
    both = {(k, o) for s, k, o in groups if s == a} & {(k, o) for s, k, o in groups if s == b}
    counts = {"single-hop": 0, "temporal": 0, "speaker": 0}
    pet_keys = ("vet", "walk", "toy")
    for speaker, key, obj in order:
        if key in pet_keys:
            continue
        found = groups[(speaker, key, obj)]
        evidence = tuple(m for _, m in found)
        verb = rng.choice(Q_VERBS[key])
        paraphrase = Q_OBJECTS[obj]
        # One shared word at most: the object's head noun, or nothing but the paraphrase.
        thing = rng.choice([f"the {head_noun(obj)}", paraphrase]) if key != "gift" else paraphrase
        if (key, obj) in both and counts["speaker"] < 30 and rng.random() < 0.5:
            # The other speaker did the very same: only the name says whose memory answers.
            if _ask(convo, f"When did {speaker} {verb} {thing}?", evidence, "speaker", names):
                counts["speaker"] += 1
            continue
        if counts["single-hop"] < 40 and rng.random() < 0.5:
            if _ask(convo, f"Did {speaker} ever {verb} {thing}?", evidence, "single-hop", names):
                counts["single-hop"] += 1
            continue
        if counts["temporal"] < 40:
            shifted = rng.choice(("when", "before", "after", "on"))
            happened, memory = rng.choice(found)
            if shifted == "when":
                text, evidence = f"When did {speaker} {verb} {thing}?", evidence
            elif days[(speaker, happened)] > 1:
                continue
            elif shifted == "on":
                text, evidence = f"What did {speaker} do on {american(happened)}?", (memory,)
            else:
                anchor = happened + timedelta(days=7 if shifted == "before" else -7)
                text, evidence = f"What did {speaker} get up to the week {shifted} {written(anchor)}?", (memory,)
            if _ask(convo, text, evidence, "temporal", names):
                counts["temporal"] += 1
    # Multi-hop: the question says "her dog"; the memories that answer name the dog, which only
    # the pet memory links to the speaker's dog.
    for speaker in (a, b):
        for key, text in (("vet", "Why did {s} bring her dog to the animal clinic?"), ("walk", "Where does {s} take her dog out?"),
                          ("toy", "What did {s} get for her dog?")):
            evidence = tuple(m for s, k, _, _, m in events if s == speaker and k == key)
            if evidence:
                _ask(convo, text.format(s=speaker), evidence, "multi-hop", names)
    for activity in rng.sample(NEVER, 8):
        _ask(convo, f"When did {rng.choice((a, b))} {activity}?", (), "adversarial", names)
    # A speaker swapped: what one did, asked of the other, who never did it.
    for speaker, key, obj in order:
        other = b if speaker == a else a
        if key not in pet_keys and (other, key, obj) not in groups:
            _ask(convo, f"When did {other} {rng.choice(Q_VERBS[key])} {Q_OBJECTS[obj]}?", (), "adversarial", names)
            if sum(q.tag == "adversarial" for q in convo.questions) >= 25:
                break
