// Unit tests of the catalog search's ranking core (templates/static/ranking.js), with real
// lunr.js 2.3.9 from the repository's node_modules, on small catalogs made here.
//
//   node --test tests/js/ranking.test.js
//
// Run by tests/integration/test_browser_query.py (so by the README's test command); node's
// own test runner (node:test, node:assert), nothing to install beyond `npm ci`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const REPO = path.resolve(__dirname, "..", "..");
const CORE = path.join(REPO, "templates", "static", "ranking.js");
const lunr = require(process.env.LUNR_JS || path.join(REPO, "node_modules", "lunr"));
const core = require(CORE);

// A small catalog, as docs.json's rows become on the page ({id, name, description, tags}).
const DOCS = [
  { id: "docker-image-slimming", name: "docker-image-slimming", description: "Make Docker images smaller and faster to pull.", tags: ["docker", "containers"] },
  { id: "sql-migration-review", name: "sql-migration-review", description: "Review database migrations before they run in production.", tags: ["database", "migrations"] },
  { id: "prod-db-restore", name: "prod-db-restore", description: "Restore the production database from a backup.", tags: ["database", "backup"] },
  { id: "mcp-audit", name: "mcp-audit", description: "Audit mcp.json server configs and N+1 queries.", tags: ["security"] },
  { id: "release-manager", name: "release-manager", description: "Deploy a release: changelog, version bump, tag.", tags: ["release", "git"] },
  { id: "github-actions", name: "github-actions", description: "Write GitHub workflows for CI.", tags: ["ci"] },
];

// The same catalog indexed by lunr.js itself (fields and boosts as the build writes them).
function buildIndex(docs) {
  return lunr(function () {
    this.ref("ref");
    this.field("name", { boost: 3 });
    this.field("description");
    this.field("tags", { boost: 1.5 });
    docs.forEach((d, i) => this.add({ ref: String(i), name: d.name, description: d.description, tags: d.tags.join(" ") }));
  });
}
const SERIALIZED = JSON.parse(JSON.stringify(buildIndex(DOCS)));
const INDEX = core.loadIndex(lunr, SERIALIZED);

const ids = (hits) => hits.map((h) => DOCS[+h.ref].id);
const docs = () => DOCS.map((d) => ({ ...d }));   // searchText caches lower-cased fields on its docs

