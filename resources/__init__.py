"""FactDesk's bundled files, installed as the package ``factdesk_resources`` (see setup.py).

Nothing to import: code finds these files through ``models.resources.resources_dir()``.
"""
