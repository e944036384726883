/* skillsite catalog search, the page: search-as-you-type, tag filter chips, keyboard, URL.
   The ranking itself is ranking.js (window.SkillsiteRanking: no DOM, node runs it too).

   The home page loads lunr.min.js, ranking.js and this file with plain <script>s placed
   right after the search box and the tag chips, before the long list of every skill: it runs
   as soon as the box exists, fetches search/docs.json (id, name, description, page, tags of
   every skill; row i is lunr ref "i") and search/lunr.json (both preloaded from <head>) while
   the browser is still parsing the list, and draws results under the box:

   - first a plain-text match over docs.json (searchText: any word, more and rarer words first),
   - then lunr's ranking, as soon as the index is loaded (searchIndex: the same idea on the
     index's BM25 scores).

   A catalog of more than shard_above skills has no docs.json nor lunr.json: the box has
   data-shards (search/shards.json, preloaded) and searches the sharded BM25F index instead
   (ranking.js's ShardedIndex: the chunks of the typed words, then the cards of the first
   SHARD_FIRST listed results, drawn as soon as they are in, then up to SHARD_RESULTS), ranked
   exactly as `skillsite search` ranks.

   The words that matched are highlighted (<mark> elements and text nodes, never HTML strings).

   The query and the tag filters live in the URL (?q=...&tag=...): opening such a link shows
   them; while typing, the current history entry is replaced, and a new one is pushed when a
   query starts after the last one settled (SETTLE_MS without typing) or a filter changes, so
   the back button goes back to the previous query. An empty result says so and offers the
   closest tags and the full list.

   While the box holds a query, its results take the place of the list (html.searching); the
   list is filtered by tag once it is parsed. Without fetch (a page opened from a file) the
   plain-text match runs over the list. The page marks performance entries for
   benchmarks/browser_search_latency.py: skillsite:results (any results drawn),
   skillsite:results:lunr (lunr's), skillsite:results:shards (the shards': the first ones, then all),
   skillsite:results:settled (the shards' results all drawn), skillsite:index-ready. Every value from a skill is handled
   as text (textContent, createTextNode), never as HTML. */