test("the module is the ranking core only: no DOM, and one API in node and in a page", () => {
  assert.deepEqual(Object.keys(core).sort(),
    ["ShardedIndex", "closestTags", "copiesInPlace", "folded", "highlightRanges", "loadIndex", "onePerGroup",
     "queryWords", "round6", "searchIndex", "searchText", "tokenize"]);
  const source = fs.readFileSync(CORE, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
  for (const name of ["document", "window", "location", "history", "fetch", "navigator", "performance"]) {
    assert.doesNotMatch(source, new RegExp("\\b" + name + "\\b"), `ranking.js uses ${name}`);
  }
  // As the page loads it (a classic script, no `module`): it defines SkillsiteRanking on the
  // global object, and runs in a context that has no DOM at all.
  const sandbox = vm.createContext({});
  vm.runInContext(fs.readFileSync(CORE, "utf8"), sandbox, { filename: CORE });
  const api = sandbox.SkillsiteRanking;
  assert.deepEqual(Object.keys(api).sort(), Object.keys(core).sort());
  const here = (value) => JSON.parse(JSON.stringify(value));     // arrays of the sandbox's realm
  assert.deepEqual(here(api.searchText(lunr, docs(), "database backup")), here(core.searchText(lunr, docs(), "database backup")));
  assert.deepEqual(ids(here(api.searchIndex(lunr, api.loadIndex(lunr, SERIALIZED), "restore"))), ["prod-db-restore"]);
});

test("queryWords: lower-cased, trimmed, stop words dropped, one word per stem", () => {
  const words = core.queryWords(lunr, "The (Docker) Images images of deploys");
  assert.deepEqual(words.map((w) => w.text), ["docker", "images", "deploys"]);
  assert.deepEqual(words.map((w) => w.stem), ["docker", "imag", "deploy"]);
  assert.deepEqual(words.map((w) => w.prefix), [false, false, true]);   // the last one is being typed
  assert.equal(core.queryWords(lunr, "docker images ").at(-1).prefix, false);   // a space ends it
  assert.deepEqual(core.queryWords(lunr, "the of and"), []);
  assert.deepEqual(core.queryWords(lunr, "  - "), []);
});

test("queryWords: words with punctuation inside are searched by their parts too", () => {
  const [mcp] = core.queryWords(lunr, "mcp.json ");
  assert.deepEqual(mcp.parts.map((p) => p.text), ["mcp", "json"]);
  assert.deepEqual(mcp.starts, ["mcp.json", "mcp", "json"]);
  const [name] = core.queryWords(lunr, "name:x");
  assert.deepEqual(name.parts.map((p) => p.text), ["name"]);          // one-letter parts are no terms
  assert.deepEqual(name.starts, ["name:x", "name"]);
});

test("queryWords: only a word the CLI's tokenizer makes a term of counts (no one-letter piece)", () => {
  for (const query of ["c", "c#", "a#b", "x?y", "n+1", "q - z", "fuzzing c"]) {
    const words = core.queryWords(lunr, query);
    assert.deepEqual(words.map((w) => w.text), query === "fuzzing c" ? ["fuzzing"] : [], query);
    assert.deepEqual(words.map((w) => core.tokenize(lunr, w.text).join(" ")), words.map((w) => w.stem), query);
  }
  assert.equal(core.queryWords(lunr, "fuzzing c")[0].prefix, false);   // the lone letter after it ended it
  assert.equal(core.queryWords(lunr, "fuzz")[0].prefix, true);
});

test("queryWords without lunr: no stop words, no stems", () => {
  assert.deepEqual(core.queryWords(null, "The Deploys").map((w) => [w.text, w.stem]), [["the", "the"], ["deploys", "deploys"]]);
});

test("searchText: every word optional, more and rarer words first, names weigh most", () => {
  assert.deepEqual(ids(core.searchText(lunr, docs(), "database")), ["sql-migration-review", "prod-db-restore"]);
  const both = core.searchText(lunr, docs(), "restore database wibblewobble");
  assert.deepEqual(ids(both).slice(0, 2), ["prod-db-restore", "sql-migration-review"]);   // an unknown word empties nothing
  assert.deepEqual(both.map((h) => h.words), [2, 1]);
  assert.deepEqual(ids(core.searchText(lunr, docs(), "migra")), ["sql-migration-review"]);   // being typed
  assert.deepEqual(ids(core.searchText(lunr, docs(), "docker")), ["docker-image-slimming"]);
  assert.deepEqual(core.searchText(lunr, docs(), "wibblewobble"), []);
  assert.deepEqual(core.searchText(lunr, docs(), ""), []);
  const scores = core.searchText(lunr, docs(), "release database").map((h) => h.score);
  assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
});

test("searchText: a score is the words' field weights times their idf, times the root of the share matched", () => {
  const idf = (df, n) => Math.log(1 + Math.abs((n - df + 0.5) / (df + 0.5)));   // lunr's BM25 idf
  const [hit] = core.searchText(lunr, docs(), "restore wibblewobble");
  // "restore" begins a word of prod-db-restore's name (weight 3) and of its description (1);
  // "wibblewobble" is in no skill: it only counts in the share of the query matched
  const share = idf(1, DOCS.length) / (idf(1, DOCS.length) + idf(0, DOCS.length));
  assert.equal(DOCS[hit.ref].id, "prod-db-restore");
  assert.ok(Math.abs(hit.score - 4 * idf(1, DOCS.length) * Math.sqrt(share)) < 1e-12, hit.score);
});

test("a word's stem of three letters or more is looked for as a word beginning", () => {
  assert.deepEqual(ids(core.searchText(lunr, docs(), "pulls ")), ["docker-image-slimming"]);   // pull...
  assert.deepEqual(ids(core.searchIndex(lunr, INDEX, "migr ")), ["sql-migration-review"]);      // unknown: migr*
  assert.deepEqual(core.searchIndex(lunr, INDEX, "mi "), []);                                    // too short
});

test("searchIndex: a word's own term weighs more than the longer terms it begins", () => {
  // "git" is a tag of release-manager; "github" is in github-actions' name and description
  assert.deepEqual(ids(core.searchIndex(lunr, INDEX, "git")), ["release-manager", "github-actions"]);
  assert.deepEqual(ids(core.searchIndex(lunr, INDEX, "git ")), ["release-manager"]);     // finished: itself only
});

test("loadIndex: lunr's own queries find what lunr.Index.load finds, scores and order", () => {
  const reference = lunr.Index.load(SERIALIZED);
  for (const q of ["database", "dock*", "restore backup", "name:release", "mcp", "+database +backup", "relea~1"]) {
    assert.deepEqual(INDEX.search(q).map((r) => [r.ref, r.score]), reference.search(q).map((r) => [r.ref, r.score]), q);
  }
});

test("searchIndex: the same ranking over lunr's BM25 scores", () => {
  const hits = core.searchIndex(lunr, INDEX, "restore database wibblewobble");
  assert.deepEqual(ids(hits).slice(0, 2), ["prod-db-restore", "sql-migration-review"]);
  assert.deepEqual(hits.map((h) => h.words), [2, 1]);
  assert.ok(hits[0].terms.restor && hits[0].terms.databas, JSON.stringify(hits[0].terms));
  assert.deepEqual(ids(core.searchIndex(lunr, INDEX, "migra")), ["sql-migration-review"]);   // the word being typed
  assert.deepEqual(ids(core.searchIndex(lunr, INDEX, "mcp.json")), ["mcp-audit"]);
  assert.deepEqual(ids(core.searchIndex(lunr, INDEX, "deploy")), ["release-manager"]);   // lunr.js's stem of "deploy"
  assert.deepEqual(core.searchIndex(lunr, INDEX, "the of"), []);
  assert.deepEqual(core.searchIndex(lunr, INDEX, "wibblewobble"), []);
});

test("highlightRanges: the words whose stem a result matched, or that begin with a start", () => {
  const text = "Restore the production database from a backup (databases too).";
  const [hit] = core.searchIndex(lunr, INDEX, "restoring databases");
  const marked = core.highlightRanges(lunr, text, hit.terms, null).map(([a, b]) => text.slice(a, b));
  assert.deepEqual(marked, ["Restore", "database", "databases"]);   // trimmed of "(" and ")"
  const typed = core.highlightRanges(lunr, text, null, ["prod", "back"]).map(([a, b]) => text.slice(a, b));
  assert.deepEqual(typed, ["production", "backup"]);
  const parts = "Audit mcp.json configs";
  assert.deepEqual(core.highlightRanges(lunr, parts, { json: true }, null).map(([a, b]) => parts.slice(a, b)), ["json"]);
  assert.deepEqual(core.highlightRanges(lunr, text, null, null), []);
});

test("highlightRanges: a run of symbols found is marked as other words, alone or beside a word", () => {
  const text = "Launch 🚀 checklists, ready🚀 (🚀) ©2024 👍🏽!";
  const marked = (terms, starts) => core.highlightRanges(lunr, text, terms, starts).map(([a, b]) => text.slice(a, b));
  assert.deepEqual(marked({ "🚀": true }, null), ["🚀", "🚀", "🚀"]);
  assert.deepEqual(marked({ "🚀": true, launch: true, readi: true }, null), ["Launch", "🚀", "ready", "🚀", "🚀"]);
  assert.deepEqual(marked({ "©": true, "👍🏽": true }, null), ["©", "👍🏽"]);
  assert.deepEqual(marked(null, ["🚀"]), ["🚀", "🚀", "🚀"]);      // the plain-text match's starts
  assert.deepEqual(marked({ "✓": true }, null), []);
  const inside = "a🚀b and ab🚀cd";                                  // inside a word marked whole: once
  assert.deepEqual(core.highlightRanges(lunr, inside, null, ["a🚀b", "🚀"]).map(([a, b]) => inside.slice(a, b)),
    ["a🚀b", "🚀"]);
});

test("closestTags: tags a misspelt or partial word is close to, closest then most used", () => {
  const counts = { docker: 3, database: 2, "disaster-recovery": 1, containers: 4, release: 4 };
  assert.deepEqual(core.closestTags(lunr, "dockr", counts).map((t) => t.tag), ["docker"]);
  assert.deepEqual(core.closestTags(lunr, "relese databse", counts).map((t) => [t.tag, t.count]), [["release", 4], ["database", 2]]);
  assert.deepEqual(core.closestTags(lunr, "disaster", counts).map((t) => t.tag), ["disaster-recovery"]);
  assert.deepEqual(core.closestTags(lunr, "data", counts).map((t) => t.tag), ["database"]);
  assert.deepEqual(core.closestTags(lunr, "zzzz", counts), []);
  assert.equal(core.closestTags(lunr, "d", counts).length, 0);        // one letter is too little
  const many = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`data${i}`, i]));
  assert.deepEqual(core.closestTags(lunr, "data", many, 3).map((t) => t.tag), ["data8", "data7", "data6"]);
});

