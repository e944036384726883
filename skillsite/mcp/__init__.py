"""``skillsite mcp``: a published catalog served to agents over MCP (the optional ``mcp`` extra).

- :mod:`.server`: the server (tools, resources, prompts) over :class:`skillsite.loader.Catalog`;
- :mod:`.tools`: its tools and prompts, every argument described (pydantic, from the SDK);
- :mod:`.skills`: the MCP Skills extension's core (``skills/list``, ``skills/get``, ``skill://``
  files), which needs no MCP SDK;
- :mod:`.frontmatter`: a SKILL.md's frontmatter as the extension serves it (PyYAML, with the
  build's bounds from :mod:`skillsite.source.frontmatter`);
- :mod:`.extension`: that core bound to the SDK's extension API;
- :mod:`.list_pages` and :mod:`.on_demand`: the lists in pages, and each skill's prompt and files
  given to the SDK only when a request names one;
- :mod:`.reopening` and :mod:`.list_changed`: the catalog opened again once the host published a
  new build or the signed metadata expired, and the client told its lists changed.

Unlike :mod:`skillsite.agent`, this package needs third-party code (``mcp``, ``pyyaml``); the
loader never imports it.
"""
