/* skillsite catalog search, the ranking core: tokenizing queries, building lunr queries,
   scoring and combining, highlighting, the closest tags of an empty result. Pure functions
   over lunr.js 2.3.9 (passed in as ``lunr``; null: no stop words, no stems) and plain data:
   no DOM, no browser object, nothing from the page.

   Both rankings work the same way, so the list does not jump when lunr's comes after the
   plain-text match: every word is optional (lunr's stop words dropped), a skill's score is the
   sum of its words' scores times the square root of the share of the query (by idf) it
   matches, and the word still being typed also matches as a prefix. A word no skill uses
   changes nothing but that share, the same for every skill: it never empties the list.

   - searchText: the plain-text match over search/docs.json's rows, before the index arrives;
   - searchIndex: lunr's ranking over search/lunr.json (loaded by loadIndex);
   - highlightRanges: the parts of a text to highlight for a result;
   - closestTags: the tags closest to a query that found nothing.

   The home page loads it (after lunr.min.js, before search.js, the page's script) as
   window.SkillsiteRanking; node requires it (module.exports): tests/js/browser_search.js,
   tests/js/ranking.test.js and benchmarks/search_quality.py run the very functions the
   page runs. */
(function (global) {
  "use strict";

  var EXACT_BOOST = 10;     // a word's own (stemmed) term, against 1 for each term it is a prefix of
  var MIN_PREFIX = 3;       // an unknown word of this many letters or more also matches as a prefix (as bm25.py)
  var FIELD_WEIGHTS = { name: 3, description: 1, tags: 1.5 };   // the plain-text match's fields

  /* lunr.Index.load(data), with the set of terms built as a plain trie. lunr's own builder also
     minimises it (merges common word endings), which is most of the load time and changes
     nothing a search finds: both accept the same words and list each node's edges in the same
     (sorted) order, so expanded terms, scores and ties come out identically
     (tests/integration/test_lunr_parity.py checks it with lunr.js). */
  function loadIndex(lunr, data) {
    var root = new lunr.TokenSet();
    var invertedIndex = Object.create(null);
    var fieldVectors = Object.create(null);
    var terms = data.invertedIndex;
    for (var t = 0; t < terms.length; t++) {
      var term = terms[t][0];
      var node = root;
      for (var i = 0; i < term.length; i++) {
        var ch = term.charAt(i);
        node = node.edges[ch] || (node.edges[ch] = new lunr.TokenSet());
      }
      node.final = true;
      invertedIndex[term] = terms[t][1];
    }
    var vectors = data.fieldVectors;
    for (var v = 0; v < vectors.length; v++) fieldVectors[vectors[v][0]] = new lunr.Vector(vectors[v][1]);
    return new lunr.Index({
      invertedIndex: invertedIndex, fieldVectors: fieldVectors, tokenSet: root,
      fields: data.fields, pipeline: lunr.Pipeline.load(data.pipeline)
    });
  }

  /* ------------------------------------------------------------ ranking */

  var SEPARATOR = /[\s\-]+/;          // lunr.tokenizer.separator
  var PUNCTUATION = /[!-\/:-@\[-`{-~]+/;   // ASCII punctuation, inside a word: "mcp.json", "n+1"
  /* The words of terms.words in a word of a text as it is written (any case): "mcp.json",
     "l’intelligence", "well‐known" or "emoji🎉party" hold two; ASCII punctuation cuts where the
     browser has no Unicode property escapes. */
  var WORD_PART = /[^!-\/:-@\[-`{-~]+/g;
  try {
    WORD_PART = new RegExp("[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}]*", "gu");
  } catch (e) { /* keep the ASCII one */ }

  /* A word trimmed as the index writer trims it (lunr_index.WORD_CORE): from its first word
     character (a letter, digit or "_": Python's \w, so "café" stays "café") to its last one and
     the combining marks after it ("हिन्दी" ends with a mark; "love❤️" keeps "love"); lunr.js's own
     trimmer (ASCII \w) where the browser has no Unicode property escapes. */
  var CORE = /\w(?:[^]*\w)?/;
  try {
    CORE = new RegExp("[\\p{L}\\p{N}_](?:[^]*[\\p{L}\\p{N}_])?\\p{M}*", "u");
  } catch (e) { /* keep the ASCII one */ }

  function wordChar(c) { return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95; }

  function trimmed(word) {
    var core = CORE.exec(word);
    return core ? core[0] : "";
  }

  /* Without regular expressions while both ends are ASCII (nearly every word: this runs on every
     word of every result drawn). */
  function trim(word) {
    var start = 0, end = word.length, c;
    for (; start < end; start++) {
      c = word.charCodeAt(start);
      if (c > 127) return trimmed(word);
      if (wordChar(c)) break;
    }
    for (; end > start; end--) {
      c = word.charCodeAt(end - 1);
      if (c > 127) return trimmed(word);
      if (wordChar(c)) break;
    }
    return start === 0 && end === word.length ? word : word.slice(start, end);
  }

  /* terms.folded: lower-cased, then composed (NFC), so "cafe" + U+0301 and "café" are one word (and
     one tag), as the indexes were written; only lower-cased where the browser has no
     String.prototype.normalize. */
  var NON_ASCII = /[^\x00-\x7f]/;
  function folded(text) {
    var lowered = String(text).toLowerCase();
    return lowered.normalize && NON_ASCII.test(lowered) ? lowered.normalize("NFC") : lowered;
  }

  function stemmer(lunr) {
    var cache = Object.create(null);
    return function (word) {
      var s = cache[word];
      if (s === undefined) s = cache[word] = lunr ? lunr.stemmer(new lunr.Token(word)).toString() : word;
      return s;
    };
  }
  var stemOf = null;     // the shared stem cache, once lunr is known

  function stems(lunr) {
    if (!stemOf || stemOf.lunr !== lunr) { stemOf = stemmer(lunr); stemOf.lunr = lunr; }
    return stemOf;
  }

  /* How many code points ``text`` holds, as Python's len() counts them: a letter past U+FFFF
     ("𠀀", "𝔘") is one, where String.length counts its two UTF-16 units. */
  function codePoints(text) {
    return Array.from(text).length;
  }

  /* The beginnings a word of a skill must have to match ``word`` in the plain-text match: its
     stem when it begins the word ("polici" of "policies"), else the word (and its stem). */
  function startsOf(word, s) {
    var long = codePoints(s) >= MIN_PREFIX;
    var starts = long && word.indexOf(s) === 0 ? [s] : [word];
    if (word.indexOf(s) !== 0 && long) starts.push(s);
    return starts;
  }

  /* The words of a query: lower-cased and composed (folded), cut as lunr's tokenizer cuts text,
     trimmed as the index was, one per stem, and only those that hold a term of the CLI's
     tokenizer (terms.tokenize: a run of two letters or digits or more that is no stop word), so
     the page finds what `skillsite search` and the sharded page find: "c#", "a#b" or a lone "x" are no words. Each
     is {text, stem, parts, starts, prefix}: ``parts``, those runs of a word with punctuation
     inside ("name:stripe", "mcp.json"), searched as alternatives of the word; ``starts``, what
     the plain-text match looks for (startsOf, of the word and its parts); ``prefix``, true for
     the query's last word when nothing follows it, not even a space (it is still being typed).
     Without lunr: no stop words, no stems. */
  /* What a search reads of its query, as `skillsite search`, the loader and MCP read it
     (catalog_search.MAX_QUERY_CHARS): its first 4,000 characters (code points, as Python counts). */
  var MAX_QUERY_CHARS = 4000;

  function readQuery(text) {
    text = String(text);
    return text.length <= MAX_QUERY_CHARS ? text : Array.from(text).slice(0, MAX_QUERY_CHARS).join("");
  }

  function queryWords(lunr, text) {
    text = readQuery(text);
    var stem = stems(lunr);
    var keep = function (w) { return !lunr || lunr.stopWordFilter(w) !== undefined; };
    var words = [], seen = Object.create(null), tokens = withGluedSymbols(folded(text).split(SEPARATOR)), typed = null;
    tokens.forEach(function (token, at) {
      // "*" is lunr's wildcard, never part of a term; inside a word it cuts it, as in the CLI ("docx*pdf")
      var trimmed = trim(token) || symbolRuns(token).join(""), word = trimmed.replace(/\*/g, "");
      var runs = termWords(trimmed).filter(function (run) { return longEnough(run) && keep(run); });
      if (!runs.length && !symbolRuns(word).length || !keep(word)) return;
      var s = stem(word);
      if (seen[s]) return;
      seen[s] = true;
      var starts = startsOf(word, s);
      var parts = runs.length <= 1 && (runs[0] || word) === word ? [] : runs.map(function (part) {
        var ps = stem(part);
        starts.push.apply(starts, startsOf(part, ps));
        return { text: part, stem: ps };
      });
      words.push({ text: word, stem: s, parts: parts, starts: starts, prefix: false });
      if (at === tokens.length - 1) typed = words[words.length - 1];
    });
    if (typed) typed.prefix = true;    // the last token: "" when the query ends with a space or hyphen
    return words;
  }

  /* ``tokens`` with the runs of symbols of each token that has a letter or digit too ("wow🚀")
     before it, a token each: trimming keeps the token's letters only, and `skillsite search` makes
     a term of each run (the index holds them so: lunr_index.glued_symbols). Before it, so the
     last token is still the word being typed. */
  function withGluedSymbols(tokens) {
    var out = [];
    tokens.forEach(function (token) {
      if (SYMBOLS && NON_ASCII.test(token) && trim(token)) out.push.apply(out, symbolRuns(token));
      out.push(token);
    });
    return out;
  }

  /* BM25's idf of a word found in ``df`` of ``n`` skills (lunr's formula). */
  function idf(df, n) {
    return Math.log(1 + Math.abs((n - df + 0.5) / (df + 0.5)));
  }

  /* Sum the words' scores per skill, weigh by the share of the query matched, best first. */
  function combine(perWord, n, keyOf) {
    var byKey = Object.create(null), results = [], total = 0;
    perWord.forEach(function (hits) {
      var weight = idf(hits.length, n);
      total += weight;
      hits.forEach(function (hit) {
        var key = keyOf(hit);
        var r = byKey[key];
        if (!r) {
          r = byKey[key] = { ref: key, score: 0, matched: 0, words: 0, terms: Object.create(null) };
          results.push(r);
        }
        r.score += hit.score;
        r.matched += weight;
        r.words += 1;
        if (hit.terms) for (var term in hit.terms) r.terms[term] = true;
      });
    });
    results.forEach(function (r) { r.score *= Math.sqrt(total > 0 ? r.matched / total : 1); });
    results.sort(function (a, b) { return b.score - a.score || a.ref - b.ref; });
    return results;
  }

  function documentCount(index) {
    if (index.__skillsiteDocs === undefined) {
      var fields = index.fields.length || 1;
      index.__skillsiteDocs = Math.max(1, Math.round(Object.keys(index.fieldVectors).length / fields));
    }
    return index.__skillsiteDocs;
  }

  /* lunr's ranking of ``text``: [{ref, score, words, terms}], best first (ref: the lunr ref, a row
     of docs.json; words: how many query words it matched; terms: the index terms it matched,
     for highlighting). One lunr query per word, over every field of the index (index.fields,
     with their boosts applied at index time: name, description, tags, tools, triggers when the
     index has them): the word's stemmed term (boost EXACT_BOOST), plus, for the word being
     typed (``prefix``), every term it begins, and for a word (or a part of one, as "terraf" of
     "x_terraf") the index does not know, every term its stem begins. */
  function searchIndex(lunr, index, text) {
    var words = queryWords(lunr, text);
    if (!words.length) return [];
    var trailing = lunr.Query.wildcard.TRAILING;
    var perWord = words.map(function (word) {
      var known = word.stem in index.invertedIndex || word.parts.some(function (p) { return p.stem in index.invertedIndex; });
      var hits = index.query(function (q) {
        q.term(word.text, { boost: EXACT_BOOST });
        word.parts.forEach(function (part) {
          q.term(part.text, { boost: EXACT_BOOST });
          // a part the index does not know ("terraf" of "x_terraf", still being typed): the terms its
          // stem begins, as a word's (and as `skillsite search` and the sharded page expand a term)
          if (!(part.stem in index.invertedIndex) && codePoints(part.stem) >= MIN_PREFIX) {
            q.term(part.stem, { usePipeline: false, wildcard: trailing, boost: 1 });
          }
        });
        if (word.prefix) q.term(word.text, { usePipeline: false, wildcard: trailing, boost: 1 });
        if (!known && codePoints(word.stem) >= MIN_PREFIX && !(word.prefix && word.stem === word.text)) {
          q.term(word.stem, { usePipeline: false, wildcard: trailing, boost: 1 });
        }
      });
      return hits.map(function (h) {
        return { ref: h.ref, score: h.score, terms: h.matchData.metadata };
      });
    });
    return combine(perWord, documentCount(index), function (hit) { return hit.ref; });
  }

  var hasOwn = Object.prototype.hasOwnProperty;

  function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  function lowerFields(d) {
    if (!d.__fields) {
      d.__fields = [folded(d.name + " " + d.id), folded(d.description || ""), folded((d.tags || []).join(" "))];
    }
    return d.__fields;
  }

  /* Where a word of terms.words may begin: not after a letter, digit or combining mark of any
     script ("tude" is not in "étude", nor "rich" in "zürich"); after ASCII ones only where the
     browser has no Unicode property escapes. */
  var WORD_START = { before: "(?:^|[^a-z0-9])", flags: "" };
  try {
    new RegExp("\\p{L}", "u");
    WORD_START = { before: "(?:^|[^\\p{L}\\p{N}\\p{M}])", flags: "u" };
  } catch (e) { /* keep the ASCII one */ }

  /* What the plain-text match looks for: a word's start (WORD_START: "ready" is not in
     "already"), a run of symbols anywhere ("🚀" of "ready🚀" is a term of its own, as tokenize cuts
     it), and so a pair of CJK letters (each letter of a run begins one); a CJK letter alone, where
     no other stands before or after it ("库" of "Python库", not of "库存"). */
  function startsPattern(starts) {
    var lone = function (s) { return WORD_START.flags === "u" && isCjkStart(s) && codePoints(s) === 1; };
    var anywhere = function (s) { return isSymbolRun(s) || (isCjkStart(s) && !lone(s)); };
    var symbols = starts.filter(anywhere), letters = starts.filter(lone);
    var words = starts.filter(function (s) { return !anywhere(s) && !lone(s); });
    var alternatives = symbols.map(escapeRegExp);
    if (letters.length) {   // a CJK letter that is a run of its own, whatever is around it
      alternatives.push("(?:^|[^" + CJK_LETTERS + "])(?:" + letters.map(escapeRegExp).join("|") + ")(?![" +
                        CJK_LETTERS + "])");
    }
    if (words.length) alternatives.unshift(WORD_START.before + "(?:" + words.map(escapeRegExp).join("|") + ")");
    return new RegExp(alternatives.join("|"), WORD_START.flags);
  }

  function isSymbolRun(text) {
    var runs = symbolRuns(text);
    return runs.length === 1 && runs[0] === text;
  }

  /* The plain-text match, before lunr.json arrives (or without it): ``docs`` are {id, name,
     description, tags}; a word matches a skill that has a word beginning with one of its
     ``starts`` in its name or id, description or tags (FIELD_WEIGHTS), weighed by its idf over
     ``docs``, then as searchIndex. [{ref, score, words}], ref the position in ``docs``. */
  function searchText(lunr, docs, text) {
    var words = queryWords(lunr, text);
    if (!words.length) return [];
    var weights = [FIELD_WEIGHTS.name, FIELD_WEIGHTS.description, FIELD_WEIGHTS.tags];
    var perWord = words.map(function (word) {
      var re = startsPattern(word.starts);
      var hits = [];
      for (var i = 0; i < docs.length; i++) {
        var fields = lowerFields(docs[i]), score = 0;
        for (var f = 0; f < 3; f++) if (re.test(fields[f])) score += weights[f];
        if (score) hits.push({ ref: i, score: score });
      }
      var weight = idf(hits.length, docs.length);
      hits.forEach(function (h) { h.score *= weight; });
      return hits;
    });
    return combine(perWord, docs.length, function (hit) { return hit.ref; });
  }

  /* [start, end) of the words of ``text`` to highlight: cut as lunr cuts text, trimmed as lunr
     trims, a word is marked when its stem is one of ``terms`` (index terms a result matched) or
     it begins with one of ``starts``; so is a run of symbols ("🚀", a term as it is: symbolRuns),
     which trimming takes off a word. */
  function highlightRanges(lunr, text, terms, starts) {
    var stem = stems(lunr);
    var ranges = [];
    var firstTwo = Object.create(null), anyTerm = false;
    for (var term in terms || {}) { firstTwo[term.slice(0, 2)] = true; anyTerm = true; }
    var matches = function (word) {
      word = folded(word);
      for (var i = 0; starts && i < starts.length; i++) if (word.indexOf(starts[i]) === 0) return true;
      return anyTerm && firstTwo[word.slice(0, 2)] === true && hasOwn.call(terms, stem(word));
    };
    var re = /[^\s\-]+/g, m, part;
    while ((m = re.exec(text)) !== null) {
      var found = [], core = trim(m[0]), at = m.index + m[0].indexOf(core), cjk = hasCjk(core);
      if (core && !cjk && matches(core)) {
        found.push([at, at + core.length]);
      } else if (core && (cjk || PUNCTUATION.test(core) || NON_ASCII.test(core))) {   // "l'été": its parts, as queried
        WORD_PART.lastIndex = 0;
        while ((part = WORD_PART.exec(core)) !== null) {
          if (hasCjk(part[0])) cjkMarks(part[0], at + part.index, matches).forEach(function (r) { found.push(r); });
          else if (matches(part[0])) found.push([at + part.index, at + part.index + part[0].length]);
        }
      }
      if (SYMBOLS && NON_ASCII.test(m[0])) found = withSymbols(found, m[0], m.index, matches);
      ranges.push.apply(ranges, found);
    }
    return ranges;
  }

  /* The ranges of ``word`` (at ``offset`` of a text, holding CJK letters) that ``matches``
     accepts, as cjkPairs cuts it: the pairs of its runs of CJK letters, overlapping ones joined
     ("数据分析" of "用于数据分析" for the terms "数据", "据分", "分析"; not the whole run, which begins
     with "用于"), and the words between runs. */
  function cjkMarks(word, offset, matches) {
    var ranges = [], at = 0, run;
    var add = function (start, end, text) {
      if (!matches(text)) return;
      var last = ranges[ranges.length - 1];
      if (last && start < last[1]) last[1] = end;
      else ranges.push([start, end]);
    };
    var between = function (from, to) {
      var piece, words = new RegExp(TERM_WORD.source, TERM_WORD.flags), text = word.slice(from, to);
      while ((piece = words.exec(text)) !== null) {
        add(offset + from + piece.index, offset + from + piece.index + piece[0].length, piece[0]);
      }
    };
    CJK_RUN.lastIndex = 0;
    while ((run = CJK_RUN.exec(word)) !== null) {
      var end = run.index + run[0].length;
      between(at, run.index);
      pairsOf(run[0], offset + run.index).forEach(function (pair) { add(pair.start, pair.end, pair.text); });
      at = end;
      CJK_RUN.lastIndex = end;   // where this loop goes on, whatever ``matches`` searched meanwhile
    }
    between(at, word.length);
    return ranges;
  }

  /* ``found`` (the ranges marked in ``token``, a word of a text at ``offset``) with the token's
     runs of symbols that ``matches`` accepts and no range of ``found`` overlaps, in text order. */
  function withSymbols(found, token, offset, matches) {
    var out = found.slice(), run;
    SYMBOLS.lastIndex = 0;
    while ((run = SYMBOLS.exec(token)) !== null) {
      var start = offset + run.index, end = start + run[0].length;
      var overlaps = found.some(function (r) { return r[0] < end && start < r[1]; });
      if (!overlaps && matches(run[0])) out.push([start, end]);
    }
    SYMBOLS.lastIndex = 0;
    return out.sort(function (x, y) { return x[0] - y[0]; });
  }

  /* Levenshtein distance between two lists of letters (code points, so a letter past U+FFFF is
     one edit, not two), or ``limit + 1`` once it is over ``limit``. */
  function editDistance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var prev = [], cur, i, j;
    for (j = 0; j <= b.length; j++) prev[j] = j;
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (cur[j] < best) best = cur[j];
      }
      if (best > limit) return limit + 1;
      prev = cur;
    }
    return prev[b.length];
  }

  /* The tags closest to the words of a query that found nothing: ``counts`` maps each tag to its
     number of skills; a tag is close when one of its parts (its words, as terms.words cuts them:
     "ci–cd" and "well‐known" hold two) begins with a word or the word with it, or is a word
     misspelt by one or two letters. Lengths and edits count letters (code points), as Python
     does. At most ``limit``, closest first, then the most used. */
  function closestTags(lunr, text, counts, limit) {
    var words = queryWords(lunr, text).map(function (w) { return spelled(w.text); })
      .filter(function (w) { return w.size >= 2; });
    var found = [];
    Object.keys(counts).forEach(function (tag) {
      var parts = termWords(folded(tag)).concat([folded(tag)]).map(spelled);
      var best = 0;
      words.forEach(function (w) {
        parts.forEach(function (p) { best = Math.max(best, closeness(w, p)); });
      });
      if (best > 0) found.push({ tag: tag, score: best, count: counts[tag] });
    });
    found.sort(function (a, b) { return b.score - a.score || b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0); });
    return found.slice(0, limit || 6);
  }

  /* A word as closestTags compares it: its text, its letters (code points) and how many. */
  function spelled(text) {
    var letters = Array.from(text);
    return { text: text, letters: letters, size: letters.length };
  }

  /* How close tag part ``p`` is to query word ``w`` (both spelled): 1 the same word, 0.8 when
     one begins the other, 0.6 or 0.5 when misspelt by one or two letters, else 0. */
  function closeness(w, p) {
    if (p.text === w.text) return 1;
    if ((p.text.indexOf(w.text) === 0 && w.size >= 2) || (w.text.indexOf(p.text) === 0 && p.size >= 3)) return 0.8;
    if (w.size < 4 || p.size < 3) return 0;
    var limit = w.size >= 7 ? 2 : 1, d = editDistance(w.letters, p.letters, limit);
    return d <= limit ? 0.7 - 0.1 * d : 0;
  }

  /* ------------------------------------------------------------ the sharded index (BM25F)

     A catalog of more than shard_above skills has no lunr index: the page searches its sharded
     BM25F index (search/shards.json, then the chunks of the query's words, then the cards of the
     results shown), ranking exactly as skillsite.search.shard_query does, so the page, the
     loader, `skillsite search` and `skillsite mcp` give the same results with the same scores:
     the same terms (tokenize), the same floats added in the same order, the same rounding. */

  /* terms.words: a run of letters and digits with the combining marks inside and after it
     ("हिन्दी", "สวัสดี": Devanagari, Thai, Tamil or Bengali marks have no precomposed form). */
  var TERM_WORD = /[a-z0-9]+/g;      // where the browser has no Unicode property escapes
  var SYMBOLS = null;                // terms.symbol_runs: none without them
  try {
    TERM_WORD = new RegExp("[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}]*", "gu");
    SYMBOLS = new RegExp("\\p{So}[\\p{So}\\p{Sk}\\p{M}\\u200D]*", "gu");
  } catch (e) { /* keep the ASCII one */ }

  /* terms.CJK_LETTERS: the letters of the scripts written without spaces between words (Han,
     Hiragana, Katakana, Hangul), in runs; none where the browser has no Unicode expressions. */
  var CJK_LETTERS = "\\u3005-\\u3007\\u3021-\\u3029\\u3038-\\u303b" +
                    "\\u3041-\\u3096\\u309d-\\u309f\\u30a1-\\u30fa\\u30fc-\\u30ff\\u31f0-\\u31ff" +
                    "\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\u{20000}-\\u{3134f}" +
                    "\\uac00-\\ud7a3\\uff66-\\uff9f";
  var CJK_RUN = null, CJK_ANY = null, CJK_START = null;
  try {
    CJK_RUN = new RegExp("[" + CJK_LETTERS + "]+", "gu");
    CJK_ANY = new RegExp("[" + CJK_LETTERS + "]", "u");
    CJK_START = new RegExp("^[" + CJK_LETTERS + "]", "u");
  } catch (e) { /* no pairs */ }

  /* Whether ``text`` begins with a CJK letter; whether it holds one. */
  function isCjkStart(text) { return CJK_START !== null && CJK_START.test(text); }
  function hasCjk(text) { return CJK_ANY !== null && CJK_ANY.test(text); }

  /* terms.words: the words of a (folded) text, each run of CJK letters in them cut into pairs. */
  function termWords(text) {
    var found = String(text).match(TERM_WORD) || [];
    if (!CJK_RUN || !NON_ASCII.test(text)) return found;
    var out = [];
    found.forEach(function (w) { cjkPairs(w).forEach(function (piece) { out.push(piece); }); });
    return out;
  }

  /* terms.cjk_pairs: a word with each run of CJK letters cut into the pairs of letters that
     overlap in it ("数据分析": "数据", "据分", "分析"; a run of one letter as it is), and the pieces
     between runs read again as words. */
  function cjkPairs(word) {
    var pieces = [], at = 0, run;
    CJK_RUN.lastIndex = 0;
    while ((run = CJK_RUN.exec(word)) !== null) {
      (word.slice(at, run.index).match(TERM_WORD) || []).forEach(function (piece) { pieces.push(piece); });
      pairsOf(run[0], run.index).forEach(function (pair) { pieces.push(pair.text); });
      at = run.index + run[0].length;
    }
    return at ? pieces.concat(word.slice(at).match(TERM_WORD) || []) : [word];
  }

  /* The pairs of a run of CJK letters found at ``offset``, each {text, start, end} (in UTF-16 units). */
  function pairsOf(letters, offset) {
    var chars = Array.from(letters), pairs = [], start = offset;
    if (chars.length === 1) return [{ text: letters, start: offset, end: offset + letters.length }];
    for (var i = 0; i + 1 < chars.length; i++) {
      pairs.push({ text: chars[i] + chars[i + 1], start: start, end: start + chars[i].length + chars[i + 1].length });
      start += chars[i].length;
    }
    return pairs;
  }

  /* terms.symbol_runs: runs of "other symbols" (emoji, ©), with the marks, modifiers and joiners after them. */
  function symbolRuns(text) {
    return (SYMBOLS && String(text).match(SYMBOLS)) || [];
  }

  /* terms.is_term but for stop words: more than one character, counted in code points as Python
     counts them, or one CJK letter alone (a word in Chinese: "表", "Python库"). */
  function longEnough(w) {
    return w.length > 2 || (w.length === 2 && !(w.charCodeAt(0) >= 0xD800 && w.charCodeAt(0) < 0xDC00)) ||
      isCjkStart(w);
  }

  /* skillsite.search.terms.tokenize: runs of letters and digits, lower-cased and composed
     (folded), minus stop words and one-character words, each stemmed with lunr's stemmer (the
     one the index was built with); then the runs of symbols, as they are. */
  function tokenize(lunr, text) {
    var stem = stems(lunr), lowered = folded(text);
    var words = termWords(lowered);
    return words.filter(function (w) { return longEnough(w) && lunr.stopWordFilter(w) !== undefined; }).map(stem)
      .concat(symbolRuns(lowered));
  }

  /* Strings in code point order, as Python sorts them (UTF-16 order differs past U+FFFF). */
  function codePointOrder(c) { return c >= 0xD800 ? (c >= 0xE000 ? c - 0x800 : c + 0x2000) : c; }
  function compareTerms(a, b) {
    var n = Math.min(a.length, b.length);
    for (var i = 0; i < n; i++) {
      var x = a.charCodeAt(i), y = b.charCodeAt(i);
      if (x !== y) return codePointOrder(x) - codePointOrder(y);
    }
    return a.length - b.length;
  }

  /* The distinct terms of a query, in the order their scores are added (bm25.query_terms). */
  function queryTerms(lunr, text) {
    var seen = Object.create(null);
    return tokenize(lunr, readQuery(text)).filter(function (t) { return seen[t] ? false : (seen[t] = true); }).sort(compareTerms);
  }

  /* The first position in sorted ``keys`` whose key is not before ``key`` (bisect_left). */
  function bisectLeft(keys, key) {
    var lo = 0, hi = keys.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (compareTerms(keys[mid], key) < 0) lo = mid + 1; else hi = mid; }
    return lo;
  }

  /* The chunk that holds ``key`` (or would): the last whose first key is not after it. */
  function chunkOf(firsts, key) {
    var lo = 0, hi = firsts.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (compareTerms(key, firsts[mid]) < 0) hi = mid; else lo = mid + 1; }
    return Math.max(0, lo - 1);
  }

  function binary(data) {
    return typeof atob === "function" ? atob(data) : Buffer.from(data, "base64").toString("binary");
  }

  /* Skill numbers and weights of ``count`` postings (shard_format.decode_postings), as typed arrays. */
  function decodePostings(data, count, weighted, docsCount) {
    var raw = binary(data), end = raw.length - (weighted ? count : 0);
    var docs = new Int32Array(count), n = 0, doc = 0, gap = 0, scale = 1;
    for (var i = 0; i < end; i++) {
      var b = raw.charCodeAt(i);
      gap += (b & 0x7F) * scale;
      if (b < 0x80) {
        doc += gap;
        if (n < count) docs[n] = doc;
        n += 1;
        gap = 0;
        scale = 1;
      } else {
        scale *= 128;
      }
    }
    if (scale !== 1 || n !== count || (count && docs[count - 1] >= docsCount) || end < 0) {
      throw new Error("corrupt search shard: a postings list is truncated or names a skill it does not have");
    }
    var weights = new Uint8Array(weighted ? count : 0);
    for (var w = 0; w < weights.length; w++) weights[w] = raw.charCodeAt(end + w);
    return { docs: docs, weights: weights };
  }

  /* ``count`` non-negative integers below ``limit`` (shard_format.encode_numbers). */
  function decodeNumbers(data, count, limit) {
    var raw = binary(data), out = [], value = 0, scale = 1;
    for (var i = 0; i < raw.length; i++) {
      var b = raw.charCodeAt(i);
      value += (b & 0x7F) * scale;
      if (b < 0x80) { out.push(value); value = 0; scale = 1; } else { scale *= 128; }
    }
    if (scale !== 1 || out.length !== count || out.some(function (v) { return v >= limit; })) {
      throw new Error("corrupt search groups: a list is truncated or names a group it does not have");
    }
    return out;
  }

  /* Python's round(x, 6): the exact decimal value of x rounded half to even, read back. */
  function round6(x) {
    if (x === 0 || !isFinite(x)) return x;
    if (x < 0) return -round6(-x);
    var s = x.toFixed(100);              // exact for every score (at least 1e-14)
    var dot = s.indexOf("."), head = s.slice(0, dot + 7), tail = s.slice(dot + 7);
    var up = tail.charAt(0) > "5" || (tail.charAt(0) === "5" &&
      (/[1-9]/.test(tail.slice(1)) || (head.charCodeAt(head.length - 1) - 48) % 2 === 1));
    if (!up) return parseFloat(head);
    var digits = head.split(""), i = digits.length - 1;
    for (; i >= 0; i--) {
      if (digits[i] === ".") continue;
      if (digits[i] !== "9") { digits[i] = String.fromCharCode(digits[i].charCodeAt(0) + 1); break; }
      digits[i] = "0";
    }
    return parseFloat((i < 0 ? "1" : "") + digits.join(""));
  }

  /* A query's hits, in rank order on demand: ``count`` of them; ``take(n)``, the first n as
     {doc, score} (by score rounded to 6 decimals, then skill number). ``docs`` are the skills
     found, ``score`` their scores by skill number. Only the best are sorted and rounded: the
     skills within 2e-6 of the best 2n scores (a run of equal rounded scores spans less). */
  function Ranking(docs, score) {
    this.groupOf = null;       // set before the first take: each run of equal scores, copies together
    this.count = docs.length;
    this._docs = docs;
    this._score = score;
    this._done = [];
  }

  /* The ``want``-th best score. */
  Ranking.prototype._nth = function (want) {
    var docs = this._docs, values = new Float64Array(docs.length);
    for (var i = 0; i < docs.length; i++) values[i] = this._score[docs[i]];
    values.sort();
    return values[docs.length - want];
  };

  Ranking.prototype.take = function (n) {
    if (this._done.length < Math.min(n, this.count)) {
      var want = Math.max(2 * n, 64), score = this._score, all = want >= this.count;
      var best = all ? -Infinity : this._nth(want), floor = best - 2e-6;
      var top = Array.prototype.filter.call(this._docs, function (d) { return score[d] >= floor; });
      top.sort(function (a, b) { return score[b] - score[a] || a - b; });
      var out = [], at = 0;
      while (at < top.length && (all || score[top[at]] >= best)) {   // runs of equal rounded scores
        var rounded = round6(score[top[at]]), end = at + 1;
        while (end < top.length && round6(score[top[end]]) === rounded) end++;
        var run = top.slice(at, end).sort(function (a, b) { return a - b; });
        if (this.groupOf) run = copiesTogether(run, this.groupOf, function (d) { return d; });
        for (var r = 0; r < run.length; r++) out.push({ doc: run[r], score: rounded });
        at = end;
      }
      this._done = out;
    }
    return this._done.slice(0, n);
  };

  /* The sharded index of a catalog: ``meta`` is search/shards.json, ``getJSON(path)`` a promise
     of the JSON of a site-relative path. */
  function ShardedIndex(lunr, meta, getJSON) {
    if (meta.format !== "skillsite-search-shards" || meta.version !== 1) throw new Error("unknown search shards");
    this.lunr = lunr;
    this.meta = meta;
    this.getJSON = getJSON;
    this.chunks = Object.create(null);    // "terms/3" -> {terms, df, idf, postings}
    this.decoded = Object.create(null);
    this.cardsOf = Object.create(null);   // skill number -> card
    this.pending = Object.create(null);   // path -> promise of its JSON
  }

  /* The JSON of a chunk or card file, fetched once and checked to belong to this index. */
  ShardedIndex.prototype.file = function (path) {
    var self = this;
    if (!this.pending[path]) {
      this.pending[path] = this.getJSON(path).then(function (data) {
        if (data.index !== self.meta.index) throw new Error(path + " belongs to another build of the search index");
        return data;
      });
      this.pending[path].catch(function () { delete self.pending[path]; });
    }
    return this.pending[path];
  };

  function pad(n, width) { var s = String(n); while (s.length < width) s = "0" + s; return s; }

  ShardedIndex.prototype.loadChunks = function (wanted) {
    var self = this;
    return Promise.all(wanted.map(function (w) {
      var key = w[0] + "/" + w[1];
      if (self.chunks[key]) return null;
      return self.file(self.meta[w[0]].path + pad(w[1], 4) + ".json").then(function (data) { self.chunks[key] = data; });
    }));
  };

  ShardedIndex.prototype.postings = function (kind, n, at) {
    var key = kind + "/" + n + "/" + at;
    if (!this.decoded[key]) {
      var chunk = this.chunks[kind + "/" + n];
      this.decoded[key] = decodePostings(chunk.postings[at], chunk.df[at], kind === "terms", this.meta.docs);
    }
    return this.decoded[key];
  };

  /* Vocabulary terms ``term`` matches, as [chunk, position, factor]: itself, or else the terms it
     begins (across chunk boundaries) at the prefix factor (shard_query._matches). */
  ShardedIndex.prototype.matches = function (term) {
    var self = this, prefix = this.meta.prefix, firsts = this.meta.terms.first;
    var n = chunkOf(firsts, term), keys = this.chunks["terms/" + n].terms, at = bisectLeft(keys, term);
    if (at < keys.length && keys[at] === term) return Promise.resolve([[n, at, 1.0]]);
    if (codePoints(term) < prefix.min_length) return Promise.resolve([]);
    var found = [];
    function scan() {
      while (found.length < prefix.max_expansions) {
        if (at === keys.length) {
          if (n + 1 >= firsts.length || firsts[n + 1].indexOf(term) !== 0) break;
          n += 1; at = 0;
          return self.loadChunks([["terms", n]]).then(function () { keys = self.chunks["terms/" + n].terms; return scan(); });
        }
        if (keys[at].indexOf(term) !== 0) break;
        found.push([n, at, prefix.factor]);
        at += 1;
      }
      return Promise.resolve(found);
    }
    return scan();
  };

  /* Score of every matching skill (unrounded), as shard_query.scores adds them: {docs (the
     skills found), score (by skill number), termsOf(doc) (the index terms it matched, for
     highlighting), words (query terms)}. */
  ShardedIndex.prototype.scores = function (text) {
    var self = this, terms = queryTerms(this.lunr, text), unit = this.meta.weight_unit;
    var firsts = this.meta.terms.first;
    return this.loadChunks(terms.map(function (t) { return ["terms", chunkOf(firsts, t)]; })).then(function () {
      return Promise.all(terms.map(function (t) { return self.matches(t); }));
    }).then(function (perTerm) {
      var size = self.meta.docs, score = new Float64Array(size), found = new Uint8Array(size), docs = [];
      var best = new Float64Array(size), stamp = new Int32Array(size), matched = [];
      perTerm.forEach(function (matches, t) {
        var mark = t + 1, touched = [];
        matches.forEach(function (m) {
          var chunk = self.chunks["terms/" + m[0]], p = self.postings("terms", m[0], m[1]);
          var scale = chunk.idf[m[1]] * unit * m[2], pd = p.docs, pw = p.weights;
          matched.push([chunk.terms[m[1]], pd]);
          for (var i = 0; i < pd.length; i++) {
            var doc = pd[i], gain = pw[i] * scale;
            if (stamp[doc] !== mark) { stamp[doc] = mark; best[doc] = gain; touched.push(doc); }
            else if (gain > best[doc]) best[doc] = gain;
          }
        });
        for (var j = 0; j < touched.length; j++) {
          var d = touched[j];
          if (!found[d]) { found[d] = 1; docs.push(d); }
          score[d] = score[d] + best[d];
        }
      });
      var termsOf = function (doc) {
        var out = Object.create(null);
        matched.forEach(function (m) { if (bisectDoc(m[1], doc)) out[m[0]] = true; });
        return out;
      };
      return { docs: docs, score: score, termsOf: termsOf, words: terms.length };
    });
  };

  /* Whether sorted ``docs`` hold ``doc``. */
  function bisectDoc(docs, doc) {
    var lo = 0, hi = docs.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (docs[mid] < doc) lo = mid + 1; else hi = mid; }
    return lo < docs.length && docs[lo] === doc;
  }

  /* Skill numbers of the skills with every one of ``tags`` (folded, as the tag chunks hold them and
     every tag filter compares them); none when no skill has a tag (the index then has no tag chunk to read). */
  ShardedIndex.prototype.withTags = function (tags) {
    var self = this, firsts = this.meta.tags.first, seen = Object.create(null);
    if (!firsts.length) return Promise.resolve(new Set());
    var wanted = tags.map(folded)
      .filter(function (t) { return seen[t] ? false : (seen[t] = true); }).sort(compareTerms);
    return this.loadChunks(wanted.map(function (t) { return ["tags", chunkOf(firsts, t)]; })).then(function () {
      var found = null;
      wanted.forEach(function (tag) {
        var n = chunkOf(firsts, tag), keys = self.chunks["tags/" + n].terms, at = bisectLeft(keys, tag);
        var docs = new Set(at < keys.length && keys[at] === tag ? self.postings("tags", n, at).docs : []);
        found = found === null ? docs : new Set(Array.from(found).filter(function (d) { return docs.has(d); }));
      });
      return found || new Set();
    });
  };

  /* The hits of ``text`` (with every one of ``tags``), as shard_query.ranked filters them:
     {ranking, termsOf(doc) (index terms matched), words (query terms)}. */
  ShardedIndex.prototype.ranked = function (text, tags) {
    var self = this;
    return Promise.all([this.scores(text), tags && tags.length ? this.withTags(tags) : null]).then(function (both) {
      var found = both[0], docs = found.docs, allowed = both[1];
      if (allowed) {
        if (docs.length || found.words) {
          docs = docs.filter(function (d) { return allowed.has(d); });
        } else {
          docs = Array.from(allowed);
          found.score = new Float64Array(self.meta.docs);          // every tagged skill, score 0
        }
      }
      return { ranking: new Ranking(docs, found.score), termsOf: found.termsOf, words: found.words };
    });
  };

  /* The cards of skill numbers ``docs``: {doc, id, name, description, url, tags, risk, listed, offered,
     copy_of, copies}. */
  ShardedIndex.prototype.cards = function (docs) {
    var self = this, cards = this.meta.cards, wanted = Object.create(null);
    docs.forEach(function (d) { if (!self.cardsOf[d]) wanted[Math.floor(d / cards.bucket)] = true; });
    return Promise.all(Object.keys(wanted).map(function (b) {
      var bucket = +b, path = cards.path + pad(Math.floor(bucket / cards.per_folder), 3) + "/" + pad(bucket, 5) + ".json";
      return self.file(path).then(function (data) {
        checkBucket(data, path, bucket * cards.bucket, Math.min(cards.bucket, self.meta.docs - bucket * cards.bucket));
        data.cards.forEach(function (row, i) {
          var card = { doc: data.first + i };
          cards.fields.forEach(function (field, f) { card[field] = row[f]; });
          self.cardsOf[card.doc] = card;
        });
      });
    })).then(function () { return docs.map(function (d) { return self.cardsOf[d]; }); });
  };

  /* A card file holds exactly the ``size`` cards from ``first`` (a short or long one would show
     a card under another skill's number), else the error shard_query._read_bucket raises. */
  function checkBucket(data, path, first, size) {
    if (data.first !== first || !Array.isArray(data.cards) || data.cards.length !== size) {
      throw new Error(path + " does not hold cards " + first + " to " + (first + size - 1));
    }
  }

  /* The ``k`` best hits of ``found`` (what ranked gave) whose card ``keep`` accepts, as
     [{card, score, terms}]; ``found.left`` counts the cards it read that ``keep`` refused.
     ``groups``: a group of copies once, its canonical member's card at the place of its best
     member (the best member's when ``keep`` refuses the canonical one), as shard_query.search. */
  ShardedIndex.prototype.collect = function (found, k, keep, groups) {
    var self = this, out = [], taken = 0, seen = Object.create(null);
    found.left = found.left || 0;
    function more() {
      if (out.length >= k || taken >= found.ranking.count) return Promise.resolve(out);
      var batch = found.ranking.take(taken + k - out.length).slice(taken);
      taken += batch.length;
      return self.cards(batch.map(function (h) { return h.doc; })).then(function (cards) {
        var canonical = groups ? cards.filter(function (c) { return c.copy_of >= 0; }).map(function (c) { return c.copy_of; }) : [];
        return self.cards(canonical).then(function () { return cards; });
      }).then(function (cards) {
        cards.forEach(function (card, i) {
          var shown = groups ? representative(self, card, keep, seen) : card;
          if (!shown || !keep(shown)) found.left += 1;
          else if (out.length < k) out.push({ card: shown, score: batch[i].score, terms: found.termsOf(card.doc) });
        });
        return more();
      });
    }
    return more();
  };

  /* How many results the hits ``ranking`` holds (a promise; null when the index has no groups
     file, a build before it): the skills the site lists, and with ``groups`` one a group of
     copies, which counts when its canonical member is listed or a listed member was found (as
     collect shows them). The groups file says so for every skill: no card is read. */
  ShardedIndex.prototype.count = function (ranking, groups) {
    return this.groups().then(function (known) {
      if (!known) return null;
      var docs = ranking._docs, n = 0, i, d;
      for (i = 0; i < docs.length; i++) {
        d = docs[i];
        if (!known.unlisted[d] && !(groups && (known.canonical[d] || known.group[d] >= 0))) n++;
      }
      if (!groups) return n;
      var counted = new Uint8Array(known.canonicals.length);
      for (i = 0; i < docs.length; i++) {
        d = docs[i];
        var at = known.group[d] >= 0 ? known.group[d] : known.canonical[d] - 1;
        if (at < 0 || counted[at]) continue;
        if (!known.unlisted[known.canonicals[at]] || !known.unlisted[d]) { counted[at] = 1; n++; }
      }
      return n;
    });
  };

  /* The groups file, decoded once (a promise): by skill number, ``unlisted`` (1: the site does
     not list it), ``canonical`` (its group's position + 1 when it is a canonical member, else 0)
     and ``group`` (a copy's group position, else -1); ``canonicals`` by position. Null without
     the file (a build before it). Without unlisted skills or copies nothing is fetched. */
  ShardedIndex.prototype.groups = function () {
    var ref = this.meta.groups, size = this.meta.docs;
    if (!ref || !ref.url) return Promise.resolve(null);
    if (!this._groups) {
      var empty = ref.unlisted === 0 && ref.copies === 0;
      this._groups = (empty ? Promise.resolve(null) : this.file(ref.url)).then(function (data) {
        var known = { unlisted: new Uint8Array(size), canonical: new Int32Array(size), group: new Int32Array(size),
                      canonicals: [] };
        known.group.fill(-1);
        if (!data) return known;
        var part = function (p) { return decodePostings(p.postings, p.count, false, size).docs; };
        part(data.unlisted).forEach(function (d) { known.unlisted[d] = 1; });
        known.canonicals = Array.from(part(data.canonical));
        known.canonicals.forEach(function (d, at) { known.canonical[d] = at + 1; });
        var positions = decodeNumbers(data.copies.groups, data.copies.count, known.canonicals.length);
        part(data.copies).forEach(function (d, i) { known.group[d] = positions[i]; });
        return known;
      });
      var self = this;
      this._groups.catch(function () { self._groups = null; });
    }
    return this._groups;
  };

  /* A promise of the group of every skill number: its canonical member's number (itself
     outside a group); null without a groups file. */
  ShardedIndex.prototype.groupOf = function () {
    return this.groups().then(function (known) {
      if (!known) return null;
      return function (doc) { return known.group[doc] >= 0 ? known.canonicals[known.group[doc]] : doc; };
    });
  };

  /* The card that stands for ``card``'s group of copies (null: the group is shown already). */
  function representative(index, card, keep, seen) {
    var group = card.copy_of >= 0 ? card.copy_of : card.doc;
    if (seen[group]) return null;
    var canonical = group === card.doc ? card : index.cardsOf[group];
    var shown = canonical && keep(canonical) ? canonical : card;
    if (keep(shown)) seen[group] = true;
    return shown;
  }

  /* The ``k`` best [{card, score, terms}] whose card ``keep`` accepts (shard_query.search);
     ``options.groups``: a group of copies once. */
  ShardedIndex.prototype.search = function (text, options) {
    var self = this, k = options.k === undefined ? 5 : options.k, keep = options.keep || function () { return true; };
    if (k <= 0) return Promise.resolve([]);
    return this.ranked(text, options.tags).then(function (found) {
      return self.collect(found, k, keep, options.groups);
    });
  };

  /* ``run`` (results of one score, in rank order) with the members of a group of copies
     together at the place of the first of them, its canonical member first (``groupOf(item)``:
     the canonical member's key, ``keyOf(item)`` the item's own): with every copy shown, ties
     keep the order the grouped results have, each group followed by its copies. */
  function copiesTogether(run, groupOf, keyOf) {
    var members = Object.create(null), groups = [];
    run.forEach(function (item) {
      var group = groupOf(item);
      if (!members[group]) { members[group] = []; groups.push(group); }
      if (keyOf(item) === group) members[group].unshift(item); else members[group].push(item);
    });
    var out = [];
    groups.forEach(function (group) { out.push.apply(out, members[group]); });
    return out;
  }

  /* Every copy of ``found`` (results best first, ``scoreOf`` each) at its own place, and on a tie
     right after its group's canonical member (copiesTogether; ``groupOf``, ``keyOf`` as there). */
  function copiesInPlace(found, scoreOf, groupOf, keyOf) {
    var out = [], at = 0;
    while (at < found.length) {
      var end = at + 1;
      while (end < found.length && scoreOf(found[end]) === scoreOf(found[at])) end++;
      out.push.apply(out, copiesTogether(found.slice(at, end), groupOf, keyOf));
      at = end;
    }
    return out;
  }

  /* Results of a whole catalog's search ([{doc, ...}], best first; ``docs``: every Doc by row)
     with a group of copies once: its canonical member's Doc at the place of its best member. */
  function onePerGroup(found, docs) {
    var seen = Object.create(null), out = [];
    found.forEach(function (r) {
      var group = r.doc.copyOf >= 0 ? r.doc.copyOf : r.doc.row;
      if (seen[group]) return;
      seen[group] = true;
      var canonical = docs[group] || r.doc;
      out.push({ doc: canonical, terms: r.terms, starts: r.starts });
    });
    return out;
  }

  var api = {
    loadIndex: loadIndex, searchIndex: searchIndex, searchText: searchText, queryWords: queryWords,
    highlightRanges: highlightRanges, closestTags: closestTags, onePerGroup: onePerGroup, copiesInPlace: copiesInPlace,
    ShardedIndex: ShardedIndex, tokenize: tokenize, round6: round6, folded: folded
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else global.SkillsiteRanking = api;
})(this);
