/* skillsite catalog search: search-as-you-type (lunr.js), tag filter chips, keyboard, URL.

   The home page loads this file (after lunr.min.js) with a plain <script> placed right after
   the search box and the tag chips, before the long list of every skill: it runs as soon as
   the box exists, fetches search/docs.json (id, name, description, page, tags of every skill;
   row i is lunr ref "i") and search/lunr.json (both preloaded from <head>) while the browser
   is still parsing the list, and draws results under the box:

   - first a plain-text match over docs.json (searchText: any word, more and rarer words first),
   - then lunr's ranking, as soon as the index is loaded (searchIndex: the same idea on the
     index's BM25 scores).

   Both rank the same way, so the list does not jump when lunr's ranking comes: every word is
   optional (lunr's stop words dropped), a skill's score is the sum of its words' scores times
   the square root of the share of the query (by idf) it matches, and the word still being
   typed also matches as a prefix. A word no skill uses changes nothing but that share, the
   same for every skill: it never empties the list. The words that matched are highlighted
   (<mark> elements and text nodes, never HTML strings).

   The query and the tag filters live in the URL (?q=...&tag=...): opening such a link shows
   them; while typing, the current history entry is replaced, and a new one is pushed when a
   query starts after the last one settled (SETTLE_MS without typing) or a filter changes, so
   the back button goes back to the previous query. An empty result says so and offers the
   closest tags and the full list.

   While the box holds a query, its results take the place of the list (html.searching); the
   list is filtered by tag once it is parsed. Without fetch (a page opened from a file) the
   plain-text match runs over the list. The page marks performance entries for
   benchmarks/browser_search_latency.py: skillsite:results (any results drawn),
   skillsite:results:lunr (lunr's), skillsite:index-ready. Every value from a skill is handled
   as text (textContent, createTextNode), never as HTML.

   Under node (no document) the file exports loadIndex, searchIndex, searchText, queryWords,
   highlightRanges and closestTags: benchmarks/search_quality.py and the tests run the very
   functions the page runs (tests/js/browser_search.js). */
