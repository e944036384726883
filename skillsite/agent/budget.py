"""How much of a catalog fits the skill listings agents put in their prompts, and which
skills a model could not tell apart (standard library only).

Agents cap the listing: Claude Code at about 1% of the context window (about 8,000
characters at 200k tokens) with one ``- name: description`` line per skill (its documentation:
a skill's ``when_to_use`` is appended to its description there, the two cut at 1,536
characters), Codex at 8,000 characters (the description alone), some runtimes at 30,000
characters of ``<available_skills>`` XML.  Skills are listed in prompt order (``always`` first,
then priority, then id) until the next does not fit.

Both functions take manifest entries, or the JSON objects ``skillsite budget`` has (a
catalog's ``skills``, or what it makes of a folder of skills: id, name, description,
priority, visibility and ``extra``'s ``when_to_use``), read as :class:`ListedSkill`.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

from skillsite.agent.catalog_format import offered_to_model, prompt_order
from skillsite.agent.entry import DEFAULT_VISIBILITY, ManifestEntry, Triggers, Visibility, shared
from skillsite.agent.prompt_xml import available_skills_xml, one_line
from skillsite.search.terms import tokenize


@dataclass(frozen=True, slots=True)  # no dict each: a build lists every skill of the catalog
class ListedSkill:
    """What a listing shows of a skill, read from a JSON object that may hold no more."""

    id: str
    name: str
    description: str
    priority: int = 0
    visibility: Visibility = DEFAULT_VISIBILITY
    triggers: Triggers | None = None
    #: Claude Code's ``when_to_use`` (in the manifest's ``extra``), which its listing appends to the description
    when_to_use: str | None = None
    #: its description's search terms (:func:`description_terms`) when whoever lists it has them
    #: already: the build keeps them with each skill's check, so a rebuild tokenises no unchanged
    #: description again; None: worked out from the description
    terms: tuple[str, ...] | None = field(default=None, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ListedSkill:
        """``id``, ``name`` and ``description`` are needed; priority and visibility flags default
        (a copy of another skill says so: it is listed as that one, never on its own)."""
        vis = data.get("visibility")
        flags = [isinstance(vis, dict) and vis.get(k) is True for k in ("hidden", "user_invocable_only", "always")]
        copy_of = vis.get("copy_of") if isinstance(vis, dict) else None
        priority, extra = data.get("priority"), data.get("extra")
        visibility = Visibility(*flags, copy_of=copy_of if isinstance(copy_of, str) and copy_of else None)
        when = extra.get("when_to_use") if isinstance(extra, dict) else None
        return cls(data["id"], data["name"], data["description"],
                   priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
                   shared(visibility, DEFAULT_VISIBILITY), Triggers.from_json(data.get("triggers")),
                   when if isinstance(when, str) else None)


Listable = Union[ManifestEntry, ListedSkill]


def description_terms(description: str) -> tuple[str, ...]:
    """The search terms of a description, as the look-alike scores read them."""
    return tuple(tokenize(description))


def listed(entries: Sequence[Listable | Mapping[str, Any]]) -> list[Listable]:
    """Manifest entries and listed skills as they are, JSON objects as :class:`ListedSkill`."""
    return [e if isinstance(e, (ManifestEntry, ListedSkill)) else ListedSkill.from_json(e) for e in entries]


#: What Claude Code's listing shows of a skill's description and ``when_to_use`` at most (its documentation).
CLAUDE_CODE_ENTRY_CHARS = 1536


def _line(entry: Listable) -> str:
    """A skill's line in a listing of descriptions (Codex's)."""
    return f"- {entry.name}: {one_line(entry.description, 1024)}\n"


def claude_code_text(entry: Listable) -> str:
    """What Claude Code lists of a skill after its name: its description, with its ``when_to_use``
    (a string in the manifest's ``extra``) appended."""
    when = entry.when_to_use if isinstance(entry, ListedSkill) else entry.extra.get("when_to_use")
    return f"{entry.description} - {when}" if isinstance(when, str) and when.strip() else entry.description


def _claude_code_line(entry: Listable) -> str:
    """A skill's line in Claude Code's listing: ``when_to_use`` counts, the whole cut at 1,536 characters."""
    return f"- {entry.name}: {one_line(claude_code_text(entry), CLAUDE_CODE_ENTRY_CHARS)}\n"


#: How many of the skills (in prompt order, at their locations) a listing fits in a budget, with
#: how many more were withheld as above the default risk limit (which a listing may say).
Fitting = Callable[[Sequence[Listable], Sequence[str], int, int], int]


def _fitting(line: Callable[[Listable], str]) -> Fitting:
    """How many skills a listing of one ``line`` each fits in a budget, in their order."""
    def fitting(entries: Sequence[Listable], locations: Sequence[str], budget: int, withheld: int = 0) -> int:
        used = 0
        for count, entry in enumerate(entries):
            used += len(line(entry))
            if used > budget:
                return count
        return len(entries)
    return fitting


def _fitting_xml(entries: Sequence[Listable], locations: Sequence[str], budget: int, withheld: int = 0) -> int:
    """How many skills an ``<available_skills>`` block fits (its notice of the ``withheld`` takes room too)."""
    return available_skills_xml(entries, locations, budget, withheld=withheld).count("<skill>\n")


@dataclass(frozen=True)
class AgentBudget:
    """One agent's listing: its name, size limit and how it lists skills."""

    agent: str
    budget: int
    fitting: Fitting


AGENT_BUDGETS = (
    AgentBudget("claude-code", 8000, _fitting(_claude_code_line)),
    AgentBudget("codex", 8000, _fitting(_line)),
    AgentBudget("available_skills-30k", 30000, _fitting_xml),
)


@dataclass(frozen=True)
class BudgetFit:
    """How a catalog fits one agent's listing."""

    agent: str
    budget: int
    listed: int                 # skills offered to a model
    fit: tuple[str, ...]        # ids listed with their full description
    cut: tuple[str, ...]        # ids left out of the listing

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "budget": self.budget, "listed": self.listed, "fit": len(self.fit),
                "cut": list(self.cut)}


