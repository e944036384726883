"""The agent side: what runtimes use to read a published catalog.

Standard library only.  ``skillsite.loader`` (the :class:`~skillsite.loader.Catalog` API)
is built on these modules; the build imports the few that say what both sides must agree
on (:mod:`.entry`, the typed manifest entry, :mod:`.catalog_format`, :mod:`.prompt_xml`,
:mod:`.skill_md`, ...) and never the client machinery (:mod:`.fetch`, :mod:`.store`).  The MCP
server, which needs third-party packages, is :mod:`skillsite.mcp`.
"""
