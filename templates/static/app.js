/* skillsite catalog script: search-as-you-type (lunr.js), tag filters, copy buttons,
   site URLs in install snippets, and a tiny code highlighter.
   Every value from a skill is handled as text (textContent), never as HTML. */
(function () {
  "use strict";

  var doc = document;
  var MAX_RESULTS = 50;

  function $(id) { return doc.getElementById(id); }

  function mark(name) {
    if (window.performance && performance.mark) {
      try { performance.mark(name); } catch (e) { /* ignore */ }
    }
  }

  /* ------------------------------------------------------------ install snippets */

  /* The catalog's root URL, from a relative link to the home page (the brand link). */
  function siteUrl() {
    var home = doc.querySelector(".brand");
    var url = new URL(home ? home.getAttribute("href") : "./", location.href);
    url.search = "";
    url.hash = "";
    // Quotes would break the shell snippets they go into.
    return url.href.replace(/\/$/, "").replace(/'/g, "%27").replace(/"/g, "%22");
  }

  function fillSnippets() {
    var nodes = doc.querySelectorAll("[data-site-template]");
    if (!nodes.length || !/^https?:$/.test(location.protocol)) return;
    var site = siteUrl();
    for (var i = 0; i < nodes.length; i++) {
      nodes[i].textContent = nodes[i].getAttribute("data-site-template").split("{site}").join(site);
    }
  }

  /* ------------------------------------------------------------ copy buttons */

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = doc.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "offscreen-copy";
      doc.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = doc.execCommand("copy"); } catch (e) { ok = false; }
      doc.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy failed")); }
    });
  }

  function setupCopyButtons() {
    var buttons = doc.querySelectorAll("button[data-copy]");
    Array.prototype.forEach.call(buttons, function (button) {
      button.addEventListener("click", function () {
        // The snippet beside the button (ids are a fallback: a body heading could share one).
        var row = button.closest ? button.closest(".snippet-row") : null;
        var source = (row && row.querySelector("code")) || $(button.getAttribute("data-copy"));
        if (!source) return;
        copyText(source.textContent).then(function () {
          flash(button, "Copied", true);
        }, function () {
          flash(button, "Press Ctrl+C", false);
          var range = doc.createRange();
          range.selectNodeContents(source);
          var sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
        });
      });
    });
  }

  function flash(button, label, ok) {
    var original = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", original);
    button.textContent = label;
    button.classList.toggle("copied", ok);
    clearTimeout(button._timer);
    button._timer = setTimeout(function () {
      button.textContent = original;
      button.classList.remove("copied");
    }, 1600);
  }

  /* ------------------------------------------------------------ code highlighting */

  var WORDS = {
    sh: "if then else elif fi for while until do done case esac in function return export local set unset source exit",
    py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield",
    js: "async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null of return switch this throw true try typeof undefined var void while yield interface type enum implements",
    go: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false",
    sql: "add all alter and as asc begin between by case check column commit concurrently constraint create default delete desc distinct drop else end exists foreign from group having if in index insert into is join key left limit not null on or order primary references rename returning rollback select set table then transaction unique update using values view when where with",
    docker: "from as run cmd label expose env add copy entrypoint volume user workdir arg onbuild stopsignal healthcheck shell",
    yaml: "true false null yes no on off"
  };
  var LANGS = {
    bash: "sh", sh: "sh", shell: "sh", zsh: "sh", console: "sh", shellsession: "sh",
    python: "py", py: "py", python3: "py",
    js: "js", javascript: "js", ts: "js", typescript: "js", jsx: "js", tsx: "js", json: "js", jsonc: "js",
    go: "go", golang: "go", java: "js", c: "js", cpp: "js", rust: "js", css: "js", kotlin: "js", swift: "js",
    sql: "sql", postgresql: "sql", mysql: "sql", plpgsql: "sql",
    dockerfile: "docker", docker: "docker",
    yaml: "yaml", yml: "yaml", toml: "yaml", ini: "yaml",
    diff: "diff", patch: "diff"
  };

  function wordSet(list) {
    var set = Object.create(null);
    list.split(" ").forEach(function (w) { set[w] = true; });
    return set;
  }

  function rulesFor(family) {
    var comment = {
      sh: "#[^\\n]*", py: "#[^\\n]*", yaml: "#[^\\n]*", docker: "#[^\\n]*",
      js: "\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/", go: "\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/",
      sql: "--[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/"
    }[family];
    var string = family === "py"
      ? "\"\"\"[\\s\\S]*?\"\"\"|'''[\\s\\S]*?'''|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'"
      : "\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'|`(?:\\\\.|[^`\\\\])*`";
    var source = "(" + comment + ")|(" + string + ")|(\\b\\d[\\d_]*(?:\\.\\d+)?(?:e[+-]?\\d+)?\\b)|([A-Za-z_$][\\w$-]*)";
    return new RegExp(source, "g");
  }

  function span(kind, text) {
    var s = doc.createElement("span");
    s.className = "tok-" + kind;
    s.textContent = text;
    return s;
  }

  function highlightDiff(text, out) {
    text.split(/(\n)/).forEach(function (line) {
      var first = line.charAt(0);
      if (line === "\n" || !line) { out.appendChild(doc.createTextNode(line)); return; }
      var kind = first === "+" ? "ins" : first === "-" ? "del" : line.indexOf("@@") === 0 ? "meta" : "";
      out.appendChild(kind ? span(kind, line) : doc.createTextNode(line));
    });
  }

  function highlightCode(code, family) {
    var text = code.textContent;
    if (text.length > 100000) return;
    var out = doc.createDocumentFragment();
    if (family === "diff") {
      highlightDiff(text, out);
    } else {
      var words = wordSet(WORDS[family] || "");
      var caseless = family === "sql" || family === "docker";
      var re = rulesFor(family);
      var last = 0, m;
      while ((m = re.exec(text)) !== null) {
        var kind = m[1] ? "comment" : m[2] ? "string" : m[3] ? "number" : "";
        if (!kind && m[4] && words[caseless ? m[4].toLowerCase() : m[4]]) kind = "keyword";
        if (!kind) continue;
        if (kind === "comment" && (family === "sh" || family === "docker") && m.index > 0 && !/\s/.test(text.charAt(m.index - 1))) continue;
        if (m.index > last) out.appendChild(doc.createTextNode(text.slice(last, m.index)));
        out.appendChild(span(kind, m[0]));
        last = m.index + m[0].length;
      }
      out.appendChild(doc.createTextNode(text.slice(last)));
    }
    code.textContent = "";
    code.appendChild(out);
  }

  function highlightAll() {
    var codes = doc.querySelectorAll(".markdown pre > code[class*='language-']");
    Array.prototype.forEach.call(codes, function (code) {
      var match = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className);
      var family = match && LANGS[match[1].toLowerCase()];
      if (family) highlightCode(code, family);
    });
  }

  /* ------------------------------------------------------------ search and tag filters */

  function Search(input) {
    this.input = input;
    this.results = $("searchResults");
    this.status = $("searchStatus");
    this.list = $("skillList");
    this.listCount = $("listCount");
    this.emptyList = $("emptyList");
    this.items = Array.prototype.slice.call(this.list ? this.list.children : []);
    this.byId = Object.create(null);
    this.tagsOf = Object.create(null);
    this.selectedTags = [];
    this.active = -1;
    this.shown = [];
    this.index = null;
    this.engine = "none";
    var self = this;
    this.items.forEach(function (li) {
      var id = li.getAttribute("data-id");
      self.byId[id] = li;
      try { self.tagsOf[id] = JSON.parse(li.getAttribute("data-tags") || "[]"); } catch (e) { self.tagsOf[id] = []; }
    });
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
    this.loadIndex();
    if (this.input.value || this.selectedTags.length) this.update(false);
  };

  Search.prototype.loadIndex = function () {
    var self = this;
    if (!window.lunr || !window.fetch || !/^https?:$/.test(location.protocol)) { this.engine = "text"; return; }
    var url = this.input.getAttribute("data-index") || "search/lunr.json";
    fetch(url, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    }).then(function (data) {
      self.index = window.lunr.Index.load(data);
      self.engine = "lunr";
      mark("skillsite:index-ready");
      if (self.input.value) self.update(false);
    }).catch(function () {
      self.engine = "text";
    });
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
    return hits.map(function (h) { return h.ref; });
  };

  /* Without the index: every word must appear in the name, description, id or tags. */
  Search.prototype.textSearch = function (query) {
    var words = query.toLowerCase().split(/\s+/).filter(Boolean);
    var self = this;
    var scored = [];
    this.items.forEach(function (li, order) {
      var id = li.getAttribute("data-id");
      var name = (li.querySelector(".skill-title a") || li).textContent.toLowerCase();
      var hay = name + " " + id.toLowerCase() + " " + (li.querySelector(".skill-desc") || li).textContent.toLowerCase() +
        " " + self.tagsOf[id].join(" ").toLowerCase();
      if (words.every(function (w) { return hay.indexOf(w) !== -1; })) {
        var score = words.reduce(function (s, w) { return s + (name.indexOf(w) !== -1 ? 2 : 0); }, 0);
        scored.push({ id: id, score: score, order: order });
      }
    });
    scored.sort(function (a, b) { return b.score - a.score || a.order - b.order; });
    return scored.map(function (s) { return s.id; });
  };

  Search.prototype.hasTags = function (id) {
    var tags = this.tagsOf[id] || [];
    return this.selectedTags.every(function (t) { return tags.indexOf(t) !== -1; });
  };

  Search.prototype.update = function (remember) {
    var query = this.input.value.trim();
    this.filterList();
    if (remember) this.remember();
    if (!query) {
      this.results.hidden = true;
      this.results.textContent = "";
      this.status.textContent = "";
      this.shown = [];
      return;
    }
    var ids;
    try {
      ids = this.index ? this.lunrSearch(query) : this.textSearch(query);
    } catch (e) {
      ids = this.textSearch(query);  // a lunr query syntax error, e.g. a lone "~"
    }
    var self = this;
    ids = ids.filter(function (id) { return self.byId[id] && self.hasTags(id); });
    this.render(ids, query);
    mark("skillsite:results");
    if (this.index) mark("skillsite:results:lunr");
  };

  Search.prototype.render = function (ids, query) {
    var shown = ids.slice(0, MAX_RESULTS);
    var frag = doc.createDocumentFragment();
    var self = this;
    shown.forEach(function (id, i) {
      var li = self.byId[id];
      var link = li.querySelector(".skill-title a");
      var desc = li.querySelector(".skill-desc");
      var item = doc.createElement("li");
      item.id = "searchResult" + i;
      var a = doc.createElement("a");
      a.href = link.getAttribute("href");
      var name = doc.createElement("span");
      name.className = "result-name";
      name.textContent = link.textContent;
      if (link.textContent !== id) {
        var idSpan = doc.createElement("span");
        idSpan.className = "result-id";
        idSpan.textContent = id;
        name.appendChild(idSpan);
      }
      var d = doc.createElement("span");
      d.className = "result-desc";
      d.textContent = desc ? desc.textContent : "";
      a.appendChild(name);
      a.appendChild(d);
      item.appendChild(a);
      frag.appendChild(item);
    });
    this.results.textContent = "";
    this.results.appendChild(frag);
    this.results.hidden = shown.length === 0;
    this.shown = shown;
    this.setActive(shown.length ? 0 : -1, false);
    var n = ids.length;
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
      button.addEventListener("click", function () {
        var on = button.getAttribute("aria-pressed") !== "true";
        button.setAttribute("aria-pressed", on ? "true" : "false");
        self.selectedTags = self.selectedTags.filter(function (t) { return t !== tag; });
        if (on) self.selectedTags.push(tag);
        self.update(true);
      });
    });
    var known = Object.create(null);
    Array.prototype.forEach.call(doc.querySelectorAll("#tagChips [data-tag]"), function (b) {
      known[b.getAttribute("data-tag")] = true;
    });
    this.selectedTags = initial.filter(function (t) { return known[t]; });
  };

  Search.prototype.filterList = function () {
    var self = this;
    var visible = 0;
    this.items.forEach(function (li) {
      var ok = !self.selectedTags.length || self.hasTags(li.getAttribute("data-id"));
      if (li.hidden === ok) li.hidden = !ok;   // touch only what changes: no needless relayout
      if (ok) visible++;
    });
    if (this.listCount) this.listCount.textContent = this.selectedTags.length ? visible + " of " + this.items.length : String(this.items.length);
    if (this.emptyList) this.emptyList.hidden = visible !== 0;
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
    if (!input || !$("searchResults") || !$("skillList")) return;
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

  fillSnippets();
  setupCopyButtons();
  highlightAll();
  setupSearch();
})();