def catalog_block_budget(prompt_budget: int) -> AgentBudget:
    """The catalog's own available_skills.xml, of ``prompt_budget`` characters."""
    return AgentBudget("available_skills.xml", prompt_budget, _fitting_xml)


def budget_fits(entries: Sequence[ManifestEntry | Mapping[str, Any]], locations: dict[str, str],
                more: Sequence[AgentBudget] = (), withheld: int = 0) -> list[BudgetFit]:
    """For every known agent budget and those of ``more``, which skills offered to a model fit its
    listing (``withheld``: how many more the caller left out as above the default risk limit)."""
    shown = prompt_order(listed(entries))
    where = [locations.get(e.id, e.id) for e in shown]
    ids = [e.id for e in shown]
    fits = []
    for agent in (*AGENT_BUDGETS, *more):
        count = agent.fitting(shown, where, agent.budget, withheld)
        fits.append(BudgetFit(agent.agent, agent.budget, len(shown), tuple(ids[:count]), tuple(ids[count:])))
    return fits


# ---------------------------------------------------------------- descriptions a model cannot tell apart

SIMILAR_SCORE = 0.8           # cosine similarity of the descriptions' weighted terms
COMMON_SHARE = 0.05           # terms in more than this share of descriptions (and of at least
MIN_COMMON = 50               # this many), or in more than MAX_COMMON, tell nothing apart and are
MAX_COMMON = 500              # left out of the scores (a fixed most keeps the work linear past 10,000)


def common_limit(descriptions: int) -> int:
    """Descriptions a term may be in and still count in the scores."""
    return min(MAX_COMMON, max(MIN_COMMON, int(COMMON_SHARE * descriptions)))


