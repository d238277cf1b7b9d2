"""The ports this repository builds and runs: how each is generated, built and started."""

from __future__ import annotations

from pathlib import Path

from ports_build import CACHE, Port, openapi_generator_jar

__all__ = ["GO", "JAVA", "PORTS", "RUST", "TYPESCRIPT_FETCH", "TYPESCRIPT_OPENAPI_FETCH"]


def _go_env() -> dict[str, str]:
    # Offline, from the standard library only; the compile cache outlives the clone.
    return {
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOCACHE": str(CACHE / "go-build"),
        "GOPATH": str(CACHE / "gopath"),
    }


GO = Port(
    name="go",
    language="Go",
    folder="ports/go",
    tools=("go", "java"),
    generator="go",
    generated="rlapi",
    build=lambda work: [
        ["go", "build", "-trimpath", "-o", ".build/smoke", "./cmd/smoke"],
        ["go", "build", "-trimpath", "-o", ".build/kitdriver", "./cmd/kitdriver"],
    ],
    smoke=lambda work: [str(work / ".build" / "smoke")],
    env=_go_env,
    output=".build/kitdriver",
)


def _java_classpath() -> str:
    # Jackson 2 (core, databind, annotations, jsr310) and jsr305: the classes shipped inside the
    # pinned OpenAPI Generator jar (Debian 12 has no jackson-datatype-jsr310, which the native
    # library's ApiClient registers); jakarta.annotation from Debian.
    return f"{openapi_generator_jar()}:/usr/share/java/jakarta-annotation-api.jar"


def _java_build(work: Path) -> list[list[str]]:
    sources = sorted(str(p.relative_to(work)) for p in (work / "generated" / "src").rglob("*.java"))
    sources += sorted(str(p.relative_to(work)) for p in (work / "src").rglob("*.java"))
    return [
        [
            "javac",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-J-XX:TieredStopAtLevel=1",
            "-proc:none",
            "-cp",
            _java_classpath(),
            "-d",
            ".build/classes",
            *sources,
        ],
    ]


JAVA = Port(
    name="java",
    language="Java",
    folder="ports/java",
    tools=("javac", "java"),
    generator="java",
    generated="generated",
    build=_java_build,
    smoke=lambda work: [
        "java",
        "-XX:TieredStopAtLevel=1",
        "-cp",
        f".build/classes:{_java_classpath()}",
        "smoke.Smoke",
    ],
    output=".build/classes/smoke/Smoke.class",
)


def _cargo_env() -> dict[str, str]:
    return {"CARGO_TARGET_DIR": str(CACHE / "cargo-target"), "CARGO_NET_OFFLINE": "true"}


RUST = Port(
    name="rust",
    language="Rust",
    folder="ports/rust",
    tools=("cargo", "java"),
    generator="rust",
    generated="generated",
    build=lambda work: [["cargo", "build", "--offline", "--quiet", "--bin", "smoke"]],
    smoke=lambda work: [str(CACHE / "cargo-target" / "debug" / "smoke")],
    env=_cargo_env,
)

TYPESCRIPT_FETCH = Port(
    name="typescript-fetch",
    language="TypeScript (typescript-fetch)",
    folder="ports/typescript-fetch",
    tools=("node", "npm", "java"),
    generator="typescript-fetch",
    generated="generated",
    build=lambda work: [["npm", "run", "--silent", "build"]],
    smoke=lambda work: ["node", "dist/src/smoke.js"],
    output="dist/src/smoke.js",
)

TYPESCRIPT_OPENAPI_FETCH = Port(
    name="typescript",
    language="TypeScript (openapi-typescript + openapi-fetch)",
    folder="client_kit/ports/typescript",
    tools=("node", "npm"),
    generator=None,
    generated="src",
    build=lambda work: [["npm", "run", "--silent", "build"]],
    smoke=lambda work: ["node", "dist/smoke.js"],
    output="dist/smoke.js",
)

PORTS = [GO, JAVA, RUST, TYPESCRIPT_FETCH, TYPESCRIPT_OPENAPI_FETCH]
