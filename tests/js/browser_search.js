#!/usr/bin/env node
// The catalog page's own search (templates/static/ranking.js: searchIndex, searchText), run
// by real lunr.js 2.3.9 (the repository's node_modules) on a built catalog's search files.
// Prints one JSON document on stdout.
//
//   node tests/js/browser_search.js SITE [QUERIES_JSON | -] [--k N]
//       -> {"docs": N, "fields": [lunr.json's fields],
//           "lunr": [[{"id", "score", "words", "marks"}, ...], ...],   what the page shows
//                                                                      once search/lunr.json is loaded
//           "text": [[{"id", "score", "words", "marks"}, ...], ...]}   its quick plain-text match
//                                                                      over search/docs.json, before
//       one list per query, best first, at most N (default 10) each; "marks" are the words of
//       the result's name and description the page highlights (lunr's: the index terms the result
//       matched; the plain-text match's: the word beginnings it looked for).
//
// SITE is a folder `skillsite build` wrote (search/lunr.json, search/docs.json); QUERIES_JSON a
// JSON list of strings given as the argument, or read from stdin when it is "-" or missing.
// The index is loaded with the page's own loader (ranking.js's loadIndex).
"use strict";

const fs = require("fs");
const path = require("path");

const REPO = path.resolve(__dirname, "..", "..");
const lunr = require(process.env.LUNR_JS || path.join(REPO, "node_modules", "lunr"));
const page = require(path.join(REPO, "templates", "static", "ranking.js"));

function fail(message) {
  process.stderr.write(`browser_search.js: ${message}\n`);
  process.exit(2);
}

function main(argv) {
  let k = 10;
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--k") k = parseInt(argv[++i], 10);
    else args.push(argv[i]);
  }
  const [site, queriesArg] = args;
  if (!site || !(k > 0)) fail("usage: browser_search.js SITE [QUERIES_JSON | -] [--k N]");
  const text = queriesArg === undefined || queriesArg === "-" ? fs.readFileSync(0, "utf8") : queriesArg;
  let queries;
  try {
    queries = JSON.parse(text);
  } catch (e) {
    fail(`not JSON: ${e.message}`);
  }
  if (!Array.isArray(queries) || !queries.every((q) => typeof q === "string")) fail("expected a JSON list of strings");

  const data = JSON.parse(fs.readFileSync(path.join(site, "search", "lunr.json"), "utf8"));
  const docsData = JSON.parse(fs.readFileSync(path.join(site, "search", "docs.json"), "utf8"));
  const at = {};
  docsData.fields.forEach((name, i) => { at[name] = i; });
  const docs = docsData.docs.map((row) => ({
    id: row[at.id], name: row[at.name], description: row[at.description], tags: row[at.tags] || [],
  }));
  const index = page.loadIndex(lunr, data);

  const marked = (doc, terms, starts) => {
    const words = [];
    for (const field of [doc.name, doc.description]) {
      for (const [start, end] of page.highlightRanges(lunr, field, terms, starts)) words.push(field.slice(start, end));
    }
    return words;
  };
  const out = { docs: docs.length, fields: index.fields, lunr: [], text: [] };
  for (const query of queries) {
    out.lunr.push(page.searchIndex(lunr, index, query).slice(0, k).map((hit) => {
      const doc = docs[+hit.ref];
      return { id: doc.id, score: hit.score, words: hit.words, marks: marked(doc, hit.terms, null) };
    }));
    const starts = [].concat(...page.queryWords(lunr, query).map((word) => word.starts));    // as search.js's hits
    out.text.push(page.searchText(lunr, docs, query).slice(0, k).map((hit) => (
      { id: docs[hit.ref].id, score: hit.score, words: hit.words, marks: marked(docs[hit.ref], null, starts) })));
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main(process.argv.slice(2));