@dataclass(frozen=True)
class DescriptionWeights:
    """Each description's stemmed search terms and its tf-idf weights (normalised to length 1),
    and in how many descriptions each term is."""

    descriptions: list[str]
    terms: list[list[str]]
    vectors: list[dict[str, float]]
    frequency: dict[str, int]

    @classmethod
    def of(cls, descriptions: list[str], last: DescriptionWeights | None = None,
           known: Sequence[tuple[str, ...] | None] = ()) -> DescriptionWeights:
        """The weights of ``descriptions``; from ``last`` (those of as many descriptions, some
        since edited), only the edited ones are read again and only the weights of those
        sharing a term whose frequency moved are worked out again: the others are the same.
        ``known``: each description's terms (:func:`description_terms`) where they are known
        already, or None."""
        def terms_of(i: int) -> list[str]:
            given = known[i] if i < len(known) else None
            return list(given) if given is not None else tokenize(descriptions[i])

        if last is None or len(last.descriptions) != len(descriptions):
            terms = [terms_of(i) for i in range(len(descriptions))]
            frequency = _document_frequency(terms)
            return cls(descriptions, terms, [_vector(words, frequency, len(terms)) for words in terms], frequency)
        edited = {i for i, (before, now) in enumerate(zip(last.descriptions, descriptions)) if before != now}
        if not edited:
            return last
        terms, frequency, moved = list(last.terms), dict(last.frequency), set()
        for i in edited:
            before, terms[i] = set(terms[i]), terms_of(i)
            _count(frequency, before - set(terms[i]), -1)
            _count(frequency, set(terms[i]) - before, 1)
            moved |= before.symmetric_difference(terms[i])
        vectors = [_vector(words, frequency, len(terms)) if i in edited or not moved.isdisjoint(words)
                   else last.vectors[i] for i, words in enumerate(terms)]
        return cls(descriptions, terms, vectors, frequency)


def _document_frequency(terms: Sequence[list[str]]) -> dict[str, int]:
    """In how many of the descriptions (their terms) each term is."""
    frequency: dict[str, int] = {}
    for words in terms:
        _count(frequency, set(words), 1)
    return frequency


def _count(frequency: dict[str, int], words: Iterable[str], step: int) -> None:
    """Add ``step`` to the frequency of each of ``words`` (a term in no description left out)."""
    for word in words:
        frequency[word] = frequency.get(word, 0) + step
        if not frequency[word]:
            del frequency[word]


def _vector(words: Sequence[str], frequency: Mapping[str, int], descriptions: int) -> dict[str, float]:
    """A description's terms as tf-idf weights, normalised to length 1."""
    weights: dict[str, float] = {}
    for word in words:
        weights[word] = weights.get(word, 0.0) + math.log(1 + descriptions / frequency[word])
    norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
    return {word: w / norm for word, w in weights.items()}