test("closestTags: a tag's parts are its words, whatever punctuation joins them", () => {
  // U+2013 (en dash), U+2010 (hyphen), U+00B7 (middle dot): no letters, so they cut words as terms.words does
  const counts = { "ci\u2013cd": 3, "well\u2010known": 2, "node\u00b7js": 2, docker: 1 };
  assert.deepEqual(core.closestTags(lunr, "cd", counts).map((t) => t.tag), ["ci\u2013cd"]);
  assert.deepEqual(core.closestTags(lunr, "known", counts).map((t) => t.tag), ["well\u2010known"]);
  assert.deepEqual(core.closestTags(lunr, "js", counts).map((t) => t.tag), ["node\u00b7js"]);
  assert.deepEqual(core.closestTags(lunr, "hindi", { "हिन्दी–अनुवाद": 1, "हिन्दी": 2 }), []);
  assert.deepEqual(core.closestTags(lunr, "अनुवाद", { "हिन्दी–अनुवाद": 1, "हिन्दी": 2 }).map((t) => t.tag), ["हिन्दी–अनुवाद"]);
});

// ---------------------------------------------------------------- the sharded index (BM25F)

// Shard files made here, as skillsite.search.shard_writer writes them: ``terms`` maps a term to
// [idf, [[skill, weight], ...]], ``tags`` a tag to its skills; ``perChunk`` keys to a chunk.
function varints(docs) {
  const bytes = [];
  let previous = 0;
  for (const doc of docs) {
    let gap = doc - previous;
    previous = doc;
    while (gap >= 0x80) { bytes.push((gap & 0x7f) | 0x80); gap = Math.floor(gap / 128); }
    bytes.push(gap);
  }
  return bytes;
}

