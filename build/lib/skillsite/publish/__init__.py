"""Publishing a catalog: every artifact written into a staging folder, then swapped in.

:func:`skillsite.publish.build.build` is the stage's one orchestrator: it reads the skills
(:mod:`skillsite.source`), publishes each skill's files, manifest entry, XML fragments,
archive and rendered body (:mod:`.skills`), the search indexes, ``skills.json``
(:mod:`.manifest`), the discovery index (:mod:`.wellknown`) and the pages (:mod:`.pages`),
and commits the staging folder (:mod:`.staging`); :mod:`.state` lets a rebuild skip what did
not change.
"""