def _same_terms(terms: Sequence[list[str]]) -> list[list[int]]:
    """The descriptions grouped by their search terms (indexes, ascending; groups in order of
    their first): descriptions with the same terms have the same weights, so one stands for all."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, words in enumerate(terms):
        groups.setdefault(tuple(words), []).append(index)
    return list(groups.values())


def similar_pairs(entries: Sequence[Listable | Mapping[str, Any]], threshold: float = SIMILAR_SCORE
                  ) -> list[tuple[float, str, str]]:
    """Pairs of skills offered to a model whose descriptions are so alike (score >=
    ``threshold``) that it cannot tell them apart: ``(score, id, id)``, most alike first.

    Scores sum over the terms two descriptions share: the terms many descriptions use are left
    out (:func:`common_limit`), and a description is compared only with those that share one of
    its rarer terms (:class:`Similarity`), so the work grows with the catalog, not its square;
    one description's scores are held at a time, so memory grows with the catalog only.  Copies
    (the same search terms, as public directories hold many) are scored once, and score 1 with
    each other even when all their terms are common ones.  (The build scores the groups of
    :class:`Similarity` on every core.)
    """
    similarity = Similarity.of(entries, threshold)
    return most_alike_first(similarity.pairs_of(a) for a in range(len(similarity.groups)))


def most_alike_first(found: Iterable[list[tuple[float, str, str]]]) -> list[tuple[float, str, str]]:
    """The pairs of every group (:meth:`Similarity.pairs_of`), most alike first, then by ids."""
    return sorted((pair for pairs in found for pair in pairs), key=lambda pair: (-pair[0], pair[1], pair[2]))


#: A description's commonest terms are left out of the candidate index while their norm stays
#: under this share of the threshold.  Up to the whole threshold would be exact too; leaving a
#: margin indexes a few more terms, and the partial scores they give then rule out most
#: candidates before their exact score is summed.
UNINDEXED_SHARE = 0.9
_ROUNDING = 1e-9  # partial scores are summed in another order than exact ones


@dataclass(frozen=True)
class Similarity:
    """What scoring a catalog's descriptions needs (:func:`similar_pairs`): the skills offered to
    a model, grouped by their search terms (copies), one tf-idf vector a group, and an index of
    each group's rarer terms.

    The index follows the prefix filter of all-pairs similarity search (Bayardo, Ma and
    Srikant, "Scaling up all pairs similarity search", WWW 2007): vectors have length at most 1,
    so the terms of ``b`` left out of the index add at most their norm (``unindexed[b]``) to any
    score with ``b`` (Cauchy-Schwarz).  That norm is kept under the threshold, so a description
    that scores at least the threshold with ``b`` shares one of ``b``'s indexed terms, and the
    index finds every such pair."""

    shown: list[Listable]
    groups: list[list[int]]                      # indexes into ``shown``
    has_terms: list[bool]                        # one a group: its description has search terms
    vectors: list[dict[str, float]]              # one a group, its scored terms (common ones left out)
    index: dict[str, list[tuple[int, float]]]    # term -> (group, weight), ascending groups
    unindexed: list[float]                       # one a group: the norm of its terms not in ``index``
    threshold: float
    weights: DescriptionWeights                  # one a description shown

    @classmethod
    def of(cls, entries: Sequence[Listable | Mapping[str, Any]], threshold: float,
           last: Similarity | None = None) -> Similarity:
        """The scoring of ``entries``; ``last``: an earlier one, whose weights are taken for the
        descriptions an edit left alone (see :meth:`DescriptionWeights.of`)."""
        shown = [e for e in listed(entries) if offered_to_model(e)]
        weights = DescriptionWeights.of([e.description for e in shown], last.weights if last is not None else None,
                                        [e.terms if isinstance(e, ListedSkill) else None for e in shown])
        groups = _same_terms(weights.terms)
        vectors = [weights.vectors[group[0]] for group in groups]
        limit = common_limit(len(shown))  # the terms of more descriptions count in no score
        frequency = {word: count for word, count in weights.frequency.items() if count <= limit}
        scored = [{word: weight for word, weight in vector.items() if word in frequency} for vector in vectors]
        index, unindexed = _rarer_terms_index(scored, frequency, UNINDEXED_SHARE * min(threshold, 1.0))
        return cls(shown, groups, [bool(v) for v in vectors], scored, index, unindexed, threshold, weights)

    def pairs_of(self, a: int) -> list[tuple[float, str, str]]:
        """The pairs of group ``a``: its copies with each other, and its descriptions with those
        of every later group that scores at least the threshold."""
        shown, group, found = self.shown, self.groups[a], []
        if self.has_terms[a] and self.threshold <= 1.0:  # copies of a description that has search terms
            found += _within_group(shown, group)
        for b in self.candidates(a):
            score = self.score(a, b)
            if score >= self.threshold:
                found.append(_across_groups(shown, score, group, self.groups[b]))
        return found

    def signature(self, group: int) -> tuple[Any, ...]:
        """All a group's pairs depend on: its members' ids, whether its description has terms,
        and its scored weights in the order its scores are summed."""
        return (tuple(self.shown[x].id for x in self.groups[group]), self.has_terms[group],
                tuple(self.vectors[group].items()))

    def candidates(self, a: int, later: bool = True) -> list[int]:
        """The later groups (any other group, unless ``later``) that may score at least the
        threshold with ``a``, ascending: those sharing an indexed term with it whose indexed
        terms' score, plus the most the others can add, reaches the threshold."""
        partial: dict[int, float] = {}
        after = (a, math.inf) if later else (-1, math.inf)
        for word, weight in self.vectors[a].items():
            entries = self.index.get(word)
            if entries is None:
                continue
            for b, other in entries[bisect.bisect_right(entries, after):]:
                partial[b] = partial.get(b, 0.0) + weight * other
        partial.pop(a, None)
        least = self.threshold - _ROUNDING
        return sorted(b for b, score in partial.items() if score + self.unindexed[b] >= least)

    def score(self, a: int, b: int) -> float:
        """The score of groups ``a`` and ``b``, summed in the order of ``a``'s terms (the same
        float whichever way the pair was found)."""
        mine, theirs = self.vectors[a], self.vectors[b]
        score = 0.0
        for word, weight in mine.items():
            if word in theirs:
                score += weight * theirs[word]
        return score