function makeShards(terms, tags, cards, perChunk) {
  const files = {};
  const chunkSet = (folder, keys, item) => {
    const first = [];
    for (let at = 0, n = 0; at < keys.length; at += perChunk, n++) {
      const part = keys.slice(at, at + perChunk);
      first.push(part[0]);
      files[`${folder}${String(n).padStart(4, "0")}.json`] = { index: "build-1", terms: part, ...item(part) };
    }
    return { path: folder, first };
  };
  const termKeys = Object.keys(terms).sort();
  const meta = {
    format: "skillsite-search-shards", version: 1, index: "build-1", weight_unit: 0.018039216,
    prefix: { factor: 0.5, min_length: 3, max_expansions: 50 }, docs: cards.length,
    terms: chunkSet("search/terms/", termKeys, (part) => ({
      df: part.map((t) => terms[t][1].length), idf: part.map((t) => terms[t][0]),
      postings: part.map((t) => Buffer.from([...varints(terms[t][1].map((p) => p[0])), ...terms[t][1].map((p) => p[1])])
        .toString("base64")),
    })),
    tags: chunkSet("search/tags/", Object.keys(tags).sort(), (part) => ({
      df: part.map((t) => tags[t].length), postings: part.map((t) => Buffer.from(varints(tags[t])).toString("base64")),
    })),
    cards: { path: "search/cards/", bucket: 2, per_folder: 1000,
             fields: ["id", "name", "description", "url", "tags", "risk", "listed", "offered"] },
  };
  for (let at = 0; at < cards.length; at += 2) {
    files[`search/cards/000/${String(at / 2).padStart(5, "0")}.json`] = {
      index: "build-1", first: at,
      cards: cards.slice(at, at + 2).map((c) => [c, c, `About ${c}.`, `skills/${c}/`, [], "none", c !== "d3", true]),
    };
  }
  return { meta, files };
}

