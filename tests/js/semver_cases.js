#!/usr/bin/env node
// Answer version-range questions with npm's `semver` package (node-semver, from the repo's
// node_modules), for the parity test of skillsite.agent.semver
// (tests/integration/test_semver_parity.py). Prints one JSON document on stdout.
//
//   node tests/js/semver_cases.js < CASES.json
//
// CASES.json:
//   {"pairs": [[VERSION, RANGE], ...],       -> "satisfies", "satisfies_pre" (includePrerelease)
//    "ranges": [RANGE, ...],                 -> "valid_range", "valid_range_pre" (null: invalid)
//    "max": [[[VERSION, ...], RANGE], ...],  -> "max_satisfying"
//    "versions": [TEXT, ...],                -> "valid" (canonical version or null)
//    "sort": [[VERSION, ...], ...]}          -> "sort" (semver.sort: ascending precedence)
// plus "semver": the package's own version.
"use strict";

const fs = require("fs");
const path = require("path");

const REPO = path.resolve(__dirname, "..", "..");
const semver = require(path.join(REPO, "node_modules", "semver"));
const pkg = require(path.join(REPO, "node_modules", "semver", "package.json"));

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const pre = { includePrerelease: true };

process.stdout.write(JSON.stringify({
  semver: pkg.version,
  satisfies: (input.pairs || []).map(([v, r]) => semver.satisfies(v, r)),
  satisfies_pre: (input.pairs || []).map(([v, r]) => semver.satisfies(v, r, pre)),
  valid_range: (input.ranges || []).map((r) => semver.validRange(r)),
  valid_range_pre: (input.ranges || []).map((r) => semver.validRange(r, pre)),
  max_satisfying: (input.max || []).map(([vs, r]) => semver.maxSatisfying(vs, r)),
  valid: (input.versions || []).map((v) => semver.valid(v)),
  sort: (input.sort || []).map((vs) => semver.sort(vs.slice())),
}) + "\n");
