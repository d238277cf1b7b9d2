"""Check what `make dist` wrote: one sdist and one wheel, metadata a package index accepts.

    python scripts/check_dist.py dist     # exit 1, naming each problem, when one is found

Checked in both the wheel's METADATA and the sdist's PKG-INFO: the metadata parses and
validates (`packaging.metadata`, strict), the readme renders as the index would render it
(`readme_renderer`, for its content type), and the licence (an SPDX expression and its file),
classifiers, project URLs and `requires-python` are there. In the wheel: every top-level import
package is a `together_rl*` name, and the spec (`openapi.yaml`) is there exactly once.
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import sys
import tarfile
import zipfile
from pathlib import Path

from packaging.metadata import Metadata

__all__ = ["dist_problems", "main", "metadata_problems", "wheel_problems"]

#: Every top-level import package a wheel may install.
PACKAGE_PREFIX = "together_rl"
SPEC_FILE = "openapi.yaml"


def _render(text: str, content_type: str) -> str | None:
    kind = content_type.split(";", 1)[0].strip()
    if kind == "text/markdown":
        from readme_renderer.markdown import render as render_markdown

        return render_markdown(text)
    if kind == "text/x-rst":
        from readme_renderer.rst import render as render_rst

        return render_rst(text)
    from readme_renderer.txt import render as render_txt

    return render_txt(text)


def metadata_problems(raw: bytes, where: str) -> list[str]:
    """What is missing or wrong in one METADATA/PKG-INFO document."""
    try:
        meta = Metadata.from_email(raw, validate=True)
    except Exception as error:  # ExceptionGroup of InvalidMetadata, or a parse error
        causes = getattr(error, "exceptions", [error])
        return [f"{where}: invalid metadata: {cause}" for cause in causes]
    problems: list[str] = []
    description = email.parser.BytesParser().parsebytes(raw).get_payload()
    if not meta.description_content_type:
        problems.append(f"{where}: no Description-Content-Type")
    if not isinstance(description, str) or not description.strip():
        problems.append(f"{where}: no long description (the readme)")
    elif _render(description, meta.description_content_type or "text/plain") is None:
        problems.append(f"{where}: the readme does not render as {meta.description_content_type}")
    if meta.license_expression is None:
        problems.append(f"{where}: no License-Expression")
    if not meta.license_files:
        problems.append(f"{where}: no License-File")
    if not meta.classifiers:
        problems.append(f"{where}: no Classifier")
    if not meta.project_urls:
        problems.append(f"{where}: no Project-URL")
    if meta.requires_python is None:
        problems.append(f"{where}: no Requires-Python")
    return problems


def wheel_problems(wheel: Path) -> list[str]:
    """Metadata, licence file, top-level packages and the one spec of a wheel."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        problems = metadata_problems(archive.read(meta_name), wheel.name)
        dist_info = meta_name.rsplit("/", 1)[0]
        meta = Metadata.from_email(archive.read(meta_name), validate=False)
    for licence in meta.license_files or []:
        if f"{dist_info}/licenses/{licence}" not in names:
            problems.append(f"{wheel.name}: License-File {licence} is not in the wheel")
    tops = {n.split("/", 1)[0] for n in names if "/" in n and not n.startswith(dist_info)}
    strays = sorted(t for t in tops if not t.startswith(PACKAGE_PREFIX))
    if strays:
        problems.append(f"{wheel.name}: top-level packages outside {PACKAGE_PREFIX}*: {strays}")
    specs = [n for n in names if n.rsplit("/", 1)[-1] == SPEC_FILE]
    if len(specs) != 1:
        problems.append(f"{wheel.name}: {len(specs)} copies of {SPEC_FILE} (one expected): {specs}")
    return problems


def sdist_problems(sdist: Path) -> list[str]:
    """Metadata of an sdist (its top-level PKG-INFO)."""
    with tarfile.open(sdist) as archive:
        infos = [m for m in archive.getmembers() if m.name.count("/") == 1]
        (info,) = [m for m in infos if m.name.endswith("/PKG-INFO")]
        extracted = archive.extractfile(info)
        assert extracted is not None
        return metadata_problems(extracted.read(), sdist.name)


def dist_problems(directory: Path) -> list[str]:
    """Every problem of the sdist and the wheel in ``directory`` (one of each expected)."""
    wheels, sdists = sorted(directory.glob("*.whl")), sorted(directory.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        return [
            f"{directory}: {len(wheels)} wheels and {len(sdists)} sdists (one of each expected)"
        ]
    return [*sdist_problems(sdists[0]), *wheel_problems(wheels[0])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("directory", type=Path, help="where make dist wrote the sdist and wheel")
    args = parser.parse_args(argv)
    problems = dist_problems(args.directory)
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    if problems:
        return 1
    for built in sorted(args.directory.iterdir()):
        digest = hashlib.sha256(built.read_bytes()).hexdigest()
        print(f"{built.name}: {built.stat().st_size:,} bytes, sha256 {digest}")
    print("check_dist: metadata, readme, licence, packages and the one spec are in order")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