const SHARDS = makeShards({
  deploy: [2.0, [[0, 200], [2, 100]]], deployment: [3.0, [[1, 255], [3, 40]]], deploymentz: [1.0, [[0, 255]]],
  docker: [1.5, [[2, 150], [3, 150]]], zebra: [4.0, [[4, 10]]],
}, { ops: [0, 2, 3], web: [3, 4] }, ["d0", "d1", "d2", "d3", "d4"], 2);

function open(shards, read) {
  const files = [];
  const index = new core.ShardedIndex(lunr, shards.meta, (rel) => {
    files.push(rel);
    return rel in shards.files ? Promise.resolve(read ? read(rel) : shards.files[rel]) : Promise.reject(new Error(rel));
  });
  return { index, files };
}

test("tokenize: as skillsite.search.terms.tokenize (letters and digits, no stop words or single letters, stems)", () => {
  assert.deepEqual(core.tokenize(lunr, "Deploying the Café keys to k8s, x-ray: n+1 😀s"),
    ["deploy", "café", "key", "k8", "ray", "😀"]);
  // then runs of symbols, as they are: with their marks, skin tones and joiners
  assert.deepEqual(core.tokenize(lunr, "🚀 ❤️ 👍🏽, 👨\u200d👩\u200d👧 ©2024 → ^_^"),
    ["2024", "🚀", "❤️", "👍🏽", "👨\u200d👩\u200d👧", "©"]);
  assert.deepEqual(core.tokenize(lunr, "the of and a"), []);
});

test("a word spelt decomposed (\"e\" + U+0301) is the composed one, as terms.folded makes it", () => {
  const decomposed = "Cafe\u0301 CRE\u0300ME", composed = "caf\u00e9 cr\u00e8me";
  assert.deepEqual(core.tokenize(lunr, decomposed), ["caf\u00e9", "cr\u00e8me"]);
  assert.deepEqual(core.queryWords(lunr, decomposed).map((w) => w.text), ["caf\u00e9", "cr\u00e8me"]);
  assert.deepEqual(core.tokenize(lunr, "J\u030cAM"), ["\u01f0am"]);      // lower-cased, then composed
  // the plain-text match, and the highlighting of a result spelt the other way
  const docs = [{ id: "menu", name: "menu", description: "A " + composed + " menu.", tags: [] },
                { id: "other", name: "other", description: "Nothing here.", tags: [] }];
  assert.deepEqual(core.searchText(lunr, docs, decomposed).map((h) => docs[h.ref].id), ["menu"]);
  const text = "Plans a Cafe\u0301 menu.";
  const marked = core.highlightRanges(lunr, text, { "caf\u00e9": true }, null).map(([a, b]) => text.slice(a, b));
  assert.deepEqual(marked, ["Cafe\u0301"]);
});

