"""Generate, build and run the ports of ports/ (and the TypeScript port of client_kit/ports):
each from the spec as it is now, so a spec edit that breaks a port's code fails with the
compiler's message, naming the language, the file and the line.

The generated clients go into a gitignored folder of each port (regenerated when the spec, the
port's generator config or the generator changes: a stamp holds their digest); build outputs go
to a cache outside the clone (`$TOGETHER_RL_PORTS_CACHE`, default ~/.cache/together-rl-ports),
so a second run only relinks. A port whose toolchain is missing is `ci_policy.missing`: a
failure under CI=true, a visible skip elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ci_policy import missing

__all__ = [
    "CACHE",
    "REPO",
    "SPEC",
    "Port",
    "PortBuildError",
    "build_port",
    "generate",
    "openapi_generator_jar",
]

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("TOGETHER_RL_PORTS_CACHE", Path.home() / ".cache/together-rl-ports"))
SPEC = REPO / "spec" / "openapi.yaml"
_TIMEOUT_S = 1500


class PortBuildError(AssertionError):
    """A port does not build: the message names the language and each compiler error as
    `ports/<port>/<file>:<line>: <message>`, then the tool's whole output."""


@dataclass(frozen=True)
class Port:
    name: str
    language: str
    #: The port's folder, relative to the repository.
    folder: str
    #: Tools the build needs on PATH.
    tools: tuple[str, ...]
    #: OpenAPI Generator's generator name, or None when the port's own build generates.
    generator: str | None
    #: The folder (in the port) the generated client goes to.
    generated: str
    #: The build's commands, given the port's working folder.
    build: Callable[[Path], list[list[str]]]
    #: The smoke run's command line (the body file is appended), given the working folder.
    smoke: Callable[[Path], list[str]]
    #: Extra environment of the build and the run.
    env: Callable[[], dict[str, str]] = dict
    #: What the build makes (relative to the work folder): when it is there and no input changed
    #: (the spec, the port's files, the generated client), the build is skipped.
    output: str | None = None


def openapi_generator_jar() -> Path:
    try:
        import openapi_generator_cli  # noqa: F401
    except ImportError:
        missing("openapi-generator-cli is not installed: `make venv` installs the pinned one")
    return Path(str(resources.files("openapi_generator_cli") / "openapi-generator.jar"))


def _require(tools: tuple[str, ...], language: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            missing(f"{tool} not found: the {language} port cannot build (`make ports-setup`)")


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def generate(port: Port, work: Path, spec: Path = SPEC) -> bool:
    """Generate the port's client from ``spec`` into ``work/<generated>`` unless its stamp says
    it is fresh; True when it ran the generator."""
    if port.generator is None:
        return False
    jar = openapi_generator_jar()
    config = work / "openapi-generator.yaml"
    out = work / port.generated
    stamp = out / ".together-rl-stamp"
    jar_id = f"{jar.name} {jar.stat().st_size}".encode()
    wanted = _digest(spec.read_bytes(), config.read_bytes(), jar_id)
    if stamp.is_file() and stamp.read_text() == wanted:
        return False
    _require(("java",), port.language)
    shutil.rmtree(out, ignore_errors=True)
    command = ["java", "-XX:TieredStopAtLevel=1", "-jar", str(jar), "generate"]
    command += ["-g", port.generator, "-c", str(config), "-i", str(spec), "-o", str(out)]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        output = (done.stdout + done.stderr)[-6000:]
        raise PortBuildError(f"{port.language}: OpenAPI Generator refused the spec:\n{output}")
    stamp.write_text(wanted)
    return True


_LOCATION = re.compile(
    r"(?P<path>[\w./-]+\.(?:go|java|rs|ts))(?::(?P<line>\d+)(?::\d+)?|\((?P<tsline>\d+),\d+\))"
    r"(?::|\s*-->)?\s*(?P<message>.*)"
)


def _located(output: str, port: Port, work: Path) -> list[str]:
    """Each compiler error of ``output`` as `ports/<port>/<file>:<line>: <message>`."""
    found: list[str] = []
    lines = output.splitlines()
    for index, line in enumerate(lines):
        text = line.strip().removeprefix("--> ").strip()
        match = _LOCATION.match(text)
        if not match:
            continue
        path = Path(match["path"])
        if path.is_absolute():
            try:
                path = path.relative_to(work)
            except ValueError:
                continue
        message = match["message"]
        if not message and index > 0:  # rustc: the message is the line above the location
            message = lines[index - 1].strip()
        line_number = match["line"] or match["tsline"]
        found.append(f"{port.folder}/{path.as_posix()}:{line_number}: {message}")
    return found


def build_port(port: Port, work: Path | None = None, spec: Path = SPEC) -> Path:
    """Generate (if stale) and build ``port`` in ``work`` (default: the port's folder here);
    returns ``work``. Raises PortBuildError naming language, file and line."""
    work = work or REPO / port.folder
    _require(port.tools, port.language)
    generate(port, work, spec)
    stamp = work / ".build" / "inputs.sha256"
    inputs = _inputs_digest(work, spec)
    if port.output and (work / port.output).exists() and _read(stamp) == inputs:
        return work
    env = {**os.environ, **port.env(), "TOGETHER_RL_SPEC": str(spec)}
    for command in port.build(work):
        done = subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, timeout=_TIMEOUT_S
        )
        if done.returncode != 0:
            output = done.stdout + done.stderr
            errors = _located(output, port, work) or ["(no file named in the output)"]
            raise PortBuildError(
                f"{port.language} port ({port.folder}) does not build against this spec:\n"
                + "\n".join(errors)
                + f"\n--- {' '.join(command)}\n{output[-6000:]}"
            )
    stamp.parent.mkdir(exist_ok=True)
    stamp.write_text(inputs)
    return work


_NOT_INPUTS = {".build", "dist", "node_modules", "target", "Cargo.lock"}


def _inputs_digest(work: Path, spec: Path) -> str:
    files = sorted(
        p
        for p in work.rglob("*")
        if p.is_file() and not _NOT_INPUTS.intersection(p.relative_to(work).parts)
    )
    parts = [spec.read_bytes()]
    for path in files:
        parts += [str(path.relative_to(work)).encode(), path.read_bytes()]
    return _digest(*parts)


def _read(path: Path) -> str | None:
    return path.read_text() if path.is_file() else None
