"""Package layout that pyproject.toml cannot say on its own (everything else is there).

The repository keeps the bundled files in the top-level ``resources/`` folder; a wheel carries
them as the package ``factdesk_resources`` (``package_dir`` maps the folder in, and
``[tool.setuptools.package-data]`` takes every file under it, so new model folders ship without
a change here). Code finds them with ``models.resources.resources_dir()``.
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=[
        *find_namespace_packages(include=["app", "app.*", "models", "models.*"]),
        "factdesk_resources",
    ],
    package_dir={"factdesk_resources": "resources"},
)
