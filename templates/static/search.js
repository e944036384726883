/* skillsite catalog search: search-as-you-type (lunr.js), tag filter chips, keyboard.

   The home page loads this file (after lunr.min.js) with a plain <script> placed right after
   the search box and the tag chips, before the long list of every skill: it runs as soon as
   the box exists, fetches search/docs.json (id, name, description, page, tags of every skill;
   row i is lunr ref "i") and search/lunr.json (both preloaded from <head>) while the browser
   is still parsing the list, and draws results under the box:

   - first a plain-text match over docs.json (every word in the name, id, description or tags),
   - then lunr's ranking, as soon as the index is loaded.

   While the box holds a query, its results take the place of the list (html.searching); the
   list is filtered by tag once it is parsed. Without fetch (a page opened from a file) the
   plain-text match runs over the list. The page marks performance entries for
   benchmarks/browser_search_latency.py: skillsite:results (any results drawn),
   skillsite:results:lunr (lunr's), skillsite:index-ready. Every value from a skill is handled
   as text (textContent), never as HTML. */
(function () {
  "use strict";

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

  if (typeof document === "undefined") {   // node, in the tests
    if (typeof module === "object" && module.exports) module.exports = { loadIndex: loadIndex };
    return;
  }

  var doc = document;
  var MAX_RESULTS = 50;

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

  function lower(text) { return String(text).toLowerCase(); }

  /* A skill as search results and filters use it. */
  function Doc(id, name, description, url, tags) {
    this.id = id;
    this.name = name;
    this.description = description;
    this.url = url;
    this.tags = tags;
    this.hay = null;
  }

  Doc.prototype.text = function () {
    if (this.hay === null) {
      this.hay = lower(this.name + " " + this.id + " " + this.description + " " + this.tags.join(" "));
    }
    return this.hay;
  };

  function Search(input) {
    this.input = input;
    this.results = $("searchResults");
    this.status = $("searchStatus");
    this.docs = null;            // Doc per lunr ref, from docs.json (or from the list, without fetch)
    this.index = null;           // lunr.Index
    this.items = null;           // the list's <li>, once parsed
    this.noDocs = false;         // docs.json cannot be fetched
    this.itemTags = null;
    this.selectedTags = [];
    this.active = -1;
    this.shown = [];
  }

  Search.prototype.start = function () {
    var self = this;
    var params = new URLSearchParams(location.search);
    this.setupChips(params.getAll("tag"));
    this.input.addEventListener("input", function () { self.update(true); });
    this.input.addEventListener("keydown", function (e) { self.onKey(e); });
    this.results.addEventListener("keydown", function (e) { self.onResultKey(e); });
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
      if (!self.index && self.input.value) self.update(false);
    });
    var index = window.lunr ? getJSON(indexUrl).then(function (data) { return loadIndex(window.lunr, data); }) : null;
    if (index) {
      Promise.all([docs, index]).then(function (both) {
        self.index = both[1];
        mark("skillsite:index-ready");
        if (self.input.value) self.update(false);
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
    if (this.input.value) this.update(false);
  };

  Search.prototype.tagsOfItem = function (li) {
    return Array.prototype.map.call(li.querySelectorAll(".tag-list .tag"), function (a) { return a.textContent; });
  };

  Search.prototype.tokens = function (query) {
    var lunr = window.lunr;
    return lunr.tokenizer(query).map(function (t) { return t.toString(); }).filter(function (t) {
      return t && lunr.stopWordFilter(t) !== undefined;
    });
  };

  /* lunr: every word but the last must match (stemmed); the last also matches as a prefix. */
  Search.prototype.lunrSearch = function (query) {
    var lunr = window.lunr;
    var words = this.tokens(query);
    if (!words.length) return [];
    var docs = this.docs;
    var hits = this.index.query(function (q) {
      words.forEach(function (word, i) {
        var lastWord = i === words.length - 1;
        if (!lastWord) {
          q.term(word, { presence: lunr.Query.presence.REQUIRED });
        } else {
          q.term(word, { boost: 10 });
          q.term(word, { boost: 1, usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING });
        }
      });
    });
    return hits.map(function (h) { return docs[+h.ref]; }).filter(Boolean);
  };

  /* Without the index: every word must appear in the name, id, description or tags. */
  Search.prototype.textSearch = function (query) {
    var words = lower(query).split(/\s+/).filter(Boolean);
    var scored = [];
    this.docs.forEach(function (d, order) {
      var hay = d.text();
      if (words.every(function (w) { return hay.indexOf(w) !== -1; })) {
        var name = lower(d.name);
        var score = words.reduce(function (s, w) { return s + (name.indexOf(w) !== -1 ? 2 : 0); }, 0);
        scored.push({ doc: d, score: score, order: order });
      }
    });
    scored.sort(function (a, b) { return b.score - a.score || a.order - b.order; });
    return scored.map(function (s) { return s.doc; });
  };

  Search.prototype.hasTags = function (tags) {
    return this.selectedTags.every(function (t) { return tags.indexOf(t) !== -1; });
  };

  /* While there is a query its results take the place of the list of every skill (hidden by
     app.css): nothing of the long list is styled or laid out while the page is loading. */
  Search.prototype.searching = function (on) {
    doc.documentElement.classList.toggle("searching", on);
  };

  Search.prototype.update = function (remember) {
    var query = this.input.value.trim();
    this.searching(!!query);
    this.filterList();
    if (remember) this.remember();
    if (!query) {
      this.results.hidden = true;
      this.results.textContent = "";
      this.status.textContent = "";
      this.input.setAttribute("aria-expanded", "false");
      this.shown = [];
      return;
    }
    if (!this.docs) {
      this.status.textContent = "Loading the search index…";
      return;
    }
    var found, lunrUsed = false;
    try {
      if (this.index) {
        found = this.lunrSearch(query);
        lunrUsed = true;
      } else {
        found = this.textSearch(query);
      }
    } catch (e) {
      found = this.textSearch(query);  // a lunr query syntax error, e.g. a lone "~"
      lunrUsed = false;
    }
    var self = this;
    if (this.selectedTags.length) found = found.filter(function (d) { return self.hasTags(d.tags); });
    this.render(found, query);
    mark("skillsite:results");
    if (lunrUsed) mark("skillsite:results:lunr");
  };

  Search.prototype.render = function (found, query) {
    var shown = found.slice(0, MAX_RESULTS);
    var frag = doc.createDocumentFragment();
    shown.forEach(function (d, i) {
      var item = doc.createElement("li");
      item.id = "searchResult" + i;
      var a = doc.createElement("a");
      a.href = d.url;
      var name = doc.createElement("span");
      name.className = "result-name";
      name.textContent = d.name;
      if (d.name !== d.id) {
        var idSpan = doc.createElement("span");
        idSpan.className = "result-id";
        idSpan.textContent = d.id;
        name.appendChild(idSpan);
      }
      var desc = doc.createElement("span");
      desc.className = "result-desc";
      desc.textContent = d.description;
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
        this.update(true);
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
      button.setAttribute("aria-pressed", initial.indexOf(tag) !== -1 ? "true" : "false");
      while (chip.firstChild) button.appendChild(chip.firstChild);
      chip.parentNode.replaceChild(button, chip);
      self.bindChip(button, tag);
    });
    var known = Object.create(null);
    Array.prototype.forEach.call(doc.querySelectorAll("#tagChips [data-tag]"), function (b) {
      known[b.getAttribute("data-tag")] = true;
    });
    /* A ?tag= without a chip on this page (home shows the most used tags only) gets one, pressed,
       so that the filter it applies shows and can be turned off; a tag no skill has filters
       everything out and says so. */
    var list = $("tagChips");
    var more = list && list.querySelector(".chip-more");
    initial.forEach(function (tag) {
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
    this.selectedTags = initial.filter(function (t) { return known[t]; });
  };

  /* A chip button turns its tag's filter on and off. */
  Search.prototype.bindChip = function (button, tag) {
    var self = this;
    button.addEventListener("click", function () {
      var on = button.getAttribute("aria-pressed") !== "true";
      button.setAttribute("aria-pressed", on ? "true" : "false");
      self.selectedTags = self.selectedTags.filter(function (t) { return t !== tag; });
      if (on) self.selectedTags.push(tag);
      self.update(true);
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

  Search.prototype.remember = function () {
    if (!window.history || !history.replaceState) return;
    var params = new URLSearchParams();
    var q = this.input.value.trim();
    if (q) params.set("q", q);
    this.selectedTags.forEach(function (t) { params.append("tag", t); });
    var s = params.toString();
    history.replaceState(null, "", location.pathname + (s ? "?" + s : "") + location.hash);
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
