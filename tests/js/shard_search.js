#!/usr/bin/env node
// The catalog page's search over a sharded catalog (templates/static/ranking.js: ShardedIndex,
// the BM25F ranking the page runs when the catalog has search/shards.json), run in node on a
// built catalog's files, counting what it reads. Prints one JSON document on stdout.
//
//   node tests/js/shard_search.js SITE [QUERIES_JSON | -] [--k N] [--tag TAG]... [--max-risk R] [--listed]
//       -> {"docs": N, "hits": [[{"id", "score", "marks"}, ...], ...], "files": [[path, ...], ...]}
//
//   one list of hits per query, best first, at most N (default 10); "marks", the words of the
//   result's name and description the page highlights; "files", what each query read (a fresh
//   index per query: what a page that just opened would fetch). --max-risk keeps the skills at
//   most that risky (as the loader does, default: every one); --listed only those the site lists
//   (as the page does).
"use strict";

const fs = require("fs");
const path = require("path");

const REPO = path.resolve(__dirname, "..", "..");
const lunr = require(process.env.LUNR_JS || path.join(REPO, "node_modules", "lunr"));
const page = require(path.join(REPO, "templates", "static", "ranking.js"));
const RISKS = ["none", "low", "medium", "high"];

function fail(message) {
  process.stderr.write(`shard_search.js: ${message}\n`);
  process.exit(2);
}

function parse(argv) {
  const options = { k: 10, tags: [], maxRisk: "high", listed: false, args: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--k") options.k = parseInt(argv[++i], 10);
    else if (argv[i] === "--tag") options.tags.push(argv[++i]);
    else if (argv[i] === "--max-risk") options.maxRisk = argv[++i];
    else if (argv[i] === "--listed") options.listed = true;
    else options.args.push(argv[i]);
  }
  if (!options.args[0] || !(options.k > 0) || RISKS.indexOf(options.maxRisk) < 0) {
    fail("usage: shard_search.js SITE [QUERIES_JSON | -] [--k N] [--tag TAG]... [--max-risk R] [--listed]");
  }
  return options;
}

async function main(argv) {
  const options = parse(argv);
  const [site, queriesArg] = options.args;
  const text = queriesArg === undefined || queriesArg === "-" ? fs.readFileSync(0, "utf8") : queriesArg;
  const queries = JSON.parse(text);
  if (!Array.isArray(queries) || !queries.every((q) => typeof q === "string")) fail("expected a JSON list of strings");
  const read = (rel) => JSON.parse(fs.readFileSync(path.join(site, rel), "utf8"));
  const section = read("skills.json").search;
  if (!section || !section.sharded) fail(`${site} has no sharded search index`);
  const meta = read(section.sharded);
  const keep = (card) => RISKS.indexOf(card.risk) <= RISKS.indexOf(options.maxRisk) && (card.listed || !options.listed);
  const out = { docs: meta.docs, hits: [], files: [] };
  for (const query of queries) {
    const files = [];
    const index = new page.ShardedIndex(lunr, meta, (rel) => { files.push(rel); return Promise.resolve(read(rel)); });
    const hits = await index.search(query, { k: options.k, tags: options.tags, keep: keep });
    out.hits.push(hits.map((hit) => {
      const marks = [];
      for (const field of [hit.card.name, hit.card.description]) {
        for (const [start, end] of page.highlightRanges(lunr, field, hit.terms, null)) marks.push(field.slice(start, end));
      }
      return { id: hit.card.id, score: hit.score, marks: marks };
    }));
    out.files.push(files);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main(process.argv.slice(2)).catch((e) => fail(e.stack || String(e)));
