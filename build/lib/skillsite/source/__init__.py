"""Reading skills: discover the skill folders, parse each SKILL.md, check it (schema, names,
body and links), and make the :class:`~skillsite.models.Skill` objects every output is made of.

:func:`skillsite.source.catalog.read_catalog` runs the whole stage; ``skillsite validate``
uses :func:`skillsite.source.catalog.check_catalog`, which keeps only the verdicts.
"""
