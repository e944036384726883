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
    ["closestTags", "highlightRanges", "loadIndex", "queryWords", "searchIndex", "searchText"]);
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
  const [n1] = core.queryWords(lunr, "n+1");
  assert.deepEqual(n1.parts.map((p) => p.text), ["n", "1"]);
  assert.deepEqual(n1.starts, ["n+1"]);            // one-letter parts begin too much to look for
});

test("queryWords: a lone letter after other words is a whole word, not a prefix", () => {
  const words = core.queryWords(lunr, "fuzzing c");
  assert.deepEqual(words.map((w) => [w.text, w.prefix, w.whole]), [["fuzzing", false, false], ["c", false, true]]);
  assert.equal(core.queryWords(lunr, "c")[0].prefix, true);   // alone, it is a prefix
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