test("a word keeps its combining marks (Devanagari, Thai, Tamil, Bengali), as terms.words cuts it", () => {
  const words = ["\u0939\u093f\u0928\u094d\u0926\u0940", "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
                 "\u0ba4\u0bae\u0bbf\u0bb4\u0bcd", "\u09ac\u09be\u0982\u09b2\u09be"];   // हिन्दी สวัสดี தமிழ் বাংলা
  for (const word of words) {
    assert.deepEqual(core.tokenize(lunr, "(" + word + "), " + word + "!"), [word, word], word);
    assert.deepEqual(core.queryWords(lunr, word + "\u0964").map((w) => [w.text, w.parts.length]), [[word, 0]], word);
  }
  // a mark begins no word; VS16 (a mark) is the emoji's
  assert.deepEqual(core.tokenize(lunr, "\u0301ab love\u2764\ufe0f"), ["ab", "love", "\u2764\ufe0f"]);
  assert.deepEqual(core.queryWords(lunr, "\u2764\ufe0f").map((w) => w.text), ["\u2764\ufe0f"]);
  // found by the plain-text match and by lunr, and highlighted whole
  const hindi = words[0] + " \u092e\u0947\u0902 \u0905\u0928\u0941\u0935\u093e\u0926";   // हिन्दी में अनुवाद
  const docs = [{ id: "hindi", name: "hindi", description: hindi, tags: [] },
                { id: "thai", name: "thai", description: "\u0e41\u0e1b\u0e25 " + words[1], tags: [] },
                { id: "other", name: "other", description: "Nothing here.", tags: [] }];
  const index = core.loadIndex(lunr, JSON.parse(JSON.stringify(lunr(function () {
    this.pipeline.remove(lunr.trimmer);        // lunr.js's trimmer keeps ASCII letters only: the build trims instead
    this.ref("ref");
    this.field("description");
    docs.forEach((d, i) => this.add({ ref: String(i), description: d.description }));
  }))));
  for (const [query, id] of [[words[0], "hindi"], [words[1], "thai"], [words[0].slice(0, 4), "hindi"]]) {
    assert.deepEqual(core.searchText(lunr, docs.map((d) => ({ ...d })), query).map((h) => docs[h.ref].id), [id], query);
    const hits = core.searchIndex(lunr, index, query);
    assert.deepEqual(hits.map((h) => docs[h.ref].id), [id], query);
    const text = docs[hits[0].ref].description;
    const marked = core.highlightRanges(lunr, text, hits[0].terms, null).map(([a, b]) => text.slice(a, b));
    assert.deepEqual(marked, [id === "hindi" ? words[0] : words[1]], query);
  }
});

test("round6: Python's round(x, 6), half to even on the exact binary value", () => {
  assert.equal(core.round6(0.0078125), 0.007812);     // exactly half: to even
  assert.equal(core.round6(0.0234375), 0.023438);
  assert.equal(core.round6(1.23456751), 1.234568);
  assert.equal(core.round6(9.9999996), 10);
  assert.equal(core.round6(0), 0);
  assert.equal(core.round6(2.5e-7), 0);
});

test("ShardedIndex: a known term matches itself only; an unknown word its prefix range, across chunks", async () => {
  const { index, files } = open(SHARDS);
  const exact = await index.search("deploy", { k: 10 });
  assert.deepEqual(exact.map((h) => h.card.id), ["d0", "d2"]);
  assert.equal(exact[0].score, core.round6(200 * (2.0 * 0.018039216 * 1.0)));
  assert.deepEqual({ ...exact[0].terms }, { deploy: true });
  const prefix = await index.search("deplo", { k: 10 });  // deploy, deployment (next chunk), deploymentz
  assert.deepEqual(prefix.map((h) => h.card.id), ["d1", "d0", "d2", "d3"]);
  assert.equal(prefix[1].score, core.round6(200 * (2.0 * 0.018039216 * 0.5)));   // the best of d0's two terms
  assert.ok(files.includes("search/terms/0000.json") && files.includes("search/terms/0001.json"));
  assert.ok(!files.includes("search/terms/0002.json"));                            // zebra's chunk
  assert.deepEqual(await index.search("de", { k: 10 }), []);                       // too short to be a prefix
});

