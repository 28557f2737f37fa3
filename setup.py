"""Packages of the distribution; all other metadata is in pyproject.toml.

The lesson notebooks (notebooks/zh, notebooks/en) ship inside the package as
``coursekit/_lessons/{zh,en}/*.ipynb`` (the lessons and the glossary notebook they link to), so
``python -m coursekit lessons DIR`` can copy them out of an installed wheel. A learner's ``*.mine*.ipynb`` copies are never packaged.
"""

from setuptools import find_packages, setup

LESSON_PACKAGES = {f"coursekit._lessons.{lang}": f"notebooks/{lang}" for lang in ("zh", "en")}

setup(
    packages=[*find_packages(include=["coursekit", "coursekit.*"]), *LESSON_PACKAGES],
    package_dir=LESSON_PACKAGES,
    package_data={
        "coursekit": ["py.typed", "lessons.json"],
        # Lesson 8 reads the measurements recorded with the course (python -m coursekit.lab record).
        "coursekit.lab": ["recorded/*.json"],
        **{name: ["[0-9][0-9]_*.ipynb", "glossary.ipynb"] for name in LESSON_PACKAGES},
    },
    exclude_package_data={name: ["*.mine*.ipynb"] for name in LESSON_PACKAGES},
)