(function () {
  "use strict";

  var EXACT_BOOST = 10;     // a word's own (stemmed) term, against 1 for each term it is a prefix of
  var MIN_PREFIX = 3;       // an unknown word this long or longer also matches as a prefix (as bm25.py)
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

  /* ------------------------------------------------------------ ranking (no DOM: node runs it too) */

  var SEPARATOR = /[\s\-]+/;          // lunr.tokenizer.separator
  var PUNCTUATION = /[!-\/:-@\[-`{-~]+/;   // ASCII punctuation, inside a word: "mcp.json", "n+1"

  /* Non-word characters at either end of a word, as the index writer trims them (Python's \W:
     Unicode letters are word characters, so "café" stays "café"); lunr.js's own trimmer (ASCII
     \W) where the browser has no Unicode property escapes. */
  var EDGE_START = /^\W+/, EDGE_END = /\W+$/;
  try {
    EDGE_START = new RegExp("^[^\\p{L}\\p{N}\\p{M}_]+", "u");
    EDGE_END = new RegExp("[^\\p{L}\\p{N}\\p{M}_]+$", "u");
  } catch (e) { /* keep the ASCII ones */ }

  function wordChar(c) { return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95; }

  /* Without regular expressions while both ends are ASCII (nearly every word: this runs on every
     word of every result drawn). */
  function trim(word) {
    var start = 0, end = word.length, c;
    for (; start < end; start++) {
      c = word.charCodeAt(start);
      if (c > 127) return word.replace(EDGE_START, "").replace(EDGE_END, "");
      if (wordChar(c)) break;
    }
    for (; end > start; end--) {
      c = word.charCodeAt(end - 1);
      if (c > 127) return word.replace(EDGE_START, "").replace(EDGE_END, "");
      if (wordChar(c)) break;
    }
    return start === 0 && end === word.length ? word : word.slice(start, end);
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

  /* The beginnings a word of a skill must have to match ``word`` in the plain-text match: its
     stem when it begins the word ("polici" of "policies"), else the word (and its stem). */
  function startsOf(word, s) {
    var starts = s.length >= MIN_PREFIX && word.indexOf(s) === 0 ? [s] : [word];
    if (word.indexOf(s) !== 0 && s.length >= MIN_PREFIX) starts.push(s);
    return starts;
  }

  /* The words of a query: lower-cased, cut as lunr's tokenizer cuts text, trimmed as the index
     was, lunr's stop words dropped, one per stem. Each is {text, stem, parts, starts, prefix,
     whole}: ``parts``, the pieces of a word with punctuation inside ("name:stripe", "n+1"),
     searched as alternatives of the word; ``starts``, what the plain-text match looks for
     (startsOf, of the word and its longer parts); ``prefix``, true for the last word when the
     query does not end with a space (it is still being typed) and it has two letters or is the
     only word (a lone letter after other words would begin nearly every term); ``whole``, a
     one-letter word otherwise ("c" of "fuzzing c code"): only itself matches.
     Without lunr: no stop words, no stems. */
  function queryWords(lunr, text) {
    text = String(text);
    var stem = stems(lunr);
    var keep = function (w) { return w && (!lunr || lunr.stopWordFilter(w) !== undefined); };
    var words = [], seen = Object.create(null);
    text.toLowerCase().split(SEPARATOR).forEach(function (token) {
      var word = trim(token).replace(/\*/g, "");
      if (!keep(word)) return;
      var s = stem(word);
      if (seen[s]) return;
      seen[s] = true;
      var starts = startsOf(word, s);
      var parts = word.split(PUNCTUATION).filter(keep);
      if (parts.length === 1 && parts[0] === word) parts = [];
      parts = parts.map(function (part) {
        var ps = stem(part);
        if (part.length > 1) starts.push.apply(starts, startsOf(part, ps));
        return { text: part, stem: ps };
      });
      words.push({ text: word, stem: s, parts: parts, starts: starts, prefix: false, whole: false });
    });
    var last = words[words.length - 1];
    if (last && !/[\s\-]$/.test(text) && (last.text.length > 1 || words.length === 1)) last.prefix = true;
    words.forEach(function (w) { w.whole = w.text.length === 1 && !w.prefix; });
    return words;
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
     typed (``prefix``), every term it begins, and for a word the index does not know, every
     term its stem begins. */
  function searchIndex(lunr, index, text) {
    var words = queryWords(lunr, text);
    if (!words.length) return [];
    var trailing = lunr.Query.wildcard.TRAILING;
    var perWord = words.map(function (word) {
      var known = word.stem in index.invertedIndex || word.parts.some(function (p) { return p.stem in index.invertedIndex; });
      var hits = index.query(function (q) {
        q.term(word.text, { boost: EXACT_BOOST });
        word.parts.forEach(function (part) { q.term(part.text, { boost: EXACT_BOOST }); });
        if (word.prefix) q.term(word.text, { usePipeline: false, wildcard: trailing, boost: 1 });
        if (!known && word.stem.length >= MIN_PREFIX && !(word.prefix && word.stem === word.text)) {
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
      d.__fields = [String(d.name + " " + d.id).toLowerCase(), String(d.description || "").toLowerCase(),
                    (d.tags || []).join(" ").toLowerCase()];
    }
    return d.__fields;
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
      var re = new RegExp("(?:^|[^a-z0-9])(?:" + word.starts.map(escapeRegExp).join("|") + ")" +
                          (word.whole ? "(?![a-z0-9])" : ""));
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
     it begins with one of ``starts``. */
  function highlightRanges(lunr, text, terms, starts) {
    var stem = stems(lunr);
    var ranges = [];
    var firstTwo = Object.create(null), anyTerm = false;
    for (var term in terms || {}) { firstTwo[term.slice(0, 2)] = true; anyTerm = true; }
    var matches = function (word) {
      word = word.toLowerCase();
      for (var i = 0; starts && i < starts.length; i++) if (word.indexOf(starts[i]) === 0) return true;
      return anyTerm && firstTwo[word.slice(0, 2)] === true && hasOwn.call(terms, stem(word));
    };
    var re = /[^\s\-]+/g, m, part;
    while ((m = re.exec(text)) !== null) {
      var core = trim(m[0]);
      if (!core) continue;
      var at = m.index + m[0].indexOf(core);
      if (matches(core)) {
        ranges.push([at, at + core.length]);
      } else if (PUNCTUATION.test(core)) {      // "mcp.json": its parts, as the query's
        var parts = /[^!-\/:-@\[-`{-~]+/g;
        while ((part = parts.exec(core)) !== null) {
          if (matches(part[0])) ranges.push([at + part.index, at + part.index + part[0].length]);
        }
      }
    }
    return ranges;
  }

  /* Levenshtein distance, or ``limit + 1`` once it is over ``limit``. */
  function editDistance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var prev = [], cur, i, j;
    for (j = 0; j <= b.length; j++) prev[j] = j;
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1));
        if (cur[j] < best) best = cur[j];
      }
      if (best > limit) return limit + 1;
      prev = cur;
    }
    return prev[b.length];
  }

  /* The tags closest to the words of a query that found nothing: ``counts`` maps each tag to its
     number of skills; a tag is close when one of its parts (cut at non-letters) begins with a
     word or the word with it, or is a word misspelt by one or two letters. At most ``limit``,
     closest first, then the most used. */
  function closestTags(lunr, text, counts, limit) {
    var words = queryWords(lunr, text).map(function (w) { return w.text; }).filter(function (w) { return w.length >= 2; });
    var found = [];
    Object.keys(counts).forEach(function (tag) {
      var parts = tag.toLowerCase().split(/[^a-z0-9\u00c0-\uffff]+/).filter(Boolean);
      parts.push(tag.toLowerCase());
      var best = 0;
      words.forEach(function (w) {
        parts.forEach(function (p) {
          var s = 0;
          if (p === w) s = 1;
          else if ((p.indexOf(w) === 0 && w.length >= 2) || (w.indexOf(p) === 0 && p.length >= 3)) s = 0.8;
          else if (w.length >= 4 && p.length >= 3) {
            var d = editDistance(w, p, w.length >= 7 ? 2 : 1);
            if (d <= (w.length >= 7 ? 2 : 1)) s = 0.7 - 0.1 * d;
          }
          if (s > best) best = s;
        });
      });
      if (best > 0) found.push({ tag: tag, score: best, count: counts[tag] });
    });
    found.sort(function (a, b) { return b.score - a.score || b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0); });
    return found.slice(0, limit || 6);
  }

  if (typeof document === "undefined") {   // node: benchmarks and tests
    if (typeof module === "object" && module.exports) {
      module.exports = {
        loadIndex: loadIndex, searchIndex: searchIndex, searchText: searchText, queryWords: queryWords,
        highlightRanges: highlightRanges, closestTags: closestTags
      };
    }
    return;
  }

  /* ------------------------------------------------------------ the page */

  var doc = document;
  var MAX_RESULTS = 50;
  var SETTLE_MS = 1000;    // a query unchanged this long is settled: the next one gets its own history entry

  function $(id) { return doc.getElementById(id); }

  function mark(name) {
    if (window.performance && performance.mark) {
      try { performance.mark(name); } catch (e) { /* ignore */ }
    }
  }

  function getJSON(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status + " for " + url);
      return r.json();
    });
  }

  /* A skill as search results and filters use it. */
  function Doc(id, name, description, url, tags) {
    this.id = id;
    this.name = name;
    this.description = description;
    this.url = url;
    this.tags = tags;
  }

  /* ``text`` into ``parent`` as text nodes, the ``ranges`` in <mark> elements. */
  function appendMarked(parent, text, ranges) {
    var at = 0;
    ranges.forEach(function (r) {
      if (r[0] > at) parent.appendChild(doc.createTextNode(text.slice(at, r[0])));
      var m = doc.createElement("mark");
      m.textContent = text.slice(r[0], r[1]);
      parent.appendChild(m);
      at = r[1];
    });
    if (at < text.length) parent.appendChild(doc.createTextNode(text.slice(at)));
  }

  function Search(input) {
    this.input = input;
    this.results = $("searchResults");
    this.status = $("searchStatus");
    this.emptyBox = $("searchEmpty");
    this.docs = null;            // Doc per lunr ref, from docs.json (or from the list, without fetch)
    this.index = null;           // lunr.Index
    this.items = null;           // the list's <li>, once parsed
    this.noDocs = false;         // docs.json cannot be fetched
    this.itemTags = null;
    this.selectedTags = [];
    this.active = -1;
    this.shown = [];
    this.pushNext = true;        // the next change of the query gets a history entry of its own
    this.settleTimer = null;
  }

  Search.prototype.lunr = function () { return window.lunr || null; };

  Search.prototype.start = function () {
    var self = this;
    var params = new URLSearchParams(location.search);
    this.setupChips(params.getAll("tag"));
    this.input.addEventListener("input", function () { self.onInput(); });
    this.input.addEventListener("keydown", function (e) { self.onKey(e); });
    this.results.addEventListener("keydown", function (e) { self.onResultKey(e); });
    window.addEventListener("popstate", function () { self.restore(); });
    var form = $("searchForm");
    if (form) form.addEventListener("submit", function (e) { e.preventDefault(); self.open(); });
    var q = params.get("q");
    if (q) this.input.value = q;
    this.searching(!!this.input.value.trim());
    this.load();
    if (doc.readyState === "loading") {
      doc.addEventListener("DOMContentLoaded", function () { self.listReady(); });
    } else {
      this.listReady();
    }
  };

  /* Fetch both files at once; draw results from whichever is usable first. */
  Search.prototype.load = function () {
    var self = this;
    if (!window.fetch || !/^https?:$/.test(location.protocol)) { this.noDocs = true; return; }
    var docsUrl = this.input.getAttribute("data-docs") || "search/docs.json";
    var indexUrl = this.input.getAttribute("data-index") || "search/lunr.json";
    var docs = getJSON(docsUrl).then(function (data) {
      var at = {};
      data.fields.forEach(function (name, i) { at[name] = i; });
      self.docs = data.docs.map(function (row) {
        return new Doc(row[at.id], row[at.name], row[at.description], row[at.url], row[at.tags] || []);
      });
      if (!self.index && self.input.value) self.update();
    });
    var index = window.lunr ? getJSON(indexUrl).then(function (data) { return loadIndex(window.lunr, data); }) : null;
    if (index) {
      Promise.all([docs, index]).then(function (both) {
        self.index = both[1];
        mark("skillsite:index-ready");
        if (self.input.value) self.update();
      }).catch(function () { /* keep the plain-text match */ });
    }
    docs.catch(function () {
      self.noDocs = true;
      self.docsFromList();
    });
  };

  /* The skill list is parsed: tag filters apply to it; without docs.json, it is what we search. */
  Search.prototype.listReady = function () {
    var list = $("skillList");
    this.items = list ? Array.prototype.slice.call(list.children) : [];
    this.filterList();
    if (this.noDocs) this.docsFromList();
  };

  /* Without docs.json: the list is what we search (not the lunr index: its refs are rows of docs.json). */
  Search.prototype.docsFromList = function () {
    if (this.docs || !this.items) return;
    var self = this;
    this.docs = this.items.map(function (li) {
      var link = li.querySelector(".skill-title a");
      var id = li.querySelector(".skill-id");
      var desc = li.querySelector(".skill-desc");
      return new Doc(id ? id.textContent : link.textContent, link.textContent, desc ? desc.textContent : "",
                     link.getAttribute("href"), self.tagsOfItem(li));
    });
    if (this.input.value) this.update();
  };

  Search.prototype.tagsOfItem = function (li) {
    return Array.prototype.map.call(li.querySelectorAll(".tag-list .tag"), function (a) { return a.textContent; });
  };

  /* Results of ``text``: [{doc, terms, starts}] best first (terms: the index terms a lunr result
     matched; starts: the word beginnings the plain-text match looked for), and whether lunr ranked them. */
  Search.prototype.find = function (text) {
    var lunr = this.lunr();
    var docs = this.docs;
    if (this.index && lunr) {
      try {
        var hits = searchIndex(lunr, this.index, text);
        return {
          lunr: true,
          found: hits.map(function (h) { return { doc: docs[+h.ref], terms: h.terms, starts: null }; })
            .filter(function (r) { return r.doc; })
        };
      } catch (e) { /* fall back to the plain-text match */ }
    }
    var starts = [];
    queryWords(lunr, text).forEach(function (w) { if (!w.whole) starts.push.apply(starts, w.starts); });
    return {
      lunr: false,
      found: searchText(lunr, docs, text).map(function (h) { return { doc: docs[h.ref], terms: null, starts: starts }; })
    };
  };

  Search.prototype.hasTags = function (tags) {
    return this.selectedTags.every(function (t) { return tags.indexOf(t) !== -1; });
  };

  /* While there is a query its results take the place of the list of every skill (hidden by
     app.css): nothing of the long list is styled or laid out while the page is loading. */
  Search.prototype.searching = function (on) {
    doc.documentElement.classList.toggle("searching", on);
  };

  /* Typing: results and URL now (the entry a new query starts is pushed, the next keystrokes
     replace it until the query settles). */
  Search.prototype.onInput = function () {
    var self = this;
    this.update();
    this.remember(this.pushNext);
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(function () { self.pushNext = true; }, SETTLE_MS);
  };

  Search.prototype.update = function () {
    var text = this.input.value;
    var query = text.trim();
    this.searching(!!query);
    this.filterList();
    if (!query) {
      this.results.hidden = true;
      this.results.textContent = "";
      this.status.textContent = "";
      this.input.setAttribute("aria-expanded", "false");
      this.shown = [];
      this.showEmpty(null);
      return;
    }
    if (!this.docs) {
      this.status.textContent = "Loading the search index…";
      return;
    }
    var answer = this.find(text);
    var found = answer.found;
    var self = this;
    var unfiltered = found.length;
    if (this.selectedTags.length) found = found.filter(function (r) { return self.hasTags(r.doc.tags); });
    this.render(found, query, unfiltered);
    mark("skillsite:results");
    if (answer.lunr) mark("skillsite:results:lunr");
  };

  Search.prototype.render = function (found, query, unfiltered) {
    var lunr = this.lunr();
    var shown = found.slice(0, MAX_RESULTS);
    var frag = doc.createDocumentFragment();
    shown.forEach(function (r, i) {
      var d = r.doc;
      var item = doc.createElement("li");
      item.id = "searchResult" + i;
      var a = doc.createElement("a");
      a.href = d.url;
      var name = doc.createElement("span");
      name.className = "result-name";
      appendMarked(name, String(d.name), highlightRanges(lunr, String(d.name), r.terms, r.starts));
      if (d.name !== d.id) {
        var idSpan = doc.createElement("span");
        idSpan.className = "result-id";
        idSpan.textContent = d.id;
        name.appendChild(idSpan);
      }
      var desc = doc.createElement("span");
      desc.className = "result-desc";
      var description = String(d.description || "");
      appendMarked(desc, description, highlightRanges(lunr, description, r.terms, r.starts));
      a.appendChild(name);
      a.appendChild(desc);
      item.appendChild(a);
      frag.appendChild(item);
    });
    this.results.textContent = "";
    this.results.appendChild(frag);
    this.results.hidden = shown.length === 0;
    this.input.setAttribute("aria-expanded", shown.length ? "true" : "false");
    this.shown = shown;
    this.setActive(shown.length ? 0 : -1, false);
    var n = found.length;
    var where = this.selectedTags.length ? " with the selected tags" : "";
    this.status.textContent = n === 0 ? "No skill matches “" + query + "”" + where + "."
      : n + " result" + (n === 1 ? "" : "s") + where + (n > shown.length ? " (showing the first " + shown.length + ")" : "") +
        ". Enter opens the first; the down arrow moves into the list.";
    this.showEmpty(n === 0 ? { query: query, unfiltered: unfiltered } : null);
  };

  /* No dead end: under an empty result, the closest tags, the results without the tag filter
     (when there are some) and the list of every skill, as buttons. */
  Search.prototype.showEmpty = function (empty) {
    var box = this.emptyBox;
    if (!box) return;
    box.textContent = "";
    box.hidden = !empty;
    if (!empty) return;
    var self = this;
    var counts = Object.create(null);
    (this.docs || []).forEach(function (d) {
      d.tags.forEach(function (t) { counts[t] = (counts[t] || 0) + 1; });
    });
    var close = closestTags(this.lunr(), empty.query, counts, 6).filter(function (t) {
      return self.selectedTags.indexOf(t.tag) === -1;
    });
    if (this.selectedTags.length && empty.unfiltered) {
      var p = doc.createElement("p");
      p.appendChild(this.action(empty.unfiltered + " skill" + (empty.unfiltered === 1 ? "" : "s") +
        " match" + (empty.unfiltered === 1 ? "es" : "") + " without the tag filter: show them", "searchWithoutTags",
        function () { self.setTags([]); }));
      box.appendChild(p);
    }
    if (close.length) {
      var label = doc.createElement("p");
      label.className = "search-empty-label";
      label.id = "searchEmptyTagsLabel";
      label.textContent = "Closest tags:";
      box.appendChild(label);
      var list = doc.createElement("ul");
      list.className = "chips";
      list.id = "searchEmptyTags";
      list.setAttribute("aria-labelledby", label.id);
      close.forEach(function (t) {
        var item = doc.createElement("li");
        var button = doc.createElement("button");
        button.type = "button";
        button.className = "chip";
        button.setAttribute("data-tag", t.tag);
        button.appendChild(doc.createTextNode(t.tag + " "));
        var count = doc.createElement("span");
        count.className = "chip-count";
        count.textContent = String(t.count);
        button.appendChild(count);
        self.onClick(button, function () {
          self.input.value = "";
          self.setTags([t.tag]);
        });
        item.appendChild(button);
        list.appendChild(item);
      });
      box.appendChild(list);
    }
    var all = doc.createElement("p");
    var total = this.docs ? this.docs.length : (this.items ? this.items.length : 0);
    all.appendChild(this.action("Browse all " + total + " skill" + (total === 1 ? "" : "s"), "searchShowAll", function () {
      self.input.value = "";
      self.setTags([]);
    }));
    box.appendChild(all);
  };

  /* A button of the empty state: does ``act``, then shows what it changed and remembers it in history. */
  Search.prototype.action = function (text, id, act) {
    var button = doc.createElement("button");
    button.type = "button";
    button.className = "search-action";
    button.id = id;
    button.textContent = text;
    this.onClick(button, act);
    return button;
  };

  Search.prototype.onClick = function (button, act) {
    var self = this;
    button.addEventListener("click", function () {
      act();
      self.update();
      self.remember(true);
      self.input.focus();
    });
  };

  /* The highlighted result is the one Enter opens; with ``focus`` its link gets the focus. */
  Search.prototype.setActive = function (i, focus) {
    var items = this.results.children;
    if (this.active >= 0 && items[this.active]) items[this.active].classList.remove("active");
    this.active = i;
    if (i >= 0 && items[i]) {
      items[i].classList.add("active");
      if (focus) items[i].querySelector("a").focus();
    }
  };

  Search.prototype.open = function () {
    var items = this.results.children;
    var item = items[this.active >= 0 ? this.active : 0];
    var a = item && item.querySelector("a");
    if (a) location.href = a.href;
  };

  /* Arrow keys move the focus between the search box and the result links (real links:
     Enter, a middle click or "open in new tab" all work as anywhere else). */
  Search.prototype.onResultKey = function (e) {
    var items = this.results.children;
    var n = items.length;
    var at = Array.prototype.indexOf.call(items, e.target.closest ? e.target.closest("li") : null);
    if (at < 0) return;
    if (e.key === "ArrowDown") {
      e.preventDefault();
      this.setActive(Math.min(at + 1, n - 1), true);
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (at === 0) { this.setActive(0, false); this.input.focus(); } else { this.setActive(at - 1, true); }
    } else if (e.key === "Escape") {
      e.preventDefault();
      this.setActive(0, false);
      this.input.focus();
    }
  };

  Search.prototype.onKey = function (e) {
    var n = this.results.children.length;
    if (e.key === "ArrowDown" && n) {
      e.preventDefault();
      this.setActive(0, true);
    } else if (e.key === "Enter") {
      e.preventDefault();
      this.open();
    } else if (e.key === "Escape") {
      if (this.input.value) {
        e.preventDefault();
        this.input.value = "";
        this.update();
        this.remember(true);
      } else {
        this.input.blur();
      }
    }
  };

  /* Tag chips are links to tag pages; with a script they become toggle buttons. */
  Search.prototype.setupChips = function (initial) {
    var self = this;
    var chips = doc.querySelectorAll("#tagChips a.chip[data-tag]");
    Array.prototype.forEach.call(chips, function (chip) {
      var tag = chip.getAttribute("data-tag");
      var button = doc.createElement("button");
      button.type = "button";
      button.className = chip.className;
      button.setAttribute("data-tag", tag);
      button.setAttribute("aria-pressed", "false");
      while (chip.firstChild) button.appendChild(chip.firstChild);
      chip.parentNode.replaceChild(button, chip);
      self.bindChip(button, tag);
    });
    this.pressChips(initial);
  };

  /* Press the chips of ``tags`` (and only those) and filter by them. A tag without a chip on this
     page (home shows the most used tags only) gets one, so that the filter it applies shows and
     can be turned off; a tag no skill has filters everything out and says so. */
  Search.prototype.pressChips = function (tags) {
    var self = this;
    var list = $("tagChips");
    var known = Object.create(null);
    Array.prototype.forEach.call(doc.querySelectorAll("#tagChips button[data-tag]"), function (b) {
      var tag = b.getAttribute("data-tag");
      known[tag] = true;
      b.setAttribute("aria-pressed", tags.indexOf(tag) !== -1 ? "true" : "false");
    });
    var more = list && list.querySelector(".chip-more");
    tags.forEach(function (tag) {
      if (!list || known[tag] || !tag) return;
      known[tag] = true;
      var button = doc.createElement("button");
      button.type = "button";
      button.className = "chip";
      button.setAttribute("data-tag", tag);
      button.setAttribute("aria-pressed", "true");
      button.textContent = tag;
      self.bindChip(button, tag);
      var item = doc.createElement("li");
      item.appendChild(button);
      list.insertBefore(item, more ? more.parentNode : null);
    });
    this.selectedTags = tags.filter(function (t, i) { return known[t] && tags.indexOf(t) === i; });
  };

  /* Filter by exactly ``tags`` (the caller updates the results). */
  Search.prototype.setTags = function (tags) {
    this.pressChips(tags);
  };

  /* A chip button turns its tag's filter on and off. */
  Search.prototype.bindChip = function (button, tag) {
    var self = this;
    button.addEventListener("click", function () {
      var on = button.getAttribute("aria-pressed") !== "true";
      button.setAttribute("aria-pressed", on ? "true" : "false");
      self.selectedTags = self.selectedTags.filter(function (t) { return t !== tag; });
      if (on) self.selectedTags.push(tag);
      self.update();
      self.remember(true);
    });
  };

  Search.prototype.filterList = function () {
    if (!this.items) return;
    var self = this;
    var visible = 0;
    var filtering = this.selectedTags.length > 0;
    if (filtering && !this.itemTags) this.itemTags = this.items.map(function (li) { return self.tagsOfItem(li); });
    this.items.forEach(function (li, i) {
      var ok = !filtering || self.hasTags(self.itemTags[i]);
      if (li.hidden === ok) li.hidden = !ok;   // touch only what changes: no needless relayout
      if (ok) visible++;
    });
    var count = $("listCount");
    var empty = $("emptyList");
    if (count) count.textContent = filtering ? visible + " of " + this.items.length : String(this.items.length);
    if (empty) empty.hidden = visible !== 0;
  };

  /* The query and the tag filters into the URL: a new history entry with ``push`` (then the next
     keystrokes replace it until the query settles), else the current entry replaced. */
  Search.prototype.remember = function (push) {
    if (!window.history || !history.replaceState) return;
    var params = new URLSearchParams();
    var q = this.input.value.trim();
    if (q) params.set("q", q);
    this.selectedTags.forEach(function (t) { params.append("tag", t); });
    var s = params.toString();
    var url = location.pathname + (s ? "?" + s : "") + location.hash;
    if (url === location.pathname + location.search + location.hash) return;
    if (push) {
      history.pushState(null, "", url);
      this.pushNext = false;
    } else {
      history.replaceState(null, "", url);
    }
  };

  /* Back or forward: the query and filters of that history entry. */
  Search.prototype.restore = function () {
    var params = new URLSearchParams(location.search);
    clearTimeout(this.settleTimer);
    this.pushNext = true;
    this.input.value = params.get("q") || "";
    this.setTags(params.getAll("tag"));
    this.update();
  };

  function setupSearch() {
    var input = $("searchBox");
    if (!input || !$("searchResults")) return;
    new Search(input).start();
    doc.addEventListener("keydown", function (e) {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      var t = e.target;
      var tag = t && t.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
      e.preventDefault();
      input.focus();
      input.select();
    });
  }

  setupSearch();
})();
