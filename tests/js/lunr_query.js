#!/usr/bin/env node
// Run real lunr.js 2.3.9 (from the repo's node_modules) for parity tests with
// the Python `lunr` package. Prints one JSON document on stdout.
//
//   node tests/js/lunr_query.js search INDEX.json [QUERIES_JSON | -]
//       -> [[{"ref": "...", "score": 1.23}, ...], ...]   one list per query
//          (a query lunr.js cannot parse gives {"error": "..."} in its place)
//   node tests/js/lunr_query.js search-page INDEX.json [QUERIES_JSON | -]
//       -> the same, with the index loaded by the catalog page's own loader
//          (loadIndex of templates/static/ranking.js) instead of lunr.Index.load
//   node tests/js/lunr_query.js stem [WORDS_JSON | -]
//       -> ["deploy", "key", ...]   lunr.stemmer(new lunr.Token(word)) per word
//   node tests/js/lunr_query.js pipeline [TEXTS_JSON | -]
//       -> [["token", ...], ...]    lunr.tokenizer + trimmer + stopWordFilter
//          + stemmer per text, as lunr.Builder indexes a field
//   node tests/js/lunr_query.js version
//       -> "2.3.9"
//
// QUERIES_JSON / WORDS_JSON / TEXTS_JSON is a JSON list of strings given as the
// argument, or read from stdin when the argument is "-" or missing.
// LUNR_JS may name another lunr.js file or package folder to load instead.
"use strict";

const fs = require("fs");
const path = require("path");

const REPO = path.resolve(__dirname, "..", "..");
const lunrPath = process.env.LUNR_JS || path.join(REPO, "node_modules", "lunr");
const lunr = require(lunrPath);

function fail(message) {
  process.stderr.write(`lunr_query.js: ${message}\n`);
  process.exit(2);
}

function readList(arg) {
  const text = arg === undefined || arg === "-" ? fs.readFileSync(0, "utf8") : arg;
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    fail(`not JSON: ${e.message}`);
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    fail("expected a JSON list of strings");
  }
  return value;
}

function search(indexPath, queries, load = (data) => lunr.Index.load(data)) {
  const serialized = JSON.parse(fs.readFileSync(indexPath, "utf8"));
  const idx = load(serialized);
  return queries.map((q) => {
    try {
      return idx.search(q).map((r) => ({ ref: r.ref, score: r.score }));
    } catch (e) {
      return { error: `${e.name}: ${e.message}` };
    }
  });
}

function stem(words) {
  return words.map((w) => lunr.stemmer(new lunr.Token(w)).toString());
}

function pipeline(texts) {
  const p = new lunr.Pipeline();
  p.add(lunr.trimmer, lunr.stopWordFilter, lunr.stemmer);
  return texts.map((t) => p.run(lunr.tokenizer(t)).map((tok) => tok.toString()));
}

function main(argv) {
  const [mode, ...rest] = argv;
  let out;
  switch (mode) {
    case "search":
      if (!rest[0]) fail("usage: search INDEX.json [QUERIES_JSON | -]");
      out = search(rest[0], readList(rest[1]));
      break;
    case "search-page": {
      // the same, with the index loaded as the catalog's page loads it (templates/static/ranking.js)
      if (!rest[0]) fail("usage: search-page INDEX.json [QUERIES_JSON | -]");
      const page = require(path.join(REPO, "templates", "static", "ranking.js"));
      out = search(rest[0], readList(rest[1]), (data) => page.loadIndex(lunr, data));
      break;
    }
    case "stem":
      out = stem(readList(rest[0]));
      break;
    case "pipeline":
      out = pipeline(readList(rest[0]));
      break;
    case "version":
      out = lunr.version;
      break;
    default:
      fail("usage: lunr_query.js search|search-page|stem|pipeline|version ...");
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main(process.argv.slice(2));