test("ShardedIndex: words add up, equal rounded scores go by skill number, tags and keep filter", async () => {
  const { index } = open(SHARDS);
  const both = await index.search("docker deploy", { k: 10 });
  assert.deepEqual(both.map((h) => h.card.id), ["d2", "d0", "d3"]);
  const tied = await index.search("docker", { k: 10 });
  assert.deepEqual(tied.map((h) => [h.card.id, h.score]), [["d2", tied[0].score], ["d3", tied[0].score]]);
  const tagged = await index.search("docker deploy", { k: 10, tags: ["OPS"] });
  assert.deepEqual(tagged.map((h) => h.card.id), ["d2", "d0", "d3"]);
  assert.deepEqual((await index.search("", { k: 10, tags: ["ops", "web"] })).map((h) => [h.card.id, h.score]), [["d3", 0]]);
  assert.deepEqual(await index.search("zebra", { k: 10, tags: ["nope"] }), []);
  const listed = await index.search("docker deploy", { k: 2, keep: (card) => card.listed });
  assert.deepEqual(listed.map((h) => h.card.id), ["d2", "d0"]);
  const ranked = await index.ranked("docker deploy", []);
  assert.equal(ranked.ranking.count, 3);
  assert.deepEqual(ranked.ranking.take(2).map((h) => h.doc), [2, 0]);
});

test("ShardedIndex: a tag is asked folded, as the writer keys it: any case, composed or decomposed", async () => {
  const cafe = "caf\u00e9";
  const { index } = open(makeShards({ docker: [1.5, [[0, 150], [1, 150]]] }, { [cafe]: [0, 2], cafe: [1] },
                                    ["d0", "d1", "d2"], 2));
  for (const tag of [cafe, "CAF\u00c9", "cafe\u0301", "CAFE\u0301"]) {
    assert.equal(core.folded(tag), cafe);
    assert.deepEqual((await index.search("", { k: 10, tags: [tag] })).map((h) => h.card.id), ["d0", "d2"], tag);
  }
  assert.deepEqual((await index.search("", { k: 10, tags: ["CAFE"] })).map((h) => h.card.id), ["d1"]);
});

test("ShardedIndex: a tag filter on an index without tags finds nothing and reads no tag chunk", async () => {
  const untagged = makeShards({ docker: [1.5, [[0, 150], [1, 150]]] }, {}, ["d0", "d1"], 2);
  assert.deepEqual(untagged.meta.tags.first, []);
  const { index, files } = open(untagged);
  assert.deepEqual((await index.search("docker", { k: 10 })).map((h) => h.card.id), ["d0", "d1"]);
  assert.deepEqual(await index.search("docker", { k: 10, tags: ["ops"] }), []);
  assert.deepEqual(await index.search("", { k: 10, tags: ["ops"] }), []);
  assert.ok(!files.some((rel) => rel.startsWith("search/tags/")), files.join(" "));
});

test("ShardedIndex: files of another build are refused, and a query that fails can be asked again", async () => {
  const { index } = open(SHARDS, (rel) => rel === "search/terms/0002.json" ? { ...SHARDS.files[rel], index: "build-2" } : SHARDS.files[rel]);
  await assert.rejects(index.search("zebra", { k: 3 }), /another build/);
  assert.deepEqual((await index.search("docker", { k: 3 })).map((h) => h.card.id), ["d2", "d3"]);
  assert.throws(() => new core.ShardedIndex(lunr, { ...SHARDS.meta, version: 2 }, () => null), /unknown search shards/);
});