@dataclass(frozen=True)
class ChangedPairs:
    """The pairs of a catalog's descriptions after some of them changed, from the pairs found
    before: a group whose :meth:`Similarity.signature` is unchanged keeps its pairs with every
    other such group (the same weights summed in the same order give the same score), and only
    the pairs of the other groups are looked for again (:meth:`pairs_of`).  An edited
    description changes the weights of the descriptions sharing a term it gained or lost (their
    idf moved), so those are found again too."""

    similarity: Similarity
    changed: frozenset[int]                  # groups of ``similarity`` whose pairs are found again
    kept: list[tuple[float, str, str]]       # the pairs found before between unchanged groups

    @classmethod
    def between(cls, before: Similarity, pairs: Iterable[Sequence[Any]], after: Similarity) -> ChangedPairs | None:
        """What ``after`` needs found again, given ``before`` and its ``pairs``; None when every
        pair must be (another threshold, or other skills offered, or in another order: every
        weight or every group's place may have moved)."""
        if before.threshold != after.threshold or [e.id for e in before.shown] != [e.id for e in after.shown]:
            return None
        unchanged = {before.signature(group) for group in range(len(before.groups))}
        changed = frozenset(g for g in range(len(after.groups)) if after.signature(g) not in unchanged)
        changed_ids = {after.shown[x].id for g in changed for x in after.groups[g]}
        kept = [(score, first, second) for score, first, second in pairs
                if first not in changed_ids and second not in changed_ids]
        return cls(after, changed, kept)

    def pairs_of(self, a: int) -> list[tuple[float, str, str]]:
        """The pairs of changed group ``a``: its copies with each other, and its descriptions with
        those of every unchanged group and every later changed group that scores at least the
        threshold (scored in the order of the earlier group, as :meth:`Similarity.pairs_of`)."""
        similarity, found = self.similarity, []
        shown, group = similarity.shown, similarity.groups[a]
        if similarity.has_terms[a] and similarity.threshold <= 1.0:
            found += _within_group(shown, group)
        for b in similarity.candidates(a, later=False):
            if b in self.changed and b < a:
                continue  # found as a pair of ``b``
            first, second = min(a, b), max(a, b)
            score = similarity.score(first, second)
            if score >= similarity.threshold:
                found.append(_across_groups(shown, score, similarity.groups[first], similarity.groups[second]))
        return found


def _within_group(shown: Sequence[Listable], group: Sequence[int]) -> list[tuple[float, str, str]]:
    """The pairs of one group's descriptions (the same search terms): each but the first with the
    first.  Every one of them is said once, and N copies of a description make N - 1 pairs, not
    N(N - 1)/2 (2,000 skills of one description made two million)."""
    return [(1.0, shown[group[0]].id, shown[y].id) for y in group[1:]]


def _across_groups(shown: Sequence[Listable], score: float, first: Sequence[int], second: Sequence[int]
                   ) -> tuple[float, str, str]:
    """The pair of two groups that score alike: their first descriptions (the others are paired
    with those in their own groups), one pair however large the groups."""
    return (round(score, 3), *_id_pair(shown, first[0], second[0]))


def _id_pair(shown: Sequence[Listable], x: int, y: int) -> tuple[str, str]:
    """The ids of descriptions ``x`` and ``y``, the earlier one first."""
    return (shown[x].id, shown[y].id) if x < y else (shown[y].id, shown[x].id)


def _rarer_terms_index(vectors: Sequence[dict[str, float]], frequency: Mapping[str, int], most: float
                       ) -> tuple[dict[str, list[tuple[int, float]]], list[float]]:
    """Each term's (vector, weight) for the vectors that index it (:func:`_split` at ``most``),
    ascending vectors, and the norm of each vector's terms left out."""
    index: dict[str, list[tuple[int, float]]] = {}
    unindexed = []
    for number, vector in enumerate(vectors):
        indexed, norm = _split(vector, frequency, most)
        unindexed.append(norm)
        for word in indexed:
            index.setdefault(word, []).append((number, vector[word]))
    return index, unindexed


def _split(vector: dict[str, float], frequency: Mapping[str, int], most: float) -> tuple[list[str], float]:
    """The terms of ``vector`` to index, and the norm of the others: its commonest terms are
    left out while their norm stays under ``most`` (nothing is when ``most`` <= 0)."""
    by_commonness = sorted(vector, key=lambda word: (-frequency[word], word))
    left_out = 0.0  # their squared norm
    for position, word in enumerate(by_commonness):
        squared = left_out + vector[word] * vector[word]
        if most <= 0 or squared >= most * most:
            return by_commonness[position:], math.sqrt(left_out)
        left_out = squared
    return [], math.sqrt(left_out)