(function () {
  "use strict";

  var ranking = window.SkillsiteRanking;
  if (!ranking) return;    // ranking.js did not load: the list of every skill stays
  var loadIndex = ranking.loadIndex, searchIndex = ranking.searchIndex, searchText = ranking.searchText;
  var queryWords = ranking.queryWords, highlightRanges = ranking.highlightRanges, closestTags = ranking.closestTags;
  var folded = ranking.folded;
  var onePerGroup = ranking.onePerGroup, copiesInPlace = ranking.copiesInPlace;

  var doc = document;
  var MAX_RESULTS = 50;
  var SHARD_FIRST = 8;     // from the shards, each result shown costs its card's file: the first ones
  var SHARD_RESULTS = 20;  // are drawn as soon as they are in (a browser fetches 6 files at once), then the rest
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

  /* A skill as search results and filters use it: ``row`` in docs.json, and for a copy of
     another skill that skill's row (``copyOf``, else -1); ``copies``: its group's size;
     ``hiddenTags``: the tags of each copy of it the site does not list (no row of their own). */
  function Doc(id, name, description, url, tags, row, copyOf, copies, hiddenTags) {
    this.id = id;
    this.name = name;
    this.description = description;
    this.url = url;
    this.tags = Array.isArray(tags) ? tags.filter(function (t) { return typeof t === "string"; }) : [];
    this.row = row === undefined ? -1 : row;
    this.copyOf = copyOf === undefined ? -1 : copyOf;
    this.copies = copies || 1;
    this.hiddenTags = Array.isArray(hiddenTags) ? hiddenTags.filter(Array.isArray) : [];
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
    this.shards = null;          // ranking.js's ShardedIndex, for a sharded catalog (data-shards)
    this.seq = 0;                // counts updates: the shards' answers to an older one are not drawn
    this.items = null;           // the list's <li>, once parsed
    this.listed = -1;            // how many skills the list holds, every page (its heading says), once parsed
    this.noDocs = false;         // docs.json cannot be fetched
    this.itemTags = null;
    this.selectedTags = [];
    this.active = -1;
    this.shown = [];
    this.pushNext = true;        // the next change of the query gets a history entry of its own
    this.settleTimer = null;
  }

  Search.prototype.lunr = function () { return window.lunr || null; };

  /* A catalog of more than shard_above skills: the box searches its sharded BM25F index
     (data-shards: search/shards.json; then the chunks of the typed words, then the cards of the
     results shown: ranking.js's ShardedIndex), ranked as `skillsite search` ranks. */
  Search.prototype.loadShards = function (url) {
    var self = this;
    var lunr = this.lunr();
    if (!lunr || !ranking.ShardedIndex) { this.noDocs = true; return; }
    getJSON(url).then(function (meta) {
      self.shards = new ranking.ShardedIndex(lunr, meta, getJSON);
      mark("skillsite:index-ready");
      if (self.input.value || self.selectedTags.length) self.update();
    }).catch(function () {
      self.noDocs = true;
      self.docsFromList();
    });
  };

  /* Results of ``text`` from the shards, drawn when they arrive (unless the query changed
     meanwhile): the first SHARD_FIRST as soon as their cards are in, then up to SHARD_RESULTS. */
  Search.prototype.updateShards = function (text, query) {
    var self = this;
    var seq = ++this.seq;
    var listed = function (card) { return card.listed; };
    var tags = this.selectedTags.slice();
    var found, counted = null;
    var groups = !this.allCopies();
    var draw = function (hits, more) {
      if (seq !== self.seq) return null;
      var shown = hits.map(function (h) {
        var c = h.card;
        return { doc: new Doc(c.id, c.name, c.description, c.url, c.tags, c.doc, c.copy_of, c.copies),
                 terms: h.terms, starts: null };
      });
      // every card read, or the groups file's count; else an upper bound (a build without that file)
      var total = counted !== null ? counted : Math.max(shown.length, found.ranking.count - found.left);
      var drawn = total || !tags.length ? Promise.resolve(total)
        : self.shards.ranked(text, []).then(function (all) {    // "N match without the tag filter"
          return self.shards.count(all.ranking, groups).then(function (n) {
            return n === null ? all.ranking.count : n;
          });
        });
      return drawn.then(function (unfiltered) {
        if (seq !== self.seq) return;
        self.render(shown, query, unfiltered, total, more);
        mark("skillsite:results");
        mark("skillsite:results:shards");
      });
    };
    this.shards.ranked(text, tags).then(function (ranked) {
      found = ranked;
      // every copy shown: on a tie, right after its canonical member (the groups file says whose copy it is)
      return groups ? null : self.shards.groupOf().catch(function () { return null; });
    }).then(function (groupOf) {
      found.ranking.groupOf = groupOf;
      var counting = found.ranking.count > SHARD_FIRST
        ? self.shards.count(found.ranking, groups).catch(function () { return null; }) : null;
      return Promise.all([self.shards.collect(found, SHARD_FIRST, listed, groups), counting]);
    }).then(function (both) {
      counted = both[1];
      return draw(both[0]);
    }).then(function () {
      if (seq !== self.seq || found.ranking.count - found.left <= SHARD_FIRST) return null;
      found.left = 0;
      return self.shards.collect(found, SHARD_RESULTS, listed, groups).then(function (hits) { return draw(hits, true); });
    }).then(function () {
      if (seq === self.seq) mark("skillsite:results:settled");
    }).catch(function () {
      if (seq === self.seq) self.clearResults("The search index cannot be read; reload the page to try again.");
    });
  };

  /* No results under the box, ``status`` said instead: an empty box, or a query the shards could
     not answer (the previous query's results would pass for its own, and Enter would open one). */
  Search.prototype.clearResults = function (status) {
    this.results.hidden = true;
    this.results.textContent = "";
    this.status.textContent = status;
    this.input.setAttribute("aria-expanded", "false");
    this.shown = [];
    this.active = -1;
    this.showEmpty(null);
  };

  Search.prototype.start = function () {
    var self = this;
    var params = new URLSearchParams(location.search);
    this.setupChips(params.getAll("tag"));
    this.input.addEventListener("input", function () { self.onInput(); });
    var copies = $("searchCopies");
    if (copies) copies.addEventListener("change", function () { self.update(); });
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
    var shards = this.input.getAttribute("data-shards");
    if (shards) { this.loadShards(shards); return; }
    var docsUrl = this.input.getAttribute("data-docs") || "search/docs.json";
    var indexUrl = this.input.getAttribute("data-index") || "search/lunr.json";
    var docs = getJSON(docsUrl).then(function (data) {
      var at = {};
      data.fields.forEach(function (name, i) { at[name] = i; });
      self.docs = data.docs.map(function (row, n) {
        return new Doc(row[at.id], row[at.name], row[at.description], row[at.url], row[at.tags] || [], n,
                       at.copy_of === undefined ? -1 : row[at.copy_of], at.copies === undefined ? 1 : row[at.copies],
                       at.hidden_tags === undefined ? [] : row[at.hidden_tags]);
      });
      self.itemTags = null;      // the list's tag filter now knows each group's tags
      self.filterList();
      if (!self.index && self.input.value) self.update();
    });
    var index = window.lunr ? getJSON(indexUrl).then(function (data) { return loadIndex(window.lunr, data); }) : null;
    if (index) {
      Promise.all([docs, index]).then(function (both) {
        self.index = both[1];
        mark("skillsite:index-ready");
        if (self.input.value || self.selectedTags.length) self.update();
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
    var heading = doc.querySelector("#allSkillsHeading .list-count");
    this.listed = heading ? parseInt(heading.textContent, 10) : -1;
    var showAll = $("searchShowAll");  // drawn before the page was parsed: with the fallback count
    if (showAll) showAll.textContent = this.browseAllText();
    this.filterList();
    if (this.noDocs) this.docsFromList();
  };

  /* Without docs.json: the list is what we search (not the lunr index: its refs are rows of docs.json). */
  Search.prototype.docsFromList = function () {
    if (this.docs || !this.items) return;
    var self = this;
    this.docs = this.items.map(function (li, row) {
      var link = li.querySelector(".skill-title a");
      var id = li.querySelector(".skill-id");
      var desc = li.querySelector(".skill-desc");
      // its row: each item is a group of copies of its own (results show one per group)
      return new Doc(id ? id.textContent : link.textContent, link.textContent, desc ? desc.textContent : "",
                     link.getAttribute("href"), self.tagsOfItem(li), row);
    });
    if (this.input.value) this.update();
  };

  Search.prototype.tagsOfItem = function (li) {
    return Array.prototype.map.call(li.querySelectorAll(".tag-list .tag"), function (a) { return a.textContent; });
  };

  /* Results of ``text``: {found: [{doc, terms, starts}] best first (terms: the index terms a lunr
     result matched; starts: the word beginnings the plain-text match looked for) with the
     selected tags, unfiltered: how many there are without them, lunr: whether lunr ranked them}.
     The tags are asked of each skill found before a group of copies is one result (its
     canonical member stands for a copy that has them), as `skillsite search` filters. */
  Search.prototype.find = function (text) {
    var answer = this.hits(text);
    var self = this, every = this.allCopies(), docs = this.docs;
    var grouped = every
      ? function (found) {
        return copiesInPlace(found, function (r) { return r.score; },
                             function (r) { return r.doc.copyOf >= 0 ? r.doc.copyOf : r.doc.row; },
                             function (r) { return r.doc.row; });
      }
      : function (found) { return onePerGroup(found, docs); };
    var found = grouped(answer.found);
    var unfiltered = found.length;
    if (this.selectedTags.length) {
      found = grouped(answer.found.filter(function (r) {
        return self.hasTags(r.doc.tags) || (!every && r.doc.hiddenTags.some(function (t) { return self.hasTags(t); }));
      }));
    }
    return { lunr: answer.lunr, found: found, unfiltered: unfiltered };
  };

  /* Every skill ``text`` finds, best first, each with its score ({doc, terms, starts, score}). */
  Search.prototype.hits = function (text) {
    var lunr = this.lunr();
    var docs = this.docs;
    if (this.index && lunr) {
      try {
        return {
          lunr: true,
          found: searchIndex(lunr, this.index, text).map(function (h) {
            return { doc: docs[+h.ref], terms: h.terms, starts: null, score: h.score };
          }).filter(function (r) { return r.doc; })
        };
      } catch (e) { /* fall back to the plain-text match */ }
    }
    var starts = [];
    queryWords(lunr, text).forEach(function (w) { starts.push.apply(starts, w.starts); });
    return {
      lunr: false,
      found: searchText(lunr, docs, text).map(function (h) {
        return { doc: docs[h.ref], terms: null, starts: starts, score: h.score };
      })
    };
  };

  /* Whether the reader asked for every copy of a skill (the box's "every copy" switch), not one result a group. */
  Search.prototype.allCopies = function () {
    var box = $("searchCopies");
    return !!(box && box.checked);
  };

  /* Whether ``tags`` hold every selected tag, folded (case aside, "é" composed or decomposed alike:
     as the sharded index, the loader and the build's tag pages match them). */
  Search.prototype.hasTags = function (tags) {
    var held = (Array.isArray(tags) ? tags : []).map(folded);
    return this.selectedTags.every(function (t) { return held.indexOf(folded(t)) !== -1; });
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

  /* Whether the list holds one page of several (its other skills are on the next pages). */
  Search.prototype.paged = function () {
    return !!doc.querySelector("nav.pager");
  };

  Search.prototype.update = function () {
    var text = this.input.value;
    var query = text.trim();
    this.seq += 1;    // what the shards still owe an earlier query (an emptied box included) is never drawn
    // tags alone on one page of a paged list: that page holds only some of the tagged skills, so
    // the sharded index gives them all, as results
    var tagsAcrossPages = !query && this.selectedTags.length > 0 && !!this.shards && !this.noDocs && this.paged();
    this.searching(!!query || tagsAcrossPages);
    this.filterList();
    if (tagsAcrossPages) {
      this.updateShards("", "");
      return;
    }
    if (!query) {
      this.clearResults("");
      return;
    }
    if (this.shards && !this.noDocs) {
      this.updateShards(text, query);
      return;
    }
    if (!this.docs) {
      this.status.textContent = "Loading the search index…";
      return;
    }
    var answer = this.find(text);
    this.render(answer.found, query, answer.unfiltered);
    mark("skillsite:results");
    if (answer.lunr) mark("skillsite:results:lunr");
  };

  /* Draw ``found`` (the first MAX_RESULTS of them) of ``total`` results (default: all found).
     ``more``: the same query's results again, more of them (the first ones unchanged): the
     highlighted result and the focus stay where the reader put them. */
  Search.prototype.render = function (found, query, unfiltered, total, more) {
    var lunr = this.lunr();
    var active = more ? this.active : -1;
    var focused = !!more && this.results.contains(doc.activeElement);
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
      if (d.copies > 1) {
        var copiesSpan = doc.createElement("span");
        copiesSpan.className = "result-copies";
        copiesSpan.textContent = d.copyOf >= 0 ? "a copy" : d.copies + " copies";
        name.appendChild(copiesSpan);
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
    this.active = -1;
    this.setActive(shown.length ? (active >= 0 && active < shown.length ? active : 0) : -1, focused && active >= 0);
    var n = total === undefined ? found.length : total;
    var where = this.selectedTags.length ? " with the selected tags" : "";
    var asked = query ? "“" + query + "”" + where : "has the selected tags";
    this.status.textContent = n === 0 ? "No skill " + (query ? "matches " : "") + asked + "."
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
    var counts = this.tagCounts();
    var selected = this.selectedTags.map(folded);
    var close = closestTags(this.lunr(), empty.query, counts, 6).filter(function (t) {
      return selected.indexOf(folded(t.tag)) === -1;
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
    all.appendChild(this.action(this.browseAllText(), "searchShowAll", function () {
      self.input.value = "";
      self.setTags([]);
    }));
    box.appendChild(all);
  };

  /* "Browse all N skills": N is the list heading's count (every page, a group of copies once),
     read once the page is parsed (listReady); until then, docs.json's rows or the list's cards. */
  Search.prototype.browseAllText = function () {
    var total = this.listed >= 0 ? this.listed : this.docs ? this.docs.length : (this.items ? this.items.length : 0);
    return "Browse all " + total + " skill" + (total === 1 ? "" : "s");
  };

  /* How many skills each tag's chip shows (the list filtered by it): from docs.json, a group of
     copies once, when any member has the tag (listed or hidden, folded: as the filter asks
     each skill); else from the page's tag chips (a sharded catalog's page has no list of every
     skill's tags; they count the list's skills too). */
  Search.prototype.tagCounts = function () {
    var counts = Object.create(null);
    if (this.docs) {
      var groups = Object.create(null), perTag = Object.create(null);
      var own = Object.create(null), anyMember = Object.create(null);
      this.docs.forEach(function (d) {
        var group = d.copyOf >= 0 ? d.copyOf : d.row, held = groups[group] || (groups[group] = Object.create(null));
        [d.tags].concat(d.hiddenTags).forEach(function (tags, i) {
          tags.forEach(function (t) {
            var key = folded(t);       // one tag however it is spelt, shown as its first spelling (as the build)
            if (i === 0 && d.copyOf < 0 && (own[key] === undefined || t < own[key])) own[key] = t;
            if (anyMember[key] === undefined || t < anyMember[key]) anyMember[key] = t;
            held[key] = true;
          });
        });
      });
      Object.keys(groups).forEach(function (g) { for (var t in groups[g]) perTag[t] = (perTag[t] || 0) + 1; });
      // spelt as the skills the list shows write it; a copy it does not show, only for a tag none of them has
      Object.keys(anyMember).forEach(function (key) {
        counts[own[key] !== undefined ? own[key] : anyMember[key]] = perTag[key];
      });
      return counts;
    }
    Array.prototype.forEach.call(doc.querySelectorAll("#tagChips [data-tag]"), function (chip) {
      var count = chip.querySelector(".chip-count");
      if (count) counts[chip.getAttribute("data-tag")] = parseInt(count.textContent, 10) || 0;
    });
    return counts;
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

  /* Press the chips of ``tags`` (and only those) and filter by them; a tag is its chip's however it
     is spelt (folded: "CAFÉ" in a link presses the chip "café"). A tag without a chip on this
     page (home shows the most used tags only) gets one, so that the filter it applies shows and
     can be turned off; a tag no skill has filters everything out and says so. */
  Search.prototype.pressChips = function (tags) {
    var self = this;
    var list = $("tagChips");
    var chips = doc.querySelectorAll("#tagChips button[data-tag]");
    var known = Object.create(null);      // folded tag -> the tag of its chip
    Array.prototype.forEach.call(chips, function (b) {
      known[folded(b.getAttribute("data-tag"))] = b.getAttribute("data-tag");
    });
    var more = list && list.querySelector(".chip-more");
    tags.forEach(function (tag) {
      if (!list || !tag || known[folded(tag)] !== undefined) return;
      known[folded(tag)] = tag;
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
    var selected = [];
    tags.forEach(function (t) {
      var tag = t ? known[folded(t)] : undefined;
      if (tag !== undefined && selected.indexOf(tag) === -1) selected.push(tag);
    });
    Array.prototype.forEach.call(chips, function (b) {
      b.setAttribute("aria-pressed", selected.indexOf(b.getAttribute("data-tag")) !== -1 ? "true" : "false");
    });
    this.selectedTags = selected;
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

  /* Each list item's tag sets: its own, and once docs.json is in, those of each copy of it
     (listed or not: the canonical member stands for its group, as in search). */
  Search.prototype.itemTagSets = function () {
    var self = this, docs = this.docs && !this.noDocs ? this.docs : [], byUrl = Object.create(null);
    docs.forEach(function (d) {
      var group = d.copyOf >= 0 && docs[d.copyOf] ? docs[d.copyOf] : d;
      (byUrl[group.url] = byUrl[group.url] || []).push(d.tags);
      if (group === d) byUrl[d.url].push.apply(byUrl[d.url], d.hiddenTags);
    });
    return this.items.map(function (li) {
      var link = li.querySelector(".skill-title a");
      var sets = link && byUrl[link.getAttribute("href")];
      return sets || [self.tagsOfItem(li)];
    });
  };

  Search.prototype.filterList = function () {
    if (!this.items) return;
    var self = this;
    var visible = 0;
    var filtering = this.selectedTags.length > 0;
    if (filtering && !this.itemTags) this.itemTags = this.itemTagSets();
    this.items.forEach(function (li, i) {
      var ok = !filtering || self.itemTags[i].some(function (tags) { return self.hasTags(tags); });
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
