/* skillsite catalog script: copy buttons, site URLs in install snippets, and a tiny code
   highlighter (the home page's search is search.js).
   Every value from a skill is handled as text (textContent), never as HTML. */
(function () {
  "use strict";

  var doc = document;

  function $(id) { return doc.getElementById(id); }

  /* ------------------------------------------------------------ install snippets */

  /* The catalog's root URL, from a relative link to the home page (the brand link). */
  function siteUrl() {
    var home = doc.querySelector(".brand");
    var url = new URL(home ? home.getAttribute("href") : "./", location.href);
    // The snippets are shell commands: every character of the path a shell reads as more than a
    // letter ("&", ";", "(", quotes, ...) percent-encoded, which names the same file.
    var path = url.pathname.replace(/\/$/, "").replace(/[^A-Za-z0-9_@%+=:,.\/-]/g, function (c) {
      return "%" + c.charCodeAt(0).toString(16).toUpperCase();
    });
    return url.origin + path;
  }

  function fillSnippets() {
    var nodes = doc.querySelectorAll("[data-site-template]");
    if (!nodes.length || !/^https?:$/.test(location.protocol)) return;
    var site = siteUrl();
    for (var i = 0; i < nodes.length; i++) {
      // the first marker only: a skill's id, later in the text, may hold "{site}" itself
      nodes[i].textContent = nodes[i].getAttribute("data-site-template").replace("{site}", function () { return site; });
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

  /* Every rule matches wherever it starts: a comment or string left open runs to the end of its
     line (or of the text, for those that span lines), as editors show it. A rule that could fail
     after scanning ahead would scan again from each later start: quadratic in a skill's block. */
  function rulesFor(family) {
    var block = "\\/\\*[\\s\\S]*?(?:\\*\\/|$)";
    var comment = {
      sh: "#[^\\n]*", py: "#[^\\n]*", yaml: "#[^\\n]*", docker: "#[^\\n]*",
      js: "\\/\\/[^\\n]*|" + block, go: "\\/\\/[^\\n]*|" + block, sql: "--[^\\n]*|" + block
    }[family];
    var line = function (q) { return q + "(?:\\\\[^\\n]?|[^" + q + "\\\\\\n])*(?:" + q + "|$|(?=\\n))"; };
    var string = family === "py"
      ? "\"\"\"[\\s\\S]*?(?:\"\"\"|$)|'''[\\s\\S]*?(?:'''|$)|" + line("\"") + "|" + line("'")
      : line("\"") + "|" + line("'") + "|`(?:\\\\[\\s\\S]?|[^`\\\\])*(?:`|$)";
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

  fillSnippets();
  setupCopyButtons();
  highlightAll();
})();
