"""setup.cfg for setuptools that cannot read pyproject.toml's ``[project]``
(RHEL 9 ships 53.0.0, RHEL 8's python39 50.3; the SPDX ``license`` string
needs 77). pyproject.toml stays the source of truth: this writes the same
metadata in the declarative form old setuptools reads, and ``--check`` (a
test runs it) fails when the two differ.

The RPM's %build swaps these files in when the build's setuptools is older
than 77; modern tools never see them.

    python3 packaging/legacy/sync.py [--check]
"""
import configparser
import io
import os
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TARGET = os.path.join(HERE, "setup.cfg")
HEADER = "# Generated from pyproject.toml by packaging/legacy/sync.py: edit pyproject.toml, then re-run it.\n"


def _lines(values):
    return "".join("\n" + v for v in values)


def render(pyproject):
    project, tool = pyproject["project"], pyproject["tool"]["setuptools"]
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.optionxform = str  # keep case: package names and extras
    urls = project.get("urls", {})
    cfg["metadata"] = {
        "name": project["name"],
        "version": project["version"],
        "description": project["description"],
        "long_description": "file: " + project["readme"],
        "long_description_content_type": "text/markdown",
        # Old setuptools write this as License: (Metadata 2.1 has no License-Expression).
        "license": project["license"],
        "license_files": _lines(project.get("license-files", [])),
        "author": ", ".join(a["name"] for a in project.get("authors", [])),
        "keywords": ", ".join(project.get("keywords", [])),
        "classifiers": _lines(project.get("classifiers", [])),
        "url": urls.get("Homepage", ""),
        "project_urls": _lines("%s = %s" % kv for kv in urls.items()),
    }
    cfg["options"] = {
        "python_requires": project["requires-python"],
        "install_requires": _lines(project.get("dependencies", [])),
        "packages": _lines(tool["packages"]),
        "package_dir": _lines("%s = %s" % kv for kv in tool["package-dir"].items()),
        "include_package_data": "False",
    }
    cfg["options.package_data"] = {k: ", ".join(v) for k, v in tool.get("package-data", {}).items()}
    cfg["options.extras_require"] = {k: _lines(v) for k, v in project.get("optional-dependencies", {}).items()}
    cfg["options.entry_points"] = {
        "console_scripts": _lines("%s = %s" % kv for kv in project.get("scripts", {}).items())}
    out = io.StringIO()
    cfg.write(out)
    return HEADER + out.getvalue().rstrip("\n") + "\n"


def main(argv):
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        text = render(tomllib.load(f))
    current = open(TARGET, encoding="utf-8").read() if os.path.exists(TARGET) else None
    if current == text:
        print("in step")
        return 0
    if "--check" in argv:
        print("packaging/legacy/setup.cfg differs from pyproject.toml: run python3 packaging/legacy/sync.py")
        return 1
    with open(TARGET, "w", encoding="utf-8") as f:
        f.write(text)
    print("updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