test("ShardedIndex: a card file short or long by a row is refused as shard_query refuses it, no card taken", async () => {
  const bucket = (n) => `search/cards/000/0000${n}.json`;
  const edited = {
    [bucket(0)]: (data) => ({ ...data, cards: [...data.cards, ["wrong", "wrong", "Not d2.", "skills/wrong/", [], "none", true, true]] }),
    [bucket(1)]: (data) => ({ ...data, cards: data.cards.slice(0, 1) }),
    [bucket(2)]: (data) => ({ ...data, cards: [...data.cards, data.cards[0]] }),   // the last bucket holds one card
  };
  const { index } = open(SHARDS, (rel) => rel in edited ? edited[rel](SHARDS.files[rel]) : SHARDS.files[rel]);
  await assert.rejects(index.cards([0]), { message: "search/cards/000/00000.json does not hold cards 0 to 1" });
  await assert.rejects(index.cards([3]), { message: "search/cards/000/00001.json does not hold cards 2 to 3" });
  await assert.rejects(index.cards([4]), { message: "search/cards/000/00002.json does not hold cards 4 to 4" });
  assert.deepEqual(Object.keys(index.cardsOf), []);   // no card of a refused file: not its third row as d2
  const missing = open(SHARDS, (rel) => rel === bucket(1) ? { ...SHARDS.files[rel], cards: null } : SHARDS.files[rel]);
  await assert.rejects(missing.index.cards([2]), { message: "search/cards/000/00001.json does not hold cards 2 to 3" });
  const { index: whole } = open(SHARDS);
  assert.deepEqual((await whole.cards([2, 4])).map((c) => c.id), ["d2", "d4"]);
});

test("ShardedIndex: only the best are sorted, and a run of equal scores is never cut", async () => {
  const many = Array.from({ length: 150 }, (_, i) => `s${i}`);
  const postings = many.map((_, i) => [i, i % 3 === 0 ? 90 : 91]);          // two runs of equal scores
  const shards = makeShards({ common: [1.0, postings], rare: [5.0, [[149, 1]]] }, {}, many, 8);
  const { index } = open(shards);
  const expected = [...postings].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map((p) => p[0]);
  for (const k of [1, 10, 70, 100, 150]) {
    const hits = await index.search("common", { k });
    assert.deepEqual(hits.map((h) => h.card.doc), expected.slice(0, k), `k=${k}`);
  }
  const ranked = await index.ranked("common rare", []);
  assert.equal(ranked.ranking.count, 150);
  assert.equal(ranked.ranking.take(1)[0].doc, 149);
  assert.deepEqual(ranked.ranking.take(3).map((h) => h.doc), [149, 1, 2]);
  assert.deepEqual(ranked.ranking.take(120).map((h) => h.doc).slice(98, 101), [146, 148, 0]);
});


test("a group of copies is one result: its canonical member at the place of its best member", () => {
  const row = (n, copyOf) => ({ id: `s${n}`, row: n, copyOf, copies: copyOf >= 0 || n === 1 ? 3 : 1 });
  const rows = [row(0, -1), row(1, -1), row(2, 1), row(3, 1), row(4, -1)];
  const found = [rows[3], rows[0], rows[1], rows[2], rows[4]].map((doc) => ({ doc, terms: [doc.id], starts: null }));
  const shown = core.onePerGroup(found, rows);
  assert.deepEqual(shown.map((r) => r.doc.id), ["s1", "s0", "s4"]);   // s3 is a copy of s1: s1 takes its place
  assert.deepEqual(shown[0].terms, ["s3"]);                              // what matched, as the copy matched it
});

test("every copy shown: each at its own place, on a tie right after its canonical member", () => {
  // s1 is canonical, s2 and s3 its copies; scores: s0 5, then a tie of four, then s3 alone
  const hits = [["s0", 5, "s0"], ["s2", 3, "s1"], ["s4", 3, "s4"], ["s1", 3, "s1"], ["s5", 3, "s5"], ["s3", 1, "s1"]]
    .map(([id, score, group]) => ({ id, score, group }));
  const shown = core.copiesInPlace(hits, (h) => h.score, (h) => h.group, (h) => h.id);
  assert.deepEqual(shown.map((h) => h.id), ["s0", "s1", "s2", "s4", "s5", "s3"]);
  assert.deepEqual(core.copiesInPlace([], (h) => h.score, (h) => h.group, (h) => h.id), []);
});
